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

// Loads the project and opens its state store; prints every error and returns nullopt on failure.
std::optional<Session> OpenSession(const CommonOptions& common);

}  // namespace strata::cli
