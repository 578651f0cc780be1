// A thin owner of one sqlite3 connection: opening with Strata's pragmas, a cache of prepared
// statements, bound parameters and transactions. Private to the state component; the only header
// that names SQLite types (by forward declaration; sqlite3.h stays in database.cc).
//
// Thread safety: none. StateStore serializes every use behind its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace strata::state::internal {

class Database;

// A cached prepared statement borrowed from its Database for one execution. Bind errors are
// remembered and reported by the next Step()/Run(). The destructor resets the statement and
// clears its bindings, so it is ready for the next borrower.
// REQUIRES: the Database outlives the Statement; at most one Statement per SQL text at a time.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite (?1, ?2, ...).
  void BindText(int index, std::string_view text);
  void BindInt64(int index, std::int64_t value);
  void BindNull(int index);

  // Advances one row. true: a row is available through Column*(); false: done.
  Result<bool> Step();
  // Steps until done, for statements that return no rows.
  Status Run();

  // Columns are 0-based. REQUIRES: the last Step() returned true.
  bool ColumnIsNull(int column) const;
  std::int64_t ColumnInt64(int column) const;
  std::string ColumnText(int column) const;

 private:
  friend class Database;
  Statement(Database* database, sqlite3_stmt* statement);

  Database* database_;
  sqlite3_stmt* statement_;
  int bind_error_ = 0;  // first failing sqlite3_bind_* result code, 0 if none
};

class Database {
 public:
  // Opens or creates the file at `path` (creating parent directories) and sets WAL mode,
  // busy_timeout and synchronous=NORMAL. Errors: kIo (directories, cannot open, I/O),
  // kStateStore (not a database, WAL refused, ...); messages name the path.
  static Result<std::unique_ptr<Database>> Open(const std::string& path);
  // Opens the existing file at `path` for reading only: nothing is created or changed. A WAL
  // database whose folder this user may not write (so SQLite cannot make its -shm file) is read
  // as immutable, unless a non-empty -wal file holds commits not yet in the database: then kIo,
  // since reading without them would show an old state.
  static Result<std::unique_ptr<Database>> OpenReadOnly(const std::string& path);

  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Runs SQL text without parameters (schema, pragmas, BEGIN/COMMIT). Several statements allowed.
  Status Exec(const char* sql);
  // Sets journal_mode=WAL, waiting out transient locks; returns the resulting mode.
  Result<std::string> EnableWal();
  // Returns the cached prepared statement for `sql`, preparing it on first use.
  Result<Statement> Prepare(const char* sql);
  // Rows changed by the most recent INSERT/UPDATE/DELETE.
  std::int64_t Changes() const;

  // An Error for SQLite result code `result_code` during `action`, naming the path and SQLite's
  // message. Maps I/O-type codes to kIo and everything else to kStateStore.
  Error MakeSqliteError(int result_code, std::string_view action) const;

  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* handle, std::string path);

  sqlite3* handle_;
  std::string path_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// An immediate (write-locking) transaction, rolled back by the destructor unless committed.
class Transaction {
 public:
  static Result<Transaction> Begin(Database& database);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  Status Commit();

 private:
  explicit Transaction(Database* database) : database_(database) {}
  Database* database_;  // null once committed, rolled back or moved from
};

}  // namespace strata::state::internal
