// strata partitions / show / schema / compile: commands that read and report.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "base/hash.h"
#include "base/parallel_for.h"
#include "cli/commands.h"
#include "cli/output_schemas.h"
#include "cli/render.h"
#include "cli/session.h"
#include "compiler/compiler.h"
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

// Configuration errors (or warnings) as diagnostics; errors in models/<name>.toml or .sql name
// their model (a W031 .sql file is not a model).
std::vector<compiler::Diagnostic> LoadDiagnostics(
    const std::vector<Error>& errors, compiler::Severity severity = compiler::Severity::kError) {
  std::vector<compiler::Diagnostic> out;
  for (const Error& error : errors) {
    compiler::Diagnostic diagnostic;
    diagnostic.severity = severity;
    diagnostic.code = std::string(error.reported_code());
    diagnostic.message = error.message;
    diagnostic.hint = error.hint;
    if (error.span) diagnostic.span = *error.span;
    const std::filesystem::path file(diagnostic.span.file);
    const bool model_file = (file.extension() == ".toml" && file.filename() != "strata.toml") ||
                            file.extension() == ".sql";
    if (model_file && severity == compiler::Severity::kError) {
      diagnostic.model = file.stem().string();
    }
    out.push_back(std::move(diagnostic));
  }
  return out;
}

json DiagnosticJson(const compiler::Diagnostic& d) {
  return json{{"model", d.model.empty() ? json(nullptr) : json(d.model)},
              {"code", d.code},
              {"severity", compiler::SeverityName(d.severity)},
              {"message", d.message},
              {"hint", WithHintProject(d.hint)},
              {"file", d.span.file.empty() ? json(nullptr) : json(d.span.file)},
              {"line", d.span.line > 0 ? json(d.span.line) : json(nullptr)},
              {"column", d.span.column > 0 ? json(d.span.column) : json(nullptr)}};
}

// Like a compiler: "file:line:col: error[E024]: message", the source line with a caret, a hint.
void PrintDiagnostic(const compiler::Diagnostic& d) {
  std::string location = d.span.file;
  if (d.span.line > 0) location += fmt::format(":{}", d.span.line);
  if (d.span.column > 0) location += fmt::format(":{}", d.span.column);
  std::cerr << fmt::format("{}{}[{}]: {}\n", location.empty() ? "" : location + ": ",
                           compiler::SeverityName(d.severity), d.code, d.message);
  if (!d.caret.empty()) std::cerr << d.caret << (d.caret.back() == '\n' ? "" : "\n");
  if (!d.hint.empty()) std::cerr << "  hint: " << WithHintProject(d.hint) << "\n";
}

}  // namespace

int RunCompile(const CommonOptions& common) {
  project::LoadOutcome outcome = project::LoadProject(common.project_dir);
  std::vector<compiler::Diagnostic> diagnostics =
      LoadDiagnostics(outcome.warnings, compiler::Severity::kWarning);
  for (compiler::Diagnostic& d : LoadDiagnostics(outcome.errors)) {
    diagnostics.push_back(std::move(d));
  }
  std::size_t models = 0;
  materialize::OpenedCatalog catalog;
  std::vector<std::string> notes;
  if (outcome.project) {
    models = outcome.project->models.size();
    auto warehouse = project::SelectWarehouse(outcome.project->config, common.warehouse);
    auto dialect =
        warehouse.ok() ? warehouse::DialectOf(*warehouse) : Result<sql::Dialect>(warehouse.error());
    if (!dialect.ok()) {
      for (auto& d : LoadDiagnostics({dialect.error()})) diagnostics.push_back(std::move(d));
    } else {
      // Column types come from the warehouse when it can be read; without it they are unknown
      // and only the type checks are skipped.
      catalog = materialize::OpenCatalog(outcome.project->config, *warehouse);
      if (!catalog.catalog) {
        notes.push_back(catalog.note +
                        "; column types are unknown, so E021, E022 and E025 are not checked");
      }
      // Models are checked independently, on every core; diagnostics are reported in project
      // order. The catalog's connection is shared, one Describe at a time.
      // --model / --filter check a selection (in project order); references are still resolved
      // against the whole project.
      Result<std::vector<const project::Model*>> selected =
          project::SelectModels(*outcome.project, common.models, common.filters);
      if (!selected.ok()) {
        PrintError(selected.error(), common.output);
        return 1;
      }
      const std::vector<const project::Model*>& all = *selected;
      models = all.size();
      std::optional<compiler::SerializedCatalog> shared;
      if (catalog.catalog) shared.emplace(*catalog.catalog);
      std::vector<std::vector<compiler::Diagnostic>> per_model(all.size());
      ParallelFor(all.size(), WorkerThreads(), [&](std::size_t i) {
        per_model[i] =
            compiler::CheckModel(*outcome.project, *all[i], *dialect, shared ? &*shared : nullptr);
      });
      for (std::vector<compiler::Diagnostic>& found : per_model) {
        for (compiler::Diagnostic& d : found) diagnostics.push_back(std::move(d));
      }
      // The semantic layer's YAML is part of the project: a CI gate on `strata compile` must
      // not pass a model that `strata serve` refuses. Checked for the whole project only.
      if (common.models.empty() && common.filters.empty()) {
        const semantic::SemanticLoadOutcome semantic =
            semantic::LoadProjectSemanticModel(outcome.project->config, *dialect);
        for (auto& d : LoadDiagnostics(semantic.errors)) diagnostics.push_back(std::move(d));
      }
    }
  }
  const auto errors = std::count_if(diagnostics.begin(), diagnostics.end(), [](const auto& d) {
    return d.severity == compiler::Severity::kError;
  });
  const auto warnings = static_cast<std::ptrdiff_t>(diagnostics.size()) - errors;
  if (common.output == OutputFormat::kJson) {
    json list = json::array();
    for (const compiler::Diagnostic& d : diagnostics) list.push_back(DiagnosticJson(d));
    PrintJson(json{{"models", models},
                   {"errors", errors},
                   {"warnings", warnings},
                   {"diagnostics", list},
                   {"catalog", catalog.catalog ? json(catalog.description) : json(nullptr)},
                   {"notes", notes}});
  } else {
    if (!common.quiet) {
      for (const std::string& note : notes) std::cerr << "note: " << note << "\n";
    }
    for (const compiler::Diagnostic& d : diagnostics) PrintDiagnostic(d);
    std::cout << fmt::format("{} models compiled: {} errors, {} warnings\n", models, errors,
                             warnings);
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace strata::cli
