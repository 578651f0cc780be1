#include "sql/reserved_words.h"

#include <array>

#include "sql/keyword_set.h"

namespace strata::sql {
namespace {

// The words that end a name or an expression in Strata's parser, in every dialect: a bare column
// name or an alias written without AS is never one of these.
constexpr std::array<std::string_view, 66> kParserWords = {
    "ALL",     "AND",     "ANTI",    "ANY",   "AS",        "ASC",   "ASOF",    "BETWEEN",
    "BY",      "CASE",    "CROSS",   "DESC",  "DISTINCT",  "ELSE",  "END",     "ESCAPE",
    "EXCEPT",  "EXISTS",  "FETCH",   "FOR",   "FROM",      "FULL",  "GLOB",    "GROUP",
    "HAVING",  "ILIKE",   "IN",      "INNER", "INTERSECT", "INTO",  "IS",      "ISNULL",
    "JOIN",    "LATERAL", "LEFT",    "LIKE",  "LIMIT",     "MINUS", "NATURAL", "NOT",
    "NOTNULL", "OFFSET",  "ON",      "OR",    "ORDER",     "OUTER", "PIVOT",   "POSITIONAL",
    "QUALIFY", "REGEXP",  "RIGHT",   "RLIKE", "SELECT",    "SEMI",  "SIMILAR", "TABLESAMPLE",
    "THEN",    "UNION",   "UNPIVOT", "USING", "WHEN",      "WHERE", "WINDOW",  "WITH",
    "VALUES",  "OVER"};

// DuckDB 1.4.4: duckdb_keywords() WHERE keyword_category = 'reserved'.
constexpr std::array<std::string_view, 75> kDuckDbReserved = {
    "ALL",          "ANALYSE",     "ANALYZE", "AND",       "ANY",        "ARRAY",      "AS",
    "ASC",          "ASYMMETRIC",  "BOTH",    "CASE",      "CAST",       "CHECK",      "COLLATE",
    "COLUMN",       "CONSTRAINT",  "CREATE",  "DEFAULT",   "DEFERRABLE", "DESC",       "DESCRIBE",
    "DISTINCT",     "DO",          "ELSE",    "END",       "EXCEPT",     "FALSE",      "FETCH",
    "FOR",          "FOREIGN",     "FROM",    "GROUP",     "HAVING",     "IN",         "INITIALLY",
    "INTERSECT",    "INTO",        "LAMBDA",  "LATERAL",   "LEADING",    "LIMIT",      "NOT",
    "NULL",         "OFFSET",      "ON",      "ONLY",      "OR",         "ORDER",      "PIVOT",
    "PIVOT_LONGER", "PIVOT_WIDER", "PLACING", "PRIMARY",   "QUALIFY",    "REFERENCES", "RETURNING",
    "SELECT",       "SHOW",        "SOME",    "SUMMARIZE", "SYMMETRIC",  "TABLE",      "THEN",
    "TO",           "TRAILING",    "TRUE",    "UNION",     "UNIQUE",     "UNPIVOT",    "USING",
    "VARIADIC",     "WHEN",        "WHERE",   "WINDOW",    "WITH"};
// DuckDB 1.4.4: keyword_category = 'type_function', less the words DuckDB reads as column names
// all the same (COLUMNS, GENERATED, MAP, STRUCT, TRY_CAST).
constexpr std::array<std::string_view, 30> kDuckDbTypeFunction = {
    "ANTI",  "ASOF",   "AT",      "AUTHORIZATION", "BINARY",  "BY",     "COLLATION", "CONCURRENTLY",
    "CROSS", "FREEZE", "FULL",    "GLOB",          "ILIKE",   "INNER",  "IS",        "ISNULL",
    "JOIN",  "LEFT",   "LIKE",    "NATURAL",       "NOTNULL", "OUTER",  "OVERLAPS",  "POSITIONAL",
    "RIGHT", "SEMI",   "SIMILAR", "TABLESAMPLE",   "UNPACK",  "VERBOSE"};
// PostgreSQL 15: pg_get_keywords() WHERE catcode = 'R'.
// clang-format off
constexpr std::array<std::string_view, 77> kPostgresReserved = {
    "ALL", "ANALYSE", "ANALYZE", "AND", "ANY", "ARRAY", "AS", "ASC", "ASYMMETRIC", "BOTH", "CASE",
    "CAST", "CHECK", "COLLATE", "COLUMN", "CONSTRAINT", "CREATE", "CURRENT_CATALOG", "CURRENT_DATE",
    "CURRENT_ROLE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_USER", "DEFAULT", "DEFERRABLE",
    "DESC", "DISTINCT", "DO", "ELSE", "END", "EXCEPT", "FALSE", "FETCH", "FOR", "FOREIGN", "FROM",
    "GRANT", "GROUP", "HAVING", "IN", "INITIALLY", "INTERSECT", "INTO", "LATERAL", "LEADING",
    "LIMIT", "LOCALTIME", "LOCALTIMESTAMP", "NOT", "NULL", "OFFSET", "ON", "ONLY", "OR", "ORDER",
    "PLACING", "PRIMARY", "REFERENCES", "RETURNING", "SELECT", "SESSION_USER", "SOME", "SYMMETRIC",
    "TABLE", "THEN", "TO", "TRAILING", "TRUE", "UNION", "UNIQUE", "USER", "USING", "VARIADIC",
    "WHEN", "WHERE", "WINDOW", "WITH"};
// clang-format on
// PostgreSQL 15: catcode = 'T' (type or function names, never column names).
// clang-format off
constexpr std::array<std::string_view, 23> kPostgresTypeFunction = {
    "AUTHORIZATION", "BINARY", "COLLATION", "CONCURRENTLY", "CROSS", "CURRENT_SCHEMA", "FREEZE",
    "FULL", "ILIKE", "INNER", "IS", "ISNULL", "JOIN", "LEFT", "LIKE", "NATURAL", "NOTNULL", "OUTER",
    "OVERLAPS", "RIGHT", "SIMILAR", "TABLESAMPLE", "VERBOSE"};
// clang-format on
// PostgreSQL's SQL value functions among its reserved words: values on their own.
constexpr std::array<std::string_view, 11> kPostgresValueWords = {
    "CURRENT_CATALOG", "CURRENT_DATE",      "CURRENT_ROLE", "CURRENT_SCHEMA",
    "CURRENT_TIME",    "CURRENT_TIMESTAMP", "CURRENT_USER", "LOCALTIME",
    "LOCALTIMESTAMP",  "SESSION_USER",      "USER"};

constexpr KeywordSet<kParserWords.size()> kParserSet(kParserWords);
constexpr KeywordSet<kParserWords.size() + kDuckDbReserved.size() + kDuckDbTypeFunction.size()>
    kDuckDbSet(JoinWords(kParserWords, JoinWords(kDuckDbReserved, kDuckDbTypeFunction)));
constexpr KeywordSet<kParserWords.size() + kPostgresReserved.size() + kPostgresTypeFunction.size()>
    kPostgresSet(JoinWords(kParserWords, JoinWords(kPostgresReserved, kPostgresTypeFunction)));
constexpr KeywordSet<kDuckDbTypeFunction.size()> kDuckDbFunctionSet(kDuckDbTypeFunction);
constexpr KeywordSet<kPostgresTypeFunction.size()> kPostgresFunctionSet(kPostgresTypeFunction);
constexpr KeywordSet<kPostgresValueWords.size()> kPostgresValueSet(kPostgresValueWords);

}  // namespace

bool IsReservedWord(std::string_view word, Dialect dialect) {
  switch (dialect) {
    case Dialect::kDuckDb:
      return kDuckDbSet.Contains(word);
    case Dialect::kPostgres:
      return kPostgresSet.Contains(word);
    case Dialect::kSnowflake:
    case Dialect::kDatabricks:
    case Dialect::kBigQuery:
    case Dialect::kRedshift:
    case Dialect::kTrino:
      return kParserSet.Contains(word);
  }
  return kParserSet.Contains(word);
}

bool IsReservedFunctionName(std::string_view word, Dialect dialect) {
  if (EqualsIgnoreAsciiCase(word, "LEFT") || EqualsIgnoreAsciiCase(word, "RIGHT")) return true;
  switch (dialect) {
    case Dialect::kDuckDb:
      return kDuckDbFunctionSet.Contains(word);
    case Dialect::kPostgres:
      return kPostgresFunctionSet.Contains(word);
    case Dialect::kSnowflake:
    case Dialect::kDatabricks:
    case Dialect::kBigQuery:
    case Dialect::kRedshift:
    case Dialect::kTrino:
      return false;
  }
  return false;
}

bool IsReservedValueWord(std::string_view word, Dialect dialect) {
  return dialect == Dialect::kPostgres && kPostgresValueSet.Contains(word);
}

}  // namespace strata::sql
