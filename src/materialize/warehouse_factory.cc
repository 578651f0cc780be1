#include "materialize/warehouse_factory.h"

#include <fmt/format.h>

#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::materialize {

Result<sql::Dialect> DialectOf(const project::WarehouseConfig& config) {
  std::optional<sql::Dialect> dialect = sql::ParseDialect(config.type);
  if (!dialect) {
    return MakeError(ErrorCode::kConfig, fmt::format("unknown warehouse type \"{}\"", config.type));
  }
  return *dialect;
}

Result<std::unique_ptr<warehouse::Warehouse>> OpenWarehouse(const project::ProjectConfig& project,
                                                            const project::WarehouseConfig& config) {
  STRATA_ASSIGN_OR_RETURN(sql::Dialect dialect, DialectOf(config));
  switch (dialect) {
    case sql::Dialect::kDuckDb: {
      const std::string path =
          config.path == ":memory:" ? config.path : (project.root / config.path).string();
      return warehouse::OpenDuckDb(path);
    }
    case sql::Dialect::kPostgres:
    case sql::Dialect::kSnowflake:
    case sql::Dialect::kDatabricks:
    case sql::Dialect::kBigQuery:
    case sql::Dialect::kRedshift:
    case sql::Dialect::kTrino:
      break;
  }
  return MakeError(ErrorCode::kWarehouseUnsupported,
                   fmt::format("the {} connector is not available yet (warehouse \"{}\")",
                               config.type, config.name),
                   "use a duckdb warehouse; `strata plan` still shows the SQL it would run");
}

}  // namespace strata::materialize
