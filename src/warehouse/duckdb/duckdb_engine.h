// The in-process DuckDB that answers and builds rollups: an in-memory database on which every
// connection has the sketch functions of spec/semantic.md ("Sketches"):
//
//   strata_hll_add(VARCHAR) -> BLOB                aggregate (NULL when the group has no text)
//   strata_hll_merge(BLOB) -> BLOB                 aggregate (NULL when no sketch)
//   strata_hll_estimate(BLOB) -> BIGINT            scalar, std::llround(HyperLogLog::Estimate())
//   strata_value_counts(DOUBLE) -> LIST(STRUCT(value DOUBLE, count BIGINT))        aggregate
//   strata_quantile_merge(LIST(STRUCT(value DOUBLE, count BIGINT)), DOUBLE q) -> DOUBLE aggregate
//   strata_quantile_merge_postgres(same) -> DOUBLE  aggregate, PostgreSQL's percentile_cont form
//
// The formats are base/hll.h and base/value_counts.h; the exact semantics and errors are in
// sketch_functions.h. A malformed sketch or a bad q fails the statement with kWarehouse (never a
// crash).
//
// Ownership and threads: the Warehouse owns the database; each Connection must not outlive it.
// As for every Warehouse: one Warehouse may be shared by threads, each Connection is used by one
// thread at a time (Interrupt() from any). Queries on one connection run on up to
// `EngineOptions::threads` DuckDB worker threads, so the aggregates run in parallel.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

struct EngineOptions {
  int threads = 0;           // DuckDB worker threads; 0: DuckDB's default (every core)
  std::string memory_limit;  // DuckDB's memory_limit ("2GB"); empty: DuckDB's default (80 % RAM)
  // DuckDB's parquet_metadata_cache: each Parquet file's footer is parsed once and kept (DuckDB
  // checks the file's modification time on reuse). For a long-lived reader of files that are
  // never rewritten in place, as the rollup store's are: `strata serve` sets it.
  bool parquet_metadata_cache = false;
};

// Opens a new, empty in-memory DuckDB with the sketch functions registered (once, for the whole
// database: DuckDB keeps C API functions in its system catalog). Every Connect() sets
// TimeZone = 'UTC', like OpenDuckDb. Errors: kWarehouseConnection when DuckDB refuses an option
// (a negative thread count, a memory limit it cannot parse) or cannot open; kWarehouse when the
// functions cannot be registered.
Result<std::unique_ptr<Warehouse>> OpenDuckDbEngine(const EngineOptions& options = {});

// Appends `rows` to the existing table `table` ("name" in the main schema, or "schema.name";
// unquoted) through DuckDB's appender, which is much faster than INSERT statements; this is how
// rows fetched from another warehouse are loaded without text files. Columns are matched by
// position: `rows` must have exactly the table's column count (names are not compared). Each
// cell is converted to its column's type by DuckDB: NULL, bool, int64, uint64, double and string
// (strings also carry dates, timestamps and decimals in their ISO/decimal text, e.g.
// "2026-04-07 13:00:00", and land in DATE, TIMESTAMP, TIMESTAMPTZ and DECIMAL columns; one with
// a UTC offset, "2026-04-07 15:00:00+02", lands in a TIMESTAMPTZ column at that instant).
// A call is atomic: all rows or none (they are staged in a temporary table and inserted with one
// INSERT). Inside an open transaction of `connection` they join it (a ROLLBACK removes them).
// Errors, each naming the table: kWarehouseUnsupported when `connection` is not a DuckDB
// connection of this adapter; kWarehouseCatalog when the table does not exist; kWarehouse for a
// column count that differs or a cell DuckDB cannot convert (naming the row and column); the
// INSERT's own error (a constraint) as Execute returns it.
// REQUIRES: `connection` is used by this thread only during the call.
Status AppendRows(Connection& connection, std::string_view table, const QueryResult& rows);

}  // namespace strata::warehouse
