// Bounds carried by one column of a subquery, for semi joins written as `x IN (subquery)` and
// `EXISTS (subquery)` (the rules are listed in analysis/bounds.h). Private to analysis/.
//
// A column is bounded when every non-NULL value of it lies in the window (NULL never matches an
// IN or an equality, so null-extended rows do not matter here): the SELECT that outputs it filters
// that very column (a comparison whose time side is the column, in WHERE, HAVING, QUALIFY or an
// inner or semi join's ON), or the column is read unchanged from a CTE or derived table whose
// output column is bounded. Anything else (set operations, expressions, a CTE read while it is
// being computed (a recursive self-reference), columns of tables) is not.
#pragma once

#include <vector>

#include "analysis/internal/filter_bounds.h"
#include "sql/ast.h"

namespace strata::analysis::internal {

// The bounds of the one output column of `query` (the subquery of `x IN (...)`): {} unless its
// body is a SELECT of exactly one item, a column reference. Context: where the IN is.
FilterBounds InSubqueryColumnBounds(const sql::Query& query, const FilterContext& context);

// An outer column that EXISTS (query) equates with a bounded column of the subquery.
struct Correlation {
  ColumnName outer;
  FilterBounds bounds;
};

// The correlations of `EXISTS (query)`: top-level `inner = outer` conjuncts of the subquery's
// WHERE, where `outer` is qualified by a name the subquery's FROM does not define and `inner`
// is unqualified or qualified by one it does. Context: where the EXISTS is.
std::vector<Correlation> ExistsCorrelations(const sql::Query& query, const FilterContext& context);

}  // namespace strata::analysis::internal
