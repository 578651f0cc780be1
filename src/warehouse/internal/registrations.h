// Each adapter's registration (warehouse/registry.h), defined in its own folder; registry.cc
// lists them once. Private to the warehouse component.
#pragma once

#include "warehouse/registry.h"

namespace strata::warehouse {

AdapterRegistration DuckDbRegistration();    // duckdb/duckdb_registration.cc
AdapterRegistration PostgresRegistration();  // postgres/postgres_registration.cc
// Dialects Strata emits SQL for without a connector yet (cloud_registrations.cc).
AdapterRegistration SnowflakeRegistration();
AdapterRegistration DatabricksRegistration();
AdapterRegistration BigQueryRegistration();
AdapterRegistration RedshiftRegistration();
AdapterRegistration TrinoRegistration();

}  // namespace strata::warehouse
