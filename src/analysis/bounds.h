// E024: does every row a time_interval model emits lie inside its partition window?
//
// The model SQL must filter its rows by both placeholders of the half-open window
// [@start_date, @end_date) (spec/seed-time-interval.txt, "SQL placeholders"). This analysis
// proves each bound separately on the syntax tree; it never runs SQL and knows no types.
//
// A filter (a predicate in WHERE, HAVING, QUALIFY, or the ON of an inner or semi join) bounds:
// - the start when it is `x >= @start_date`, `x > @start_date`, `@start_date <= x`,
//   `@start_date < x`, `x BETWEEN @start_date AND ...` or `x = @start_date`;
// - the end when it is `x < @end_date`, `x <= @end_date`, `@end_date > x`, `@end_date >= x`,
//   `x BETWEEN ... AND @end_date` or `x = @start_date` (a single instant inside the window);
// where x is an expression that reads at least one column and the placeholder may be wrapped in
// parentheses and casts (CAST, TRY_CAST, SAFE_CAST, ::). The quoted form '@start_date' counts
// (placeholders.h); a placeholder inside a longer string, a comment or the SELECT list does not.
// `a AND b` bounds what either side bounds; `a OR b` only what every branch bounds; NOT,
// NOT BETWEEN, [NOT] IN, EXISTS, CASE, function calls, IS and everything else bound nothing.
//
// Rows are bounded when they pass such a filter or come only from bounded rows:
// - a SELECT is bounded by its own filters or else by its FROM; no FROM is unbounded;
// - tables and table functions (GENERATE_SERIES, range, read_parquet, UNNEST, ...) and VALUES
//   are unbounded; a derived table or a CTE is as bounded as its query; a CTE counts only where
//   the query reads it (lookup is by name, case-insensitive, innermost WITH first; a CTE sees
//   the CTEs before it, and all of its WITH's CTEs under RECURSIVE); a recursive self-reference
//   is unbounded;
// - inner, cross, comma, natural, ASOF and semi joins are bounded when either side is (or by
//   an inner/semi join's ON); LEFT and ANTI joins by their left side only; RIGHT joins by their
//   right side only; FULL and POSITIONAL joins need both sides; PIVOT/UNPIVOT as their source;
// - UNION [ALL] needs every branch bounded (or a bounded query around it); INTERSECT needs one
//   bounded side; EXCEPT / MINUS a bounded left side.
// Subqueries in the SELECT list, in WHERE (IN / EXISTS / scalar) and elsewhere in expressions
// never contribute rows, so they neither bound nor unbound anything.
//
// Warning: `BETWEEN @start_date AND @end_date` in a counted filter includes the end instant, so
// a row at exactly @end_date lands in two partitions.
//
// All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/ast.h"
#include "sql/dialect.h"

namespace strata::analysis {

struct BoundsDiagnostic {
  std::string code;     // "E024" for a missing bound, "W024" for the inclusive-end warning
  std::string message;  // one line: what is missing and where the unbounded rows come from
  int line = 0;         // where it points (1-based; 0 when unknown)
  int column = 0;
  std::string caret;    // the source line and a caret under `column` (sql::RenderCaret); may
                        // be empty
};

struct BoundVerdict {
  bool bounded = false;
  std::optional<BoundsDiagnostic> diagnostic;  // set exactly when !bounded
};

struct BoundsReport {
  BoundVerdict start;  // every row is >= @start_date
  BoundVerdict end;    // every row is < @end_date
  std::vector<BoundsDiagnostic> warnings;
  bool ok() const { return start.bounded && end.bounded; }
};

// Analyzes one parsed query statement.
BoundsReport AnalyzeBounds(const sql::Statement& statement);

// Fail-closed form for a parsed script: anything but exactly one statement makes both bounds
// unbounded with an E024 diagnostic pointing at the second statement (or saying there is none).
BoundsReport AnalyzeBounds(const std::vector<sql::StatementPtr>& script);

// Parses `sql` as a script and analyzes it; a parse error makes both bounds unbounded with an
// E024 diagnostic carrying the parse error's message and position.
BoundsReport AnalyzeModelSql(std::string_view sql, sql::Dialect dialect);

// The report as text, one line per verdict and warning (used by golden tests and logs):
//   start: bounded | start: unbounded at L:C: message
//   end: bounded   | end: unbounded at L:C: message
//   warning at L:C: message
std::string FormatBoundsReport(const BoundsReport& report);

}  // namespace strata::analysis
