// Every warehouse type Strata knows, one registration each: the sql::Dialect it speaks, the
// capabilities every target of the type has (warehouse/capabilities.h), how to open one (absent
// while the type has no connector: `strata plan` still shows its SQL), and how to learn from an
// open target the capabilities that vary between targets.
//
// Adding a warehouse type: one registration in its adapter folder (<type>/<type>_registration.cc,
// declared in internal/registrations.h) and one line in registry.cc; the Emitter and the runner
// read only its Capabilities. The table is built once and never changes; thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "base/result.h"
#include "project/project.h"
#include "sql/dialect.h"
#include "warehouse/capabilities.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// What an opener is given: the project (paths are relative to its root), the [warehouse] entry,
// and whether the target is opened for a run (kReadWrite) or for queries (kReadOnly).
struct OpenRequest {
  const project::ProjectConfig& project;
  const project::WarehouseConfig& config;
  AccessMode access = AccessMode::kReadWrite;
};

using WarehouseOpener = Result<std::unique_ptr<Warehouse>> (*)(const OpenRequest& request);
// Returns `known` (the registration's capabilities) with what `connection`'s target says about
// the capabilities that vary; runs only reading statements.
using CapabilityDiscovery = Result<Capabilities> (*)(Connection& connection,
                                                     const Capabilities& known);

struct AdapterRegistration {
  Capabilities capabilities;               // names the sql::Dialect: `type` is its DialectName
  WarehouseOpener open = nullptr;          // null: no connector yet
  CapabilityDiscovery discover = nullptr;  // null: every target of the type is alike
};

// One registration per sql::Dialect, in the enum's order.
std::span<const AdapterRegistration> AdapterRegistrations();
const AdapterRegistration& RegistrationFor(sql::Dialect dialect);
// The capabilities every target of `dialect` has (what planning, without a connection, assumes).
const Capabilities& CapabilitiesOf(sql::Dialect dialect);

// The types with a connector for hints, in table order: "duckdb, postgres or trino"; with
// `incremental_loads`, only those whose capabilities have them (Capabilities::incremental).
std::string ConnectorDialectNames(bool incremental_loads = false);

// The capabilities that decide the statements a plan holds (transactions, DELETE, the overwrite
// and insert forms, table creation), as one short stable text: a plan records it and
// is refused as stale when the target it is applied to has another (e.g. a Trino catalog whose
// connector changed). Row-hash choices are left out: the runner makes them per target.
std::string StatementShapeKey(const Capabilities& capabilities);

// `known` completed from the target behind `connection` by its registration's discovery (the
// registration of known.dialect); `known` itself where nothing varies. Errors: the connection's.
Result<Capabilities> DiscoverCapabilities(Connection& connection, const Capabilities& known);

}  // namespace strata::warehouse
