// How many partitions of a time_interval model one warehouse transaction covers under
// `[run] batching = "auto"` (docs/batching.md). Pure: the runner measures, this decides.
//
// A transaction takes consecutive batches (their windows touch) of one model; a batch (one SQL
// statement, `batch_size` partitions) is never split. The cap is the smallest of:
//  - the dialect's GroupLimits::max_partitions;
//  - the time budget: kGroupBudgetMs / the mean duration of one partition;
//  - the row budget: GroupLimits::max_rows / the mean rows of one partition;
//  - with parallel > 1, ceil(planned partitions / (2 * parallel)), so every worker gets work;
//  - before anything is measured (no Computed state, nothing committed yet in this run),
//    kFirstGroupPartitions: the first transaction is a probe, later ones are sized from it.
// Then, where the dialect has a band of rows to stay out of (DuckDB, see GroupLimits), a cap
// whose mean rows fall inside it is lowered below the band.
// It is 1 (one batch per transaction, as batching = "off") when batching is off or the
// warehouse has no transactions (an empty BEGIN).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/capabilities.h"

namespace strata::materialize {

inline constexpr int kFirstGroupPartitions = 8;
inline constexpr double kGroupBudgetMs = 2000;

// A target's bounds on one transaction.
struct GroupLimits {
  int max_partitions = 64;
  double max_rows = 2'000'000;
  // Mean rows per transaction in [avoid_from, avoid_to) are avoided: such a cap is lowered to
  // `below_band` rows, when that takes it below avoid_from (partitions of a row group or more
  // keep their cap). No band when avoid_to is 0.
  double avoid_from = 0;
  double avoid_to = 0;
  double below_band = 0;
};

// DuckDB stores a table in row groups of 122,880 rows. A transaction of fewer rows keeps its
// appends in memory; its commit writes them to the WAL and the checkpoint compresses them once
// into full row groups. A larger one writes its full row groups, compressed, during the insert
// (its commit is cheap) and leaves one partial row group behind. The checkpoint then merges
// ("vacuums") k+1 neighbouring row groups whose rows fit in k (k <= 3): with one or two full row
// groups per transaction, two partial groups of at most half a row group are four neighbours
// that fit in three, and the checkpoint rewrites them; with three or more full ones no four
// neighbours hold two partial groups. So a DuckDB transaction holds either under one row group
// (100,000 rows: room for rows per partition above their mean) or at least three (up to four);
// measured on the 365-day backfill, 5,000 rows per partition (docs/benchmarks-history.md,
// "Statistics returned by the insert, and DuckDB's row groups").
inline constexpr double kDuckDbRowGroupRows = 122'880;
inline constexpr GroupLimits kDuckDbGroupLimits{
    .max_partitions = 128,
    .max_rows = 4 * kDuckDbRowGroupRows,
    .avoid_from = kDuckDbRowGroupRows,
    .avoid_to = 3.3 * kDuckDbRowGroupRows,
    .below_band = 100'000,
};

// The limits of one transaction on a target with `capabilities`: kDuckDbGroupLimits where tables
// are stored in DuckDB's row groups (Capabilities::row_group_rows), the defaults (64 partitions,
// 2 M rows, no band) elsewhere.
GroupLimits GroupLimitsFor(const warehouse::Capabilities& capabilities);

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
                       int planned_partitions, int parallel, const GroupLimits& limits);

}  // namespace strata::materialize
