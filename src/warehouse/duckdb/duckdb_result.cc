#include "warehouse/duckdb/duckdb_result.h"

#include <fmt/format.h>

#include <string>

#include "base/time.h"
#include "warehouse/duckdb/vector_access.h"

namespace strata::warehouse {
namespace {

// duckdb_type is DuckDB's (a C enum that grows with each release): every type not named is
// kOther, so this switch keeps its default (-Wswitch-enum off here).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wswitch-enum"
ColumnType MapType(duckdb_type type) {
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN:
      return ColumnType::kBoolean;
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
      return ColumnType::kInteger;
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
      return ColumnType::kUnsignedInteger;
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
      return ColumnType::kDouble;
    case DUCKDB_TYPE_DECIMAL:
    case DUCKDB_TYPE_HUGEINT:
    case DUCKDB_TYPE_UHUGEINT:
      return ColumnType::kDecimal;
    case DUCKDB_TYPE_VARCHAR:
      return ColumnType::kString;
    case DUCKDB_TYPE_DATE:
      return ColumnType::kDate;
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_S:
    case DUCKDB_TYPE_TIMESTAMP_MS:
    case DUCKDB_TYPE_TIMESTAMP_NS:
    case DUCKDB_TYPE_TIMESTAMP_TZ:
      return ColumnType::kTimestamp;
    default:
      return ColumnType::kOther;
  }
}
#pragma GCC diagnostic pop

// "YYYY-MM-DD HH:MM:SS[.ffffff]+00" of microseconds since the epoch (UTC), the fraction without
// trailing zeros, as DuckDB prints a TIMESTAMPTZ in a UTC session.
std::string UtcTimestampText(std::int64_t micros) {
  constexpr std::int64_t kPerSecond = 1000000;
  std::int64_t seconds = micros / kPerSecond;
  std::int64_t fraction = micros % kPerSecond;
  if (fraction < 0) {
    fraction += kPerSecond;
    seconds -= 1;
  }
  std::string text = FormatSqlTimestamp(seconds);
  if (fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text + "+00";
}

Value ReadCell(duckdb_result* result, idx_t column, idx_t row, ColumnType type, duckdb_type raw) {
  if (duckdb_value_is_null(result, column, row)) return std::monostate{};
  // The value API's text of a TIMESTAMPTZ needs ICU's time zones and comes back empty.
  if (raw == DUCKDB_TYPE_TIMESTAMP_TZ) {
    // duckdb_value_timestamp refuses the type too; the column's data is int64 microseconds.
    const auto* micros = static_cast<const std::int64_t*>(duckdb_column_data(result, column));
    if (micros != nullptr) return UtcTimestampText(micros[row]);
  }
  switch (type) {
    case ColumnType::kBoolean:
      return duckdb_value_boolean(result, column, row);
    case ColumnType::kInteger:
      return duckdb_value_int64(result, column, row);
    case ColumnType::kUnsignedInteger:
      return duckdb_value_uint64(result, column, row);
    case ColumnType::kDouble:
      return duckdb_value_double(result, column, row);
    case ColumnType::kDecimal:
    case ColumnType::kString:
    case ColumnType::kDate:
    case ColumnType::kTimestamp:
    case ColumnType::kOther:
      break;
  }
  char* text = duckdb_value_varchar(result, column, row);
  std::string value = text != nullptr ? text : "";
  duckdb_free(text);
  return value;
}

// The key of row `row` of a key_index vector of type `type` (an integer type), or -1 when NULL.
std::int64_t KeyAt(const void* data, const uint64_t* validity, idx_t row, duckdb_type type) {
  if (!RowIsValid(validity, row)) return -1;
  if (type == DUCKDB_TYPE_TINYINT) return static_cast<const std::int8_t*>(data)[row];
  if (type == DUCKDB_TYPE_SMALLINT) return static_cast<const std::int16_t*>(data)[row];
  if (type == DUCKDB_TYPE_INTEGER) return static_cast<const std::int32_t*>(data)[row];
  return static_cast<const std::int64_t*>(data)[row];
}

bool IsFoldableKey(duckdb_type type) {
  return type == DUCKDB_TYPE_TINYINT || type == DUCKDB_TYPE_SMALLINT ||
         type == DUCKDB_TYPE_INTEGER || type == DUCKDB_TYPE_BIGINT;
}

// Folds one chunk into `folded`; false when a row hash is NULL (the caller reports it).
bool FoldChunk(duckdb_data_chunk chunk, duckdb_type key_type, FoldedRows& folded) {
  const idx_t size = duckdb_data_chunk_get_size(chunk);
  duckdb_vector key_vector = duckdb_data_chunk_get_vector(chunk, 0);
  duckdb_vector hash_vector = duckdb_data_chunk_get_vector(chunk, 1);
  const void* keys = duckdb_vector_get_data(key_vector);
  const uint64_t* key_validity = duckdb_vector_get_validity(key_vector);
  // UBIGINT and BIGINT share the layout: a BIGINT hash folds as its two's complement.
  const auto* hashes = static_cast<const std::uint64_t*>(duckdb_vector_get_data(hash_vector));
  const uint64_t* hash_validity = duckdb_vector_get_validity(hash_vector);
  for (idx_t row = 0; row < size; ++row) {
    if (!RowIsValid(hash_validity, row)) return false;
    // A negative key (NULL reads as -1) converts to a value past every key: unkeyed.
    folded.Add(static_cast<std::uint64_t>(KeyAt(keys, key_validity, row, key_type)), hashes[row]);
  }
  return true;
}

}  // namespace

Result<FoldedRows> FoldDuckDbResult(duckdb_result* result, std::size_t keys) {
  const bool foldable = duckdb_column_count(result) == 2 &&
                        IsFoldableKey(duckdb_column_type(result, 0)) &&
                        (duckdb_column_type(result, 1) == DUCKDB_TYPE_UBIGINT ||
                         duckdb_column_type(result, 1) == DUCKDB_TYPE_BIGINT);
  if (!foldable) return FoldRows(ReadDuckDbResult(result), keys);
  const duckdb_type key_type = duckdb_column_type(result, 0);
  FoldedRows folded;
  folded.keys.resize(keys);
  const idx_t chunks = duckdb_result_chunk_count(*result);
  for (idx_t index = 0; index < chunks; ++index) {
    duckdb_data_chunk chunk = duckdb_result_get_chunk(*result, index);
    if (chunk == nullptr) {
      return MakeError(ErrorCode::kWarehouse, "a folded statement's result could not be read");
    }
    const bool read = FoldChunk(chunk, key_type, folded);
    duckdb_destroy_data_chunk(&chunk);
    if (!read)
      return MakeError(ErrorCode::kWarehouse, "a folded statement returned a NULL row hash");
  }
  return folded;
}

ColumnType ColumnTypeOfDuckDbType(duckdb_type type) { return MapType(type); }

std::string TimestampTzText(std::int64_t micros) { return UtcTimestampText(micros); }

ColumnType ColumnTypeFromDuckDbName(std::string_view name) {
  if (name == "BOOLEAN") return ColumnType::kBoolean;
  if (name == "TINYINT" || name == "SMALLINT" || name == "INTEGER" || name == "BIGINT") {
    return ColumnType::kInteger;
  }
  if (name == "UTINYINT" || name == "USMALLINT" || name == "UINTEGER" || name == "UBIGINT") {
    return ColumnType::kUnsignedInteger;
  }
  if (name == "FLOAT" || name == "DOUBLE") return ColumnType::kDouble;
  if (name.starts_with("DECIMAL") || name == "HUGEINT") return ColumnType::kDecimal;
  if (name == "VARCHAR") return ColumnType::kString;
  if (name == "DATE") return ColumnType::kDate;
  if (name.starts_with("TIMESTAMP")) return ColumnType::kTimestamp;
  return ColumnType::kOther;
}

QueryResult ReadDuckDbResult(duckdb_result* result) {
  QueryResult out;
  out.rows_changed = static_cast<std::int64_t>(duckdb_rows_changed(result));
  const idx_t column_count = duckdb_column_count(result);
  const idx_t row_count = duckdb_row_count(result);
  out.columns.resize(column_count);
  for (idx_t column = 0; column < column_count; ++column) {
    ResultColumn& target = out.columns[column];
    target.column.name = duckdb_column_name(result, column);
    const duckdb_type type = duckdb_column_type(result, column);
    target.column.type = MapType(type);
    target.values.reserve(row_count);
    for (idx_t row = 0; row < row_count; ++row) {
      target.values.push_back(ReadCell(result, column, row, target.column.type, type));
    }
  }
  return out;
}

}  // namespace strata::warehouse
