#include "state/internal/database.h"

#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

namespace strata::state::internal {
namespace {

// How long a statement waits for another connection's write lock before failing with busy.
constexpr int kBusyTimeoutMillis = 10000;

bool IsIoCode(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_FULL:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---- Statement ----

Statement::Statement(Database* database, sqlite3_stmt* statement)
    : database_(database), statement_(statement) {}

Statement::Statement(Statement&& other) noexcept
    : database_(other.database_), statement_(other.statement_), bind_error_(other.bind_error_) {
  other.statement_ = nullptr;
}

Statement::~Statement() {
  if (statement_ == nullptr) return;
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

void Statement::BindText(int index, std::string_view text) {
  const int result = sqlite3_bind_text64(statement_, index, text.data(), text.size(),
                                         SQLITE_TRANSIENT, SQLITE_UTF8);
  if (result != SQLITE_OK && bind_error_ == 0) bind_error_ = result;
}

void Statement::BindInt64(int index, std::int64_t value) {
  const int result = sqlite3_bind_int64(statement_, index, value);
  if (result != SQLITE_OK && bind_error_ == 0) bind_error_ = result;
}

void Statement::BindNull(int index) {
  const int result = sqlite3_bind_null(statement_, index);
  if (result != SQLITE_OK && bind_error_ == 0) bind_error_ = result;
}

Result<bool> Statement::Step() {
  if (bind_error_ != 0) return database_->MakeSqliteError(bind_error_, "binding parameters");
  const int result = sqlite3_step(statement_);
  if (result == SQLITE_ROW) return true;
  if (result == SQLITE_DONE) return false;
  return database_->MakeSqliteError(result, sqlite3_sql(statement_));
}

Status Statement::Run() {
  while (true) {
    STRATA_ASSIGN_OR_RETURN(const bool has_row, Step());
    if (!has_row) return OkStatus();
  }
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

std::int64_t Statement::ColumnInt64(int column) const {
  return sqlite3_column_int64(statement_, column);
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return {};
  const int size = sqlite3_column_bytes(statement_, column);
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

// ---- Database ----

Database::Database(sqlite3* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

Database::~Database() {
  for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
  sqlite3_close_v2(handle_);
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return MakeError(ErrorCode::kIo,
                       "cannot create directory " + parent.string() + " for state store " + path +
                           ": " + error.message(),
                       "check the [state] path in strata.toml and the directory's permissions");
    }
  }
  sqlite3* handle = nullptr;
  const int result =
      sqlite3_open_v2(path.c_str(), &handle,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  // The Database owns the handle from here on, even when opening failed (sqlite3 requires a close).
  std::unique_ptr<Database> database(new Database(handle, path));
  if (result != SQLITE_OK) return database->MakeSqliteError(result, "opening");
  sqlite3_extended_result_codes(handle, 1);
  sqlite3_busy_timeout(handle, kBusyTimeoutMillis);

  STRATA_ASSIGN_OR_RETURN(const std::string mode, database->EnableWal());
  if (mode != "wal") {
    return MakeError(
        ErrorCode::kStateStore,
        "state store " + path + " cannot use WAL mode (journal_mode is \"" + mode + "\")",
        "put the state store on a local file system");
  }
  STRATA_TRY(database->Exec("PRAGMA synchronous=NORMAL"));
  return database;
}

namespace {

// `path` as a SQLite URI filename: every byte but [A-Za-z0-9/._~-] percent-encoded.
std::string FileUri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
      uri += c;
    } else {
      uri += '%';
      uri += kHex[byte >> 4];
      uri += kHex[byte & 0xf];
    }
  }
  return uri;
}

}  // namespace

Result<std::unique_ptr<Database>> Database::OpenReadOnly(const std::string& path) {
  std::error_code missing;
  if (!std::filesystem::exists(path, missing)) {
    return MakeError(ErrorCode::kIo, "state store " + path + " does not exist",
                     "run `strata run` once to create it, or check the [state] path");
  }
  const auto open = [&](const std::string& query) -> Result<std::unique_ptr<Database>> {
    sqlite3* handle = nullptr;
    const int result =
        sqlite3_open_v2((FileUri(path) + query).c_str(), &handle,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    std::unique_ptr<Database> database(new Database(handle, path));
    if (result != SQLITE_OK) return database->MakeSqliteError(result, "opening to read");
    sqlite3_extended_result_codes(handle, 1);
    sqlite3_busy_timeout(handle, kBusyTimeoutMillis);
    // The first read is where a WAL database without a usable -shm file fails.
    STRATA_TRY(database->Exec("SELECT count(*) FROM sqlite_schema"));
    return database;
  };
  Result<std::unique_ptr<Database>> shared = open("?mode=ro");
  if (shared.ok()) return shared;
  std::error_code no_wal;
  const std::uintmax_t wal_bytes = std::filesystem::file_size(path + "-wal", no_wal);
  if (!no_wal && wal_bytes > 0) {
    Error error = std::move(shared).error();
    error.hint =
        "its -wal file holds commits that only a process allowed to write the folder "
        "can read: run the command as the project's owner, or once `strata run` has "
        "checkpointed it";
    return error;
  }
  return open("?mode=ro&immutable=1");
}

Result<std::string> Database::EnableWal() {
  // Switching to WAL while another process creates the file or closes the last connection (and
  // so checkpoints and removes the WAL) can fail with SQLITE_BUSY without consulting the busy
  // handler, so wait for it here, within the same limit as every other lock wait.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMillis);
  while (true) {
    STRATA_ASSIGN_OR_RETURN(Statement journal, Prepare("PRAGMA journal_mode=WAL"));
    Result<bool> has_row = journal.Step();
    if (has_row.ok()) return *has_row ? journal.ColumnText(0) : std::string();
    const int code = sqlite3_errcode(handle_) & 0xff;
    const bool busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    if (!busy || std::chrono::steady_clock::now() >= deadline) return std::move(has_row).error();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Status Database::Exec(const char* sql) {
  char* message = nullptr;
  const int result = sqlite3_exec(handle_, sql, nullptr, nullptr, &message);
  sqlite3_free(message);  // MakeSqliteError reads sqlite3_errmsg, which holds the same text
  if (result != SQLITE_OK) return MakeSqliteError(result, sql);
  return OkStatus();
}

Result<Statement> Database::Prepare(const char* sql) {
  auto found = statements_.find(sql);
  if (found != statements_.end()) return Statement(this, found->second);
  sqlite3_stmt* statement = nullptr;
  const int result =
      sqlite3_prepare_v3(handle_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
  if (result != SQLITE_OK) return MakeSqliteError(result, sql);
  statements_.emplace(sql, statement);
  return Statement(this, statement);
}

std::int64_t Database::Changes() const { return sqlite3_changes64(handle_); }

Error Database::MakeSqliteError(int result_code, std::string_view action) const {
  const char* detail = handle_ != nullptr ? sqlite3_errmsg(handle_) : sqlite3_errstr(result_code);
  // Statements are named by their (collapsed, shortened) SQL text; a migration script is long.
  std::string what;
  for (char c : action) {
    if (c == '\n' || c == ' ') {
      if (!what.empty() && what.back() != ' ') what += ' ';
    } else {
      what += c;
    }
  }
  if (what.size() > 80) what = what.substr(0, 77) + "...";
  std::string message = "state store " + path_ + ": " + detail + " (while " + what + ")";
  std::string hint;
  switch (result_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      hint = "another process kept the state store busy; retry when it has finished";
      break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      hint = "the file is not a Strata state store; check the [state] path in strata.toml";
      break;
    default:
      if (IsIoCode(result_code))
        hint = "check the file, its directory's permissions and free space";
      break;
  }
  return MakeError(IsIoCode(result_code) ? ErrorCode::kIo : ErrorCode::kStateStore,
                   std::move(message), std::move(hint));
}

// ---- Transaction ----

Result<Transaction> Transaction::Begin(Database& database) {
  STRATA_TRY(database.Exec("BEGIN IMMEDIATE"));
  return Transaction(&database);
}

Transaction::Transaction(Transaction&& other) noexcept : database_(other.database_) {
  other.database_ = nullptr;
}

Transaction::~Transaction() {
  if (database_ != nullptr) (void)database_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  Database* database = std::exchange(database_, nullptr);
  Status status = database->Exec("COMMIT");
  if (!status.ok()) (void)database->Exec("ROLLBACK");
  return status;
}

}  // namespace strata::state::internal
