// What Strata can do with each SQL dialect's warehouse: the one table that says which dialects
// have a connector and how their statements differ. The Emitter (warehouse/emitter.h) and the
// warehouse factory (warehouse/from_config.h) both read it; neither keeps a list of its
// own. Adding a dialect: sql::Dialect, then one row here (a static_assert insists).
//
// Pure data; thread-safe.
#pragma once

#include <span>
#include <string>

#include "sql/dialect.h"

namespace strata::warehouse {

struct DialectCapabilities {
  sql::Dialect dialect;
  // Strata can open the warehouse and run statements on it (strata run, strata query). Only
  // these dialects get the statements whose results Strata reads back — window statistics,
  // partition row counts (the state check) and incremental loads — because only they are
  // verified against a running warehouse; elsewhere those are kWarehouseUnsupported.
  bool connector;
  // Window bounds are typed literals (DATE/DATETIME/TIMESTAMP '...') matching the time column's
  // type; elsewhere the plain string literal, which these dialects compare with any time type.
  bool typed_window_literals;
  // CREATE SCHEMA names the catalog too (catalog.schema).
  bool schema_takes_catalog;
  // Statements run in session transactions that a failed script ends with ROLLBACK.
  bool session_transactions;
};

// One row per sql::Dialect, in the enum's order.
std::span<const DialectCapabilities> AllDialectCapabilities();
const DialectCapabilities& CapabilitiesOf(sql::Dialect dialect);

// The dialects with a connector for hints, in table order: "duckdb or postgres".
std::string ConnectorDialectNames();

}  // namespace strata::warehouse
