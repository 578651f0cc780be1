#include "cli/session.h"

#include "cli/render.h"
#include "semantic/loader.h"
#include "warehouse/from_config.h"

namespace strata::cli {

std::optional<LoadedProject> LoadProjectAndWarehouse(const CommonOptions& common) {
  project::LoadOutcome outcome = project::LoadProject(common.project_dir);
  PrintWarnings(outcome.warnings, common.quiet);
  if (!outcome.project) {
    PrintErrors(outcome.errors, common.output);
    return std::nullopt;
  }
  Result<project::WarehouseConfig> warehouse =
      project::SelectWarehouse(outcome.project->config, common.warehouse);
  if (!warehouse.ok()) {
    PrintError(warehouse.error(), common.output);
    return std::nullopt;
  }
  return LoadedProject{std::move(*outcome.project), std::move(*warehouse)};
}

std::optional<LoadedModel> LoadModel(const CommonOptions& common) {
  std::optional<LoadedProject> loaded = LoadProjectAndWarehouse(common);
  if (!loaded) return std::nullopt;
  Result<sql::Dialect> dialect = warehouse::DialectOf(loaded->warehouse);
  if (!dialect.ok()) {
    PrintError(dialect.error(), common.output);
    return std::nullopt;
  }
  semantic::SemanticLoadOutcome semantic =
      semantic::LoadProjectSemanticModel(loaded->project.config, *dialect);
  if (!semantic.model) {
    PrintErrors(semantic.errors, common.output);
    return std::nullopt;
  }
  return LoadedModel{std::move(loaded->project), std::move(loaded->warehouse), *dialect,
                     std::move(*semantic.model)};
}

std::optional<Session> OpenSession(const CommonOptions& common, StoreAccess access) {
  std::optional<LoadedProject> loaded = LoadProjectAndWarehouse(common);
  if (!loaded) return std::nullopt;
  const std::string path = loaded->project.config.state_path.string();
  Result<std::unique_ptr<state::StateStore>> store = access == StoreAccess::kRead
                                                         ? state::StateStore::OpenForReading(path)
                                                         : state::StateStore::Open(path);
  if (!store.ok()) {
    PrintError(store.error(), common.output);
    return std::nullopt;
  }
  return Session{std::move(loaded->project), std::move(loaded->warehouse),
                 std::move(store).value()};
}

}  // namespace strata::cli
