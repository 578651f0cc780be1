// From a project's [warehouse] configuration to a dialect and an open Warehouse.
#pragma once

#include <memory>

#include "base/result.h"
#include "project/project.h"
#include "sql/dialect.h"
#include "warehouse/warehouse.h"

namespace strata::materialize {

// The SQL dialect of a configured warehouse (planning needs no connection).
Result<sql::Dialect> DialectOf(const project::WarehouseConfig& config);
// Opens the configured warehouse. A duckdb path is relative to the project root. Warehouses
// without a connector yet fail with kWarehouseUnsupported.
Result<std::unique_ptr<warehouse::Warehouse>> OpenWarehouse(const project::ProjectConfig& project,
                                                            const project::WarehouseConfig& config);

}  // namespace strata::materialize
