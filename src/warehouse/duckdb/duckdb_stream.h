// Connection::ExecuteStreamed for DuckDB: a statement run as a streaming result, read one chunk
// (at most duckdb_vector_size() = 2,048 rows, kMaxStreamBatchRows) at a time. Private to the
// adapter.
#pragma once

#include <duckdb.h>

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// Makes the Error of a statement DuckDB refused (the adapter's mapping, which may also poison a
// database whose files failed).
using DuckDbFailure = std::function<Error(duckdb_error_type type, const std::string& message)>;

// Runs `sql` (one statement) on `connection` as a streaming result and hands each chunk to `sink`
// as a QueryResult with the cells ReadDuckDbResult would give: booleans, integers, doubles, text
// and TIMESTAMPTZ are read from the chunk's vectors; columns of any other type are cast to
// VARCHAR by DuckDB first (the text the value API returns for them) and keep their ColumnType;
// for the types that API cannot read (ENUM, LIST, STRUCT, ...: empty text from Execute) the
// cast's text, which is DuckDB's.
// Stops with kWarehouseInterrupted when `interrupted` is set between chunks (duckdb_interrupt
// stops a chunk being computed), and at the sink's first error, which it returns; DuckDB's own
// errors come from `fail`. The result is closed on return, so the connection runs the next
// statement.
Status StreamDuckDbQuery(duckdb_connection connection, std::string_view sql,
                         const std::atomic<bool>& interrupted, const RowBatchSink& sink,
                         const DuckDbFailure& fail);

}  // namespace strata::warehouse
