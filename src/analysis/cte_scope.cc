#include "analysis/internal/cte_scope.h"

#include "base/ascii.h"

namespace strata::analysis::internal {

std::optional<FoundCte> FindCte(const CteScope* scope, std::string_view name) {
  for (; scope != nullptr; scope = scope->parent) {
    for (std::size_t i = scope->visible; i-- > 0;) {
      const sql::Cte& cte = (*scope->ctes)[i];
      if (!EqualsIgnoreAsciiCase(cte.name.name, name)) continue;
      const CteScope body{scope->parent, scope->ctes, scope->recursive ? scope->ctes->size() : i,
                          scope->recursive};
      return FoundCte{&cte, body};
    }
  }
  return std::nullopt;
}

}  // namespace strata::analysis::internal
