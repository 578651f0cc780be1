// What one filter predicate bounds (see bounds.h for the rules). Private to analysis/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/internal/cte_scope.h"
#include "analysis/internal/time_order.h"
#include "base/partition.h"
#include "sql/ast.h"

namespace strata::analysis::internal {

struct FilterBounds {
  bool start = false;
  bool end = false;
};

enum class Looseness {
  kLooser,   // rows outside the window can pass
  kTighter,  // rows inside the window can be dropped
};

// A comparison counted as a bound whose truncation is coarser than the model's grain (W025).
struct CoarseBound {
  sql::Span span;
  WindowEdge edge = WindowEdge::kStart;  // the placeholder compared
  TimeUnit unit = TimeUnit::kDay;        // the coarse truncation
  Looseness looseness = Looseness::kLooser;
};

// What the analysis of filters found on the way, shared by every filter of one statement. The
// same filter can be analyzed more than once (a CTE read as rows and through IN): readers
// deduplicate by span.
struct FilterFindings {
  std::vector<sql::Span> inclusive_ends;      // counted `BETWEEN @start_date AND @end_date` (W024)
  std::vector<sql::Span> inclusive_compares;  // counted `<column> <= @end_date` (W024)
  std::vector<CoarseBound> coarse_bounds;     // W025
  // Memo of output-column bounds: (query, lower-case column name) -> bounds.
  std::map<std::pair<const sql::Query*, std::string>, FilterBounds> output_columns;
};

struct FilterContext {
  const CteScope* scope = nullptr;     // the CTEs visible where the filter is (may be null)
  std::optional<Grain> grain;          // the model's; nullopt: unknown, so no CoarseBound
  FilterFindings* findings = nullptr;  // REQUIRES: not null
};

// The one column a column-restricted analysis is about (`x IN (SELECT c ...)` asks for c).
struct ColumnTarget {
  ColumnName column;
  bool single_relation = false;  // the SELECT reads one relation: `t.c` and `c` are the same
  bool Matches(const ColumnName& other) const;
};

// The bounds `filter` proves for the rows that pass it; with `target`, for the values of that
// column alone (only comparisons whose time side is that column, through truncations, count).
// Appends findings to context.findings.
FilterBounds BoundsOf(const sql::Expr& filter, const FilterContext& context,
                      const ColumnTarget* target = nullptr);

}  // namespace strata::analysis::internal
