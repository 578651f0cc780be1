// The whole-project compile (`strata compile`) as one library call: the project loader's
// warnings and errors as diagnostics, every selected model's checks (CheckModel) run on every
// core and reported in project order, and, when the whole project is compiled, the semantic
// layer's YAML errors (a CI gate on `strata compile` must not pass a model that `strata serve`
// refuses).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/catalog.h"
#include "check/model_check.h"
#include "project/project.h"

namespace strata::check {

// A catalog over the selected warehouse, kept for one compile.
struct CatalogHandle {
  std::shared_ptr<Catalog> catalog;  // null: column types are unknown (`note` says why)
  std::string description;           // what the catalog reads, when it is set
  std::string note;                  // when `catalog` is null: why, for the user
};
// Opens the catalog of the selected warehouse; never fails (a null catalog and a note instead).
// The CLI passes one over materialize::OpenCatalog: `check` links no warehouse catalog.
using CatalogOpener = std::function<CatalogHandle(const project::ProjectConfig& project,
                                                  const project::WarehouseConfig& warehouse)>;
// The semantic layer's load errors for the project (semantic::LoadProjectSemanticModel): passed
// in by the CLI, because `semantic` sits beside `check`, not below it (DESIGN.md).
using SemanticCheck =
    std::function<std::vector<Error>(const project::ProjectConfig& project, sql::Dialect dialect)>;

struct ProjectCheckOptions {
  std::string warehouse;             // empty: the project's default warehouse
  std::vector<std::string> models;   // --model: check only these (and --filter's)
  std::vector<std::string> filters;  // --filter key=value
  CatalogOpener open_catalog;        // empty: column types are unknown
  SemanticCheck check_semantic;      // empty: the semantic YAML is not checked
};

struct ProjectCheck {
  std::size_t models = 0;  // the models checked (every model when none could be)
  // The loader's warnings, its errors, then the warehouse's, the models' (in project order) and
  // the semantic layer's.
  std::vector<Diagnostic> diagnostics;
  std::optional<std::string> catalog;  // the catalog's description when column types were known
  std::vector<std::string> notes;      // for the user: e.g. why the type checks were skipped

  std::size_t errors() const;
  std::size_t warnings() const { return diagnostics.size() - errors(); }
};

// Compiles the project in `project_dir`. Every problem of the project is a diagnostic; the only
// error is a --model / --filter selection that matches no model (project::SelectModels).
Result<ProjectCheck> CheckProject(const std::filesystem::path& project_dir,
                                  const ProjectCheckOptions& options);

}  // namespace strata::check
