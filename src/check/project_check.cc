#include "check/project_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/parallel_for.h"
#include "check/catalog_names.h"
#include "sql/dialect.h"

namespace strata::check {
namespace {

// Configuration errors (or warnings) as diagnostics; errors in models/<name>.toml or .sql name
// their model (a W031 .sql file is not a model).
std::vector<Diagnostic> LoadDiagnostics(const std::vector<Error>& errors,
                                        Severity severity = Severity::kError) {
  std::vector<Diagnostic> out;
  for (const Error& error : errors) {
    Diagnostic diagnostic;
    diagnostic.severity = severity;
    diagnostic.code = std::string(error.reported_code());
    diagnostic.message = error.message;
    diagnostic.hint = error.hint;
    if (error.span) diagnostic.span = *error.span;
    const std::filesystem::path file(diagnostic.span.file);
    const bool model_file = (file.extension() == ".toml" && file.filename() != "strata.toml") ||
                            file.extension() == ".sql";
    if (model_file && severity == Severity::kError) {
      diagnostic.model = file.stem().string();
    }
    out.push_back(std::move(diagnostic));
  }
  return out;
}

Result<sql::Dialect> DialectOf(const project::WarehouseConfig& config) {
  std::optional<sql::Dialect> dialect = sql::ParseDialect(config.type);
  if (!dialect) {
    return MakeError(ErrorCode::kConfig, fmt::format("unknown warehouse type \"{}\"", config.type));
  }
  return *dialect;
}

void Append(std::vector<Diagnostic>& to, std::vector<Diagnostic> more) {
  for (Diagnostic& d : more) to.push_back(std::move(d));
}

}  // namespace

std::size_t ProjectCheck::errors() const {
  return static_cast<std::size_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::kError; }));
}

Result<ProjectCheck> CheckProject(const std::filesystem::path& project_dir,
                                  const ProjectCheckOptions& options) {
  project::LoadOutcome outcome = project::LoadProject(project_dir);
  ProjectCheck out;
  out.diagnostics = LoadDiagnostics(outcome.warnings, Severity::kWarning);
  Append(out.diagnostics, LoadDiagnostics(outcome.errors));
  if (!outcome.project) return out;
  out.models = outcome.project->models.size();
  auto warehouse = project::SelectWarehouse(outcome.project->config, options.warehouse);
  auto dialect = warehouse.ok() ? DialectOf(*warehouse) : Result<sql::Dialect>(warehouse.error());
  if (!dialect.ok()) {
    Append(out.diagnostics, LoadDiagnostics({dialect.error()}));
    return out;
  }
  // Column types come from the warehouse when it can be read; without it they are unknown and
  // only the type checks are skipped.
  CatalogHandle catalog;
  if (options.open_catalog) {
    catalog = options.open_catalog(outcome.project->config, *warehouse);
  } else {
    catalog.note = "no warehouse catalog";
  }
  if (!catalog.catalog) {
    out.notes.push_back(catalog.note +
                        "; column types are unknown, so E021, E022 and E025 are not checked");
  } else {
    out.catalog = catalog.description;
  }
  // Models are checked independently, on every core; diagnostics are reported in project order.
  // The catalog's connection is shared, one Describe at a time. --model / --filter check a
  // selection (in project order); references are still resolved against the whole project.
  STRATA_ASSIGN_OR_RETURN(std::vector<const project::Model*> selected,
                          project::SelectModels(*outcome.project, options.models, options.filters));
  out.models = selected.size();
  std::optional<SerializedCatalog> shared;
  if (catalog.catalog) shared.emplace(*catalog.catalog);
  std::vector<std::vector<Diagnostic>> per_model(selected.size());
  ParallelFor(selected.size(), WorkerThreads(), [&](std::size_t i) {
    per_model[i] = CheckCatalogNames(*outcome.project, *selected[i], *warehouse);
    Append(per_model[i],
           CheckModel(*outcome.project, *selected[i], *dialect, shared ? &*shared : nullptr));
  });
  for (std::vector<Diagnostic>& found : per_model) Append(out.diagnostics, std::move(found));
  // The semantic layer's YAML is part of the project. Checked for the whole project only.
  if (options.check_semantic && options.models.empty() && options.filters.empty()) {
    Append(out.diagnostics,
           LoadDiagnostics(options.check_semantic(outcome.project->config, *dialect)));
  }
  return out;
}

}  // namespace strata::check
