// E024: does every row a time_interval model emits lie inside its partition window?
//
// The model SQL must filter its rows by both placeholders of the half-open window
// [@start_date, @end_date) (spec/seed-time-interval.txt, "SQL placeholders"). This analysis
// proves each bound separately on the syntax tree; it never runs SQL and knows no types.
//
// A filter (a predicate in WHERE, HAVING, QUALIFY, or the ON of an inner or semi join) bounds:
// - the start when it is `x >= P`, `x > P`, `P <= x`, `P < x`, `x BETWEEN P AND ...` or `x = P`
//   with P the @start_date side;
// - the end when it is `x < P`, `P > x` with P the @end_date side, `x BETWEEN ... AND P` or
//   `x <= P` / `P >= x` when x is no truncation (below), or `x = P` with P the @start_date side
//   (one instant or bucket inside the window);
// where x is an expression that reads at least one column and P is the placeholder, possibly in
// parentheses and casts (CAST, TRY_CAST, SAFE_CAST, ::). The quoted form '@start_date' counts
// (placeholders.h); a placeholder inside a longer string, a comment or the SELECT list does not.
// Monotone functions: a truncation T (CAST(. AS DATE) and DATE(.) truncate to the day,
// DATE_TRUNC('unit', .) with a literal unit second..year to that unit; casts to timestamp types
// truncate nothing) keeps the order of times, so T(col) op T(P) counts like col op P, and so do
// T(col) op P and col op T(P) (col: a column through such functions). T(col) <= P (and BETWEEN
// on T(col)) does not bound the end: it lets a whole T-bucket of the next partition through.
// Different truncations on the two sides do not count. The bound is exact when T keeps the
// window's boundaries, i.e. T is at or finer than the model's grain (internal/time_order.h,
// IsExactFor); otherwise it is looser (rows outside the window pass: T(col) >= T(@start_date),
// T(col) < @end_date) or tighter (rows inside are dropped), and the comparison still counts but
// warns W025 when the grain is known.
// x fails closed when its outermost operation is no monotone time: part extraction (EXTRACT,
// DATE_PART, HOUR(), YEAR(), ...), string functions and casts to strings, unary minus, `c - x`
// and *, /, %, || or + between columns. Other expressions over columns (COALESCE,
// `x + INTERVAL ...`, AT TIME ZONE, a JSON path cast to TIMESTAMP, ...) are trusted as the time,
// but only with a P that is the placeholder itself or a truncation of it.
// Semi joins written as subqueries: `x IN (SELECT c FROM ...)` bounds what c's values carry, and
// `EXISTS (SELECT ... WHERE c = t.x ...)` (a top-level equality conjunct, t a name the subquery's
// FROM does not define) bounds what c carries; c carries a bound when the subquery filters c
// itself or reads it unchanged from a CTE or derived table whose output column c is bounded
// (internal/column_bounds.h). NOT IN and NOT EXISTS bound nothing.
// `a AND b` bounds what either side bounds; `a OR b` only what every branch bounds; NOT,
// NOT BETWEEN, IN lists, CASE, other function calls, IS and everything else bound nothing.
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
// never contribute rows, so they never unbound anything; they bound only as semi joins (above).
//
// Warnings: W024, `BETWEEN @start_date AND @end_date` in a counted filter includes the end
// instant, so a row at exactly @end_date lands in two partitions. W025, a counted comparison
// truncates coarser than the model's grain (only with a grain): its bound is looser or tighter
// than the window (one warning per comparison; looser when it is both).
//
// All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/partition.h"
#include "sql/ast.h"
#include "sql/dialect.h"

namespace strata::analysis {

struct BoundsDiagnostic {
  std::string code;     // "E024" for a missing bound; "W024" (inclusive end) or "W025" (a
                        // truncation coarser than the grain) for a warning
  std::string message;  // one line: what is missing and where the unbounded rows come from
  int line = 0;         // where it points (1-based; 0 when unknown)
  int column = 0;
  std::string caret;  // the source line and a caret under `column` (sql::RenderCaret); may
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

// Analyzes one parsed query statement. `grain` is the model's granularity; without it (nullopt)
// no W025 is reported. The verdicts do not depend on it.
BoundsReport AnalyzeBounds(const sql::Statement& statement,
                           std::optional<Grain> grain = std::nullopt);

// Fail-closed form for a parsed script: anything but exactly one statement makes both bounds
// unbounded with an E024 diagnostic pointing at the second statement (or saying there is none).
BoundsReport AnalyzeBounds(const std::vector<sql::StatementPtr>& script,
                           std::optional<Grain> grain = std::nullopt);

// Parses `sql` as a script and analyzes it; a parse error makes both bounds unbounded with an
// E024 diagnostic carrying the parse error's message and position.
BoundsReport AnalyzeModelSql(std::string_view sql, sql::Dialect dialect,
                             std::optional<Grain> grain = std::nullopt);

// The report as text, one line per verdict and warning (used by golden tests and logs):
//   start: bounded | start: unbounded at L:C: message
//   end: bounded   | end: unbounded at L:C: message
//   warning at L:C: message
std::string FormatBoundsReport(const BoundsReport& report);

}  // namespace strata::analysis
