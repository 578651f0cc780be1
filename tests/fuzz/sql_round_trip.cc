#include "sql_round_trip.h"

#include <array>
#include <exception>
#include <string_view>
#include <vector>

#include "analysis/bounds.h"
#include "sql/ast.h"
#include "sql/dialect.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/printer.h"

namespace strata::fuzz {
namespace {

constexpr std::array<sql::Dialect, 7> kDialects = {
    sql::Dialect::kDuckDb,     sql::Dialect::kPostgres, sql::Dialect::kSnowflake,
    sql::Dialect::kDatabricks, sql::Dialect::kBigQuery, sql::Dialect::kRedshift,
    sql::Dialect::kTrino,
};

void CheckLex(std::string_view sql, sql::Dialect dialect, std::string& violations) {
  Result<std::vector<sql::Token>> tokens = sql::Lex(sql, dialect);
  if (!tokens.ok()) return;
  std::string joined;
  for (const sql::Token& token : *tokens) joined.append(token.text);
  if (joined != sql) violations += "lex: token texts do not reproduce the input\n";
  if (tokens->empty() || tokens->back().kind != sql::TokenKind::kEnd) {
    violations += "lex: the last token is not kEnd\n";
  }
}

void CheckParseError(std::string_view sql, const Error& error, std::string& violations) {
  if (error.message.empty()) violations += "parse: an error without a message\n";
  if (error.span.has_value()) {
    (void)sql::RenderCaret(sql, error.span->line, error.span->column);
  }
}

// printer.h: Print(*ParseStatement(Print(tree, d), d), d) == Print(tree, d).
void CheckRoundTrip(const sql::Statement& statement, sql::Dialect dialect,
                    std::string& violations) {
  const std::string printed = sql::Print(statement, dialect);
  Result<sql::StatementPtr> reparsed = sql::ParseStatement(printed, dialect);
  if (!reparsed.ok()) {
    violations += "round trip: printed SQL does not re-parse: " + printed + "  -- " +
                  reparsed.error().message + "\n";
    return;
  }
  const std::string reprinted = sql::Print(**reparsed, dialect);
  if (reprinted != printed) {
    violations +=
        "round trip: printed SQL prints differently after re-parsing:\n  first:  " + printed +
        "\n  second: " + reprinted + "\n";
  }
  for (sql::Dialect target : kDialects) {
    if (target != dialect) (void)sql::Print(statement, target);
  }
}

void CheckParse(std::string_view sql, sql::Dialect dialect, std::string& violations) {
  Result<std::vector<sql::StatementPtr>> script = sql::ParseScript(sql, dialect);
  if (!script.ok()) {
    CheckParseError(sql, script.error(), violations);
  } else {
    for (const sql::StatementPtr& statement : *script) {
      CheckRoundTrip(*statement, dialect, violations);
    }
  }
  Result<sql::StatementPtr> single = sql::ParseStatement(sql, dialect);
  if (!single.ok()) CheckParseError(sql, single.error(), violations);
}

void CheckAnalysis(std::string_view sql, sql::Dialect dialect, std::string& violations) {
  const analysis::BoundsReport report = analysis::AnalyzeModelSql(sql, dialect);
  if (report.start.bounded == report.start.diagnostic.has_value() ||
      report.end.bounded == report.end.diagnostic.has_value()) {
    violations += "analysis: a verdict's diagnostic is not set exactly when unbounded\n";
  }
  (void)analysis::FormatBoundsReport(report);
}

}  // namespace

std::string CheckSqlInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return "";
  const sql::Dialect dialect = kDialects[data[0] % kDialects.size()];
  const std::string_view sql(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string violations;
  try {
    CheckLex(sql, dialect, violations);
    CheckParse(sql, dialect, violations);
    CheckAnalysis(sql, dialect, violations);
  } catch (const std::exception& exception) {
    violations += std::string("exception: ") + exception.what() + "\n";
  }
  if (!violations.empty()) {
    violations = "dialect " + std::string(sql::DialectName(dialect)) + ":\n" + violations;
  }
  return violations;
}

}  // namespace strata::fuzz
