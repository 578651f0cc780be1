// What the query port may tell a token holder, and what serve's own log may keep
// (spec/semantic.md "Serving", [serve] expose_sql).
//
// Without expose_sql, no answer, error, hint or meta document of the query port names a physical
// table or column, holds SQL text or a row filter's values. Our own errors name members, never
// how they are stored; a warehouse's do (its message quotes tables, columns and the SQL it ran,
// the role's row filter included), so a warehouse failure is answered with its code, the query's
// members and a reference, and its text goes to serve's log under that reference. The log never
// holds a row filter's values either: every role's are cut out of the text it keeps.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "semantic/model.h"

namespace strata::serve {

// Whether `error` came from the warehouse (or opening it), whose text may name tables, columns,
// SQL and values.
bool IsWarehouseError(const Error& error);

// The text values of every row filter of every role of `model`: a warehouse's message may quote
// one as data whichever role's query failed.
std::vector<std::string> RowFilterValues(const semantic::SemanticModel& model);

// `text` for serve's log: a DuckDB message's SQL excerpt (from "\nLINE ") left out, and every
// occurrence of a non-empty value of `secrets` replaced by "<redacted>".
std::string ForTheLog(std::string_view text, const std::vector<std::string>& secrets);

// The error a token holder sees instead of the warehouse failure `error`: its code, the members
// of `query_json` (the request's body; none when it does not parse) and `reference`, the log
// line's. No notes, no hint from the warehouse.
Error Concealed(const Error& error, std::string_view query_json, std::string_view reference);

}  // namespace strata::serve
