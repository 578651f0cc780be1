// One batch of a rollup build: the warehouse's rows for a run of periods, loaded into the engine
// once and written as one Parquet file per period (builder.h has the whole build).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "rollup/manifest.h"
#include "semantic/model.h"
#include "semantic/rollup_sql.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// One output file: the staged rows of its period (nullopt: every staged row).
struct PeriodFile {
  std::optional<std::pair<UnixSeconds, UnixSeconds>> period;
  std::filesystem::path path;
};

// A batch: the warehouse rows of `window` (nullopt: every row; `null_time`: exactly the rows
// whose time dimension is NULL), read once, staged in the engine, and split into `files`.
// REQUIRES: files is not empty; a file with a period only when `window` is set and contains it.
struct PeriodRequest {
  std::optional<std::pair<UnixSeconds, UnixSeconds>> window;
  bool null_time = false;
  std::optional<semantic::AppendBounds> append;  // a partition.append rollup: only these rows
  std::vector<PeriodFile> files;
};

struct WrittenFile {
  std::int64_t rows = 0;
  double ms = 0;  // its COPY plus its share of reading and staging the batch
};

struct WrittenPeriods {
  std::vector<WrittenFile> files;       // as PeriodRequest::files
  std::vector<ManifestColumn> columns;  // names and DuckDB types, in file order
};

// Computes the batch on `warehouse_connection` (in its `dialect`): one grouped query (and one
// per sketch) for the whole window, loaded into the engine once; then one COPY ... (FORMAT
// parquet) per file, sorted by sort_by, through `engine_connection`. Errors: the warehouse's or
// engine's, with a note naming the rollup and the window.
Result<WrittenPeriods> WritePeriods(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& warehouse_connection,
                                    warehouse::Connection& engine_connection,
                                    const PeriodRequest& request);

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
