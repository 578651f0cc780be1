// The Warehouse interface: everything the runner needs from a SQL warehouse, and nothing else.
// Adapters live in sub-folders (duckdb/, postgres/, trino/); they are the only
// code that includes a warehouse's client header.
//
// Thread safety: a Warehouse may be shared by threads; each Connection is used by one thread at a
// time, except Interrupt(), which any thread may call at any time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"
#include "sql/dialect.h"

namespace strata::warehouse {

enum class ColumnType {
  kBoolean,
  kInteger,
  kUnsignedInteger,
  kDouble,
  kDecimal,
  kString,
  kDate,
  kTimestamp,
  kOther
};

// A column of a table or a result. `type_name` is the warehouse's own spelling ("TIMESTAMP").
struct Column {
  std::string name;
  ColumnType type = ColumnType::kOther;
  std::string type_name;
  bool nullable = true;
};

// One cell. Dates and timestamps are carried as their ISO text; decimals as text too (lossless).
using Value = std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string>;

std::string ValueToString(const Value& value);  // NULL renders as "NULL"

// A result as typed columns: columns[i].values has one entry per row.
struct ResultColumn {
  Column column;
  std::vector<Value> values;
};
struct QueryResult {
  std::vector<ResultColumn> columns;
  std::int64_t rows_changed = 0;  // rows inserted/updated/deleted by a DML statement
  std::size_t row_count() const { return columns.empty() ? 0 : columns[0].values.size(); }
};

// Per-key folds of a statement's (key_index, row_hash) rows: how the runner reads each
// partition's row count and checksum from an INSERT ... RETURNING instead of scanning the rows
// it just wrote (Emitter::InsertReturningStats, docs/batching.md).
struct KeyFold {
  std::int64_t rows = 0;
  std::uint64_t hash_sum = 0;  // the wrapping (mod 2^64) sum of the rows' hashes
};
struct FoldedRows {
  std::vector<KeyFold> keys;      // keys[i]: the rows whose key_index is i
  std::int64_t unkeyed_rows = 0;  // rows whose key_index is NULL or outside [0, keys.size())
  std::int64_t total_rows() const;
  // Adds one row: to keys[key] when key < keys.size(), else to unkeyed_rows.
  void Add(std::uint64_t key, std::uint64_t hash) {
    if (key >= keys.size()) {
      ++unkeyed_rows;
      return;
    }
    ++keys[key].rows;
    keys[key].hash_sum += hash;
  }
};

// The most rows a streamed result hands over at once (Connection::ExecuteStreamed): DuckDB's
// vector size, so one DuckDB chunk is one batch; the PostgreSQL adapter collects its single rows
// into batches of this many.
inline constexpr std::size_t kMaxStreamBatchRows = 2048;

// Receives a streamed result's rows one batch at a time: `batch` has the result's columns (names
// and types alike in every batch) and 1 to kMaxStreamBatchRows rows, valid only during the call.
// An error stops the statement and is what ExecuteStreamed returns.
using RowBatchSink = std::function<Status(const QueryResult& batch)>;

// A table's name as written in project files; catalog and schema may be empty.
struct TableName {
  std::string catalog;
  std::string schema;
  std::string table;
  std::string ToString() const;  // unquoted, dot-joined, for messages
};

class Connection {
 public:
  virtual ~Connection() = default;
  // Runs one statement (or, where the adapter allows, a script). Errors carry a warehouse error
  // code: kWarehouseConflict (retryable) for transaction conflicts, kWarehouseConnection
  // (retryable) for a lost connection, kWarehouseSyntax, kWarehouseCatalog, kWarehouseInterrupted
  // after Interrupt(), kWarehouse otherwise.
  virtual Result<QueryResult> Execute(std::string_view sql) = 0;
  // Cancels the statement running on this connection, if any. Thread-safe; never blocks long.
  virtual void Interrupt() = 0;

  // Whether the table exists. An error (not false) when existence cannot be determined.
  virtual Result<bool> TableExists(const TableName& name) = 0;
  // The table's columns in order; kWarehouseCatalog when it does not exist.
  virtual Result<std::vector<Column>> DescribeTable(const TableName& name) = 0;
  // The names of the functions and macros the warehouse's users defined (not its built-ins or
  // its extensions'), in every database and schema this connection sees, in lower case, sorted,
  // without duplicates: what may answer a call by a built-in's name (analysis::CalledNames).
  virtual Result<std::vector<std::string>> UserFunctionNames() = 0;

  // Runs `sql`, a statement whose result has two columns, key_index (an integer or NULL) and
  // row_hash (a 64-bit integer; a signed one folds as its two's complement), and folds its rows
  // per key into `keys` entries. The default folds Execute's typed values; an adapter may fold
  // without materializing them (the same numbers). Errors as Execute, and kWarehouse for a
  // result of another shape.
  virtual Result<FoldedRows> ExecuteFolded(std::string_view sql, std::size_t keys);

  // Runs `sql`, one statement that returns rows, and hands them to `sink` in order, in batches
  // of at most kMaxStreamBatchRows rows, each handed over before the next is read: the DuckDB
  // and PostgreSQL adapters hold one batch of the result at a time (plus what the warehouse
  // itself buffers), whatever its size. The cells are those Execute would return. Interrupt()
  // stops the statement between batches too (kWarehouseInterrupted); an error from `sink` stops
  // it and is returned. After any outcome the connection may run the next statement. The
  // default calls Execute and hands its rows over in batches: correct, but the whole result is
  // in memory first; adapters that can stream override it.
  virtual Status ExecuteStreamed(std::string_view sql, const RowBatchSink& sink);
};

// Hands `result`'s rows to `sink` in batches of at most kMaxStreamBatchRows rows, in order;
// stops at the sink's first error and returns it (ExecuteStreamed's default).
Status HandInBatches(const QueryResult& result, const RowBatchSink& sink);

// The fold of a result already read (ExecuteFolded's default).
Result<FoldedRows> FoldRows(const QueryResult& result, std::size_t keys);

// The text values of a result's first column, in lower case, sorted, without duplicates
// (UserFunctionNames' shape); kWarehouse for a result of another shape.
Result<std::vector<std::string>> LowerCaseNames(const QueryResult& result);

class Warehouse {
 public:
  virtual ~Warehouse() = default;
  virtual sql::Dialect dialect() const = 0;
  // A new connection for one thread's work; open several for parallel partitions.
  virtual Result<std::unique_ptr<Connection>> Connect() = 0;
  // A short description for messages ("duckdb:warehouse.duckdb").
  virtual std::string Describe() const = 0;
};

}  // namespace strata::warehouse
