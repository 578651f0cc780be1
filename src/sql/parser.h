// A recursive-descent parser for the SELECT language of Strata's dialects (DuckDB, PostgreSQL,
// Snowflake, Databricks/Spark, BigQuery, Redshift, Trino), over the tokens of Lex (lexer.h).
//
// The parser is deliberately permissive across dialects: it accepts the union of the constructs
// listed in ast.h whatever the dialect, except where the dialect changes what a token means
// (quoting rules come from the lexer; Snowflake/Databricks `col:path` access is only read in
// those two dialects). It checks syntax, never names or types.
//
// Only query statements are accepted: SELECT, WITH ... SELECT, VALUES, DuckDB's FROM-first
// `FROM t [SELECT ...]`, and parenthesized queries with set operations.
//
// All functions are pure and thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/ast.h"
#include "sql/dialect.h"
#include "sql/lexer.h"

namespace strata::sql {

// Parses exactly one statement (an optional trailing ';' is allowed). The Statement keeps its own
// copy of `sql`.
// Errors: kSqlLex when `sql` does not lex (see Lex) or does not parse; error.message says what
// was expected and what was found with the line and column ("expected ')' but found 'FROM' at
// line 3, column 7"), error.span has the line and column (file left empty for the caller), and
// error.hint is the source line with a caret under the column (see RenderCaret).
// A script with more than one statement is an error here; use ParseScript.
Result<StatementPtr> ParseStatement(std::string_view sql, Dialect dialect);

// Parses a ';'-separated script; empty statements (";;", trailing ';', only comments) are
// skipped, so the result may be empty. All statements share one copy of `sql`.
// Errors: as ParseStatement, for the first statement that fails.
Result<std::vector<StatementPtr>> ParseScript(std::string_view sql, Dialect dialect);

// ParseScript for callers that lexed already: `tokens` is the whole output of
// Lex(*source, dialect), trivia included, and its texts point into *source, which the statements
// keep. Errors: as ParseScript, for parse errors (the lexing succeeded).
Result<std::vector<StatementPtr>> ParseScriptTokens(
    const std::shared_ptr<const std::string>& source, const std::vector<Token>& tokens,
    Dialect dialect);

// Two lines for a diagnostic: the source line `line` of `sql` (1-based; tabs kept) and a line
// with a '^' under byte column `column` (1-based; tabs in the prefix are copied so the caret
// lines up). Returns "" when `line` is out of range; a column past the end puts the caret just
// after the last byte. No trailing newline.
std::string RenderCaret(std::string_view sql, int line, int column);

}  // namespace strata::sql
