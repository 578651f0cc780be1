// The CTEs a query body can see, for the bound analysis. Private to analysis/.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "sql/ast.h"

namespace strata::analysis::internal {

// One frame per WITH, innermost first. Frames live on the stack of the analysis that walks the
// query; a frame never outlives the query it points into.
struct CteScope {
  const CteScope* parent = nullptr;
  const std::vector<sql::Cte>* ctes = nullptr;
  std::size_t visible = 0;  // ctes[0, visible) are in scope
  bool recursive = false;   // WITH RECURSIVE: each CTE sees all of them
};

// `query`'s own WITH as a frame over `parent` (may be null).
inline CteScope ScopeOf(const sql::Query& query, const CteScope* parent) {
  return CteScope{parent, &query.ctes, query.ctes.size(), query.recursive};
}

struct FoundCte {
  const sql::Cte* cte = nullptr;
  CteScope body_scope;  // what the CTE's own query sees: the CTEs before it (all under RECURSIVE)
};

// The CTE a one-part table name reads: lookup by name, case-insensitive, innermost WITH first,
// the last same-named CTE of a WITH first. nullopt when no visible CTE has that name.
std::optional<FoundCte> FindCte(const CteScope* scope, std::string_view name);

}  // namespace strata::analysis::internal
