// The files and generated data of `strata init DIR --example`.
#pragma once

#include <filesystem>

#include "base/result.h"
#include "base/time.h"

namespace strata::cli {

// The example's data spans [start, end): from the first day of the month 19 months before `now`'s
// month up to the start of `now`'s day, so the latest partitions have data whenever it is made.
struct ExampleRange {
  UnixSeconds start;
  UnixSeconds end;
};
ExampleRange ExampleRangeFor(UnixSeconds now);

// Writes strata.toml and the example models into `dir` (which must not hold a strata.toml yet);
// every first_partition is range.start at the model's grain.
Status WriteExampleFiles(const std::filesystem::path& dir, const ExampleRange& range);
// Writes only a minimal strata.toml and an empty models folder.
Status WriteEmptyProject(const std::filesystem::path& dir);
// Generates raw.orders in the example's DuckDB warehouse: 1.2 M orders spread over `range`
// (deterministic for a given range) across customers, regions and statuses; 3% of rows are
// loaded up to three days after they happened (late-arriving data).
Status GenerateExampleData(const std::filesystem::path& duckdb_path, const ExampleRange& range);

}  // namespace strata::cli
