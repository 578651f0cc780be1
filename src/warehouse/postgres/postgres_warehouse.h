// PostgreSQL through libpq. A PostgresWarehouse holds a small pool of idle server connections;
// each Connect() takes one (or opens a new one) and hands it back when the Connection is
// destroyed, so `--parallel N` runs N server sessions, each its own transaction.
//
// Every session runs `SET TIME ZONE 'UTC'` and `SET datestyle = 'ISO'` when it is opened, so
// timestamps render as '2026-04-07 00:00:00' and window literals are read in UTC.
//
// Errors (see ErrorCodeForSqlState in postgres_result.h): serialization failures and deadlocks
// are kWarehouseConflict and a dropped connection kWarehouseConnection, both retryable; a
// statement cancelled by Connection::Interrupt() is kWarehouseInterrupted. A connection lost
// inside a transaction fails every statement with kWarehouseConnection until a ROLLBACK (which
// succeeds: the server already discarded the transaction); the next statement reconnects.
//
// ExecuteStreamed reads in libpq's single-row mode, kMaxStreamBatchRows rows per batch; a stream
// stopped before its end (an interrupt, the sink's error) cancels the statement and drains it.
//
// Thread safety: as Warehouse (warehouse.h). The pool is shared and locked; a Connection may
// outlive its Warehouse (the pool lives until its last Connection is gone). A session that was
// interrupted, lost, or left inside a transaction is closed instead of pooled.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

struct PostgresSettings {
  // A libpq connection string or URI ("postgresql://user@127.0.0.1:5432/db"), resolved by the
  // caller from the project's `dsn` or the variable named by `dsn_env`.
  std::string dsn;
  // From the variable named by `password_env`; passed to libpq (overriding a password in the
  // DSN) and never written to messages or Describe().
  std::optional<std::string> password;
  // Idle sessions kept for reuse; more may be open at once while in use.
  std::size_t max_idle_connections = 8;
};

// Parses the DSN and opens one session to check that the server is reachable (it is kept in the
// pool). Errors: kConfig for a malformed DSN; kWarehouseConnection when the server cannot be
// reached or refuses the login, with libpq's message.
Result<std::unique_ptr<Warehouse>> OpenPostgres(const PostgresSettings& settings);

}  // namespace strata::warehouse
