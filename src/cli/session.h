// What every project command starts with: the loaded project, the chosen warehouse's
// configuration and the state store. Errors are printed here; callers just return the code.
#pragma once

#include <memory>
#include <optional>

#include "cli/commands.h"
#include "project/project.h"
#include "semantic/model.h"
#include "sql/dialect.h"
#include "state/state_store.h"

namespace strata::cli {

struct Session {
  project::Project project;
  project::WarehouseConfig warehouse;
  std::unique_ptr<state::StateStore> store;
};

// The loaded project and the warehouse chosen by --warehouse.
struct LoadedProject {
  project::Project project;
  project::WarehouseConfig warehouse;
};

// Loads the project and selects the warehouse; prints the load's warnings (stderr, unless --quiet)
// and every error, and returns nullopt on failure.
std::optional<LoadedProject> LoadProjectAndWarehouse(const CommonOptions& common);

// The project, the selected warehouse and its semantic model.
struct LoadedModel {
  project::Project project;
  project::WarehouseConfig warehouse;
  sql::Dialect dialect = sql::Dialect::kDuckDb;  // of the selected warehouse
  semantic::SemanticModel model;
};

// LoadProjectAndWarehouse, then the semantic model; prints every error and returns nullopt on
// failure.
std::optional<LoadedModel> LoadModel(const CommonOptions& common);

// LoadProjectAndWarehouse, then opens the state store; prints every error and returns nullopt
// on failure. A command that only reads the store passes kRead: a store this user may not write
// is then opened read-only (state::StateStore::OpenForReading).
enum class StoreAccess { kWrite, kRead };
std::optional<Session> OpenSession(const CommonOptions& common,
                                   StoreAccess access = StoreAccess::kWrite);

}  // namespace strata::cli
