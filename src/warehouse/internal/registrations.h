// Each adapter's registration (warehouse/registry.h), defined in its own folder; registry.cc
// lists them once. Private to the warehouse component.
#pragma once

#include <string>
#include <string_view>

#include "warehouse/registry.h"

namespace strata::warehouse {

AdapterRegistration DuckDbRegistration();    // duckdb/duckdb_registration.cc
AdapterRegistration PostgresRegistration();  // postgres/postgres_registration.cc
// Dialects Strata emits SQL for without a connector yet (cloud_registrations.cc).
AdapterRegistration SnowflakeRegistration();
AdapterRegistration DatabricksRegistration();
AdapterRegistration BigQueryRegistration();
AdapterRegistration RedshiftRegistration();
AdapterRegistration TrinoRegistration();  // trino/trino_registration.cc
// What a Trino target whose catalog has `connector` ("iceberg", "hive", ...) can do: its
// registration's capabilities completed as Discover completes them.
Capabilities TrinoCapabilitiesForConnector(std::string_view connector);

// The value of the environment variable `variable`, named by the [warehouse] key `key`
// ("dsn_env", "password_env") of `config`; kConfig naming the variable, the key and the
// warehouse, with `hint` (may be empty), when it is not set (or, with `empty_is_unset`, empty).
// The value never appears in a message.
Result<std::string> EnvironmentValue(const project::WarehouseConfig& config, std::string_view key,
                                     const std::string& variable, std::string hint,
                                     bool empty_is_unset = false);

}  // namespace strata::warehouse
