#include "materialize/model_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "base/ascii.h"
#include "check/model_check.h"
#include "sql/lexer.h"
#include "sql/placeholders.h"
#include "sql/references.h"

namespace strata::materialize {
namespace {

std::string Lower(std::string_view text) { return AsciiLowered(text); }

// The SQL file relative to the project root, for messages. Lexical (no file system calls): model
// paths are built from the normalized absolute root.
std::string DisplayPath(const project::Project& project, const project::Model& model) {
  return model.sql_path.lexically_relative(project.config.root).string();
}

// Model names map to their targets; a model's own [[sources]] win over same-named models.
std::map<std::string, std::string, std::less<>> ReferenceTargets(
    const project::Project& project, const project::Model& model,
    const warehouse::Emitter& emitter) {
  std::map<std::string, std::string, std::less<>> targets;
  // Only names in table position can be references (listing every model of a large project for
  // every batch would be quadratic): the same scan RewriteReferences and the compiler use.
  Result<std::vector<sql::Token>> tokens = sql::Lex(model.sql, emitter.dialect());
  if (tokens.ok()) {
    for (const std::string& name : sql::FindTableNames(*tokens, emitter.dialect())) {
      if (const project::Model* other = project.FindLowerCase(name)) {
        targets[name] = emitter.QualifiedName(ToTableName(other->target));
      }
    }
  }
  for (const project::ObjectName& source : model.sources) {
    targets[Lower(source.table)] = emitter.QualifiedName(ToTableName(source));
  }
  return targets;
}

// Drops a final ';' (and what follows it, if only whitespace and comments) so the SELECT can be
// wrapped in INSERT ... and CREATE TABLE ... AS SELECT * FROM (...).
Result<std::string> StripTrailingSemicolon(std::string sql, sql::Dialect dialect) {
  STRATA_ASSIGN_OR_RETURN(std::vector<sql::Token> tokens, sql::Lex(sql, dialect));
  for (auto token = tokens.rbegin(); token != tokens.rend(); ++token) {
    if (token->kind == sql::TokenKind::kEnd || sql::IsTrivia(*token)) continue;
    if (sql::IsSymbol(*token, ";")) sql.resize(token->offset);
    break;
  }
  return sql;
}

Error WithFile(Error error, const std::string& file) {
  if (error.span) {
    error.span->file = file;
  } else {
    error.span = SourceSpan{file, 0, 0};
  }
  return error;
}

}  // namespace

warehouse::TableName ToTableName(const project::ObjectName& name) {
  return warehouse::TableName{name.catalog, name.schema, name.table};
}

Status CheckModelSql(const project::Project& project, const project::Model& model,
                     const warehouse::Emitter& emitter, check::Catalog* catalog) {
  return check::FirstError(check::CheckModel(project, model, emitter.dialect(), catalog));
}

namespace {

// References rewritten, the trailing ';' dropped, then `values` substituted.
Result<std::string> Compile(const project::Project& project, const project::Model& model,
                            const warehouse::Emitter& emitter,
                            const std::map<std::string, std::string, std::less<>>& values) {
  Result<std::string> rewritten = sql::RewriteReferences(model.sql, emitter.dialect(),
                                                         ReferenceTargets(project, model, emitter));
  if (!rewritten.ok()) return WithFile(std::move(rewritten).error(), DisplayPath(project, model));
  rewritten = StripTrailingSemicolon(std::move(rewritten).value(), emitter.dialect());
  if (!rewritten.ok()) return WithFile(std::move(rewritten).error(), DisplayPath(project, model));
  if (values.empty()) return rewritten;
  Result<std::string> substituted =
      sql::SubstitutePlaceholders(*rewritten, emitter.dialect(), values);
  if (!substituted.ok())
    return WithFile(std::move(substituted).error(), DisplayPath(project, model));
  return substituted;
}

}  // namespace

Result<std::string> CompileModelSql(const project::Project& project, const project::Model& model,
                                    const warehouse::Emitter& emitter,
                                    const std::optional<Window>& window) {
  if (model.strategy != project::StrategyKind::kTimeInterval) {
    return Compile(project, model, emitter, {});
  }
  STRATA_CHECK(window.has_value());
  STRATA_ASSIGN_OR_RETURN(std::string window_template,
                          CompileWindowTemplate(project, model, emitter));
  Result<std::string> substituted = WindowSql(window_template, emitter, *window);
  if (!substituted.ok()) {
    return WithFile(std::move(substituted).error(), DisplayPath(project, model));
  }
  return substituted;
}

Result<std::string> CompileWindowTemplate(const project::Project& project,
                                          const project::Model& model,
                                          const warehouse::Emitter& emitter) {
  return Compile(project, model, emitter, {});
}

Result<std::string> WindowSql(std::string_view window_template, const warehouse::Emitter& emitter,
                              const Window& window) {
  const sql::PlaceholderValues strings = {{"start_date", emitter.TimestampLiteral(window.start)},
                                          {"end_date", emitter.TimestampLiteral(window.end)}};
  if (!emitter.capabilities().typed_window_placeholders) {
    return sql::SubstitutePlaceholders(window_template, emitter.dialect(), strings);
  }
  using warehouse::TimeColumnType;
  const sql::PlaceholderValues typed = {
      {"start_date", emitter.WindowLiteral(window.start, TimeColumnType::kTimestamp)},
      {"end_date", emitter.WindowLiteral(window.end, TimeColumnType::kTimestamp)}};
  return sql::SubstitutePlaceholders(window_template, emitter.dialect(), typed, strings);
}

Result<std::string> CompileIncrementalSql(const project::Project& project,
                                          const project::Model& model,
                                          const warehouse::Emitter& emitter,
                                          const std::string& filter) {
  return Compile(project, model, emitter, {{"incremental_filter", filter}});
}

}  // namespace strata::materialize
