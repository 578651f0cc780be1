#include "warehouse/duckdb/duckdb_warehouse.h"

#include <duckdb.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string_view>

#include "warehouse/duckdb/duckdb_open.h"
#include "warehouse/duckdb/duckdb_result.h"
#include "warehouse/duckdb/duckdb_stream.h"

namespace strata::warehouse {
namespace {

// duckdb_error_type is DuckDB's (a C enum that grows with each release): every type not
// named is a plain warehouse error, so this switch keeps its default (-Wswitch-enum off here).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wswitch-enum"
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
    case DUCKDB_ERROR_IO:
    case DUCKDB_ERROR_FATAL:
      return ErrorCode::kWarehouseStorage;
    default:
      return ErrorCode::kWarehouse;
  }
}
#pragma GCC diagnostic pop

// Whether DuckDB failed to write its own files. Such an error can hide inside another type: a
// failed automatic checkpoint at COMMIT is a "TransactionContext Error", which is otherwise a
// retryable conflict.
bool IsStorageFailure(duckdb_error_type type, std::string_view message) {
  if (MapErrorType(type) == ErrorCode::kWarehouseStorage) return true;
  for (std::string_view cause :
       {"Failed to create checkpoint", "No space left on device", "Could not write file",
        "Could not fsync", "Could not truncate file", "database has been invalidated",
        "Disk quota exceeded", "Input/output error", "Read-only file system"}) {
    if (message.find(cause) != std::string_view::npos) return true;
  }
  return false;
}

// What a database's connections share. After a storage failure DuckDB's in-memory state can
// disagree with what is durable: DuckDB 1.4.4 drops a table's rows from memory when the automatic
// checkpoint at COMMIT fails, while the committed rows are still in the WAL. A later successful
// checkpoint (on close, once there is room again) would write the empty table and truncate the
// WAL. So the first storage failure poisons the database: checkpointing on shutdown is switched
// off, and no statement reaches it again from this process. The next open replays the WAL.
// Only a database that writes a file of its own can lose writes: an in-memory database (the
// rollup engine) and a read-only one have no WAL to protect, and their storage errors (a
// Parquet file that cannot be read, a full temp folder) fail the one statement.
struct DatabaseState {
  DatabaseState(std::string database_path, bool writes_files)
      : path(std::move(database_path)), durable(writes_files) {}
  const std::string path;
  const bool durable;  // poisoned by a storage failure
  std::atomic<bool> poisoned{false};
  std::atomic<bool> checkpoint_disabled{false};
  std::mutex mutex;
  std::string cause;  // DuckDB's message for the first storage failure; guarded by mutex

  Error PoisonedError() {
    std::lock_guard<std::mutex> lock(mutex);
    return MakeError(ErrorCode::kWarehouseStorage,
                     fmt::format("DuckDB {} cannot write its files: {}; nothing more is written to "
                                 "it by this process, and it is closed without a checkpoint so "
                                 "every committed transaction stays in its write-ahead log",
                                 path, cause),
                     fmt::format("free space on the device that holds {} (or make it writable), "
                                 "then run `strata run --missing`: the next open replays the log",
                                 path));
  }
};

// Switches off DuckDB's checkpoint on shutdown, once. A DuckDB setting of the whole database.
void DisableCheckpointOnShutdown(DatabaseState& state, duckdb_connection connection) {
  if (state.checkpoint_disabled.load()) return;
  duckdb_result result;
  if (duckdb_query(connection, "PRAGMA disable_checkpoint_on_shutdown", &result) == DuckDBSuccess) {
    state.checkpoint_disabled = true;
  }
  duckdb_destroy_result(&result);
}

class DuckDbConnection final : public Connection {
 public:
  DuckDbConnection(duckdb_connection connection, std::shared_ptr<DatabaseState> state)
      : connection_(connection), state_(std::move(state)) {}
  ~DuckDbConnection() override {
    if (state_->poisoned.load()) {
      // A transaction may still be open (the storage failure came before its COMMIT, and the
      // runner's ROLLBACK was refused like every statement). DuckDB rolls it back in
      // duckdb_disconnect otherwise, where an error it raises (a FATAL one was seen after a
      // full disk) escapes a destructor and aborts the process. Through duckdb_query the error
      // is returned instead, and ignored: a rollback writes nothing, and no checkpoint runs.
      duckdb_result result;
      (void)duckdb_query(connection_, "ROLLBACK", &result);
      duckdb_destroy_result(&result);
    }
    duckdb_disconnect(&connection_);
  }

  Result<QueryResult> Execute(std::string_view sql) override {
    return Run(
        sql, [](duckdb_result* result) -> Result<QueryResult> { return ReadDuckDbResult(result); });
  }

  Result<FoldedRows> ExecuteFolded(std::string_view sql, std::size_t keys) override {
    return Run(sql, [keys](duckdb_result* result) { return FoldDuckDbResult(result, keys); });
  }

  // Only a statement the DuckDB result it reads from is current (DuckDB clears an interrupt when
  // a statement starts), so the flag is reset with each streamed statement.
  Status ExecuteStreamed(std::string_view sql, const RowBatchSink& sink) override {
    if (state_->poisoned.load()) return state_->PoisonedError();
    interrupt_requested_ = false;
    return StreamDuckDbQuery(
        connection_, sql, interrupt_requested_, sink,
        [this](duckdb_error_type type, const std::string& message) { return Fail(type, message); });
  }

  void Interrupt() override {
    interrupt_requested_ = true;  // read between a streamed result's chunks
    duckdb_interrupt(connection_);
  }

  duckdb_connection handle() const { return connection_; }

  // The C API's catalog lookup first, in this connection's database: no query, so no first scan
  // of the catalog (DuckDB 1.4's duckdb_tables() takes ~7 ms the first time a database is
  // asked). When it finds no table (a missing target, a view) the query decides, and reports a
  // failure as one.
  Result<bool> TableExists(const TableName& name) override {
    STRATA_ASSIGN_OR_RETURN(const std::string database, CurrentDatabase());
    if (IsTable(database, name)) return true;
    STRATA_ASSIGN_OR_RETURN(
        QueryResult result,
        Execute(fmt::format("SELECT system.main.count(*) FROM system.main.duckdb_tables() WHERE "
                            "database_name = {} AND "
                            "schema_name = {} AND table_name = {}",
                            Literal(database), Literal(SchemaOf(name)), Literal(name.table))));
    if (result.row_count() != 1) {
      return MakeError(ErrorCode::kTargetExistence,
                       "could not determine whether " + name.ToString() + " exists");
    }
    return std::get<std::int64_t>(result.columns[0].values[0]) > 0;
  }

  // A table's columns come from DESCRIBE (the catalog's names, types and nullability, as
  // duckdb_columns() reports them, without its first scan); a view's, or a missing name's, from
  // duckdb_columns(), which reads the view's stored columns where DESCRIBE would bind its query
  // again (and could fail, e.g. on a file the view reads that is gone).
  Result<std::vector<Column>> DescribeTable(const TableName& name) override {
    STRATA_ASSIGN_OR_RETURN(const std::string database, CurrentDatabase());
    QueryResult result;
    if (IsTable(database, name)) {
      STRATA_ASSIGN_OR_RETURN(result, Execute("DESCRIBE " + Quote(database) + "." +
                                              Quote(SchemaOf(name)) + "." + Quote(name.table)));
    } else {
      STRATA_ASSIGN_OR_RETURN(
          result,
          Execute(fmt::format("SELECT column_name, data_type, CASE WHEN is_nullable THEN "
                              "'YES' ELSE 'NO' END FROM system.main.duckdb_columns() "
                              "WHERE database_name = {} AND schema_name = {} AND "
                              "table_name = {} ORDER BY column_index",
                              Literal(database), Literal(SchemaOf(name)), Literal(name.table))));
    }
    if (result.row_count() == 0) {
      return MakeError(ErrorCode::kWarehouseCatalog,
                       "table " + name.ToString() + " does not exist");
    }
    std::vector<Column> columns;
    for (std::size_t row = 0; row < result.row_count(); ++row) {
      Column column;
      column.name = std::get<std::string>(result.columns[0].values[row]);
      column.type_name = std::get<std::string>(result.columns[1].values[row]);
      column.type = ColumnTypeFromDuckDbName(column.type_name);
      column.nullable = std::get<std::string>(result.columns[2].values[row]) == "YES";
      columns.push_back(std::move(column));
    }
    return columns;
  }

  // Macros and functions that are not internal: a user's, in any attached database or schema
  // (the temporary one too). Read through system.main, which no user's table macro answers.
  Result<std::vector<std::string>> UserFunctionNames() override {
    STRATA_ASSIGN_OR_RETURN(QueryResult result,
                            Execute("SELECT DISTINCT function_name FROM "
                                    "system.main.duckdb_functions() WHERE NOT internal"));
    return LowerCaseNames(result);
  }

 private:
  // Runs `sql` and hands its successful result to `read` (which must not destroy it); maps a
  // failure to its error code, poisoning the database on a storage failure of a durable file.
  template <typename Read>
  auto Run(std::string_view sql, Read read) -> decltype(read(nullptr)) {
    if (state_->poisoned.load()) return state_->PoisonedError();
    const std::string text(sql);
    duckdb_result result;
    const duckdb_state status = duckdb_query(connection_, text.c_str(), &result);
    if (status == DuckDBError) {
      const char* raw = duckdb_result_error(&result);
      const std::string message = raw != nullptr ? raw : "unknown DuckDB error";
      const duckdb_error_type type = duckdb_result_error_type(&result);
      duckdb_destroy_result(&result);
      return Fail(type, message);
    }
    auto out = read(&result);
    duckdb_destroy_result(&result);
    return out;
  }

  // The error of a statement DuckDB refused; a storage failure of a durable file poisons it.
  Error Fail(duckdb_error_type type, const std::string& message) {
    if (IsStorageFailure(type, message)) {
      if (state_->durable) return Poison(message);
      return MakeError(ErrorCode::kWarehouseStorage, message);
    }
    return MakeError(MapErrorType(type), message);
  }

  Result<std::string> CurrentDatabase() {
    STRATA_ASSIGN_OR_RETURN(QueryResult current, Execute("SELECT system.main.current_database()"));
    return std::get<std::string>(current.columns[0].values[0]);
  }
  // Whether `database`.schema.table names a table (not a view), by the C API's catalog lookup
  // (names resolved as DuckDB's statements resolve them, in any case).
  bool IsTable(const std::string& database, const TableName& name) {
    const std::string schema = SchemaOf(name);
    duckdb_table_description description = nullptr;
    const bool found =
        duckdb_table_description_create_ext(connection_, database.c_str(), schema.c_str(),
                                            name.table.c_str(), &description) == DuckDBSuccess;
    duckdb_table_description_destroy(&description);
    return found;
  }
  static std::string SchemaOf(const TableName& name) {
    return name.schema.empty() ? "main" : name.schema;
  }
  static std::string Literal(std::string_view value) {
    return sql::QuoteString(value, sql::Dialect::kDuckDb);
  }
  static std::string Quote(std::string_view identifier) {
    return sql::QuoteIdentifier(identifier, sql::Dialect::kDuckDb);
  }
  Error Poison(const std::string& message) {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (!state_->poisoned.load()) state_->cause = message;
      state_->poisoned = true;
    }
    DisableCheckpointOnShutdown(*state_, connection_);
    return state_->PoisonedError();
  }

  duckdb_connection connection_;
  std::shared_ptr<DatabaseState> state_;
  std::atomic<bool> interrupt_requested_{false};
};

class DuckDbWarehouse final : public Warehouse {
 public:
  DuckDbWarehouse(duckdb_database database, std::string path, bool writes_files)
      : database_(database),
        state_(std::make_shared<DatabaseState>(std::move(path), writes_files)) {}
  ~DuckDbWarehouse() override {
    // The checkpoint on close must not run on a poisoned database (see DatabaseState); the
    // failing connection may not have been able to switch it off.
    if (state_->poisoned.load() && !state_->checkpoint_disabled.load()) {
      duckdb_connection connection = nullptr;
      if (duckdb_connect(database_, &connection) == DuckDBSuccess) {
        DisableCheckpointOnShutdown(*state_, connection);
        duckdb_disconnect(&connection);
      }
    }
    // Still not switched off: leave the database open rather than risk the checkpoint. The
    // process ends soon; the operating system releases the file and the WAL is replayed later.
    if (state_->poisoned.load() && !state_->checkpoint_disabled.load()) return;
    duckdb_close(&database_);
  }

  sql::Dialect dialect() const override { return sql::Dialect::kDuckDb; }

  Result<std::unique_ptr<Connection>> Connect() override {
    if (state_->poisoned.load()) return state_->PoisonedError();
    duckdb_connection connection = nullptr;
    if (duckdb_connect(database_, &connection) == DuckDBError) {
      return MakeError(ErrorCode::kWarehouseConnection, "cannot connect to DuckDB " + state_->path);
    }
    auto wrapped = std::make_unique<DuckDbConnection>(connection, state_);
    // Strata is UTC everywhere: window literals and TIMESTAMPTZ columns must not be read in the
    // machine's local zone.
    STRATA_TRY(wrapped->Execute("SET TimeZone = 'UTC'"));
    return std::unique_ptr<Connection>(std::move(wrapped));
  }

  std::string Describe() const override { return "duckdb:" + state_->path; }

 private:
  duckdb_database database_;
  std::shared_ptr<DatabaseState> state_;
};

// "PID 1234 (strata run --missing)" for DuckDB's "... is held in /usr/bin/strata (PID 1234) ...";
// the command line comes from /proc and is left out when it cannot be read.
std::string LockHolder(std::string_view message) {
  const std::size_t at = message.find("(PID ");
  if (at == std::string_view::npos) return "another process";
  const std::size_t digits = at + 5;
  std::size_t end = digits;
  while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
  const std::string pid(message.substr(digits, end - digits));
  if (pid.empty()) return "another process";
  std::ifstream file("/proc/" + pid + "/cmdline", std::ios::binary);
  std::string command((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::replace(command.begin(), command.end(), '\0', ' ');
  while (!command.empty() && command.back() == ' ') command.pop_back();
  if (command.size() > 200) command = command.substr(0, 200) + "...";
  return command.empty() ? "process " + pid : fmt::format("process {} ({})", pid, command);
}

Error OpenError(const std::string& path, const std::string& message) {
  if (message.find("Could not set lock on file") != std::string::npos) {
    return MakeError(
        ErrorCode::kWarehouseConnection,
        fmt::format("DuckDB database {} is in use: {} holds a conflicting lock on it ({})", path,
                    LockHolder(message), message),
        "a DuckDB file has one writer at a time, and nobody reads it while a writer holds it: "
        "wait for that process to finish (a `strata run` ends by itself; stop it with Ctrl-C "
        "or `kill -INT <pid>`), then try again");
  }
  if (IsStorageFailure(DUCKDB_ERROR_INVALID, message)) {
    return MakeError(ErrorCode::kWarehouseStorage,
                     fmt::format("cannot open DuckDB database {}: {}", path, message),
                     fmt::format("free space on the device that holds {} (or make it writable) "
                                 "and try again",
                                 path));
  }
  if (message.find("Permission denied") != std::string::npos) {
    // Not retryable: waiting does not change a file's owner or mode. A storage failure (as a
    // read-only file is), so `strata serve` answers it 502 like the warehouse's other failures.
    return MakeError(ErrorCode::kWarehouseStorage,
                     fmt::format("cannot open DuckDB database {}: {}", path, message),
                     fmt::format("this user (uid {}) may not open {} or its folder: check their "
                                 "owner and mode (ls -l), or run strata as the file's owner",
                                 ::getuid(), path));
  }
  return MakeError(ErrorCode::kWarehouseConnection,
                   fmt::format("cannot open DuckDB database {}: {}", path, message),
                   "check the [warehouse] path in strata.toml and that no other process has the "
                   "file open for writing");
}

// DuckDB opens a SQLite file through its sqlite extension, which it would download from the
// network and then write into: a SQLite file named as the warehouse (often strata's own state
// store) is refused before DuckDB sees it.
Status RefuseSqliteFile(const std::string& path) {
  static constexpr std::string_view kSqliteHeader("SQLite format 3\0", 16);
  std::ifstream file(path, std::ios::binary);
  std::string header(kSqliteHeader.size(), '\0');
  if (!file.read(header.data(), static_cast<std::streamsize>(header.size()))) return OkStatus();
  if (header != kSqliteHeader) return OkStatus();
  return MakeError(ErrorCode::kConfig,
                   fmt::format("warehouse file {} is a SQLite database, not a DuckDB one", path),
                   "point [warehouse] path in strata.toml at a DuckDB file (a new name creates "
                   "one); strata's state store (.strata-state.db) is the SQLite file of a project");
}

// Applies `settings` to `config`; an error names the setting DuckDB refuses.
Status SetConfig(duckdb_config config, const std::string& path,
                 const std::vector<std::pair<std::string, std::string>>& settings) {
  for (const auto& [name, value] : settings) {
    if (duckdb_set_config(config, name.c_str(), value.c_str()) == DuckDBError) {
      return MakeError(ErrorCode::kWarehouseConnection,
                       fmt::format("cannot open DuckDB database {}: DuckDB refuses the setting "
                                   "{} = '{}'",
                                   path, name, value));
    }
  }
  return OkStatus();
}

// Runs `on_open` on a connection of its own; closes the database when it fails.
Status RunOnOpen(duckdb_database& database, const std::string& path,
                 const std::function<Status(duckdb_connection)>& on_open) {
  duckdb_connection connection = nullptr;
  Status status = OkStatus();
  if (duckdb_connect(database, &connection) == DuckDBError) {
    status = MakeError(ErrorCode::kWarehouseConnection, "cannot connect to DuckDB " + path);
  } else {
    status = on_open(connection);
    duckdb_disconnect(&connection);
  }
  if (!status.ok()) duckdb_close(&database);
  return status;
}

}  // namespace

duckdb_connection DuckDbHandle(Connection& connection) {
  auto* duckdb = dynamic_cast<DuckDbConnection*>(&connection);
  return duckdb != nullptr ? duckdb->handle() : nullptr;
}

Result<std::unique_ptr<Warehouse>> OpenDuckDb(const std::string& path, AccessMode mode) {
  DuckDbOpenOptions options;
  options.mode = mode;
  return OpenDuckDbWith(path, options);
}

Result<std::unique_ptr<Warehouse>> OpenDuckDbWith(const std::string& path,
                                                  const DuckDbOpenOptions& options) {
  const bool in_memory = path == ":memory:";
  const bool read_only = options.mode == AccessMode::kReadOnly && !in_memory;
  // DuckDB's own message for a missing file in read-only mode does not say what to do.
  std::error_code exists_error;
  if (read_only && !std::filesystem::exists(path, exists_error) && !exists_error) {
    return MakeError(ErrorCode::kWarehouseConnection,
                     fmt::format("DuckDB database {} does not exist", path),
                     "build it first with `strata run`, or check the [warehouse] path in "
                     "strata.toml");
  }
  if (!in_memory) STRATA_TRY(RefuseSqliteFile(path));
  duckdb_database database = nullptr;
  char* open_error = nullptr;
  duckdb_config config = nullptr;
  duckdb_create_config(&config);
  if (read_only) duckdb_set_config(config, "access_mode", "READ_ONLY");
  if (Status set = SetConfig(config, path, options.settings); !set.ok()) {
    duckdb_destroy_config(&config);
    return set.error();
  }
  const char* target = in_memory ? nullptr : path.c_str();
  const duckdb_state state = duckdb_open_ext(target, &database, config, &open_error);
  duckdb_destroy_config(&config);
  if (state == DuckDBError) {
    const std::string message = open_error != nullptr ? open_error : "unknown error";
    duckdb_free(open_error);
    return OpenError(path, message);
  }
  if (options.on_open) STRATA_TRY(RunOnOpen(database, path, options.on_open));
  return std::unique_ptr<Warehouse>(new DuckDbWarehouse(database, path, !in_memory && !read_only));
}

}  // namespace strata::warehouse
