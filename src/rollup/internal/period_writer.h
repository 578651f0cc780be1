// One batch of a rollup build: the warehouse's rows for a run of periods, staged in the engine
// once (stored_rows.h) and written as one Parquet file per period (parquet_file.h); builder.h
// has the whole build.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/manifest.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "semantic/rollup_sql.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// One output file: the staged rows of its `period` (nullopt: every staged row), written under
// `label` (RollupStore::NewFilePath) with `entry`'s period (start, end, null_time).
struct PeriodFile {
  std::optional<std::pair<UnixSeconds, UnixSeconds>> period;
  std::string label;
  ManifestFile entry;
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

struct WrittenPeriods {
  // As PeriodRequest::files: the manifest entries (build_ms: the file's write plus its share of
  // reading and staging the batch).
  std::vector<ManifestFile> files;
  std::vector<ManifestColumn> columns;  // names and DuckDB types, in file order
};

// Computes the batch on `warehouse_connection` (in its `dialect`): one grouped query (and one
// per sketch) for the whole window, loaded into the engine once; then one file per PeriodFile,
// sorted by sort_by, through `engine_connection` into `store` (built_at `now`). Errors: the
// warehouse's, the engine's or the store's, with a note naming the rollup and the window.
Result<WrittenPeriods> WritePeriods(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& warehouse_connection,
                                    warehouse::Connection& engine_connection,
                                    const RollupStore& store, const PeriodRequest& request,
                                    UnixSeconds now);

}  // namespace strata::rollup
