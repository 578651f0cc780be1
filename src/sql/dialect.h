// SQL dialects Strata speaks, and the few dialect rules every other component needs to render
// names and literals safely (DESIGN.md: "every identifier that reaches SQL is validated or quoted
// by the dialect").
//
// All functions are pure, allocation-only (no I/O) and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::sql {

enum class Dialect { kDuckDb, kPostgres, kSnowflake, kDatabricks, kBigQuery, kRedshift, kTrino };

// The stable lower-case name used in config files and output: "duckdb", "postgres", "snowflake",
// "databricks", "bigquery", "redshift", "trino".
std::string_view DialectName(Dialect dialect);

// Inverse of DialectName: exact, case-sensitive match; nullopt for any other text.
std::optional<Dialect> ParseDialect(std::string_view name);

// Quotes one identifier part (never a dotted path; quote each part separately):
//   duckdb, postgres, snowflake, redshift, trino: "x" with " doubled;
//   databricks:                                    `x` with ` doubled;
//   bigquery:                                      `x` with ` and \ backslash-escaped (GoogleSQL
//                                                  reads escapes in quoted names and has no
//                                                  `` doubling).
// Never fails; all other bytes are kept as they are between the quotes.
std::string QuoteIdentifier(std::string_view name, Dialect dialect);

// True when `name` matches [A-Za-z_][A-Za-z0-9_]* and is at most 128 bytes (63 for postgres and
// redshift), i.e. it can be written unquoted without being rejected or truncated. Reserved words
// are NOT checked: "select" is "plain" here and still needs quoting in most dialects.
bool IsPlainIdentifier(std::string_view name, Dialect dialect);

// Renders `value` as a string literal whose value is exactly `value` in the dialect:
//   duckdb, postgres, trino:  'it''s'           (backslash is an ordinary character)
//   snowflake, redshift:      'it''s', '\\'     (these dialects read backslash escapes)
//   databricks, bigquery:     'it\'s', '\\'     ('' would be two adjacent literals there)
//   bigquery also escapes newline and carriage return as \n and \r (its '...' literals cannot
//   span lines).
std::string QuoteString(std::string_view value, Dialect dialect);

}  // namespace strata::sql
