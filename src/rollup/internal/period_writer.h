// One period of a rollup build: the warehouse's rows for the period, loaded into the engine,
// written as one Parquet file (builder.h has the whole build).
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

struct PeriodRequest {
  std::optional<std::pair<UnixSeconds, UnixSeconds>> window;  // nullopt: every row
  bool null_time = false;  // the rows whose time dimension is NULL
};

struct WrittenPeriod {
  std::int64_t rows = 0;
  std::vector<ManifestColumn> columns;  // names and DuckDB types, in file order
};

// Computes the period on `warehouse_connection` (in its `dialect`) and writes it to `path`
// through `engine_connection`. Errors: the warehouse's or engine's, with a note naming the
// rollup and period.
Result<WrittenPeriod> WritePeriod(const semantic::SemanticModel& model,
                                  const semantic::Rollup& rollup, sql::Dialect dialect,
                                  warehouse::Connection& warehouse_connection,
                                  warehouse::Connection& engine_connection,
                                  const PeriodRequest& request, const std::filesystem::path& path);

}  // namespace strata::rollup
