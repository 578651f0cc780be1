#include "warehouse/duckdb/duckdb_warehouse.h"

#include <duckdb.h>
#include <fmt/format.h>

#include <mutex>

#include "warehouse/duckdb/duckdb_result.h"

namespace strata::warehouse {
namespace {

ErrorCode MapErrorType(duckdb_error_type type) {
  switch (type) {
    case DUCKDB_ERROR_TRANSACTION:
      return ErrorCode::kWarehouseConflict;
    case DUCKDB_ERROR_INTERRUPT:
      return ErrorCode::kWarehouseInterrupted;
    case DUCKDB_ERROR_PARSER:
    case DUCKDB_ERROR_SYNTAX:
      return ErrorCode::kWarehouseSyntax;
    case DUCKDB_ERROR_CATALOG:
    case DUCKDB_ERROR_BINDER:
      return ErrorCode::kWarehouseCatalog;
    case DUCKDB_ERROR_CONNECTION:
      return ErrorCode::kWarehouseConnection;
    default:
      return ErrorCode::kWarehouse;
  }
}

class DuckDbConnection final : public Connection {
 public:
  explicit DuckDbConnection(duckdb_connection connection) : connection_(connection) {}
  ~DuckDbConnection() override { duckdb_disconnect(&connection_); }

  Result<QueryResult> Execute(std::string_view sql) override {
    const std::string text(sql);
    duckdb_result result;
    const duckdb_state state = duckdb_query(connection_, text.c_str(), &result);
    if (state == DuckDBError) {
      const char* message = duckdb_result_error(&result);
      Error error = MakeError(MapErrorType(duckdb_result_error_type(&result)),
                              message != nullptr ? message : "unknown DuckDB error");
      duckdb_destroy_result(&result);
      return error;
    }
    QueryResult out = ReadDuckDbResult(&result);
    duckdb_destroy_result(&result);
    return out;
  }

  void Interrupt() override { duckdb_interrupt(connection_); }

  Result<bool> TableExists(const TableName& name) override {
    STRATA_ASSIGN_OR_RETURN(QueryResult result,
                            Execute(fmt::format("SELECT count(*) FROM duckdb_tables() WHERE "
                                                "database_name = current_database() AND "
                                                "schema_name = {} AND table_name = {}",
                                                Literal(SchemaOf(name)), Literal(name.table))));
    if (result.row_count() != 1) {
      return MakeError(ErrorCode::kTargetExistence,
                       "could not determine whether " + name.ToString() + " exists");
    }
    return std::get<std::int64_t>(result.columns[0].values[0]) > 0;
  }

  Result<std::vector<Column>> DescribeTable(const TableName& name) override {
    STRATA_ASSIGN_OR_RETURN(
        QueryResult result,
        Execute(fmt::format("SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
                            "WHERE database_name = current_database() AND schema_name = {} AND "
                            "table_name = {} ORDER BY column_index",
                            Literal(SchemaOf(name)), Literal(name.table))));
    if (result.row_count() == 0) {
      return MakeError(ErrorCode::kWarehouseCatalog, "table " + name.ToString() + " does not exist");
    }
    std::vector<Column> columns;
    for (std::size_t row = 0; row < result.row_count(); ++row) {
      Column column;
      column.name = std::get<std::string>(result.columns[0].values[row]);
      column.type_name = std::get<std::string>(result.columns[1].values[row]);
      column.type = ColumnTypeFromDuckDbName(column.type_name);
      column.nullable = std::get<bool>(result.columns[2].values[row]);
      columns.push_back(std::move(column));
    }
    return columns;
  }

 private:
  static std::string SchemaOf(const TableName& name) {
    return name.schema.empty() ? "main" : name.schema;
  }
  static std::string Literal(std::string_view value) {
    return sql::QuoteString(value, sql::Dialect::kDuckDb);
  }
  duckdb_connection connection_;
};

class DuckDbWarehouse final : public Warehouse {
 public:
  DuckDbWarehouse(duckdb_database database, std::string path)
      : database_(database), path_(std::move(path)) {}
  ~DuckDbWarehouse() override { duckdb_close(&database_); }

  sql::Dialect dialect() const override { return sql::Dialect::kDuckDb; }

  Result<std::unique_ptr<Connection>> Connect() override {
    duckdb_connection connection = nullptr;
    if (duckdb_connect(database_, &connection) == DuckDBError) {
      return MakeError(ErrorCode::kWarehouseConnection, "cannot connect to DuckDB " + path_);
    }
    auto wrapped = std::make_unique<DuckDbConnection>(connection);
    // Strata is UTC everywhere: window literals and TIMESTAMPTZ columns must not be read in the
    // machine's local zone.
    STRATA_TRY(wrapped->Execute("SET TimeZone = 'UTC'"));
    return std::unique_ptr<Connection>(std::move(wrapped));
  }

  std::string Describe() const override { return "duckdb:" + path_; }

 private:
  duckdb_database database_;
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<Warehouse>> OpenDuckDb(const std::string& path) {
  duckdb_database database = nullptr;
  char* open_error = nullptr;
  duckdb_config config = nullptr;
  duckdb_create_config(&config);
  const char* target = path == ":memory:" ? nullptr : path.c_str();
  const duckdb_state state = duckdb_open_ext(target, &database, config, &open_error);
  duckdb_destroy_config(&config);
  if (state == DuckDBError) {
    Error error = MakeError(ErrorCode::kWarehouseConnection,
                            fmt::format("cannot open DuckDB database {}: {}", path,
                                        open_error != nullptr ? open_error : "unknown error"),
                            "check the [warehouse] path in strata.toml and that no other "
                            "process has the file open for writing");
    duckdb_free(open_error);
    return error;
  }
  return std::unique_ptr<Warehouse>(new DuckDbWarehouse(database, path));
}

}  // namespace strata::warehouse
