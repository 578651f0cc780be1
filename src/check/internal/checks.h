// Private to `check`: the checks CheckModel (model_check.h) runs, one file each.
#pragma once

#include <string>
#include <vector>

#include "analysis/output_columns.h"
#include "check/catalog.h"
#include "check/model_check.h"
#include "sql/ast.h"
#include "sql/lexer.h"

namespace strata::check::internal {

// Where a model's files are, relative to the project root.
struct ModelFiles {
  std::string sql;
  std::string toml;
};

// A diagnostic of `model` at `span`.
Diagnostic Make(const project::Model& model, std::string code, std::string message,
                std::string hint, SourceSpan span);
// A diagnostic at `at` in the model's SQL file, with the line and a caret.
Diagnostic AtSql(const project::Model& model, const ModelFiles& files, sql::Span at,
                 std::string code, std::string message, std::string hint);
// Table columns for analysis::AnalyzeOutputColumns from `catalog` (empty lookup when null),
// resolving names the way reference rewriting does.
analysis::TableLookup CatalogLookup(const project::Project& project, const project::Model& model,
                                    Catalog* catalog);

// E028 (an incremental model without @incremental_filter, or with @start_date/@end_date) and
// E029 (watermark or a unique_key column not in the output, when the output is known).
// REQUIRES: model.incremental.
void CheckIncremental(const project::Project& project, const project::Model& model,
                      const ModelFiles& files, sql::Dialect dialect,
                      const sql::Statement* statement, Catalog* catalog,
                      std::vector<Diagnostic>& out);

// E023 (time_column not a plain identifier in the dialect) and E026 (first_partition not a key
// of the model's grain). REQUIRES: model.time_interval.
void CheckTimeIntervalConfig(const project::Model& model, const ModelFiles& files,
                             sql::Dialect dialect, std::vector<Diagnostic>& out);

// E020, E021, E022, E025 on the output columns of `statement`, the model's parsed SQL (the
// caller skips this when the SQL is not exactly one statement; E024 reports that).
// REQUIRES: model.time_interval.
void CheckTimeColumn(const project::Project& project, const project::Model& model,
                     const ModelFiles& files, const sql::Statement& statement, Catalog* catalog,
                     std::vector<Diagnostic>& out);

// E027: the SQL reads a model that is not in depends_on; W027: a depends_on entry is never read.
// `tokens` is Lex(model.sql, dialect).
void CheckDependencies(const project::Project& project, const project::Model& model,
                       const ModelFiles& files, sql::Dialect dialect,
                       const std::vector<sql::Token>& tokens, std::vector<Diagnostic>& out);

}  // namespace strata::check::internal
