// What one filter predicate bounds (see bounds.h for the rules). Private to analysis/.
#pragma once

#include <vector>

#include "sql/ast.h"

namespace strata::analysis::internal {

struct FilterBounds {
  bool start = false;
  bool end = false;
};

// The bounds `filter` proves for the rows that pass it. Appends the span of every
// `BETWEEN @start_date AND @end_date` that contributes to `inclusive_ends`.
FilterBounds BoundsOf(const sql::Expr& filter, std::vector<sql::Span>* inclusive_ends);

}  // namespace strata::analysis::internal
