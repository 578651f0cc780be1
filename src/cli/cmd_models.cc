// strata models: the project's models as a document (targets, dependencies, strategies), so an
// orchestrator builds its asset graph from strata's own reading of the project, not from the TOML.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"

namespace strata::cli {
namespace {

using nlohmann::json;

json NullIfEmpty(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json ObjectRefJson(const project::ObjectName& name) {
  json key = json::array();
  for (const std::string* part : {&name.catalog, &name.schema, &name.table}) {
    if (!part->empty()) key.push_back(*part);
  }
  return json{{"catalog", NullIfEmpty(name.catalog)},
              {"schema", NullIfEmpty(name.schema)},
              {"table", name.table},
              {"asset_key", key}};
}

json TimeIntervalJson(const project::TimeIntervalConfig& config) {
  return json{{"granularity", GrainName(config.granularity)},
              {"time_column", config.time_column},
              {"first_partition",
               config.first_partition ? json(config.first_partition->ToString()) : json(nullptr)},
              {"lookback", config.lookback},
              {"batch_size", config.batch_size},
              {"timezone", config.zone.name()},
              {"naive_time", config.naive_time == project::NaiveTime::kLocal ? "local" : "utc"},
              // A zoned model's hourly keys end with their UTC offset ("2026-11-01T01-04:00").
              {"key_format",
               std::string(GrainFormat(config.granularity)) +
                   (config.granularity == Grain::kHour && !config.zone.is_utc() ? "%:z" : "")}};
}

json ModelJson(const project::Model& model) {
  json sources = json::array();
  for (const project::ObjectName& source : model.sources) sources.push_back(ObjectRefJson(source));
  json target = ObjectRefJson(model.target);
  return json{{"name", model.name},
              {"asset_key", target["asset_key"]},
              {"target", target},
              {"depends_on", model.depends_on},
              {"sources", sources},
              {"strategy", project::StrategyName(model.strategy)},
              {"time_interval",
               model.time_interval ? TimeIntervalJson(*model.time_interval) : json(nullptr)},
              {"labels", model.labels},
              {"sql_path", model.sql_path.string()},
              {"toml_path", model.toml_path.string()}};
}

std::string TargetText(const project::ObjectName& name) {
  std::string text;
  for (const std::string* part : {&name.catalog, &name.schema, &name.table}) {
    if (!part->empty()) text += (text.empty() ? "" : ".") + *part;
  }
  return text;
}

}  // namespace

int RunModels(const CommonOptions& common) {
  std::optional<LoadedProject> loaded = LoadProjectAndWarehouse(common);
  if (!loaded) return 1;
  Result<std::vector<const project::Model*>> selected =
      project::SelectModels(loaded->project, common.models, common.filters);
  if (!selected.ok()) {
    PrintError(selected.error(), common.output);
    return 1;
  }
  if (common.output == OutputFormat::kJson) {
    json models = json::array();
    for (const project::Model* model : *selected) models.push_back(ModelJson(*model));
    PrintJson(
        json{{"project", loaded->project.config.name},
             {"project_dir", loaded->project.config.root.string()},
             {"warehouse", {{"name", loaded->warehouse.name}, {"type", loaded->warehouse.type}}},
             {"models", models}});
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const project::Model* model : *selected) {
    std::string strategy(project::StrategyName(model->strategy));
    if (model->time_interval) {
      strategy += fmt::format(" ({})", GrainName(model->time_interval->granularity));
    }
    std::string depends_on;
    for (const std::string& name : model->depends_on) {
      depends_on += (depends_on.empty() ? "" : ", ") + name;
    }
    rows.push_back(
        {model->name, TargetText(model->target), strategy, depends_on.empty() ? "-" : depends_on});
  }
  std::cout << RenderTable({"model", "target", "strategy", "depends_on"}, rows);
  std::cout << fmt::format("{} models\n", rows.size());
  return 0;
}

}  // namespace strata::cli
