#include "project/project.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "base/ascii.h"
#include "project/internal/did_you_mean.h"
#include "project/internal/loaders.h"

namespace strata::project {

std::string_view StrategyName(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kFullRefresh:
      return "full_refresh";
    case StrategyKind::kView:
      return "view";
    case StrategyKind::kTimeInterval:
      return "time_interval";
    case StrategyKind::kIncremental:
      return "incremental";
  }
  return "full_refresh";
}

namespace {

std::string Lower(std::string_view text) { return AsciiLowered(text); }

}  // namespace

void Project::IndexModels() {
  by_name_.clear();
  by_lower_name_.clear();
  for (std::size_t i = 0; i < models.size(); ++i) {
    by_name_.emplace(models[i].name, i);
    by_lower_name_.emplace(Lower(models[i].name), i);
  }
}

const Model* Project::Find(std::string_view name) const {
  if (!by_name_.empty()) {
    auto found = by_name_.find(std::string(name));
    return found == by_name_.end() ? nullptr : &models[found->second];
  }
  for (const Model& model : models) {
    if (model.name == name) return &model;
  }
  return nullptr;
}

const Model* Project::FindLowerCase(std::string_view lower_name) const {
  if (!by_lower_name_.empty()) {
    auto found = by_lower_name_.find(std::string(lower_name));
    return found == by_lower_name_.end() ? nullptr : &models[found->second];
  }
  for (const Model& model : models) {
    if (Lower(model.name) == lower_name) return &model;
  }
  return nullptr;
}

LoadOutcome LoadProject(const std::filesystem::path& root) {
  LoadOutcome outcome;
  const std::filesystem::path absolute = std::filesystem::absolute(root).lexically_normal();
  std::optional<ProjectConfig> config = LoadProjectConfig(absolute, &outcome.errors);
  if (!config) return outcome;
  std::vector<Model> models = LoadModels(*config, &outcome.errors, &outcome.warnings);
  if (!outcome.errors.empty()) return outcome;
  models = OrderByDependencies(std::move(models), &outcome.errors);
  if (!outcome.errors.empty()) return outcome;
  outcome.project.emplace();
  outcome.project->config = std::move(*config);
  outcome.project->models = std::move(models);
  outcome.project->IndexModels();
  return outcome;
}

std::string DuckDbDatabaseName(const WarehouseConfig& config) {
  if (config.path.empty() || config.path == ":memory:") return "memory";
  std::string name = std::filesystem::path(config.path).filename().string();
  return name.substr(0, name.find('.'));
}

Result<WarehouseConfig> SelectWarehouse(const ProjectConfig& config, std::string_view name) {
  if (name.empty() || name == "default") return config.warehouse;
  auto found = config.warehouses.find(std::string(name));
  if (found != config.warehouses.end()) return found->second;
  std::vector<std::string> names = {"default"};
  for (const auto& [key, value] : config.warehouses) names.push_back(key);
  return MakeError(ErrorCode::kConfig, fmt::format("unknown warehouse \"{}\"", name),
                   SuggestionHint(name, names));
}

namespace {

// --filter matched no model (a typo in a label selects nothing, which a run would report as a
// success): the error lists the values each filtered key has in the project.
Error NoModelLabelled(const Project& project, const std::vector<std::string>& names,
                      const std::vector<std::pair<std::string, std::string>>& labels) {
  std::string wanted, known;
  for (const auto& [key, value] : labels) {
    wanted += fmt::format("{}{}={}", wanted.empty() ? "" : ", ", key, value);
    std::set<std::string> values;
    for (const Model& model : project.models) {
      if (auto found = model.labels.find(key); found != model.labels.end()) {
        values.insert(found->second);
      }
    }
    std::string listed;
    for (const std::string& v : values) listed += (listed.empty() ? "" : ", ") + v;
    known += fmt::format("{}{}: {}", known.empty() ? "" : "; ", key,
                         values.empty() ? "no model has this label" : listed);
  }
  return MakeError(
      ErrorCode::kModelNotFound,
      fmt::format("no {}model has the label(s) {}", names.empty() ? "" : "selected ", wanted),
      fmt::format("the labels in use ({}); a model's labels are `labels = {{ key = "
                  "\"value\" }}` in its .toml",
                  known));
}

}  // namespace

Result<std::vector<const Model*>> SelectModels(const Project& project,
                                               const std::vector<std::string>& names,
                                               const std::vector<std::string>& filters) {
  std::vector<std::string> all;
  for (const Model& model : project.models) all.push_back(model.name);
  for (const std::string& name : names) {
    if (project.Find(name) == nullptr) {
      return MakeError(ErrorCode::kModelNotFound, fmt::format("no model named \"{}\"", name),
                       SuggestionHint(name, all));
    }
  }
  std::vector<std::pair<std::string, std::string>> labels;
  for (const std::string& filter : filters) {
    const std::size_t equals = filter.find('=');
    if (equals == std::string::npos || equals == 0) {
      return MakeError(ErrorCode::kUsage, fmt::format("invalid --filter \"{}\"", filter),
                       "use --filter key=value, e.g. --filter client=acme");
    }
    labels.emplace_back(filter.substr(0, equals), filter.substr(equals + 1));
  }
  std::vector<const Model*> selected;
  for (const Model& model : project.models) {
    const bool named =
        names.empty() || std::find(names.begin(), names.end(), model.name) != names.end();
    bool labelled = true;
    for (const auto& [key, value] : labels) {
      auto found = model.labels.find(key);
      labelled = labelled && found != model.labels.end() && found->second == value;
    }
    if (named && labelled) selected.push_back(&model);
  }
  if (selected.empty() && !labels.empty()) return NoModelLabelled(project, names, labels);
  return selected;
}

}  // namespace strata::project
