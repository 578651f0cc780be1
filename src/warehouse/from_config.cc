#include "warehouse/from_config.h"

#include <fmt/format.h>

#include "warehouse/registry.h"

namespace strata::warehouse {

Result<sql::Dialect> DialectOf(const project::WarehouseConfig& config) {
  std::optional<sql::Dialect> dialect = sql::ParseDialect(config.type);
  if (!dialect) {
    return MakeError(ErrorCode::kConfig, fmt::format("unknown warehouse type \"{}\"", config.type));
  }
  return *dialect;
}

Result<std::unique_ptr<warehouse::Warehouse>> OpenWarehouse(const project::ProjectConfig& project,
                                                            const project::WarehouseConfig& config,
                                                            warehouse::AccessMode access) {
  STRATA_ASSIGN_OR_RETURN(sql::Dialect dialect, DialectOf(config));
  // Each type's registration says whether and how it opens (warehouse/registry.h).
  const AdapterRegistration& registration = RegistrationFor(dialect);
  if (registration.open == nullptr) {
    return MakeError(
        ErrorCode::kWarehouseUnsupported,
        fmt::format("the {} connector is not available yet (warehouse \"{}\")", config.type,
                    config.name),
        fmt::format("use a {} warehouse; `strata plan` still shows the SQL it would run",
                    ConnectorDialectNames()));
  }
  return registration.open(OpenRequest{project, config, access});
}

}  // namespace strata::warehouse
