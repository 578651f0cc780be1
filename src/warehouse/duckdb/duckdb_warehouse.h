// Embedded DuckDB through its C API. One DuckDbWarehouse owns one database handle (a file or
// ":memory:"); each Connect() opens a new DuckDB connection on it, so disjoint partitions can run
// in parallel transactions.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// Opens (creating if missing) the database at `path`; ":memory:" for an in-memory database.
// Parent directories are not created. Errors: kWarehouseConnection with DuckDB's message (for
// example when another process holds the file's write lock).
Result<std::unique_ptr<Warehouse>> OpenDuckDb(const std::string& path);

}  // namespace strata::warehouse
