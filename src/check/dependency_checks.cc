// E027 / W027: the models a model's SQL reads against its depends_on (model_check.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/output_columns.h"
#include "base/ascii.h"
#include "check/internal/checks.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/references.h"

namespace strata::check::internal {
namespace {

std::string Lower(std::string_view text) { return AsciiLowered(text); }

// Where `name` is first read: an identifier token with that name (case-insensitive) that is not
// part of a dotted name or a call. {0, 0} when not found.
sql::Span FirstMention(std::string_view sql_text, sql::Dialect dialect, std::string_view name) {
  Result<std::vector<sql::Token>> tokens = sql::Lex(sql_text, dialect);
  if (!tokens.ok()) return {};
  std::vector<const sql::Token*> meaningful;
  for (const sql::Token& token : *tokens) {
    if (!sql::IsTrivia(token)) meaningful.push_back(&token);
  }
  for (std::size_t index = 0; index < meaningful.size(); ++index) {
    const sql::Token& token = *meaningful[index];
    if (token.kind != sql::TokenKind::kIdentifier &&
        token.kind != sql::TokenKind::kQuotedIdentifier) {
      continue;
    }
    if (!analysis::SameName(sql::IdentifierName(token, dialect), name)) continue;
    const bool after_dot = index > 0 && sql::IsSymbol(*meaningful[index - 1], ".");
    const bool before_dot_or_call =
        index + 1 < meaningful.size() &&
        (sql::IsSymbol(*meaningful[index + 1], ".") || sql::IsSymbol(*meaningful[index + 1], "("));
    if (!after_dot && !before_dot_or_call) return sql::Span{token.line, token.column};
  }
  return {};
}

}  // namespace

void CheckDependencies(const project::Project& project, const project::Model& model,
                       const ModelFiles& files, sql::Dialect dialect,
                       const std::vector<sql::Token>& tokens, std::vector<Diagnostic>& out) {
  // A model's own [[sources]] win over same-named models, as in reference rewriting.
  std::set<std::string, std::less<>> sources;
  for (const project::ObjectName& source : model.sources) sources.insert(Lower(source.table));
  // The names in table position that are a source or a model: one scan, then a lookup per name
  // (listing every model of the project for every model would be quadratic).
  std::vector<std::string> read = sql::FindTableNames(tokens, dialect);
  read.erase(std::remove_if(read.begin(), read.end(),
                            [&](const std::string& name) {
                              return sources.count(name) == 0 &&
                                     project.FindLowerCase(name) == nullptr;
                            }),
             read.end());
  std::set<std::string, std::less<>> declared;
  for (const std::string& dependency : model.depends_on) declared.insert(Lower(dependency));
  const std::string self = Lower(model.name);
  for (const std::string& name : read) {
    if (name == self || sources.count(name) != 0 || declared.count(name) != 0) continue;
    const sql::Span at = FirstMention(model.sql, dialect, name);
    Diagnostic diagnostic;
    diagnostic.model = model.name;
    diagnostic.code = "E027";
    diagnostic.message =
        fmt::format("model {} reads model {}, which is not in its depends_on", model.name, name);
    diagnostic.hint =
        fmt::format("add \"{}\" to depends_on in {} so it is built first", name, files.toml);
    diagnostic.span = SourceSpan{files.sql, at.line, at.column};
    if (at.line > 0) diagnostic.caret = sql::RenderCaret(model.sql, at.line, at.column);
    out.push_back(std::move(diagnostic));
  }
  for (const std::string& dependency : model.depends_on) {
    if (std::find(read.begin(), read.end(), Lower(dependency)) != read.end()) continue;
    Diagnostic diagnostic;
    diagnostic.model = model.name;
    diagnostic.code = "W027";
    diagnostic.severity = Severity::kWarning;
    diagnostic.message =
        fmt::format("model {} depends on {} but its SQL never reads it", model.name, dependency);
    diagnostic.hint =
        fmt::format("remove \"{}\" from depends_on, or read it in {}", dependency, files.sql);
    diagnostic.span = SourceSpan{files.toml, model.depends_on_at.line, model.depends_on_at.column};
    out.push_back(std::move(diagnostic));
  }
}

}  // namespace strata::check::internal
