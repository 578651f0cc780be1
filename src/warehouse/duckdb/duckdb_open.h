// What the DuckDB adapter's other files need from duckdb_warehouse.cc: opening a database with
// extra settings and a set-up step, and the C API handle under a Connection. Private to the
// adapter.
#pragma once

#include <duckdb.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

struct DuckDbOpenOptions {
  AccessMode mode = AccessMode::kReadWrite;
  // DuckDB settings applied at open (duckdb_set_config): {"threads", "4"}, {"memory_limit", "2GB"}.
  std::vector<std::pair<std::string, std::string>> settings;
  // Runs once, on a connection of its own, after the open and before any Connect(); its error
  // closes the database and fails the open. May be empty.
  std::function<Status(duckdb_connection)> on_open;
};

// OpenDuckDb with options; the same errors, plus kWarehouseConnection naming a setting DuckDB
// refuses, and on_open's error.
Result<std::unique_ptr<Warehouse>> OpenDuckDbWith(const std::string& path,
                                                  const DuckDbOpenOptions& options);

// The DuckDB connection under `connection` when this adapter made it; nullptr otherwise. Owned by
// `connection`; the same threading rules apply.
duckdb_connection DuckDbHandle(Connection& connection);

}  // namespace strata::warehouse
