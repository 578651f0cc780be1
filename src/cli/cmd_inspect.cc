// strata partitions / show / schema / compile: commands that read and report.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <tuple>

#include "base/hash.h"
#include "check/project_check.h"
#include "cli/commands.h"
#include "cli/output_schemas.h"
#include "cli/render.h"
#include "cli/session.h"
#include "materialize/model_sql.h"
#include "materialize/run_report.h"
#include "materialize/warehouse_catalog.h"
#include "semantic/loader.h"
#include "warehouse/from_config.h"

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
  std::optional<Session> session = OpenSession(common, StoreAccess::kRead);
  if (!session) return 1;
  // The positional MODEL is one more --model; with neither nor --filter, every model's rows.
  std::vector<std::string> names = common.models;
  if (model) names.push_back(*model);
  std::optional<std::set<std::string>> selected;
  if (!names.empty() || !common.filters.empty()) {
    Result<std::vector<const project::Model*>> models =
        project::SelectModels(session->project, names, common.filters);
    if (!models.ok()) {
      PrintError(models.error(), common.output);
      return 1;
    }
    selected.emplace();
    for (const project::Model* m : *models) selected->insert(m->name);
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
      selected && selected->size() == 1 ? std::optional<std::string_view>(*selected->begin())
                                        : std::nullopt,
      status);
  if (!records.ok()) {
    PrintError(records.error(), common.output);
    return 1;
  }
  if (selected) {
    std::erase_if(*records, [&](const state::PartitionRecord& record) {
      return !selected->contains(record.model_name);
    });
  }
  // In time order within a model: a zone's hourly keys do not sort as text (Berlin's repeated
  // hour is "02+02:00" then "02+01:00"); every other key's text order is its time order.
  std::stable_sort(records->begin(), records->end(), [](const auto& a, const auto& b) {
    return std::tie(a.model_name, a.start) < std::tie(b.model_name, b.start);
  });
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
  std::cout << RenderTable(
      {"model", "partition", "status", "rows", "ms", "checksum", "run", "error"}, rows);
  std::cout << fmt::format("{} partitions\n", rows.size());
  return 0;
}

int RunShow(const CommonOptions& common, const std::string& model_name, int limit) {
  // Reads the warehouse only: no state store, and the warehouse opened read-only.
  std::optional<LoadedProject> session = LoadProjectAndWarehouse(common);
  if (!session) return 1;
  // SelectModels names the closest model ("did you mean") for a misspelt one.
  auto selected = project::SelectModels(session->project, {model_name}, {});
  if (!selected.ok()) {
    PrintError(selected.error(), common.output);
    return 1;
  }
  const project::Model* model = selected->front();
  auto warehouse = warehouse::OpenWarehouse(session->project.config, session->warehouse,
                                            warehouse::AccessMode::kReadOnly);
  if (!warehouse.ok()) {
    PrintError(warehouse.error(), common.output);
    return 1;
  }
  auto connection = (*warehouse)->Connect();
  if (!connection.ok()) {
    PrintError(connection.error(), common.output);
    return 1;
  }
  const warehouse::TableName table = materialize::ToTableName(model->target);
  const warehouse::Emitter emitter((*warehouse)->dialect());
  std::string order;
  if (model->time_interval)
    order = " ORDER BY " + emitter.QuoteIdentifier(model->time_interval->time_column) + " DESC";
  auto result = (*connection)
                    ->Execute(fmt::format("SELECT * FROM {}{} LIMIT {}",
                                          emitter.QualifiedName(table), order, std::max(0, limit)));
  if (!result.ok()) {
    Error error = std::move(result).error();
    // A model never built: its table (or view) is missing, and the warehouse's own message
    // does not say what to do.
    if (error.code == ErrorCode::kWarehouseCatalog &&
        model->strategy != project::StrategyKind::kView) {
      if (Result<bool> exists = (*connection)->TableExists(table); exists.ok() && !*exists) {
        error.hint = fmt::format("model {} has not been built yet: `strata run --model {}`",
                                 model->name, model->name);
      }
    }
    PrintError(error, common.output);
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

int RunSchema(const std::string& name, OutputFormat output) {
  if (name == "run-output") {
    PrintJson(materialize::RunOutputSchema());
  } else if (name == "models-output") {
    PrintJson(ModelsOutputSchema());
  } else if (name == "partitions-output") {
    PrintJson(PartitionsOutputSchema());
  } else if (name == "errors-output") {
    PrintJson(ErrorsOutputSchema());
  } else {
    PrintError(MakeError(ErrorCode::kUsage, fmt::format("unknown schema \"{}\"", name),
                         "available: run-output, models-output, partitions-output, errors-output"),
               output);
    return 1;
  }
  return 0;
}

namespace {

json DiagnosticJson(const check::Diagnostic& d) {
  return json{{"model", d.model.empty() ? json(nullptr) : json(d.model)},
              {"code", d.code},
              {"severity", check::SeverityName(d.severity)},
              {"message", d.message},
              {"hint", WithHintProject(d.hint)},
              {"file", d.span.file.empty() ? json(nullptr) : json(d.span.file)},
              {"line", d.span.line > 0 ? json(d.span.line) : json(nullptr)},
              {"column", d.span.column > 0 ? json(d.span.column) : json(nullptr)}};
}

// Like a compiler: "file:line:col: error[E024]: message", the source line with a caret, a hint.
void PrintDiagnostic(const check::Diagnostic& d) {
  std::string location = d.span.file;
  if (d.span.line > 0) location += fmt::format(":{}", d.span.line);
  if (d.span.column > 0) location += fmt::format(":{}", d.span.column);
  std::cerr << fmt::format("{}{}[{}]: {}\n", location.empty() ? "" : location + ": ",
                           check::SeverityName(d.severity), d.code, d.message);
  if (!d.caret.empty()) std::cerr << d.caret << (d.caret.back() == '\n' ? "" : "\n");
  if (!d.hint.empty()) std::cerr << "  hint: " << WithHintProject(d.hint) << "\n";
}

}  // namespace

int RunCompile(const CommonOptions& common) {
  check::ProjectCheckOptions options;
  options.warehouse = common.warehouse;
  options.models = common.models;
  options.filters = common.filters;
  options.open_catalog = [](const project::ProjectConfig& project,
                            const project::WarehouseConfig& warehouse) {
    auto opened =
        std::make_shared<materialize::OpenedCatalog>(materialize::OpenCatalog(project, warehouse));
    check::CatalogHandle handle;
    handle.description = opened->description;
    handle.note = opened->note;
    // The handle keeps the warehouse and connection the catalog reads through.
    if (opened->catalog) handle.catalog = {opened, opened->catalog.get()};
    return handle;
  };
  options.check_semantic = [](const project::ProjectConfig& project, sql::Dialect dialect) {
    return semantic::LoadProjectSemanticModel(project, dialect).errors;
  };
  Result<check::ProjectCheck> compiled = check::CheckProject(common.project_dir, options);
  if (!compiled.ok()) {
    PrintError(compiled.error(), common.output);
    return 1;
  }
  const std::vector<check::Diagnostic>& diagnostics = compiled->diagnostics;
  const std::size_t models = compiled->models;
  const std::vector<std::string>& notes = compiled->notes;
  const std::size_t errors = compiled->errors();
  const std::size_t warnings = compiled->warnings();
  if (common.output == OutputFormat::kJson) {
    json list = json::array();
    for (const check::Diagnostic& d : diagnostics) list.push_back(DiagnosticJson(d));
    PrintJson(json{{"models", models},
                   {"errors", errors},
                   {"warnings", warnings},
                   {"diagnostics", list},
                   {"catalog", compiled->catalog ? json(*compiled->catalog) : json(nullptr)},
                   {"notes", notes}});
  } else {
    if (!common.quiet) {
      for (const std::string& note : notes) std::cerr << "note: " << note << "\n";
    }
    for (const check::Diagnostic& d : diagnostics) PrintDiagnostic(d);
    std::cout << fmt::format("{} models compiled: {} errors, {} warnings\n", models, errors,
                             warnings);
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace strata::cli
