// The files and generated data of `strata init DIR --example`.
#pragma once

#include <filesystem>

#include "base/result.h"

namespace strata::cli {

// Writes strata.toml and the example models into `dir` (which must not hold a strata.toml yet).
Status WriteExampleFiles(const std::filesystem::path& dir);
// Writes only a minimal strata.toml and an empty models folder.
Status WriteEmptyProject(const std::filesystem::path& dir);
// Generates raw.orders in the example's DuckDB warehouse: 1.2 M deterministic orders from
// 2025-04-01 to 2026-11-01 across customers, regions and statuses; 3% of rows are loaded up to
// three days after they happened (late-arriving data).
Status GenerateExampleData(const std::filesystem::path& duckdb_path);

}  // namespace strata::cli
