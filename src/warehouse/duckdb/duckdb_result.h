// Converts a DuckDB C API result into a QueryResult (typed columns). Private to the adapter.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "warehouse/warehouse.h"

namespace strata::warehouse {

// REQUIRES: `result` is a successful result. Does not destroy it.
QueryResult ReadDuckDbResult(duckdb_result* result);
// Connection::ExecuteFolded's fold, read straight from the result's vectors (no Value per cell)
// when key_index is an integer type and row_hash UBIGINT or BIGINT; otherwise FoldRows of
// ReadDuckDbResult. REQUIRES: as ReadDuckDbResult; it reads the result's chunks, so no other
// reader may have read it.
Result<FoldedRows> FoldDuckDbResult(duckdb_result* result, std::size_t keys);
ColumnType ColumnTypeFromDuckDbName(std::string_view type_name);
// The ColumnType of a column of DuckDB type `type`, as ReadDuckDbResult reports it.
ColumnType ColumnTypeOfDuckDbType(duckdb_type type);
// A TIMESTAMPTZ cell's text as ReadDuckDbResult gives it ("2026-01-10 08:00:00.5+00"), from its
// microseconds since the epoch.
std::string TimestampTzText(std::int64_t micros);

}  // namespace strata::warehouse
