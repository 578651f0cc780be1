#include "sql/dialect.h"

#include <array>
#include <utility>

#include "sql/internal/lex_rules.h"

namespace strata::sql {
namespace {

constexpr std::array<std::pair<Dialect, std::string_view>, 7> kNames = {{
    {Dialect::kDuckDb, "duckdb"},
    {Dialect::kPostgres, "postgres"},
    {Dialect::kSnowflake, "snowflake"},
    {Dialect::kDatabricks, "databricks"},
    {Dialect::kBigQuery, "bigquery"},
    {Dialect::kRedshift, "redshift"},
    {Dialect::kTrino, "trino"},
}};

bool IsAsciiLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

std::size_t MaxPlainIdentifierLength(Dialect dialect) {
  switch (dialect) {
    case Dialect::kPostgres:
    case Dialect::kRedshift:
      return 63;
    case Dialect::kDuckDb:
    case Dialect::kSnowflake:
    case Dialect::kDatabricks:
    case Dialect::kBigQuery:
    case Dialect::kTrino:
      return 128;
  }
  return 63;
}

// How the dialect writes a single quote inside a '...' literal.
std::string_view EscapedQuote(Dialect dialect) {
  return internal::RulesFor(dialect).double_quote_strings ? "\\'" : "''";
}

}  // namespace

std::string_view DialectName(Dialect dialect) {
  for (const auto& [candidate, name] : kNames) {
    if (candidate == dialect) return name;
  }
  return "unknown";
}

std::optional<Dialect> ParseDialect(std::string_view name) {
  for (const auto& [dialect, candidate] : kNames) {
    if (candidate == name) return dialect;
  }
  return std::nullopt;
}

std::string QuoteIdentifier(std::string_view name, Dialect dialect) {
  const internal::LexRules rules = internal::RulesFor(dialect);
  const char quote = rules.backtick_identifiers ? '`' : '"';
  std::string out;
  out.reserve(name.size() + 2);
  out += quote;
  for (char c : name) {
    if (rules.backtick_backslash && (c == quote || c == '\\')) {
      out += '\\';
    } else if (c == quote) {
      out += quote;
    }
    out += c;
  }
  out += quote;
  return out;
}

bool IsPlainIdentifier(std::string_view name, Dialect dialect) {
  if (name.empty() || name.size() > MaxPlainIdentifierLength(dialect)) return false;
  if (!IsAsciiLetter(name[0]) && name[0] != '_') return false;
  for (char c : name) {
    if (!IsAsciiLetter(c) && !IsAsciiDigit(c) && c != '_') return false;
  }
  return true;
}

std::string QuoteString(std::string_view value, Dialect dialect) {
  const internal::LexRules rules = internal::RulesFor(dialect);
  const bool escape_newlines = dialect == Dialect::kBigQuery;
  std::string out;
  out.reserve(value.size() + 2);
  out += '\'';
  for (char c : value) {
    if (c == '\'') {
      out += EscapedQuote(dialect);
    } else if (c == '\\' && rules.backslash_escapes) {
      out += "\\\\";
    } else if (c == '\n' && escape_newlines) {
      out += "\\n";
    } else if (c == '\r' && escape_newlines) {
      out += "\\r";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

}  // namespace strata::sql
