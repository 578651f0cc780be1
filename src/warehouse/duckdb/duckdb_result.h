// Converts a DuckDB C API result into a QueryResult (typed columns). Private to the adapter.
#pragma once

#include <duckdb.h>

#include <string_view>

#include "warehouse/warehouse.h"

namespace strata::warehouse {

// REQUIRES: `result` is a successful result. Does not destroy it.
QueryResult ReadDuckDbResult(duckdb_result* result);
ColumnType ColumnTypeFromDuckDbName(std::string_view type_name);

}  // namespace strata::warehouse
