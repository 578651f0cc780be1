// The pieces of LoadProject, one file each. Each appends its problems to `errors`.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "project/project.h"

namespace strata::project {

std::optional<ProjectConfig> LoadProjectConfig(const std::filesystem::path& root,
                                               std::vector<Error>* errors);
// Loads models/*.toml with their .sql; a .sql without a .toml is a W031 warning.
std::vector<Model> LoadModels(const ProjectConfig& config, std::vector<Error>* errors,
                              std::vector<Error>* warnings);
// Orders `models` so each comes after its dependencies; records unknown dependencies and cycles.
std::vector<Model> OrderByDependencies(std::vector<Model> models, std::vector<Error>* errors);

}  // namespace strata::project
