// What every project command starts with: the loaded project, the chosen warehouse's
// configuration and the state store. Errors are printed here; callers just return the code.
#pragma once

#include <memory>
#include <optional>

#include "cli/commands.h"
#include "project/project.h"
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

// LoadProjectAndWarehouse, then opens the state store; prints every error and returns nullopt
// on failure.
std::optional<Session> OpenSession(const CommonOptions& common);

}  // namespace strata::cli
