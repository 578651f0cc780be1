// From a project's [warehouse] configuration to a dialect and an open Warehouse: the one place
// every front end (strata run, query, rollups, serve) opens the configured warehouse.
#pragma once

#include <memory>

#include "base/result.h"
#include "project/project.h"
#include "sql/dialect.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// The SQL dialect of a configured warehouse (planning needs no connection).
Result<sql::Dialect> DialectOf(const project::WarehouseConfig& config);
// Opens the configured warehouse. A duckdb path is relative to the project root. postgres: the
// DSN from `dsn` or the variable named by `dsn_env` (kConfig naming the variable when it is unset
// or empty), the password from the variable named by `password_env` when set (kConfig when that
// variable is unset). Warehouses without a connector yet fail with kWarehouseUnsupported.
//
// `access`: runs open kReadWrite. Queries open kReadOnly: a DuckDB file is opened read-only (so
// any number of queries share it; a missing file is an error, never created), and every
// PostgreSQL session runs `SET default_transaction_read_only = on` (a statement that writes fails
// with the server's read-only error).
Result<std::unique_ptr<warehouse::Warehouse>> OpenWarehouse(
    const project::ProjectConfig& project, const project::WarehouseConfig& config,
    warehouse::AccessMode access = warehouse::AccessMode::kReadWrite);

}  // namespace strata::warehouse
