#include "serve/pg/catalog_result.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

namespace strata::serve::pg {
namespace {

// PostgreSQL's default name of a result column, from DuckDB's: a call is named after its
// function ("format_type"), a cast after its operand, a column after itself.
std::string ColumnName(const std::string& duckdb_name) {
  std::string_view name = duckdb_name;
  if (name.starts_with("CAST(")) {
    const std::size_t as = name.rfind(" AS ");
    if (as != std::string_view::npos) return ColumnName(std::string(name.substr(5, as - 5)));
  }
  const std::size_t open = name.find('(');
  std::string_view head = open == std::string_view::npos ? name : name.substr(0, open);
  const std::size_t dot = head.rfind('.');
  if (dot != std::string_view::npos) head = head.substr(dot + 1);
  if (open == std::string_view::npos && dot == std::string_view::npos) return duckdb_name;
  for (const char c : head) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return "?column?";
  }
  if (head.empty()) return "?column?";
  if (head.starts_with("strata_")) head.remove_prefix(7);
  return std::string(head);
}

std::string DoubleText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", value);
}

PgType TypeOf(const warehouse::ResultColumn& column) {
  switch (column.column.type) {
    case warehouse::ColumnType::kBoolean:
      return PgType::kBool;
    case warehouse::ColumnType::kInteger:
      return PgType::kInt8;
    case warehouse::ColumnType::kUnsignedInteger:
      return PgType::kOid;
    case warehouse::ColumnType::kDouble:
      return PgType::kFloat8;
    case warehouse::ColumnType::kDecimal:
      return PgType::kNumeric;
    case warehouse::ColumnType::kString:
    case warehouse::ColumnType::kOther:
      return PgType::kText;
    case warehouse::ColumnType::kDate:
      return PgType::kDate;
    case warehouse::ColumnType::kTimestamp:
      for (const warehouse::Value& value : column.values) {
        const auto* text = std::get_if<std::string>(&value);
        if (text != nullptr && !text->ends_with("+00")) return PgType::kTimestamp;
      }
      return PgType::kTimestamptz;
  }
  return PgType::kText;
}

std::optional<std::string> CellText(const warehouse::Value& value, bool list) {
  if (std::holds_alternative<std::monostate>(value)) return std::nullopt;
  if (const auto* flag = std::get_if<bool>(&value)) return std::string(*flag ? "t" : "f");
  if (const auto* number = std::get_if<double>(&value)) return DoubleText(*number);
  if (const auto* text = std::get_if<std::string>(&value)) {
    // A DuckDB list ([a, b]) in PostgreSQL's array text ({a,b}).
    if (list && text->size() >= 2 && text->front() == '[' && text->back() == ']') {
      std::string array = "{";
      for (std::size_t i = 1; i + 1 < text->size(); ++i) {
        if ((*text)[i] == ' ' && (*text)[i - 1] == ',') continue;
        array += (*text)[i];
      }
      return array + "}";
    }
    return *text;
  }
  return warehouse::ValueToString(value);
}

}  // namespace

PgType PgTypeOfDuckDbType(std::string_view duckdb_type) {
  static const std::map<std::string_view, PgType> kTypes = {
      {"BOOLEAN", PgType::kBool},
      {"TINYINT", PgType::kInt2},
      {"SMALLINT", PgType::kInt2},
      {"UTINYINT", PgType::kInt2},
      {"INTEGER", PgType::kInt4},
      {"USMALLINT", PgType::kInt4},
      {"BIGINT", PgType::kInt8},
      {"UINTEGER", PgType::kOid},
      {"UBIGINT", PgType::kNumeric},
      {"HUGEINT", PgType::kNumeric},
      {"FLOAT", PgType::kFloat4},
      {"DOUBLE", PgType::kFloat8},
      {"VARCHAR", PgType::kText},
      {"DATE", PgType::kDate},
      {"TIME", PgType::kTime},
      {"TIMESTAMP", PgType::kTimestamp},
      {"INTERVAL", PgType::kInterval},
      {"TIMESTAMP WITH TIME ZONE", PgType::kTimestamptz},
      {"BLOB", PgType::kBytea},
      {"VARCHAR[]", PgType::kTextArray},
      {"SMALLINT[]", PgType::kInt2Array},
      {"UINTEGER[]", PgType::kOidArray},
  };
  if (duckdb_type.starts_with("DECIMAL")) return PgType::kNumeric;
  const auto found = kTypes.find(duckdb_type);
  return found == kTypes.end() ? PgType::kText : found->second;
}

ResultSet ToResultSet(const warehouse::QueryResult& result,
                      const std::vector<std::string>& described_types) {
  const bool described = described_types.size() == result.columns.size();
  ResultSet out;
  std::vector<bool> lists;
  for (std::size_t index = 0; index < result.columns.size(); ++index) {
    const warehouse::ResultColumn& column = result.columns[index];
    const PgType type = described ? PgTypeOfDuckDbType(described_types[index]) : TypeOf(column);
    out.columns.push_back({ColumnName(column.column.name), type});
    lists.push_back(described ? described_types[index].ends_with("[]")
                              : column.column.type == warehouse::ColumnType::kOther);
  }
  out.rows.resize(result.row_count());
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    out.rows[row].reserve(result.columns.size());
    for (std::size_t index = 0; index < result.columns.size(); ++index) {
      out.rows[row].push_back(CellText(result.columns[index].values[row], lists[index]));
    }
  }
  return out;
}

}  // namespace strata::serve::pg
