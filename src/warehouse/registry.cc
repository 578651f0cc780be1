#include "warehouse/registry.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "warehouse/internal/registrations.h"

namespace strata::warehouse {
namespace {

constexpr std::size_t kDialects = static_cast<std::size_t>(sql::Dialect::kTrino) + 1;

std::array<AdapterRegistration, kDialects> BuildTable() {
  std::array<AdapterRegistration, kDialects> table = {
      DuckDbRegistration(),     PostgresRegistration(), SnowflakeRegistration(),
      DatabricksRegistration(), BigQueryRegistration(), RedshiftRegistration(),
      TrinoRegistration(),
  };
  for (std::size_t i = 0; i < table.size(); ++i) {
    // A broken table is a programming error, found by the first test that opens anything.
    STRATA_CHECK(static_cast<std::size_t>(table[i].capabilities.dialect) == i);
    STRATA_CHECK(table[i].capabilities.connector == (table[i].open != nullptr));
  }
  return table;
}

const std::array<AdapterRegistration, kDialects>& Table() {
  static const std::array<AdapterRegistration, kDialects> kTable = BuildTable();
  return kTable;
}

}  // namespace

std::span<const AdapterRegistration> AdapterRegistrations() { return Table(); }

const AdapterRegistration& RegistrationFor(sql::Dialect dialect) {
  return Table()[static_cast<std::size_t>(dialect)];
}

const Capabilities& CapabilitiesOf(sql::Dialect dialect) {
  return RegistrationFor(dialect).capabilities;
}

std::string ConnectorDialectNames(bool incremental_loads) {
  std::vector<std::string_view> names;
  for (const AdapterRegistration& registration : Table()) {
    if (registration.open != nullptr &&
        (!incremental_loads || registration.capabilities.incremental_loads())) {
      names.push_back(sql::DialectName(registration.capabilities.dialect));
    }
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

std::string StatementShapeKey(const Capabilities& capabilities) {
  // Only what the Emitter reads: MERGE shapes nothing but through the overwrite form (Trino's
  // incremental upsert is a MERGE exactly where its windows are, kMergeWindow).
  return fmt::format(
      "{} transactions={} deletes={} overwrite={} insert={} replace={} "
      "partitioning={}",
      sql::DialectName(capabilities.dialect), static_cast<int>(capabilities.transactions),
      static_cast<int>(capabilities.deletes), static_cast<int>(capabilities.overwrite),
      static_cast<int>(capabilities.insert_columns), static_cast<int>(capabilities.replace_table),
      static_cast<int>(capabilities.create_partitioning));
}

Result<Capabilities> DiscoverCapabilities(Connection& connection, const Capabilities& known) {
  const AdapterRegistration& registration = RegistrationFor(known.dialect);
  if (registration.discover == nullptr) return known;
  return registration.discover(connection, known);
}

Result<std::string> EnvironmentValue(const project::WarehouseConfig& config, std::string_view key,
                                     const std::string& variable, std::string hint,
                                     bool empty_is_unset) {
  const char* value = std::getenv(variable.c_str());
  if (value == nullptr || (empty_is_unset && *value == '\0')) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("the environment variable {} ({} of warehouse \"{}\") is not set",
                                 variable, key, config.name),
                     std::move(hint));
  }
  return std::string(value);
}

}  // namespace strata::warehouse
