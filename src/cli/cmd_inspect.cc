// strata partitions / show / schema / compile: commands that read and report.
#include <fmt/format.h>

#include <iostream>

#include "base/hash.h"
#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "materialize/model_sql.h"
#include "materialize/run_report.h"
#include "materialize/warehouse_factory.h"

namespace strata::cli {
namespace {

using nlohmann::json;

json PartitionJson(const state::PartitionRecord& record) {
  return json{{"model", record.model_name},
              {"partition_key", record.partition_key},
              {"status", state::PartitionStatusName(record.status)},
              {"computed_at", FormatIso8601(record.computed_at)},
              {"row_count", record.row_count},
              {"duration_ms", record.duration_ms},
              {"run_id", record.run_id},
              {"checksum", record.checksum ? json(HexHash64(*record.checksum)) : json(nullptr)},
              {"start", FormatIso8601(record.start)},
              {"end", FormatIso8601(record.end)},
              {"error", record.error.empty() ? json(nullptr) : json(record.error)}};
}

}  // namespace

int RunPartitions(const CommonOptions& common, const std::optional<std::string>& model,
                  const std::optional<std::string>& status_text) {
  std::optional<Session> session = OpenSession(common);
  if (!session) return 1;
  if (model && session->project.Find(*model) == nullptr) {
    PrintError(MakeError(ErrorCode::kModelNotFound, fmt::format("no model named \"{}\"", *model)),
               common.output);
    return 1;
  }
  std::optional<state::PartitionStatus> status;
  if (status_text) {
    status = state::ParsePartitionStatus(*status_text);
    if (!status) {
      PrintError(MakeError(ErrorCode::kUsage, fmt::format("unknown status \"{}\"", *status_text),
                           "use Computed, Failed, InProgress or Interrupted"),
                 common.output);
      return 1;
    }
  }
  auto records = session->store->ListPartitions(
      model ? std::optional<std::string_view>(*model) : std::nullopt, status);
  if (!records.ok()) {
    PrintError(records.error(), common.output);
    return 1;
  }
  if (common.output == OutputFormat::kJson) {
    json list = json::array();
    for (const state::PartitionRecord& record : *records) list.push_back(PartitionJson(record));
    PrintJson(json{{"partitions", list}});
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const state::PartitionRecord& record : *records) {
    rows.push_back({record.model_name, record.partition_key,
                    std::string(state::PartitionStatusName(record.status)),
                    std::to_string(record.row_count), std::to_string(record.duration_ms),
                    record.checksum ? HexHash64(*record.checksum) : "-", record.run_id,
                    record.error.substr(0, 60)});
  }
  std::cout << RenderTable({"model", "partition", "status", "rows", "ms", "checksum", "run", "error"}, rows);
  std::cout << fmt::format("{} partitions\n", rows.size());
  return 0;
}

int RunShow(const CommonOptions& common, const std::string& model_name, int limit) {
  std::optional<Session> session = OpenSession(common);
  if (!session) return 1;
  const project::Model* model = session->project.Find(model_name);
  if (model == nullptr) {
    PrintError(MakeError(ErrorCode::kModelNotFound, fmt::format("no model named \"{}\"", model_name)),
               common.output);
    return 1;
  }
  auto warehouse = materialize::OpenWarehouse(session->project.config, session->warehouse);
  if (!warehouse.ok()) {
    PrintError(warehouse.error(), common.output);
    return 1;
  }
  auto connection = (*warehouse)->Connect();
  if (!connection.ok()) {
    PrintError(connection.error(), common.output);
    return 1;
  }
  const warehouse::Emitter emitter((*warehouse)->dialect());
  std::string order;
  if (model->time_interval) order = " ORDER BY " + emitter.QuoteIdentifier(model->time_interval->time_column) + " DESC";
  auto result = (*connection)->Execute(fmt::format(
      "SELECT * FROM {}{} LIMIT {}", emitter.QualifiedName(materialize::ToTableName(model->target)),
      order, std::max(0, limit)));
  if (!result.ok()) {
    PrintError(result.error(), common.output);
    return 1;
  }
  std::vector<std::string> header;
  for (const auto& column : result->columns) header.push_back(column.column.name);
  std::vector<std::vector<std::string>> rows(result->row_count());
  for (const auto& column : result->columns) {
    for (std::size_t row = 0; row < rows.size(); ++row) {
      rows[row].push_back(warehouse::ValueToString(column.values[row]));
    }
  }
  if (common.output == OutputFormat::kJson) {
    json list = json::array();
    for (const auto& row : rows) {
      json entry = json::object();
      for (std::size_t i = 0; i < header.size(); ++i) entry[header[i]] = row[i];
      list.push_back(entry);
    }
    PrintJson(json{{"model", model_name}, {"rows", list}});
    return 0;
  }
  std::cout << RenderTable(header, rows);
  return 0;
}

int RunSchema(const std::string& name) {
  if (name != "run-output") {
    PrintError(MakeError(ErrorCode::kUsage, fmt::format("unknown schema \"{}\"", name),
                         "available: run-output"),
               OutputFormat::kHuman);
    return 1;
  }
  PrintJson(materialize::RunOutputSchema());
  return 0;
}

int RunCompile(const CommonOptions& common) {
  project::LoadOutcome outcome = project::LoadProject(common.project_dir);
  std::vector<Error> errors = std::move(outcome.errors);
  std::vector<std::string> error_models(errors.size());
  for (std::size_t i = 0; i < errors.size(); ++i) {
    // Configuration errors point at models/<name>.toml; the stem names the model.
    if (errors[i].span && errors[i].span->file.rfind(".toml") != std::string::npos &&
        errors[i].span->file != "strata.toml") {
      error_models[i] = std::filesystem::path(errors[i].span->file).stem().string();
    }
  }
  std::size_t models = 0;
  if (outcome.project) {
    models = outcome.project->models.size();
    auto warehouse = project::SelectWarehouse(outcome.project->config, common.warehouse);
    auto dialect = warehouse.ok() ? materialize::DialectOf(*warehouse) : Result<sql::Dialect>(warehouse.error());
    if (!dialect.ok()) {
      errors.push_back(dialect.error());
      error_models.emplace_back();
    } else {
      const warehouse::Emitter emitter(*dialect);
      for (const project::Model& model : outcome.project->models) {
        Status status = materialize::CheckModelSql(*outcome.project, model, emitter);
        if (status.ok()) continue;
        errors.push_back(std::move(status).error());
        error_models.push_back(model.name);
      }
    }
  }
  if (common.output == OutputFormat::kJson) {
    json diagnostics = json::array();
    for (std::size_t i = 0; i < errors.size(); ++i) {
      const Error& error = errors[i];
      diagnostics.push_back({{"model", error_models[i].empty() ? json(nullptr) : json(error_models[i])},
                             {"code", ReportedCode(error.code)},
                             {"severity", "error"},
                             {"message", error.message},
                             {"hint", error.hint},
                             {"file", error.span ? json(error.span->file) : json(nullptr)},
                             {"line", error.span ? json(error.span->line) : json(nullptr)},
                             {"column", error.span ? json(error.span->column) : json(nullptr)}});
    }
    PrintJson(json{{"models", models}, {"errors", errors.size()}, {"warnings", 0},
                   {"diagnostics", diagnostics}});
  } else {
    PrintErrors(errors, common.output);
    if (errors.empty()) std::cout << fmt::format("{} models compiled, no errors\n", models);
  }
  return errors.empty() ? 0 : 1;
}

}  // namespace strata::cli
