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

bool AllowsDollar(Dialect dialect) {
  switch (dialect) {
    case Dialect::kDuckDb:
    case Dialect::kPostgres:
    case Dialect::kRedshift:
    case Dialect::kSnowflake:
      return true;
    case Dialect::kDatabricks:
    case Dialect::kBigQuery:
    case Dialect::kTrino:
      return false;
  }
  return false;
}

bool AllowsDash(ObjectNamePart part, Dialect dialect) {
  return dialect == Dialect::kBigQuery && part != ObjectNamePart::kSchema;
}

bool AllowsLeadingDigit(ObjectNamePart part, Dialect dialect) {
  return dialect == Dialect::kBigQuery && part != ObjectNamePart::kCatalog;
}

// A byte as users read it: the character when printable ASCII, else its hex value.
std::string DescribeByte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  constexpr std::string_view kHex = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0xf];
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

std::string_view ObjectNamePartName(ObjectNamePart part) {
  switch (part) {
    case ObjectNamePart::kCatalog:
      return "catalog";
    case ObjectNamePart::kSchema:
      return "schema";
    case ObjectNamePart::kTable:
      return "table";
  }
  return "object";
}

std::size_t MaxObjectNameBytes(ObjectNamePart part, Dialect dialect) {
  switch (dialect) {
    case Dialect::kPostgres:
      return 63;
    case Dialect::kRedshift:
      return 127;
    case Dialect::kDuckDb:
    case Dialect::kTrino:
      return 128;
    case Dialect::kSnowflake:
    case Dialect::kDatabricks:
      return 255;
    case Dialect::kBigQuery:
      return part == ObjectNamePart::kCatalog ? 30 : 1024;
  }
  return 63;
}

std::string ObjectNameCharacters(ObjectNamePart part, Dialect dialect) {
  std::string out = "ASCII letters, digits, _";
  if (AllowsDollar(dialect)) out += ", $";
  if (AllowsDash(part, dialect)) out += ", -";
  out += AllowsLeadingDigit(part, dialect) ? ", starting with a letter, digit or _"
                                           : ", starting with a letter or _";
  return out;
}

std::optional<std::string> ObjectNameProblem(std::string_view name, ObjectNamePart part,
                                             Dialect dialect) {
  if (name.empty()) return "is empty";
  const std::size_t max = MaxObjectNameBytes(part, dialect);
  if (name.size() > max) {
    return "is " + std::to_string(name.size()) + " bytes long; " +
           std::string(DialectName(dialect)) + " keeps at most " + std::to_string(max) +
           " bytes in a " + std::string(ObjectNamePartName(part)) + " name";
  }
  const char first = name[0];
  const bool first_ok = IsAsciiLetter(first) || first == '_' ||
                        (IsAsciiDigit(first) && AllowsLeadingDigit(part, dialect));
  if (!first_ok) return "starts with " + DescribeByte(first);
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = IsAsciiLetter(c) || IsAsciiDigit(c) || c == '_' ||
                    (c == '$' && AllowsDollar(dialect)) || (c == '-' && AllowsDash(part, dialect));
    if (!ok) return "holds " + DescribeByte(c) + " at byte " + std::to_string(i + 1);
  }
  return std::nullopt;
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
