#include "compiler/compiler.h"

#include <fmt/format.h>

#include <memory>

#include "analysis/bounds.h"
#include "compiler/internal/checks.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace strata::compiler {
namespace {

Diagnostic FromBounds(const project::Model& model, const std::string& file,
                      const analysis::BoundsDiagnostic& found, Severity severity) {
  Diagnostic diagnostic;
  diagnostic.model = model.name;
  diagnostic.code = found.code;
  diagnostic.severity = severity;
  diagnostic.message = found.message;
  diagnostic.hint = severity == Severity::kError
                        ? "filter every source of the output rows with <time> >= @start_date AND "
                          "<time> < @end_date (in WHERE, HAVING, QUALIFY or an inner join's ON)"
                        : "use <time> >= @start_date AND <time> < @end_date: BETWEEN includes "
                          "its end, so a row at exactly @end_date lands in two partitions";
  diagnostic.span = SourceSpan{file, found.line, found.column};
  diagnostic.caret = found.caret;
  return diagnostic;
}

// `script` is model.sql parsed; on a parse error AnalyzeModelSql re-parses to report it as E024.
void CheckBounds(const project::Model& model, const std::string& file, sql::Dialect dialect,
                 const Result<std::vector<sql::StatementPtr>>& script, std::vector<Diagnostic>& out) {
  const analysis::BoundsReport report = script.ok() ? analysis::AnalyzeBounds(*script)
                                                    : analysis::AnalyzeModelSql(model.sql, dialect);
  for (const analysis::BoundVerdict* verdict : {&report.start, &report.end}) {
    if (verdict->bounded || !verdict->diagnostic) continue;
    // A parse failure makes both bounds fail with the same message: report it once.
    if (!out.empty() && out.back().message == verdict->diagnostic->message) continue;
    out.push_back(FromBounds(model, file, *verdict->diagnostic, Severity::kError));
  }
  for (const analysis::BoundsDiagnostic& warning : report.warnings) {
    out.push_back(FromBounds(model, file, warning, Severity::kWarning));
  }
}

}  // namespace

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
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
    diagnostic.span = SourceSpan{file, error.span ? error.span->line : 0,
                                 error.span ? error.span->column : 0};
    out.push_back(std::move(diagnostic));
    return out;
  }
  internal::CheckDependencies(project, model, files, dialect, *tokens, out);
  if (model.strategy == project::StrategyKind::kTimeInterval && model.time_interval) {
    // Parsed once for both analyses: parsing is most of a compile's time.
    Result<std::vector<sql::StatementPtr>> script = sql::ParseScriptTokens(source, *tokens, dialect);
    CheckBounds(model, file, dialect, script, out);
    internal::CheckTimeIntervalConfig(model, files, dialect, out);
    if (script.ok() && script->size() == 1) {
      internal::CheckTimeColumn(project, model, files, *(*script)[0], catalog, out);
    }
  }
  if (model.strategy == project::StrategyKind::kIncremental && model.incremental) {
    Result<std::vector<sql::StatementPtr>> script = sql::ParseScriptTokens(source, *tokens, dialect);
    const sql::Statement* statement =
        script.ok() && script->size() == 1 ? (*script)[0].get() : nullptr;
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
    } else {
      error = MakeError(ErrorCode::kCompile, diagnostic.message, diagnostic.hint);
      error.compile_code = diagnostic.code;
    }
    error.span = diagnostic.span;
    return error;
  }
  return OkStatus();
}

}  // namespace strata::compiler
