// E028, E029: incremental models (model_check.h).
#include <fmt/format.h>

#include "check/internal/checks.h"
#include "sql/parser.h"
#include "sql/placeholders.h"

namespace strata::check::internal {

void CheckIncremental(const project::Project& project, const project::Model& model,
                      const ModelFiles& files, sql::Dialect dialect,
                      const sql::Statement* statement, Catalog* catalog,
                      std::vector<Diagnostic>& out) {
  const project::IncrementalConfig& config = *model.incremental;
  Result<std::vector<sql::PlaceholderUse>> uses = sql::FindPlaceholders(model.sql, dialect);
  if (!uses.ok()) return;  // the lexer's error is reported by CheckModel
  bool filtered = false;
  for (const sql::PlaceholderUse& use : *uses) {
    if (use.name == "incremental_filter") {
      filtered = true;
    } else if (use.name == "start_date" || use.name == "end_date") {
      Diagnostic diagnostic =
          Make(model, "E028",
               fmt::format("@{} has no value in an incremental model (only time_interval runs have "
                           "a window)",
                           use.name),
               "filter new rows with @incremental_filter, or make the model time_interval",
               SourceSpan{files.sql, use.line, use.column});
      diagnostic.caret = sql::RenderCaret(model.sql, use.line, use.column);
      out.push_back(std::move(diagnostic));
    }
  }
  if (!filtered) {
    out.push_back(Make(model, "E028",
                       "an incremental model must filter its source with @incremental_filter; "
                       "without it every run appends every row again",
                       fmt::format("add WHERE @incremental_filter to the query over the source "
                                   "(it expands to {} > the target's max({}))",
                                   config.watermark, config.watermark),
                       SourceSpan{files.sql, 1, 1}));
  }
  if (statement == nullptr) return;
  const analysis::OutputColumns output =
      analysis::AnalyzeOutputColumns(*statement, CatalogLookup(project, model, catalog));
  if (!output.complete) return;
  std::vector<std::string> needed{config.watermark};
  needed.insert(needed.end(), config.unique_key.begin(), config.unique_key.end());
  for (const std::string& name : needed) {
    bool found = false;
    for (const analysis::OutputColumn& column : output.columns) {
      found = found || analysis::SameName(column.name, name);
    }
    if (found) continue;
    out.push_back(
        AtSql(model, files, output.select_span, "E029",
              fmt::format("{} \"{}\" is not a column of the model's output",
                          name == config.watermark ? "watermark" : "unique_key column", name),
              "select it (with that name) or change [strategy] in " + files.toml));
  }
}

}  // namespace strata::check::internal
