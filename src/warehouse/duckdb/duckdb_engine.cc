#include "warehouse/duckdb/duckdb_engine.h"

#include <duckdb.h>
#include <fmt/format.h>

#include <atomic>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "sql/dialect.h"
#include "warehouse/duckdb/duckdb_open.h"
#include "warehouse/duckdb/sketch_functions.h"

namespace strata::warehouse {
namespace {

// Appends a string through a VARCHAR value, which DuckDB casts like SQL does. Needed for
// TIMESTAMPTZ: duckdb_append_varchar drops the text's UTC offset ("15:00:00+02" lands as 15:00
// UTC).
duckdb_state AppendStringAsValue(duckdb_appender appender, const std::string& text) {
  duckdb_value value = duckdb_create_varchar_length(text.data(), text.size());
  const duckdb_state state = duckdb_append_value(appender, value);
  duckdb_destroy_value(&value);
  return state;
}

duckdb_state AppendCell(duckdb_appender appender, const Value& value, bool string_as_value) {
  return std::visit(
      [appender, string_as_value](const auto& cell) {
        using T = std::decay_t<decltype(cell)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return duckdb_append_null(appender);
        } else if constexpr (std::is_same_v<T, bool>) {
          return duckdb_append_bool(appender, cell);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return duckdb_append_int64(appender, cell);
        } else if constexpr (std::is_same_v<T, std::uint64_t>) {
          return duckdb_append_uint64(appender, cell);
        } else if constexpr (std::is_same_v<T, double>) {
          return duckdb_append_double(appender, cell);
        } else {
          static_assert(std::is_same_v<T, std::string>);
          if (string_as_value) return AppendStringAsValue(appender, cell);
          return duckdb_append_varchar_length(appender, cell.data(), cell.size());
        }
      },
      value);
}

std::string AppenderMessage(duckdb_appender appender) {
  const char* message = appender != nullptr ? duckdb_appender_error(appender) : nullptr;
  return message != nullptr ? message : "unknown DuckDB appender error";
}

// Owns a duckdb_appender.
class Appender {
 public:
  ~Appender() { duckdb_appender_destroy(&appender_); }
  duckdb_appender* out() { return &appender_; }
  duckdb_appender get() const { return appender_; }

 private:
  duckdb_appender appender_ = nullptr;
};

// Which columns take strings through AppendStringAsValue.
std::vector<bool> StringAsValueColumns(duckdb_appender appender, idx_t columns) {
  std::vector<bool> as_value(columns);
  for (idx_t column = 0; column < columns; ++column) {
    duckdb_logical_type type = duckdb_appender_column_type(appender, column);
    const duckdb_type id = duckdb_get_type_id(type);
    as_value[column] = id == DUCKDB_TYPE_TIMESTAMP_TZ || id == DUCKDB_TYPE_TIME_TZ;
    duckdb_destroy_logical_type(&type);
  }
  return as_value;
}

Status AppendRow(duckdb_appender appender, const QueryResult& rows, std::size_t row,
                 const std::vector<bool>& as_value, const std::string& table) {
  for (std::size_t column = 0; column < rows.columns.size(); ++column) {
    const ResultColumn& source = rows.columns[column];
    if (AppendCell(appender, source.values[row], as_value[column]) == DuckDBError) {
      return MakeError(ErrorCode::kWarehouse,
                       fmt::format("cannot append row {} to {}: column {} (\"{}\") value {}: {}",
                                   row + 1, table, column + 1, source.column.name,
                                   ValueToString(source.values[row]), AppenderMessage(appender)));
    }
  }
  if (duckdb_appender_end_row(appender) == DuckDBError) {
    return MakeError(ErrorCode::kWarehouse, fmt::format("cannot append row {} to {}: {}", row + 1,
                                                        table, AppenderMessage(appender)));
  }
  return OkStatus();
}

// Appends every row to the staging table `stage` (in the temp catalog).
Status AppendToStage(duckdb_connection handle, const std::string& stage, const std::string& table,
                     const QueryResult& rows) {
  Appender appender;
  if (duckdb_appender_create_ext(handle, "temp", "main", stage.c_str(), appender.out()) ==
      DuckDBError) {
    return MakeError(ErrorCode::kWarehouse, fmt::format("cannot append to {}: {}", table,
                                                        AppenderMessage(appender.get())));
  }
  const idx_t columns = duckdb_appender_column_count(appender.get());
  if (columns != rows.columns.size()) {
    return MakeError(ErrorCode::kWarehouse,
                     fmt::format("cannot append to {}: it has {} columns, the rows have {}", table,
                                 columns, rows.columns.size()));
  }
  const std::vector<bool> as_value = StringAsValueColumns(appender.get(), columns);
  for (std::size_t row = 0; row < rows.row_count(); ++row) {
    STRATA_TRY(AppendRow(appender.get(), rows, row, as_value, table));
  }
  if (duckdb_appender_close(appender.get()) == DuckDBError) {
    return MakeError(ErrorCode::kWarehouse, fmt::format("cannot append to {}: {}", table,
                                                        AppenderMessage(appender.get())));
  }
  return OkStatus();
}

TableName SplitTableName(std::string_view table) {
  const std::size_t dot = table.find('.');
  if (dot == std::string_view::npos) return {"", "", std::string(table)};
  return {"", std::string(table.substr(0, dot)), std::string(table.substr(dot + 1))};
}

std::string Quoted(const TableName& name) {
  std::string table = sql::QuoteIdentifier(name.table, sql::Dialect::kDuckDb);
  if (name.schema.empty()) return table;
  return sql::QuoteIdentifier(name.schema, sql::Dialect::kDuckDb) + "." + table;
}

}  // namespace

Result<std::unique_ptr<Warehouse>> OpenDuckDbEngine(const EngineOptions& options) {
  DuckDbOpenOptions open;
  if (options.threads != 0) open.settings.emplace_back("threads", std::to_string(options.threads));
  if (!options.memory_limit.empty())
    open.settings.emplace_back("memory_limit", options.memory_limit);
  open.on_open = RegisterSketchFunctions;
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Warehouse> engine, OpenDuckDbWith(":memory:", open));
  if (options.parquet_metadata_cache) {
    // A setting of the parquet extension: not accepted at open (the extension loads with the
    // first statement that needs it), so set globally once the database is up.
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, engine->Connect());
    STRATA_TRY(connection->Execute("SET GLOBAL parquet_metadata_cache = true"));
  }
  return engine;
}

// The rows go to a temporary staging table first and then into the target with one INSERT, so
// a call is atomic: the appender flushes in chunks (a failure half-way would keep the first
// ones), and probing for an open transaction with a failing statement would abort it.
Status AppendRows(Connection& connection, std::string_view table, const QueryResult& rows) {
  const std::string description(table);
  duckdb_connection handle = DuckDbHandle(connection);
  if (handle == nullptr) {
    return MakeError(ErrorCode::kWarehouseUnsupported,
                     "cannot append to " + description + ": not a DuckDB connection");
  }
  const TableName name = SplitTableName(table);
  STRATA_ASSIGN_OR_RETURN(const bool exists, connection.TableExists(name));
  if (!exists) {
    return MakeError(ErrorCode::kWarehouseCatalog,
                     "cannot append to " + description + ": the table does not exist");
  }
  static std::atomic<std::uint64_t> stages{0};
  const std::string stage = fmt::format("strata_append_{}", stages.fetch_add(1));
  const std::string quoted_stage = "temp.main." + stage;
  STRATA_TRY(connection.Execute(
      fmt::format("CREATE TEMPORARY TABLE {} AS SELECT * FROM {} LIMIT 0", stage, Quoted(name))));
  Status status = AppendToStage(handle, stage, description, rows);
  if (status.ok()) {
    Result<QueryResult> insert = connection.Execute(
        fmt::format("INSERT INTO {} SELECT * FROM {}", Quoted(name), quoted_stage));
    if (!insert.ok()) status = insert.error().Note("while appending rows to " + description);
  }
  (void)connection.Execute("DROP TABLE IF EXISTS " + quoted_stage);
  return status;
}

}  // namespace strata::warehouse
