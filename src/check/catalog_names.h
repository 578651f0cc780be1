// A model's catalogs against the warehouse it is checked, planned or run for. On DuckDB a
// catalog names an attached database, and the only one a warehouse has is its own file's
// (project::DuckDbDatabaseName): a `[target]` or `[[sources]]` catalog naming another would be
// resolved elsewhere or fail mid-run, so it is an error here, before anything runs. Other
// warehouse types resolve catalogs on the server: nothing to check.
#pragma once

#include <vector>

#include "check/model_check.h"
#include "project/project.h"

namespace strata::check {

// One Config diagnostic per catalog of `model` (its target, then its sources) that `warehouse`
// cannot resolve, at the `catalog` line of the model's TOML file, with a hint naming the database.
std::vector<Diagnostic> CheckCatalogNames(const project::Project& project,
                                          const project::Model& model,
                                          const project::WarehouseConfig& warehouse);

}  // namespace strata::check
