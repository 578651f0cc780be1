// Window separability: may one statement over several partitions' windows stand for one
// statement per window?
//
// A time_interval model's SELECT is window-separable when, for any two touching windows W1 and
// W2 aligned to the model's grain, its rows over W1 ∪ W2 are exactly (as a multiset) its rows
// over W1 plus its rows over W2, and each row's time column lies in the partition whose window
// produced it. Then writing a run of partitions with one SELECT compiled for their whole range
// gives every partition the rows, row count and checksum that one SELECT per partition gives
// (docs/batching.md, "Fused statements").
//
// Proven (not decided: false means "not proven", never "not separable") for this shape only:
// - one SELECT: no WITH, set operation, VALUES, subquery or derived table anywhere (the tokens
//   SELECT once, and no '(' opening SELECT, WITH, FROM, VALUES or TABLE); no DISTINCT on the
//   rows, TOP, LIMIT, OFFSET or FETCH; no window function or named window (OVER, WINDOW,
//   QUALIFY), sampling, LATERAL, PIVOT/UNPIVOT, ASOF/POSITIONAL joins or grouping sets (ROLLUP,
//   CUBE, GROUPING): none of these words appears anywhere, even as a name;
// - its FROM reads no placeholder, so the joined rows do not depend on the window; @start_date
//   and @end_date appear exactly once each (bare or quoted), no other placeholder at all, as two
//   top-level conjuncts of the WHERE: `x >= @start_date` (or `@start_date <= x`) and
//   `x < @end_date` (or `@end_date > x`), x the same column on both (same name parts, byte for
//   byte), or DATE_TRUNC of x to a unit that divides the grain (never a cast of x: a string x
//   would be bounded as a time and stored, guarded and deleted as text), and the placeholders
//   bare or cast to DATE, TIMESTAMP or TIMESTAMPTZ. So a row passes the filter of W1 ∪ W2
//   exactly when it passes W1's or W2's;
// - no `*` in the SELECT list, and every item aliased or a column or an expression (whose
//   name DuckDB derives from its text): so the item named `time_column` is the one stored as
//   the time column. That item is x itself or DATE_TRUNC('unit', x) with a unit that divides
//   the grain: a row lands in the partition of the x it came from. (Not a cast: CAST(x AS DATE)
//   also takes a string x, which the window's bounds compare as text; DATE_TRUNC does not.)
// - the grain is a day, a month or a year: a DATE x compared with an hour's bounds is compared
//   with its day, and the proof does not know x's type;
// - with GROUP BY (or HAVING): one GROUP BY item (by expression, by ordinal, or GROUP BY ALL over
//   the time column's item) is x or such a DATE_TRUNC of it, so no group spans two partitions and
//   aggregates and HAVING see one partition's rows either way;
//   without: every row is computed from one input row: every name followed by '(' is a scalar
//   function of a fixed list, not qualified (no aggregate can hide behind an unknown name or a
//   macro) or a keyword. COLUMNS(...) and CURRENT_QUERY never appear.
//
// The proof takes every unqualified name of that list, and every name with GROUP BY, for the
// warehouse's built-in: a user's function or macro of that name (DuckDB resolves one in the
// current schema before its built-ins) could hide a window function or an aggregate. So a caller
// that runs fused statements also checks CalledNames against the functions the warehouse's users
// defined (Connection::UserFunctionNames) and fuses only when none is called.
//
// Pure and thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/partition.h"
#include "sql/dialect.h"

namespace strata::analysis {

// True when the model SQL `sql` (placeholders not substituted, references not rewritten) is
// proven window-separable for a model whose partitions are `grain` windows of `time_column`.
// False for SQL that does not lex or parse.
bool ProveWindowSeparable(std::string_view sql, sql::Dialect dialect, std::string_view time_column,
                          Grain grain);

// The names `sql` calls: every name followed by '(' (trivia between them allowed), the last
// part of a qualified one, a quoted one unquoted, in lower case (DuckDB's function names are
// case-insensitive); keywords and type names before '(' (CAST, DECIMAL, IN) are included.
// Sorted, without duplicates; empty for SQL that does not lex.
std::vector<std::string> CalledNames(std::string_view sql, sql::Dialect dialect);

}  // namespace strata::analysis
