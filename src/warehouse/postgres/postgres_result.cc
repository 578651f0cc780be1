#include "warehouse/postgres/postgres_result.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <string>

namespace strata::warehouse {
namespace {

// From PostgreSQL's catalog (src/include/catalog/pg_type.dat); stable across releases.
constexpr Oid kBoolOid = 16;
constexpr Oid kNameOid = 19;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kTextOid = 25;
constexpr Oid kOidOid = 26;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kBpcharOid = 1042;
constexpr Oid kVarcharOid = 1043;
constexpr Oid kDateOid = 1082;
constexpr Oid kTimestampOid = 1114;
constexpr Oid kTimestampTzOid = 1184;
constexpr Oid kNumericOid = 1700;

std::string_view TypeNameOfOid(Oid type) {
  switch (type) {
    case kBoolOid:
      return "boolean";
    case kNameOid:
      return "name";
    case kInt8Oid:
      return "bigint";
    case kInt2Oid:
      return "smallint";
    case kInt4Oid:
      return "integer";
    case kTextOid:
      return "text";
    case kOidOid:
      return "oid";
    case kFloat4Oid:
      return "real";
    case kFloat8Oid:
      return "double precision";
    case kBpcharOid:
      return "character";
    case kVarcharOid:
      return "character varying";
    case kDateOid:
      return "date";
    case kTimestampOid:
      return "timestamp without time zone";
    case kTimestampTzOid:
      return "timestamp with time zone";
    case kNumericOid:
      return "numeric";
    default:
      return "";
  }
}

Value ParseCell(std::string_view text, ColumnType type) {
  switch (type) {
    case ColumnType::kBoolean:
      return text == "t";
    case ColumnType::kInteger: {
      std::int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error == std::errc() && end == text.data() + text.size()) return value;
      break;  // an oid above 2^63 cannot happen; keep the text rather than guess
    }
    case ColumnType::kDouble:
      // strtod reads PostgreSQL's "NaN", "Infinity" and "-Infinity" too. The text is
      // NUL-terminated (libpq guarantees it), so strtod stops at the cell's end.
      return std::strtod(text.data(), nullptr);
    case ColumnType::kUnsignedInteger:
    case ColumnType::kDecimal:
    case ColumnType::kString:
    case ColumnType::kDate:
    case ColumnType::kTimestamp:
    case ColumnType::kOther:
      break;
  }
  return std::string(text);
}

std::string Field(const PGresult* result, int field) {
  const char* value = PQresultErrorField(result, field);
  return value != nullptr ? value : "";
}

// libpq's own messages end with a newline and may start with "ERROR:  ".
std::string CleanMessage(std::string message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  for (std::string_view prefix : {"ERROR:  ", "FATAL:  "}) {
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
  }
  return message.empty() ? "unknown PostgreSQL error" : message;
}

}  // namespace

ColumnType ColumnTypeFromPostgresOid(Oid type) {
  switch (type) {
    case kBoolOid:
      return ColumnType::kBoolean;
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
    case kOidOid:
      return ColumnType::kInteger;
    case kFloat4Oid:
    case kFloat8Oid:
      return ColumnType::kDouble;
    case kNumericOid:
      return ColumnType::kDecimal;
    case kTextOid:
    case kVarcharOid:
    case kBpcharOid:
    case kNameOid:
      return ColumnType::kString;
    case kDateOid:
      return ColumnType::kDate;
    case kTimestampOid:
    case kTimestampTzOid:
      return ColumnType::kTimestamp;
    default:
      return ColumnType::kOther;
  }
}

ColumnType ColumnTypeFromPostgresName(std::string_view name) {
  if (name == "bool") return ColumnType::kBoolean;
  if (name == "int2" || name == "int4" || name == "int8" || name == "oid") {
    return ColumnType::kInteger;
  }
  if (name == "float4" || name == "float8") return ColumnType::kDouble;
  if (name == "numeric") return ColumnType::kDecimal;
  if (name == "text" || name == "varchar" || name == "bpchar" || name == "name") {
    return ColumnType::kString;
  }
  if (name == "date") return ColumnType::kDate;
  if (name == "timestamp" || name == "timestamptz") return ColumnType::kTimestamp;
  return ColumnType::kOther;
}

QueryResult ReadPostgresResult(const PGresult* result) {
  QueryResult out;
  const char* changed = PQcmdTuples(const_cast<PGresult*>(result));
  if (changed != nullptr && *changed != '\0') out.rows_changed = std::strtoll(changed, nullptr, 10);
  AppendPostgresRows(result, out);
  return out;
}

void AppendPostgresRows(const PGresult* result, QueryResult& out) {
  const int column_count = PQnfields(result);
  const int row_count = PQntuples(result);
  const bool named = !out.columns.empty();
  out.columns.resize(static_cast<std::size_t>(column_count));
  for (int column = 0; column < column_count; ++column) {
    ResultColumn& target = out.columns[static_cast<std::size_t>(column)];
    if (!named) {
      const Oid type = PQftype(result, column);
      target.column.name = PQfname(result, column);
      target.column.type = ColumnTypeFromPostgresOid(type);
      const std::string_view type_name = TypeNameOfOid(type);
      target.column.type_name =
          type_name.empty() ? fmt::format("oid {}", type) : std::string(type_name);
    }
    target.values.reserve(target.values.size() + static_cast<std::size_t>(row_count));
    for (int row = 0; row < row_count; ++row) {
      if (PQgetisnull(result, row, column)) {
        target.values.emplace_back(std::monostate{});
        continue;
      }
      const std::string_view text(PQgetvalue(result, row, column),
                                  static_cast<std::size_t>(PQgetlength(result, row, column)));
      target.values.push_back(ParseCell(text, target.column.type));
    }
  }
}

ErrorCode ErrorCodeForSqlState(std::string_view sqlstate) {
  if (sqlstate == "40001" || sqlstate == "40P01") return ErrorCode::kWarehouseConflict;
  if (sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
      sqlstate == "57P03" || sqlstate == "53300") {
    return ErrorCode::kWarehouseConnection;
  }
  if (sqlstate == "42601") return ErrorCode::kWarehouseSyntax;
  if (sqlstate == "42P01" || sqlstate == "42703" || sqlstate == "42883" || sqlstate == "3F000") {
    return ErrorCode::kWarehouseCatalog;
  }
  if (sqlstate == "57014") return ErrorCode::kWarehouseInterrupted;
  return ErrorCode::kWarehouse;
}

Error ErrorFromPostgres(const PGresult* result, const PGconn* connection) {
  const bool connection_lost = PQstatus(connection) == CONNECTION_BAD;
  const std::string sqlstate = result != nullptr ? Field(result, PG_DIAG_SQLSTATE) : "";
  if (sqlstate.empty()) {
    // No server error: libpq itself failed (typically the connection dropped mid-statement).
    std::string message = result != nullptr ? CleanMessage(PQresultErrorMessage(result)) : "";
    if (message == "unknown PostgreSQL error" || message.empty()) {
      message = CleanMessage(PQerrorMessage(connection));
    }
    return MakeError(connection_lost ? ErrorCode::kWarehouseConnection : ErrorCode::kWarehouse,
                     "PostgreSQL: " + message);
  }
  std::string message = fmt::format("PostgreSQL: {} (SQLSTATE {})",
                                    CleanMessage(Field(result, PG_DIAG_MESSAGE_PRIMARY)), sqlstate);
  if (const std::string detail = Field(result, PG_DIAG_MESSAGE_DETAIL); !detail.empty()) {
    message += "; detail: " + detail;
  }
  const ErrorCode code =
      connection_lost ? ErrorCode::kWarehouseConnection : ErrorCodeForSqlState(sqlstate);
  return MakeError(code, std::move(message), Field(result, PG_DIAG_MESSAGE_HINT));
}

}  // namespace strata::warehouse
