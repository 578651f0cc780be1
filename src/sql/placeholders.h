// @name placeholders in model SQL (e.g. @start_date, @end_date of a time_interval run).
//
// A placeholder is a kPlaceholder token (see lexer.h): '@' then [A-Za-z_] then identifier
// characters. So "@start_date_x" is the placeholder "start_date_x", never "start_date" followed
// by "_x", and text inside comments, dollar-quoted strings and other string literals is never a
// placeholder. One quoted form is also a placeholder: a plain single-quoted string literal whose
// whole text is '@name' (e.g. the 13 bytes '@start_date'), so that `WHERE ts >= '@start_date'`
// works; '@start_date x', E'@start_date' and "@start_date" are ordinary strings.
//
// All functions are pure and thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/dialect.h"

namespace strata::sql {

using PlaceholderValues = std::map<std::string, std::string, std::less<>>;

// Replaces every placeholder (bare or quoted form) whose name is a key of `values` by the
// mapped SQL text, copied verbatim (the caller renders it, e.g. with QuoteString). Names are
// keys without the '@' and match case-sensitively. Placeholders not in `values` and every other
// byte are kept exactly.
// Errors: kSqlLex when `sql` does not lex (see Lex).
Result<std::string> SubstitutePlaceholders(std::string_view sql, Dialect dialect,
                                           const PlaceholderValues& values);

// As above, but a quoted-form placeholder whose name is a key of `quoted_values` is replaced by
// that text instead (e.g. a typed literal for `@start_date` and a string for '@start_date').
Result<std::string> SubstitutePlaceholders(std::string_view sql, Dialect dialect,
                                           const PlaceholderValues& values,
                                           const PlaceholderValues& quoted_values);

struct PlaceholderUse {
  std::string name;  // without the '@'
  int line;          // of the first use, 1-based
  int column;        // of the first use (the '@' or the opening quote), 1-based bytes
};

// The distinct placeholder names in `sql` (bare or quoted form), in order of first appearance.
// Errors: kSqlLex when `sql` does not lex.
Result<std::vector<PlaceholderUse>> FindPlaceholders(std::string_view sql, Dialect dialect);

}  // namespace strata::sql
