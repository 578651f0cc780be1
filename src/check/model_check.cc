#include "check/model_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "analysis/bounds.h"
#include "analysis/window_separable.h"
#include "check/internal/checks.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace strata::check {
namespace {

constexpr std::string_view kUnboundedHint =
    "filter every source of the output rows with <time> >= @start_date AND <time> < @end_date "
    "(in WHERE, HAVING, QUALIFY or an inner join's ON)";
constexpr std::string_view kBetweenHint =
    "use <time> >= @start_date AND <time> < @end_date: BETWEEN and <= include the end, so a "
    "row at exactly @end_date lands in two partitions";
constexpr std::string_view kCoarseHint =
    "compare the time column itself (<time> >= @start_date AND <time> < @end_date), or truncate "
    "both sides to the model's granularity or finer (CAST(<time> AS DATE) suits day, month and "
    "year models, not hour ones)";
constexpr std::string_view kUnparsedHint =
    "fix the SQL at the caret: the bounds can only be proven for SQL that parses as one query "
    "(if the warehouse accepts it, rewrite the construct strata does not read)";

Diagnostic FromBounds(const project::Model& model, const std::string& file,
                      const analysis::BoundsDiagnostic& found, Severity severity,
                      std::string_view hint) {
  Diagnostic diagnostic;
  diagnostic.model = model.name;
  diagnostic.code = found.code;
  diagnostic.severity = severity;
  diagnostic.message = found.message;
  diagnostic.hint = std::string(hint);
  diagnostic.span = SourceSpan{file, found.line, found.column};
  diagnostic.caret = found.caret;
  return diagnostic;
}

// `script` is model.sql parsed; on a parse error AnalyzeModelSql re-parses to report it as E024.
// REQUIRES: model.time_interval.
void CheckBounds(const project::Model& model, const std::string& file, sql::Dialect dialect,
                 const Result<std::vector<sql::StatementPtr>>& script,
                 std::vector<Diagnostic>& out) {
  const Grain grain = model.time_interval->granularity;
  const analysis::BoundsReport report = script.ok()
                                            ? analysis::AnalyzeBounds(*script, grain)
                                            : analysis::AnalyzeModelSql(model.sql, dialect, grain);
  for (const analysis::BoundVerdict* verdict : {&report.start, &report.end}) {
    if (verdict->bounded || !verdict->diagnostic) continue;
    // A parse failure makes both bounds fail with the same message: report it once.
    if (!out.empty() && out.back().message == verdict->diagnostic->message) continue;
    out.push_back(FromBounds(model, file, *verdict->diagnostic, Severity::kError,
                             script.ok() ? kUnboundedHint : kUnparsedHint));
  }
  for (const analysis::BoundsDiagnostic& warning : report.warnings) {
    out.push_back(FromBounds(model, file, warning, Severity::kWarning,
                             warning.code == "W025" ? kCoarseHint : kBetweenHint));
  }
}

// The first token of a second statement: a non-trivia token after a top-level `;`, or null.
// Only the lexer is needed, so a statement strata cannot parse (DELETE, DROP, SET ...) is found.
const sql::Token* SecondStatement(const std::vector<sql::Token>& tokens) {
  bool after_separator = false;
  for (const sql::Token& token : tokens) {
    if (token.kind == sql::TokenKind::kEnd) break;
    if (sql::IsTrivia(token)) continue;
    if (sql::IsSymbol(token, ";")) {
      after_separator = true;
    } else if (after_separator) {
      return &token;
    }
  }
  return nullptr;
}

// E030 / W030 for models without a window: one query, which strata can read. A second statement
// is E030 even when strata cannot read it: the warehouse would run it too (a `DELETE` or `DROP`
// after the SELECT would change data strata does not own).
void CheckOneQuery(const project::Model& model, const std::string& file,
                   const std::vector<sql::Token>& tokens,
                   const Result<std::vector<sql::StatementPtr>>& script,
                   std::vector<Diagnostic>& out) {
  Diagnostic diagnostic;
  diagnostic.model = model.name;
  const sql::Token* second = script.ok() ? nullptr : SecondStatement(tokens);
  if (second != nullptr) {
    diagnostic.code = "E030";
    diagnostic.message = fmt::format(
        "model {} has more than one statement: \"{}\" starts a second one after a ';'; a model "
        "is one query",
        model.name, second->text);
    diagnostic.hint = "keep exactly one SELECT (or WITH ... SELECT) in " + file +
                      "; strata never sends a model's other statements to the warehouse";
    diagnostic.span = SourceSpan{file, second->line, second->column};
    diagnostic.caret = sql::RenderCaret(model.sql, second->line, second->column);
  } else if (!script.ok()) {
    const Error& error = script.error();
    diagnostic.code = "W030";
    diagnostic.severity = Severity::kWarning;
    diagnostic.message = "strata cannot read the SQL: " + error.message;
    diagnostic.hint =
        "if this is a mistake, fix it at the caret; if the warehouse accepts the "
        "SQL, the model still runs (strata reads the common SELECT language of "
        "each dialect, not all of it)";
    diagnostic.span =
        SourceSpan{file, error.span ? error.span->line : 0, error.span ? error.span->column : 0};
    diagnostic.caret = error.hint;
  } else if (script->size() != 1) {
    diagnostic.code = "E030";
    diagnostic.message = script->empty()
                             ? fmt::format("model {} has no query", model.name)
                             : fmt::format("model {} has {} statements; a model is one query",
                                           model.name, script->size());
    diagnostic.hint = "keep exactly one SELECT (or WITH ... SELECT) in " + file;
    const sql::Span at = script->size() > 1 ? (*script)[1]->span : sql::Span{};
    diagnostic.span = SourceSpan{file, at.line, at.column};
    if (at.line > 0) diagnostic.caret = sql::RenderCaret(model.sql, at.line, at.column);
  } else {
    return;
  }
  out.push_back(std::move(diagnostic));
}

}  // namespace

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
  }
  return "error";
}

std::vector<Diagnostic> CheckModel(const project::Project& project, const project::Model& model,
                                   sql::Dialect dialect, Catalog* catalog) {
  std::vector<Diagnostic> out;
  const internal::ModelFiles files{
      model.sql_path.lexically_relative(project.config.root).string(),
      model.toml_path.lexically_relative(project.config.root).string()};
  const std::string& file = files.sql;
  // Lexed once: the dependency check and the parser share the tokens, which point into `source`.
  auto source = std::make_shared<const std::string>(model.sql);
  Result<std::vector<sql::Token>> tokens = sql::Lex(*source, dialect);
  if (!tokens.ok()) {
    const Error& error = tokens.error();
    Diagnostic diagnostic;
    diagnostic.model = model.name;
    diagnostic.code = std::string(error.reported_code());
    diagnostic.message = error.message;
    diagnostic.hint = error.hint;
    diagnostic.span =
        SourceSpan{file, error.span ? error.span->line : 0, error.span ? error.span->column : 0};
    out.push_back(std::move(diagnostic));
    return out;
  }
  internal::CheckDependencies(project, model, files, dialect, *tokens, out);
  // Parsed once for every check: parsing is most of a compile's time.
  const Result<std::vector<sql::StatementPtr>> script =
      sql::ParseScriptTokens(source, *tokens, dialect);
  const sql::Statement* statement =
      script.ok() && script->size() == 1 ? (*script)[0].get() : nullptr;
  if (model.strategy == project::StrategyKind::kTimeInterval && model.time_interval) {
    CheckBounds(model, file, dialect, script, out);  // E024 covers parse failures and scripts
    internal::CheckTimeIntervalConfig(model, files, dialect, out);
    if (statement != nullptr) {
      internal::CheckTimeColumn(project, model, files, *statement, catalog, out);
    }
    return out;
  }
  CheckOneQuery(model, file, *tokens, script, out);
  if (model.strategy == project::StrategyKind::kIncremental && model.incremental) {
    internal::CheckIncremental(project, model, files, dialect, statement, catalog, out);
  }
  return out;
}

Status FirstError(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity != Severity::kError) continue;
    Error error;
    if (diagnostic.code == "E024") {
      error = MakeError(ErrorCode::kPlaceholder, diagnostic.message, diagnostic.hint);
    } else if (diagnostic.code == ErrorCodeName(ErrorCode::kSqlLex)) {
      error = MakeError(ErrorCode::kSqlLex, diagnostic.message, diagnostic.hint);
    } else if (diagnostic.code == ErrorCodeName(ErrorCode::kConfig)) {
      error = MakeError(ErrorCode::kConfig, diagnostic.message, diagnostic.hint);
    } else {
      error = MakeError(ErrorCode::kCompile, diagnostic.message, diagnostic.hint);
      error.compile_code = diagnostic.code;
    }
    error.span = diagnostic.span;
    return error;
  }
  return OkStatus();
}

bool WindowSeparable(const project::Model& model, sql::Dialect dialect) {
  if (model.strategy != project::StrategyKind::kTimeInterval || !model.time_interval) return false;
  return analysis::ProveWindowSeparable(model.sql, dialect, model.time_interval->time_column,
                                        model.time_interval->granularity);
}

bool CallsAnyOf(const project::Model& model, sql::Dialect dialect,
                const std::vector<std::string>& names) {
  if (!sql::Lex(model.sql, dialect).ok()) return true;
  for (const std::string& called : analysis::CalledNames(model.sql, dialect)) {
    if (std::binary_search(names.begin(), names.end(), called)) return true;
  }
  return false;
}

}  // namespace strata::check
