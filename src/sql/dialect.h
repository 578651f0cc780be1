// SQL dialects Strata speaks, and the few dialect rules every other component needs to render
// names and literals safely (DESIGN.md: "every identifier that reaches SQL is validated or quoted
// by the dialect").
//
// All functions are pure, allocation-only (no I/O) and thread-safe.
#pragma once

#include <cstddef>
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

// The part of a warehouse object's name a name stands for: catalog.schema.table.
enum class ObjectNamePart { kCatalog, kSchema, kTable };

// Why `name` cannot name a catalog, schema or table that Strata reads or builds in the dialect, or
// nullopt when it can. Quoting makes any name safe to send, but a name outside these rules is
// almost always a mistake (a stray quote, a dot meant as a separator) or is rejected, truncated or
// case-mangled by the warehouse, so the project loader refuses it. Accepted names:
//   - ASCII letters, digits and _, starting with a letter or _;
//   - $ after the first character in duckdb, postgres, redshift and snowflake;
//   - bigquery: - in project ids (the catalog) and table names; a dataset (schema) or table name
//     may start with a digit;
//   - at most MaxObjectNameBytes(part, dialect) bytes.
// The text is a fragment such as "is 64 bytes long; postgres keeps at most 63".
std::optional<std::string> ObjectNameProblem(std::string_view name, ObjectNamePart part,
                                             Dialect dialect);

// "catalog" | "schema" | "table".
std::string_view ObjectNamePartName(ObjectNamePart part);

// The longest name ObjectNameProblem accepts: postgres 63 bytes (longer names are truncated),
// redshift 127, duckdb and trino 128, snowflake and databricks 255, bigquery 30 for a project id
// and 1024 for datasets and tables.
std::size_t MaxObjectNameBytes(ObjectNamePart part, Dialect dialect);

// The characters ObjectNameProblem accepts, for hints:
// "ASCII letters, digits, _, $, starting with a letter or _".
std::string ObjectNameCharacters(ObjectNamePart part, Dialect dialect);

// Renders `value` as a string literal whose value is exactly `value` in the dialect:
//   duckdb, postgres, trino:  'it''s'           (backslash is an ordinary character)
//   snowflake, redshift:      'it''s', '\\'     (these dialects read backslash escapes)
//   databricks, bigquery:     'it\'s', '\\'     ('' would be two adjacent literals there)
//   bigquery also escapes newline and carriage return as \n and \r (its '...' literals cannot
//   span lines).
std::string QuoteString(std::string_view value, Dialect dialect);

}  // namespace strata::sql
