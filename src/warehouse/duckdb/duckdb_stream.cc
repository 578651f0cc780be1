#include "warehouse/duckdb/duckdb_stream.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "sql/dialect.h"
#include "warehouse/duckdb/duckdb_result.h"
#include "warehouse/duckdb/vector_access.h"

namespace strata::warehouse {
namespace {

// duckdb_type is DuckDB's (a C enum that grows with each release): every type not named is
// cast to VARCHAR before it is read, so this switch keeps its default (-Wswitch-enum off here).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wswitch-enum"
// Whether CellAt reads a vector of `type` itself.
bool ReadsNatively(duckdb_type type) {
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN:
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_TIMESTAMP_TZ:
      return true;
    default:
      return false;
  }
}

template <typename T>
T At(const void* data, idx_t row) {
  return static_cast<const T*>(data)[row];
}

// One cell of a vector of a type ReadsNatively accepts, as ReadDuckDbResult's ReadCell gives it.
Value CellAt(duckdb_vector vector, duckdb_type type, idx_t row) {
  if (!RowIsValid(duckdb_vector_get_validity(vector), row)) return std::monostate{};
  const void* data = duckdb_vector_get_data(vector);
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN:
      return At<bool>(data, row);
    case DUCKDB_TYPE_TINYINT:
      return static_cast<std::int64_t>(At<std::int8_t>(data, row));
    case DUCKDB_TYPE_SMALLINT:
      return static_cast<std::int64_t>(At<std::int16_t>(data, row));
    case DUCKDB_TYPE_INTEGER:
      return static_cast<std::int64_t>(At<std::int32_t>(data, row));
    case DUCKDB_TYPE_BIGINT:
      return At<std::int64_t>(data, row);
    case DUCKDB_TYPE_UTINYINT:
      return static_cast<std::uint64_t>(At<std::uint8_t>(data, row));
    case DUCKDB_TYPE_USMALLINT:
      return static_cast<std::uint64_t>(At<std::uint16_t>(data, row));
    case DUCKDB_TYPE_UINTEGER:
      return static_cast<std::uint64_t>(At<std::uint32_t>(data, row));
    case DUCKDB_TYPE_UBIGINT:
      return At<std::uint64_t>(data, row);
    case DUCKDB_TYPE_FLOAT:
      return static_cast<double>(At<float>(data, row));
    case DUCKDB_TYPE_DOUBLE:
      return At<double>(data, row);
    case DUCKDB_TYPE_TIMESTAMP_TZ:
      return TimestampTzText(At<std::int64_t>(data, row));
    default:  // VARCHAR, and the columns cast to it
      return std::string(StringAt(vector, row));
  }
}

// The error type of a statement that failed to prepare, from the name DuckDB's message starts
// with ("Catalog Error: ..."): the prepare API reports no type.
duckdb_error_type PrepareErrorType(std::string_view message) {
  if (message.starts_with("Parser Error")) return DUCKDB_ERROR_PARSER;
  if (message.starts_with("Syntax Error")) return DUCKDB_ERROR_SYNTAX;
  if (message.starts_with("Catalog Error")) return DUCKDB_ERROR_CATALOG;
  if (message.starts_with("Binder Error")) return DUCKDB_ERROR_BINDER;
  if (message.starts_with("INTERRUPT Error")) return DUCKDB_ERROR_INTERRUPT;
  if (message.starts_with("IO Error")) return DUCKDB_ERROR_IO;
  return DUCKDB_ERROR_INVALID;
}
#pragma GCC diagnostic pop

// Owns a prepared statement.
class Prepared {
 public:
  Prepared() = default;
  ~Prepared() { duckdb_destroy_prepare(&statement_); }
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  duckdb_prepared_statement* out() { return &statement_; }
  duckdb_prepared_statement get() const { return statement_; }

 private:
  duckdb_prepared_statement statement_ = nullptr;
};

Status PrepareInto(duckdb_connection connection, const std::string& sql, Prepared& prepared,
                   const DuckDbFailure& fail) {
  if (duckdb_prepare(connection, sql.c_str(), prepared.out()) == DuckDBSuccess) return OkStatus();
  const char* raw = duckdb_prepare_error(prepared.get());
  const std::string message = raw != nullptr ? raw : "unknown DuckDB error";
  return fail(PrepareErrorType(message), message);
}

// `sql` with every column whose type CellAt does not read cast to VARCHAR under its own name;
// empty when every column is read as it is.
std::string CastToText(const Prepared& prepared, std::string_view sql) {
  const idx_t count = duckdb_prepared_statement_column_count(prepared.get());
  std::string select, aliases;
  bool cast = false;
  for (idx_t column = 0; column < count; ++column) {
    const std::string alias = fmt::format("\"c{}\"", column);
    const char* raw = duckdb_prepared_statement_column_name(prepared.get(), column);
    const std::string name = raw != nullptr ? raw : alias;
    duckdb_free(const_cast<char*>(raw));
    const bool text = !ReadsNatively(duckdb_prepared_statement_column_type(prepared.get(), column));
    cast = cast || text;
    select += (column == 0 ? "" : ", ") + (text ? "CAST(" + alias + " AS VARCHAR)" : alias) +
              " AS " + sql::QuoteIdentifier(name, sql::Dialect::kDuckDb);
    aliases += (column == 0 ? "" : ", ") + alias;
  }
  if (!cast) return "";
  return fmt::format("SELECT {} FROM (\n{}\n) AS \"t\"({})", select, sql, aliases);
}

// The columns of `prepared`'s result, without values: the types before any cast to VARCHAR.
std::vector<ResultColumn> ColumnsOf(const Prepared& prepared) {
  std::vector<ResultColumn> columns(duckdb_prepared_statement_column_count(prepared.get()));
  for (idx_t column = 0; column < columns.size(); ++column) {
    const char* raw = duckdb_prepared_statement_column_name(prepared.get(), column);
    columns[column].column.name = raw != nullptr ? raw : "";
    duckdb_free(const_cast<char*>(raw));
    columns[column].column.type =
        ColumnTypeOfDuckDbType(duckdb_prepared_statement_column_type(prepared.get(), column));
  }
  return columns;
}

// Owns a result, streaming or not.
class OwnedResult {
 public:
  OwnedResult() = default;
  ~OwnedResult() { duckdb_destroy_result(&result_); }
  OwnedResult(const OwnedResult&) = delete;
  OwnedResult& operator=(const OwnedResult&) = delete;
  duckdb_result* get() { return &result_; }

 private:
  duckdb_result result_{};
};

Status ExecuteStreaming(const Prepared& prepared, OwnedResult& result, const DuckDbFailure& fail) {
  duckdb_pending_result pending = nullptr;
  if (duckdb_pending_prepared_streaming(prepared.get(), &pending) == DuckDBError) {
    const char* raw = duckdb_pending_error(pending);
    const std::string message = raw != nullptr ? raw : "unknown DuckDB error";
    duckdb_destroy_pending(&pending);
    return fail(PrepareErrorType(message), message);
  }
  const duckdb_state state = duckdb_execute_pending(pending, result.get());
  duckdb_destroy_pending(&pending);
  if (state == DuckDBSuccess) return OkStatus();
  const char* raw = duckdb_result_error(result.get());
  return fail(duckdb_result_error_type(result.get()), raw != nullptr ? raw : "unknown error");
}

// Reads `chunk` into `batch`'s values (its columns already named and typed).
void ReadChunk(duckdb_data_chunk chunk, const std::vector<duckdb_type>& types, QueryResult& batch) {
  const idx_t rows = duckdb_data_chunk_get_size(chunk);
  for (idx_t column = 0; column < batch.columns.size(); ++column) {
    duckdb_vector vector = duckdb_data_chunk_get_vector(chunk, column);
    std::vector<Value>& values = batch.columns[column].values;
    values.clear();
    values.reserve(rows);
    for (idx_t row = 0; row < rows; ++row) values.push_back(CellAt(vector, types[column], row));
  }
}

// Fetches and hands over chunks until the result ends, fails, is interrupted or the sink stops.
Status HandChunks(OwnedResult& result, QueryResult& batch, const std::atomic<bool>& interrupted,
                  const RowBatchSink& sink, const DuckDbFailure& fail) {
  std::vector<duckdb_type> types;
  for (idx_t column = 0; column < batch.columns.size(); ++column) {
    types.push_back(duckdb_column_type(result.get(), column));
  }
  for (;;) {
    if (interrupted.load()) {
      return MakeError(ErrorCode::kWarehouseInterrupted, "INTERRUPT Error: Interrupted!");
    }
    duckdb_data_chunk chunk = duckdb_fetch_chunk(*result.get());
    if (chunk == nullptr) {
      const char* raw = duckdb_result_error(result.get());
      if (raw == nullptr) return OkStatus();
      return fail(duckdb_result_error_type(result.get()), raw);
    }
    const idx_t rows = duckdb_data_chunk_get_size(chunk);
    if (rows > 0) ReadChunk(chunk, types, batch);
    duckdb_destroy_data_chunk(&chunk);
    if (rows == 0) return OkStatus();
    STRATA_TRY(sink(batch));
  }
}

}  // namespace

Status StreamDuckDbQuery(duckdb_connection connection, std::string_view sql,
                         const std::atomic<bool>& interrupted, const RowBatchSink& sink,
                         const DuckDbFailure& fail) {
  const std::string text(sql);
  Prepared prepared;
  STRATA_TRY(PrepareInto(connection, text, prepared, fail));
  QueryResult batch;
  batch.columns = ColumnsOf(prepared);
  Prepared cast;
  if (const std::string wrapped = CastToText(prepared, text); !wrapped.empty()) {
    STRATA_TRY(PrepareInto(connection, wrapped, cast, fail));
  }
  OwnedResult result;
  STRATA_TRY(ExecuteStreaming(cast.get() != nullptr ? cast : prepared, result, fail));
  if (duckdb_column_count(result.get()) != batch.columns.size()) {
    return MakeError(ErrorCode::kInternal, "a streamed result changed its columns");
  }
  return HandChunks(result, batch, interrupted, sink, fail);
}

}  // namespace strata::warehouse
