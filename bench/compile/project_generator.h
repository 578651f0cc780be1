// Writes a synthetic Strata project for the compile benchmark: strata.toml plus `models` models
// (models/mNNNNN.sql + .toml) in a layered DAG. About 60% are time_interval models whose SQL is
// bounded by @start_date/@end_date (so E024 analysis has real work); the rest are full_refresh
// staging or view models. Shapes are mixed: staging selects, CTE chains with joins, UNION ALL
// branches, window functions with QUALIFY, and aggregates; each model is 20-80 lines.
// Deterministic for a given seed. Every model reads only what it declares (no E027 expected).
#pragma once

#include <cstdint>
#include <filesystem>

namespace strata::bench {

struct GeneratedProject {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t sql_lines = 0;
  int time_interval_models = 0;
};

// REQUIRES: `root` exists and is empty. Throws std::runtime_error when a file cannot be written.
GeneratedProject GenerateProject(const std::filesystem::path& root, int models,
                                 std::uint64_t seed = 42);

}  // namespace strata::bench
