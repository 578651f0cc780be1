// How many partitions of a time_interval model one warehouse transaction covers under
// `[run] batching = "auto"` (docs/batching.md). Pure: the runner measures, this decides.
//
// A transaction takes consecutive batches (their windows touch) of one model; a batch (one SQL
// statement, `batch_size` partitions) is never split. The cap is the smallest of:
//  - kMaxGroupPartitions;
//  - the time budget: kGroupBudgetMs / the mean duration of one partition;
//  - the row budget: GroupMaxRows(dialect) / the mean rows of one partition;
//  - with parallel > 1, ceil(planned partitions / (2 * parallel)), so every worker gets work;
//  - before anything is measured (no Computed state, nothing committed yet in this run),
//    kFirstGroupPartitions: the first transaction is a probe, later ones are sized from it.
// It is 1 (one batch per transaction, as batching = "off") when batching is off or the
// warehouse has no transactions (an empty BEGIN).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "project/project.h"
#include "sql/dialect.h"
#include "state/state_store.h"

namespace strata::materialize {

inline constexpr int kMaxGroupPartitions = 64;
inline constexpr int kFirstGroupPartitions = 8;
inline constexpr double kGroupBudgetMs = 2000;
inline constexpr double kGroupMaxRows = 2'000'000;
// DuckDB: below one row group (122,880 rows). A transaction's appends stay in memory until then
// and reach the file once, compressed by the checkpoint; past it DuckDB writes (compresses) row
// groups during the insert, and the statistics scan reads them back. Measured on the 365-day
// backfill (5,000 rows per partition): 1.4-1.8 s with up to 120,000 rows per transaction,
// 2.4-3.0 s with 150,000 (docs/benchmarks.md).
inline constexpr double kDuckDbGroupMaxRows = 100'000;

// The row budget of one transaction on `dialect`.
double GroupMaxRows(sql::Dialect dialect);

// The mean cost of one partition of a model. `partitions` == 0: nothing measured yet.
struct PartitionCost {
  std::int64_t partitions = 0;
  std::int64_t duration_ms = 0;  // summed over `partitions`
  std::int64_t rows = 0;         // summed over `partitions`

  void Add(std::int64_t count, std::int64_t ms, std::int64_t row_count) {
    partitions += count;
    duration_ms += ms;
    rows += row_count;
  }
};

// The cost of each model's Computed partitions (StateStore::ComputedTotalsByModel), by model.
std::map<std::string, PartitionCost> CostsFromState(
    const std::vector<state::StateStore::ComputedTotals>& totals);

// The most partitions one transaction may cover (see the top of this file); at least 1.
int MaxGroupPartitions(project::Batching batching, bool has_transactions, const PartitionCost& cost,
                       int planned_partitions, int parallel, double max_rows);

}  // namespace strata::materialize
