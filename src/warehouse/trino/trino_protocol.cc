#include "warehouse/trino/trino_protocol.h"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace strata::warehouse::trino {
namespace {

using Json = nlohmann::json;

Error Malformed(std::string what) {
  return MakeError(ErrorCode::kWarehouse, "trino: unexpected response: " + std::move(what),
                   "the server may not be Trino, or a proxy changed its answer; check [warehouse] "
                   "url");
}

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<Column> ReadColumn(const Json& column) {
  if (!column.is_object() || !column.contains("name") || !column.contains("type")) {
    return Malformed("a column without a name or type");
  }
  Column out;
  out.name = Text(column, "name");
  out.type_name = Text(column, "type");
  std::string raw;
  auto signature = column.find("typeSignature");
  if (signature != column.end() && signature->is_object()) raw = Text(*signature, "rawType");
  if (raw.empty()) raw = out.type_name.substr(0, out.type_name.find('('));
  out.type = ColumnTypeOf(raw);
  return out;
}

Result<Value> ReadDouble(const Json& cell) {
  if (cell.is_number()) return Value(cell.get<double>());
  if (cell.is_string()) {
    const auto& text = cell.get_ref<const std::string&>();
    if (text == "NaN") return Value(std::numeric_limits<double>::quiet_NaN());
    if (text == "Infinity") return Value(std::numeric_limits<double>::infinity());
    if (text == "-Infinity") return Value(-std::numeric_limits<double>::infinity());
  }
  return Malformed("a real/double cell " + cell.dump());
}

Result<Value> ReadCell(const Json& cell, const Column& column) {
  if (cell.is_null()) return Value(std::monostate{});
  switch (column.type) {
    case ColumnType::kBoolean:
      if (cell.is_boolean()) return Value(cell.get<bool>());
      break;
    case ColumnType::kInteger:
      if (cell.is_number_integer()) return Value(cell.get<std::int64_t>());
      break;
    case ColumnType::kDouble:
      return ReadDouble(cell);
    case ColumnType::kTimestamp:
      if (cell.is_string()) return Value(NormalizeTimestamp(cell.get_ref<const std::string&>()));
      break;
    case ColumnType::kDecimal:
    case ColumnType::kString:
    case ColumnType::kDate:
      if (cell.is_string()) return Value(cell.get<std::string>());
      break;
    case ColumnType::kUnsignedInteger:
    case ColumnType::kOther:
      return Value(cell.is_string() ? cell.get<std::string>() : cell.dump());
  }
  return Malformed(fmt::format("column \"{}\" ({}) has the cell {}", column.name, column.type_name,
                               cell.dump()));
}

Result<std::vector<Value>> ReadRow(const Json& row, const std::vector<Column>& columns) {
  if (!row.is_array() || row.size() != columns.size()) {
    return Malformed(fmt::format("a row of {} cells for {} columns",
                                 row.is_array() ? row.size() : 0, columns.size()));
  }
  std::vector<Value> values;
  values.reserve(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(Value value, ReadCell(row[i], columns[i]));
    values.push_back(std::move(value));
  }
  return values;
}

TrinoError ReadError(const Json& error) {
  TrinoError out;
  out.message = Text(error, "message");
  out.error_name = Text(error, "errorName");
  out.error_type = Text(error, "errorType");
  if (auto code = error.find("errorCode"); code != error.end() && code->is_number_integer()) {
    out.error_code = code->get<std::int64_t>();
  }
  if (auto at = error.find("errorLocation"); at != error.end() && at->is_object()) {
    out.line = at->value("lineNumber", 0);
    out.column = at->value("columnNumber", 0);
  }
  return out;
}

Status ReadColumnsAndRows(const Json& doc, Page& page) {
  if (auto columns = doc.find("columns"); columns != doc.end() && columns->is_array()) {
    for (const auto& column : *columns) {
      STRATA_ASSIGN_OR_RETURN(Column read, ReadColumn(column));
      page.columns.push_back(std::move(read));
    }
  }
  auto data = doc.find("data");
  if (data == doc.end() || data->is_null()) return OkStatus();
  if (!data->is_array()) return Malformed("\"data\" is not a list");
  if (page.columns.empty() && !data->empty()) return Malformed("rows before their columns");
  page.rows.reserve(data->size());
  for (const auto& row : *data) {
    STRATA_ASSIGN_OR_RETURN(auto values, ReadRow(row, page.columns));
    page.rows.push_back(std::move(values));
  }
  return OkStatus();
}

bool IsOneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (auto candidate : names) {
    if (name == candidate) return true;
  }
  return false;
}

ErrorCode CodeOf(const TrinoError& error) {
  const std::string& name = error.error_name;
  if (name == "SYNTAX_ERROR") return ErrorCode::kWarehouseSyntax;
  if (IsOneOf(name, {"TABLE_NOT_FOUND", "SCHEMA_NOT_FOUND", "CATALOG_NOT_FOUND", "COLUMN_NOT_FOUND",
                     "MISSING_TABLE", "MISSING_SCHEMA_NAME", "MISSING_CATALOG_NAME",
                     "FUNCTION_NOT_FOUND"})) {
    return ErrorCode::kWarehouseCatalog;
  }
  if (IsOneOf(name, {"USER_CANCELED", "ADMINISTRATIVELY_KILLED"})) {
    return ErrorCode::kWarehouseInterrupted;
  }
  if (IsOneOf(name, {"NOT_SUPPORTED", "AUTOCOMMIT_WRITE_CONFLICT", "MULTI_CATALOG_WRITE_CONFLICT",
                     "READ_ONLY_VIOLATION"})) {
    return ErrorCode::kWarehouseUnsupported;
  }
  if (IsOneOf(name,
              {"TRANSACTION_CONFLICT", "ICEBERG_COMMIT_ERROR", "WRITE_TRANSACTION_CONFLICT"})) {
    return ErrorCode::kWarehouseConflict;
  }
  if (IsOneOf(name, {"NO_NODES_AVAILABLE", "SERVER_STARTING_UP", "SERVER_SHUTTING_DOWN",
                     "REMOTE_TASK_ERROR", "TOO_MANY_REQUESTS_FAILED", "PAGE_TRANSPORT_ERROR",
                     "PAGE_TRANSPORT_TIMEOUT", "REMOTE_HOST_GONE", "REMOTE_TASK_MISMATCH"})) {
    return ErrorCode::kWarehouseConnection;
  }
  return ErrorCode::kWarehouse;
}

// "2024-03-01 10:11:12.120000" -> "2024-03-01 10:11:12.12"; "....000" -> no fraction.
std::string TrimFraction(std::string_view text) {
  std::string out(text);
  auto dot = out.find('.');
  if (dot == std::string::npos) return out;
  while (out.size() > dot + 1 && out.back() == '0') out.pop_back();
  if (out.size() == dot + 1) out.pop_back();
  return out;
}

}  // namespace

ColumnType ColumnTypeOf(std::string_view raw_type) {
  if (raw_type == "boolean") return ColumnType::kBoolean;
  if (IsOneOf(raw_type, {"tinyint", "smallint", "integer", "bigint"})) return ColumnType::kInteger;
  if (IsOneOf(raw_type, {"real", "double"})) return ColumnType::kDouble;
  if (raw_type == "decimal") return ColumnType::kDecimal;
  if (IsOneOf(raw_type, {"varchar", "char"})) return ColumnType::kString;
  if (raw_type == "date") return ColumnType::kDate;
  if (IsOneOf(raw_type, {"timestamp", "timestamp with time zone"})) return ColumnType::kTimestamp;
  return ColumnType::kOther;
}

std::string NormalizeTimestamp(std::string_view text) {
  // "YYYY-MM-DD HH:MM:SS[.fff...]" then, for a zoned value, " ZONE".
  constexpr std::size_t kSecondsEnd = 19;
  if (text.size() < kSecondsEnd || text[10] != ' ' || text[13] != ':' || text[16] != ':') {
    return std::string(text);
  }
  auto space = text.find(' ', kSecondsEnd);
  std::string stamp = TrimFraction(text.substr(0, space));
  if (space == std::string_view::npos) return stamp;
  std::string_view zone = text.substr(space + 1);
  if (zone == "UTC" || zone == "Z" || zone == "+00:00") return stamp + "+00";
  return stamp + " " + std::string(zone);
}

Result<Page> ParsePage(std::string_view body) {
  Json doc = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Malformed("the body is not a JSON object");
  Page page;
  page.query_id = Text(doc, "id");
  if (page.query_id.empty()) return Malformed("no query \"id\"");
  if (auto next = doc.find("nextUri"); next != doc.end() && next->is_string()) {
    page.next_uri = next->get<std::string>();
  }
  if (auto stats = doc.find("stats"); stats != doc.end() && stats->is_object()) {
    page.state = Text(*stats, "state");
  }
  if (auto error = doc.find("error"); error != doc.end() && error->is_object()) {
    page.error = ReadError(*error);
  }
  page.update_type = Text(doc, "updateType");
  if (auto count = doc.find("updateCount"); count != doc.end() && count->is_number_integer()) {
    page.update_count = count->get<std::int64_t>();
  }
  STRATA_TRY(ReadColumnsAndRows(doc, page));
  return page;
}

Error ToError(const TrinoError& error) {
  Error out = MakeError(CodeOf(error), fmt::format("trino: {} ({}): {}", error.error_name,
                                                   error.error_type, error.message));
  if (error.line > 0) out.span = SourceSpan{"", error.line, error.column};
  if (error.error_type == "INSUFFICIENT_RESOURCES") {
    out.hint =
        "the query exceeded a Trino resource limit (query.max-memory, "
        "query.max-memory-per-node, query_max_run_time); raise it or narrow the query";
  }
  return out;
}

bool NeverStarted(const TrinoError& error) {
  return IsOneOf(error.error_name, {"NO_NODES_AVAILABLE", "SERVER_STARTING_UP"});
}

}  // namespace strata::warehouse::trino
