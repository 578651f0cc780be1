#include "warehouse/postgres/postgres_warehouse.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <functional>
#include <mutex>
#include <vector>

#include "warehouse/postgres/postgres_result.h"

namespace strata::warehouse {
namespace {

// "postgres:user@host:port/db" from the DSN's parts; never its password.
Result<std::string> DescribeDsn(const std::string& dsn) {
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(dsn.c_str(), &parse_error);
  if (options == nullptr) {
    std::string message = parse_error != nullptr ? parse_error : "out of memory";
    PQfreemem(parse_error);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return MakeError(ErrorCode::kConfig, "invalid PostgreSQL DSN: " + message,
                     "use a libpq URI such as postgresql://user@host:5432/dbname");
  }
  std::string user, host, port, dbname;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val == nullptr) continue;
    const std::string_view keyword = option->keyword;
    if (keyword == "user") user = option->val;
    if (keyword == "host" || (keyword == "hostaddr" && host.empty())) host = option->val;
    if (keyword == "port") port = option->val;
    if (keyword == "dbname") dbname = option->val;
  }
  PQconninfoFree(options);
  return fmt::format("postgres:{}{}{}{}/{}", user, user.empty() ? "" : "@",
                     host.empty() ? "localhost" : host, port.empty() ? "" : ":" + port, dbname);
}

// Opens sessions and keeps idle ones for reuse. Shared by the warehouse and its connections.
class SessionPool {
 public:
  SessionPool(PostgresSettings settings, std::string description)
      : settings_(std::move(settings)), description_(std::move(description)) {}
  ~SessionPool() {
    for (PGconn* session : idle_) PQfinish(session);
  }
  const std::string& description() const { return description_; }

  Result<PGconn*> Take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (!idle_.empty()) {
        PGconn* session = idle_.back();
        idle_.pop_back();
        if (PQstatus(session) == CONNECTION_OK) return session;
        PQfinish(session);
      }
    }
    return Open();
  }

  // Keeps `session` for reuse when it is healthy and outside any transaction; closes it otherwise.
  void Give(PGconn* session) {
    if (PQstatus(session) == CONNECTION_OK && PQtransactionStatus(session) == PQTRANS_IDLE) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (idle_.size() < settings_.max_idle_connections) {
        idle_.push_back(session);
        return;
      }
    }
    PQfinish(session);
  }

  static Status SetUpSession(PGconn* session) {
    PGresult* result = PQexec(session, "SET TIME ZONE 'UTC'; SET datestyle = 'ISO'");
    const bool ok = result != nullptr && PQresultStatus(result) == PGRES_COMMAND_OK;
    Status status = ok ? OkStatus() : Status(ErrorFromPostgres(result, session));
    PQclear(result);
    return status;
  }

 private:
  Result<PGconn*> Open() {
    // Later entries override earlier ones, and the DSN (dbname, expanded) overrides the timeout
    // and application name before it; the client encoding and the password after it win.
    std::vector<const char*> keywords = {"connect_timeout", "fallback_application_name", "dbname",
                                         "client_encoding"};
    std::vector<const char*> values = {"10", "strata", settings_.dsn.c_str(), "UTF8"};
    if (settings_.password) {
      keywords.push_back("password");
      values.push_back(settings_.password->c_str());
    }
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    PGconn* session = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
    if (session == nullptr) {
      return MakeError(ErrorCode::kWarehouseConnection, "cannot allocate a libpq connection");
    }
    if (PQstatus(session) != CONNECTION_OK) {
      Error error = ErrorFromPostgres(nullptr, session);
      PQfinish(session);
      error.code = ErrorCode::kWarehouseConnection;
      error.message = fmt::format("cannot connect to {}: {}", description_, error.message);
      error.hint =
          "check the [warehouse] dsn (or the variable named by dsn_env), password_env and "
          "that the server is running";
      return error;
    }
    // libpq prints server notices ("schema ... already exists, skipping") to stderr, which would
    // mix into the CLI's output; they carry nothing a run needs.
    PQsetNoticeProcessor(
        session, [](void*, const char*) {}, nullptr);
    Status setup = SetUpSession(session);
    if (!setup.ok()) {
      PQfinish(session);
      return std::move(setup).error();
    }
    return session;
  }

  const PostgresSettings settings_;
  const std::string description_;
  std::mutex mutex_;
  std::vector<PGconn*> idle_;
};

bool IsRollback(std::string_view sql) {
  std::string word;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (word.empty()) continue;
      break;
    }
    if (c == ';') break;
    word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return word == "ROLLBACK" || word == "ABORT";
}

class PostgresConnection final : public Connection {
 public:
  PostgresConnection(std::shared_ptr<SessionPool> pool, PGconn* session)
      : pool_(std::move(pool)), session_(session), cancel_(PQgetCancel(session)) {}

  ~PostgresConnection() override {
    {
      std::lock_guard<std::mutex> lock(cancel_mutex_);
      if (cancel_ != nullptr) PQfreeCancel(cancel_);
      cancel_ = nullptr;
    }
    // A cancel request may still be on its way to this session and would hit the next user's
    // statement: an interrupted session is never reused.
    if (interrupted_.load() || unusable_) {
      PQfinish(session_);
    } else {
      pool_->Give(session_);
    }
  }

  Result<QueryResult> Execute(std::string_view sql) override {
    const std::string text(sql);
    return Run([&] { return PQexec(session_, text.c_str()); }, IsRollback(sql));
  }

  // Single-row mode: the server's rows are read one at a time and handed over in batches of
  // kMaxStreamBatchRows. A stop before the end (the sink's error, an interrupt) cancels the
  // statement and reads what is left of it, discarding its rows, so the session can run the next
  // statement; such a session is not pooled (see the destructor).
  Status ExecuteStreamed(std::string_view sql, const RowBatchSink& sink) override {
    STRATA_TRY(EnsureSession());
    stream_interrupted_.store(false);
    const PGTransactionStatusType before = PQtransactionStatus(session_);
    const std::string text(sql);
    if (PQsendQuery(session_, text.c_str()) == 0) return ErrorFromPostgres(nullptr, session_);
    (void)PQsetSingleRowMode(session_);  // fails only when not called right after the send
    QueryResult batch;
    Status status = OkStatus();
    while (PGresult* result = PQgetResult(session_)) {
      const ExecStatusType state = PQresultStatus(result);
      const bool running = status.ok();
      if (running) status = TakeStreamed(result, batch, sink);
      PQclear(result);
      if (state == PGRES_COPY_IN || state == PGRES_COPY_OUT || state == PGRES_COPY_BOTH) break;
      // Stopped by this side in the middle of the rows: the server is still sending them.
      if (running && !status.ok() && state == PGRES_SINGLE_TUPLE) CancelOwnStatement();
    }
    if (status.ok() && batch.row_count() > 0) status = HandOver(batch, sink);
    if (PQstatus(session_) == CONNECTION_BAD) lost_in_transaction_ = before != PQTRANS_IDLE;
    return status;
  }

  void Interrupt() override {
    interrupted_.store(true);
    stream_interrupted_.store(true);
    std::lock_guard<std::mutex> lock(cancel_mutex_);
    if (cancel_ == nullptr) return;
    char buffer[256];
    (void)PQcancel(cancel_, buffer, sizeof buffer);  // best effort: the statement may have ended
  }

  Result<bool> TableExists(const TableName& name) override {
    STRATA_ASSIGN_OR_RETURN(
        QueryResult result,
        RunWithParameters("SELECT count(*) FROM information_schema.tables "
                          "WHERE table_catalog = COALESCE(NULLIF($1, ''), current_database()) "
                          "AND table_schema = COALESCE(NULLIF($2, ''), current_schema()) "
                          "AND table_name = $3 AND table_type = 'BASE TABLE'",
                          {name.catalog, name.schema, name.table}));
    if (result.row_count() != 1 ||
        !std::holds_alternative<std::int64_t>(result.columns[0].values[0])) {
      return MakeError(ErrorCode::kTargetExistence,
                       "could not determine whether " + name.ToString() + " exists");
    }
    return std::get<std::int64_t>(result.columns[0].values[0]) > 0;
  }

  // Every function outside pg_catalog and information_schema: a user's or an extension's
  // (which a search_path naming pg_catalog late could let answer a built-in's name).
  Result<std::vector<std::string>> UserFunctionNames() override {
    STRATA_ASSIGN_OR_RETURN(QueryResult result,
                            Execute("SELECT DISTINCT p.proname::text FROM pg_catalog.pg_proc AS p "
                                    "JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace "
                                    "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')"));
    return LowerCaseNames(result);
  }

  Result<std::vector<Column>> DescribeTable(const TableName& name) override {
    STRATA_ASSIGN_OR_RETURN(
        QueryResult result,
        RunWithParameters("SELECT column_name::text, data_type::text, is_nullable::text = 'YES', "
                          "udt_name::text FROM information_schema.columns "
                          "WHERE table_catalog = COALESCE(NULLIF($1, ''), current_database()) "
                          "AND table_schema = COALESCE(NULLIF($2, ''), current_schema()) "
                          "AND table_name = $3 ORDER BY ordinal_position",
                          {name.catalog, name.schema, name.table}));
    if (result.row_count() == 0) {
      return MakeError(ErrorCode::kWarehouseCatalog,
                       "table " + name.ToString() + " does not exist");
    }
    std::vector<Column> columns;
    for (std::size_t row = 0; row < result.row_count(); ++row) {
      Column column;
      column.name = std::get<std::string>(result.columns[0].values[row]);
      column.type_name = std::get<std::string>(result.columns[1].values[row]);
      column.nullable = std::get<bool>(result.columns[2].values[row]);
      column.type =
          ColumnTypeFromPostgresName(std::get<std::string>(result.columns[3].values[row]));
      columns.push_back(std::move(column));
    }
    return columns;
  }

 private:
  Result<QueryResult> RunWithParameters(const char* sql,
                                        const std::vector<std::string>& parameters) {
    std::vector<const char*> values;
    values.reserve(parameters.size());
    for (const std::string& parameter : parameters) values.push_back(parameter.c_str());
    return Run(
        [&] {
          return PQexecParams(session_, sql, static_cast<int>(values.size()), nullptr,
                              values.data(), nullptr, nullptr, /*resultFormat=*/0);
        },
        /*is_rollback=*/false);
  }

  // A session to run the next statement on: reconnected when it was lost outside a transaction.
  Status EnsureSession() {
    if (PQstatus(session_) == CONNECTION_OK) return OkStatus();
    if (lost_in_transaction_) {
      return MakeError(ErrorCode::kWarehouseConnection,
                       "the connection to PostgreSQL was lost inside a transaction, which the "
                       "server rolled back",
                       "roll back and run the transaction again");
    }
    return Reconnect();
  }

  // One result of a streamed statement: a row joins `batch`, handed over once it is full; the
  // end hands over the rest; a failure is returned.
  Status TakeStreamed(const PGresult* result, QueryResult& batch, const RowBatchSink& sink) {
    if (stream_interrupted_.load()) {
      return MakeError(ErrorCode::kWarehouseInterrupted, "the statement was interrupted");
    }
    const ExecStatusType state = PQresultStatus(result);
    if (state == PGRES_SINGLE_TUPLE) {
      AppendPostgresRows(result, batch);
      return batch.row_count() < kMaxStreamBatchRows ? OkStatus() : HandOver(batch, sink);
    }
    // The end (no rows of its own in single-row mode): the rest of the batch.
    if (state == PGRES_TUPLES_OK || state == PGRES_COMMAND_OK || state == PGRES_EMPTY_QUERY) {
      return batch.row_count() > 0 ? HandOver(batch, sink) : OkStatus();
    }
    if (state == PGRES_COPY_IN || state == PGRES_COPY_OUT || state == PGRES_COPY_BOTH) {
      unusable_ = true;  // the session is stuck in the COPY protocol
      return MakeError(ErrorCode::kWarehouseUnsupported, "COPY statements are not supported");
    }
    return ErrorFromPostgres(result, session_);
  }

  // Hands `batch` to `sink` and empties it (its columns stay).
  static Status HandOver(QueryResult& batch, const RowBatchSink& sink) {
    Status status = sink(batch);
    for (ResultColumn& column : batch.columns) column.values.clear();
    return status;
  }

  // Asks the server to stop this session's statement, unless Interrupt() did; the session is
  // then closed rather than pooled (the cancel may arrive after the statement ended).
  void CancelOwnStatement() {
    interrupted_.store(true);
    if (stream_interrupted_.exchange(true)) return;
    std::lock_guard<std::mutex> lock(cancel_mutex_);
    if (cancel_ == nullptr) return;
    char buffer[256];
    (void)PQcancel(cancel_, buffer, sizeof buffer);
  }

  Result<QueryResult> Run(const std::function<PGresult*()>& send, bool is_rollback) {
    // The server discarded the transaction with the connection: rolling back is done.
    if (PQstatus(session_) != CONNECTION_OK && lost_in_transaction_ && is_rollback) {
      lost_in_transaction_ = false;
      return QueryResult{};
    }
    STRATA_TRY(EnsureSession());
    const PGTransactionStatusType before = PQtransactionStatus(session_);
    PGresult* result = send();
    const ExecStatusType status = result != nullptr ? PQresultStatus(result) : PGRES_FATAL_ERROR;
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY) {
      QueryResult out = ReadPostgresResult(result);
      PQclear(result);
      return out;
    }
    if (status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH) {
      PQclear(result);
      unusable_ = true;  // the session is stuck in the COPY protocol
      return MakeError(ErrorCode::kWarehouseUnsupported, "COPY statements are not supported");
    }
    Error error = ErrorFromPostgres(result, session_);
    PQclear(result);
    if (PQstatus(session_) == CONNECTION_BAD) lost_in_transaction_ = before != PQTRANS_IDLE;
    return error;
  }

  Status Reconnect() {
    PQreset(session_);
    if (PQstatus(session_) != CONNECTION_OK) {
      Error error = ErrorFromPostgres(nullptr, session_);
      error.code = ErrorCode::kWarehouseConnection;
      error.message =
          fmt::format("cannot reconnect to {}: {}", pool_->description(), error.message);
      return error;
    }
    {
      std::lock_guard<std::mutex> lock(cancel_mutex_);
      if (cancel_ != nullptr) PQfreeCancel(cancel_);
      cancel_ = PQgetCancel(session_);  // the new session has a new backend key
    }
    return SessionPool::SetUpSession(session_);
  }

  std::shared_ptr<SessionPool> pool_;
  PGconn* session_;
  std::mutex cancel_mutex_;  // guards cancel_ against Interrupt() from other threads
  PGcancel* cancel_;
  std::atomic<bool> interrupted_{false};         // since the session was taken: not pooled
  std::atomic<bool> stream_interrupted_{false};  // during the streamed statement running now
  bool lost_in_transaction_ = false;
  bool unusable_ = false;
};

class PostgresWarehouse final : public Warehouse {
 public:
  explicit PostgresWarehouse(std::shared_ptr<SessionPool> pool) : pool_(std::move(pool)) {}

  sql::Dialect dialect() const override { return sql::Dialect::kPostgres; }

  Result<std::unique_ptr<Connection>> Connect() override {
    STRATA_ASSIGN_OR_RETURN(PGconn * session, pool_->Take());
    return std::unique_ptr<Connection>(new PostgresConnection(pool_, session));
  }

  std::string Describe() const override { return pool_->description(); }

 private:
  std::shared_ptr<SessionPool> pool_;
};

}  // namespace

Result<std::unique_ptr<Warehouse>> OpenPostgres(const PostgresSettings& settings) {
  STRATA_ASSIGN_OR_RETURN(std::string description, DescribeDsn(settings.dsn));
  auto pool = std::make_shared<SessionPool>(settings, std::move(description));
  STRATA_ASSIGN_OR_RETURN(PGconn * first, pool->Take());
  pool->Give(first);
  return std::unique_ptr<Warehouse>(new PostgresWarehouse(std::move(pool)));
}

}  // namespace strata::warehouse
