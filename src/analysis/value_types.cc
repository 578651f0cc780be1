// Type names to ValueType, and name matching (output_columns.h).
#include <algorithm>
#include <array>
#include <cctype>

#include "analysis/internal/output_scope.h"
#include "analysis/output_columns.h"
#include "base/ascii.h"

namespace strata::analysis {
namespace {

struct NamedType {
  std::string_view name;
  ValueType type;
};

// Upper-case spellings across DuckDB, PostgreSQL, Snowflake, Databricks, BigQuery, Redshift and
// Trino; parameters are stripped before the lookup.
constexpr std::array kTypeNames = {
    NamedType{"BOOLEAN", ValueType::kBoolean},
    NamedType{"BOOL", ValueType::kBoolean},
    NamedType{"LOGICAL", ValueType::kBoolean},
    NamedType{"TINYINT", ValueType::kInteger},
    NamedType{"SMALLINT", ValueType::kInteger},
    NamedType{"INTEGER", ValueType::kInteger},
    NamedType{"INT", ValueType::kInteger},
    NamedType{"INT2", ValueType::kInteger},
    NamedType{"INT4", ValueType::kInteger},
    NamedType{"INT8", ValueType::kInteger},
    NamedType{"BIGINT", ValueType::kInteger},
    NamedType{"HUGEINT", ValueType::kInteger},
    NamedType{"UHUGEINT", ValueType::kInteger},
    NamedType{"UTINYINT", ValueType::kInteger},
    NamedType{"USMALLINT", ValueType::kInteger},
    NamedType{"UINTEGER", ValueType::kInteger},
    NamedType{"UBIGINT", ValueType::kInteger},
    NamedType{"INT64", ValueType::kInteger},
    NamedType{"BYTEINT", ValueType::kInteger},
    NamedType{"SHORT", ValueType::kInteger},
    NamedType{"LONG", ValueType::kInteger},
    NamedType{"DECIMAL", ValueType::kDecimal},
    NamedType{"NUMERIC", ValueType::kDecimal},
    NamedType{"NUMBER", ValueType::kDecimal},
    NamedType{"BIGNUMERIC", ValueType::kDecimal},
    NamedType{"DOUBLE", ValueType::kDouble},
    NamedType{"DOUBLE PRECISION", ValueType::kDouble},
    NamedType{"FLOAT", ValueType::kDouble},
    NamedType{"FLOAT4", ValueType::kDouble},
    NamedType{"FLOAT8", ValueType::kDouble},
    NamedType{"FLOAT64", ValueType::kDouble},
    NamedType{"REAL", ValueType::kDouble},
    NamedType{"VARCHAR", ValueType::kString},
    NamedType{"TEXT", ValueType::kString},
    NamedType{"STRING", ValueType::kString},
    NamedType{"CHAR", ValueType::kString},
    NamedType{"BPCHAR", ValueType::kString},
    NamedType{"NVARCHAR", ValueType::kString},
    NamedType{"CHARACTER", ValueType::kString},
    NamedType{"CHARACTER VARYING", ValueType::kString},
    NamedType{"DATE", ValueType::kDate},
    NamedType{"TIMESTAMP", ValueType::kTimestamp},
    NamedType{"DATETIME", ValueType::kTimestamp},
    NamedType{"TIMESTAMP_NS", ValueType::kTimestamp},
    NamedType{"TIMESTAMP_MS", ValueType::kTimestamp},
    NamedType{"TIMESTAMP_S", ValueType::kTimestamp},
    NamedType{"TIMESTAMP_US", ValueType::kTimestamp},
    NamedType{"TIMESTAMP_NTZ", ValueType::kTimestamp},
    NamedType{"TIMESTAMP WITHOUT TIME ZONE", ValueType::kTimestamp},
    NamedType{"TIMESTAMPTZ", ValueType::kTimestampTz},
    NamedType{"TIMESTAMP_TZ", ValueType::kTimestampTz},
    NamedType{"TIMESTAMP_LTZ", ValueType::kTimestampTz},
    NamedType{"TIMESTAMP WITH TIME ZONE", ValueType::kTimestampTz},
    NamedType{"TIMESTAMP WITH LOCAL TIME ZONE", ValueType::kTimestampTz},
};

}  // namespace

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kUnknown:
      return "unknown";
    case ValueType::kBoolean:
      return "BOOLEAN";
    case ValueType::kInteger:
      return "INTEGER";
    case ValueType::kDecimal:
      return "DECIMAL";
    case ValueType::kDouble:
      return "DOUBLE";
    case ValueType::kString:
      return "VARCHAR";
    case ValueType::kDate:
      return "DATE";
    case ValueType::kTimestamp:
      return "TIMESTAMP";
    case ValueType::kTimestampTz:
      return "TIMESTAMP WITH TIME ZONE";
    case ValueType::kOther:
      return "other";
  }
  return "unknown";
}

ValueType ValueTypeFromName(std::string_view type_name) {
  std::string upper;
  bool space = false;
  for (char c : type_name) {
    if (c == '(' || c == '<' || c == '[') break;  // parameters and array suffixes
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !upper.empty();
      continue;
    }
    if (space) upper += ' ';
    space = false;
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (upper.empty()) return ValueType::kUnknown;
  if (type_name.find('[') != std::string_view::npos) return ValueType::kOther;
  for (const NamedType& named : kTypeNames) {
    if (named.name == upper) return named.type;
  }
  return ValueType::kOther;
}

bool IsTemporal(ValueType type) {
  return type == ValueType::kDate || type == ValueType::kTimestamp ||
         type == ValueType::kTimestampTz;
}

bool SameName(std::string_view a, std::string_view b) { return EqualsIgnoreAsciiCase(a, b); }

namespace internal {

std::string Lower(std::string_view text) { return AsciiLowered(text); }

ValueType TypeOf(const sql::DataType& type) {
  if (!type.array_suffixes.empty()) return ValueType::kOther;
  std::string words;
  for (const sql::Identifier& word : type.words) {
    if (!words.empty()) words += ' ';
    words += word.name;
  }
  return ValueTypeFromName(words);
}

}  // namespace internal
}  // namespace strata::analysis
