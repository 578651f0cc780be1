#include "warehouse/from_config.h"

#include <fmt/format.h>

#include <cstdlib>

#include "warehouse/dialects.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/postgres/postgres_warehouse.h"

namespace strata::warehouse {
namespace {

// The DSN from `dsn` or the variable named by `dsn_env`; the password only from the variable
// named by `password_env` (spec/project.md). The password never appears in a message.
Result<warehouse::PostgresSettings> PostgresSettingsOf(const project::WarehouseConfig& config) {
  warehouse::PostgresSettings settings;
  if (!config.dsn_env.empty()) {
    const char* dsn = std::getenv(config.dsn_env.c_str());
    if (dsn == nullptr || *dsn == '\0') {
      return MakeError(ErrorCode::kConfig,
                       fmt::format("the environment variable {} (dsn_env of warehouse \"{}\") is "
                                   "not set",
                                   config.dsn_env, config.name),
                       fmt::format("export {}=postgresql://user@host:5432/dbname", config.dsn_env));
    }
    settings.dsn = dsn;
  } else {
    settings.dsn = config.dsn;
  }
  if (settings.dsn.empty()) {
    return MakeError(
        ErrorCode::kConfig,
        fmt::format("warehouse \"{}\" of type postgres has neither dsn nor dsn_env", config.name),
        "set dsn = \"postgresql://user@host:5432/dbname\" or dsn_env = \"VAR\"");
  }
  if (!config.password_env.empty()) {
    const char* password = std::getenv(config.password_env.c_str());
    if (password == nullptr) {
      return MakeError(ErrorCode::kConfig,
                       fmt::format("the environment variable {} (password_env of warehouse "
                                   "\"{}\") is not set",
                                   config.password_env, config.name));
    }
    settings.password = password;
  }
  return settings;
}

// A PostgreSQL warehouse whose sessions start read-only: a safety net under the query path,
// which only reads. Pooled sessions keep the setting; they belong to this warehouse alone.
class ReadOnlyPostgres final : public warehouse::Warehouse {
 public:
  explicit ReadOnlyPostgres(std::unique_ptr<warehouse::Warehouse> inner)
      : inner_(std::move(inner)) {}

  sql::Dialect dialect() const override { return inner_->dialect(); }

  Result<std::unique_ptr<warehouse::Connection>> Connect() override {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, inner_->Connect());
    STRATA_TRY(connection->Execute("SET default_transaction_read_only = on"));
    return connection;
  }

  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<warehouse::Warehouse> inner_;
};

}  // namespace

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
  // Which dialects have a connector is the capability table's to say (warehouse/dialects.h);
  // the switch below only wires each connector to its adapter.
  if (!warehouse::CapabilitiesOf(dialect).connector) {
    return MakeError(
        ErrorCode::kWarehouseUnsupported,
        fmt::format("the {} connector is not available yet (warehouse \"{}\")", config.type,
                    config.name),
        fmt::format("use a {} warehouse; `strata plan` still shows the SQL it would run",
                    warehouse::ConnectorDialectNames()));
  }
  switch (dialect) {
    case sql::Dialect::kDuckDb: {
      const std::string path =
          config.path == ":memory:" ? config.path : (project.root / config.path).string();
      return warehouse::OpenDuckDb(path, access);
    }
    case sql::Dialect::kPostgres: {
      STRATA_ASSIGN_OR_RETURN(warehouse::PostgresSettings settings, PostgresSettingsOf(config));
      STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Warehouse> opened,
                              warehouse::OpenPostgres(settings));
      switch (access) {
        case warehouse::AccessMode::kReadWrite:
          return opened;
        case warehouse::AccessMode::kReadOnly:
          return std::unique_ptr<warehouse::Warehouse>(new ReadOnlyPostgres(std::move(opened)));
      }
      return opened;
    }
    case sql::Dialect::kSnowflake:
    case sql::Dialect::kDatabricks:
    case sql::Dialect::kBigQuery:
    case sql::Dialect::kRedshift:
    case sql::Dialect::kTrino:
      break;
  }
  // A row that claims a connector no case above opens: the table and this switch disagree.
  throw InvariantViolation(fmt::format(
      "the capability table lists a {} connector that OpenWarehouse does not open", config.type));
}

}  // namespace strata::warehouse
