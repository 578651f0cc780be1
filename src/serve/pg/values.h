// Values on the SQL port's wire (docs/sql-port.md, "Types"): the text and binary formats of the
// types the port sends and accepts (int2/4/8, float4/8, numeric, text, bool, date, timestamp,
// timestamptz), as PostgreSQL's send/recv functions define them (src/backend/utils/adt).
//
// All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "serve/pg/pg_types.h"

namespace strata::serve::pg {

// A number's text ("1e-05", "-12.50", "3") as a plain decimal ("0.00001", "-12.50", "3");
// nullopt when it is not a decimal number.
std::optional<std::string> PlainDecimal(std::string_view number);

// Whether the port sends `type` in binary when a client asks (Bind's result formats): the
// numbers, bool, date, timestamp(tz) and the text types. Others (arrays, regclass, interval,
// bytea, time: catalog columns) are sent as text, and their RowDescription says so.
bool HasBinaryForm(PgType type);

// The binary send format of a text value of `type`. Types without a binary form here (and text
// types) are sent as their UTF-8 text, which is their binary form. Errors: kInternal when `text`
// is not a value of `type`.
Result<std::string> BinaryFromText(std::string_view text, PgType type);

// A parameter sent in binary (Bind with format 1) as its text form, for `type` (the Parse's
// declared type, else what the translation or the catalog inferred). Errors:
// kProtocolViolation (08P01) for a value whose length does not fit the type, kSqlUnsupported
// for a type with no binary form here.
Result<std::string> TextFromBinary(std::string_view bytes, PgType type);

}  // namespace strata::serve::pg
