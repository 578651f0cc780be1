// Stored rows staged in the engine: a rollup's build query (semantic/rollup_sql.h: the grouped
// query and one query per sketch) run on the warehouse, loaded into the in-process DuckDB
// engine, and joined into the rows a file of the rollup holds, under the stored column names.
// A build writes them to files (period_writer.h); an append merges them into files
// (rollup/append.h); the live tail only reads them (rollup/live_tail.h).
//
// Thread safety: uses only the connections given; each thread its own.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "semantic/rollup_sql.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// Runs `plan` on `source` and loads its rows into `engine` as table `<prefix>_main` and one
// `<prefix>_sketch_<n>` per sketch query; appends the names it created to `tables` (also on
// failure: the caller drops them). Errors: the warehouse's or the engine's.
Status StageRows(warehouse::Connection& source, warehouse::Connection& engine,
                 const semantic::RollupBuildPlan& plan, const std::string& prefix,
                 std::vector<std::string>& tables);

// The SELECT over the tables StageRows made under `prefix` that returns the stored rows: the
// main rows' columns renamed to their stored names, the sketches joined and computed. Pure.
std::string StagedRowsSelect(const semantic::RollupBuildPlan& plan, const std::string& prefix);

// Runs `plan` (its main query and sketch queries) on `warehouse_connection` and creates engine
// table `table` holding its rows under the stored column names, as the files of a build hold
// them (the live tail's rows, rollup/live_tail.h), with the column types of the Parquet file
// `schema_from` (values cast to them). The intermediate tables are dropped, also on failure;
// `table` is the caller's to drop. Errors: the warehouse's or the engine's.
Status StageStoredRows(warehouse::Connection& warehouse_connection,
                       warehouse::Connection& engine_connection,
                       const semantic::RollupBuildPlan& plan, const std::string& table,
                       const std::string& schema_from);

}  // namespace strata::rollup
