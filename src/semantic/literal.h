// Filter values as typed SQL literals (DESIGN.md: "every value from a user is a typed literal
// rendered by the dialect"). Nothing a user wrote reaches SQL without passing through here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"
#include "semantic/model.h"
#include "sql/dialect.h"

namespace strata::semantic {

// Whether `text` is a number literal: -?digits[.digits][(e|E)[+-]?digits], at most 40 bytes.
bool IsNumberText(std::string_view text);

// "2026-01-01", "2026-01-01T10:00:00", "2026-01-01 10:00:00" (either with a trailing Z) as UTC
// seconds; nullopt for anything else (including impossible dates such as 2026-02-30). Read by
// strata::ParseTimeText (base/time.h), which owns the strictness; this picks the shapes.
std::optional<UnixSeconds> ParseTimeText(std::string_view text);
// The same shapes read in `zone`: a text with a trailing Z is UTC; any other is a wall-clock
// time in `zone`, the first instant reading it or later (TimeZone::FirstInstantAtOrAfter: the
// first of a repeated hour, the transition for a skipped one). For UTC, exactly the above.
std::optional<UnixSeconds> ParseTimeText(std::string_view text, const TimeZone& zone);

// The literal for `value` compared with a member of `type`:
//   string:  the dialect's string literal (sql::QuoteString) of the text, whatever its kind
//            (`code` when the text contains a NUL byte);
//   number:  the text when IsNumberText and it reads as a finite double, else `code` ("not a
//            number"; "out of range" for 1e999 or 1e-999, which DuckDB reads as infinity or
//            zero and PostgreSQL cannot compare with a double);
//   boolean: TRUE / FALSE for true/false, else `code`;
//   time:    TIMESTAMP 'YYYY-MM-DD HH:MM:SS' of the UTC instant ParseTimeText reads in `zone`,
//            else `code`.
Result<std::string> RenderLiteral(const FilterValue& value, DimensionType type,
                                  sql::Dialect dialect, ErrorCode code,
                                  const TimeZone& zone = TimeZone::Utc());

}  // namespace strata::semantic
