// Each adapter's registration (warehouse/registry.h), defined in its own folder; registry.cc
// lists them once. Private to the warehouse component.
#pragma once

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

}  // namespace strata::warehouse
