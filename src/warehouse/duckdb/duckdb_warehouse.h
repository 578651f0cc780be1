// Embedded DuckDB through its C API. One DuckDbWarehouse owns one database handle (a file or
// ":memory:"); each Connect() opens a new DuckDB connection on it, so disjoint partitions can run
// in parallel transactions.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// How a database file is opened. DuckDB lets one process hold a file read-write, or any number of
// processes hold it read-only; never both.
enum class AccessMode {
  kReadWrite,  // runs: creates the file when missing
  kReadOnly,   // queries: the file must exist; every statement that writes fails
};

// Opens the database at `path`; ":memory:" for an in-memory database (always read-write: it is
// private to this process). kReadWrite creates a missing file; kReadOnly never creates one.
// Parent directories are not created. Errors: kWarehouseConnection with DuckDB's message, naming
// the process that holds the file's write lock when that is why the open failed, and for a
// read-only open of a file that does not exist.
Result<std::unique_ptr<Warehouse>> OpenDuckDb(const std::string& path,
                                              AccessMode mode = AccessMode::kReadWrite);

}  // namespace strata::warehouse
