#include "materialize/transaction_groups.h"

#include <algorithm>
#include <cmath>

namespace strata::materialize {

std::map<std::string, PartitionCost> CostsFromState(
    const std::vector<state::StateStore::ComputedTotals>& totals) {
  std::map<std::string, PartitionCost> costs;
  for (const state::StateStore::ComputedTotals& model : totals) {
    costs[model.model].Add(model.partitions, model.duration_ms, model.rows);
  }
  return costs;
}

namespace {

// floor(budget / mean), at least 1; `limit` when the mean is 0 (free partitions).
int WithinBudget(double budget, std::int64_t total, std::int64_t partitions, int limit) {
  if (total <= 0) return limit;
  const double mean = static_cast<double>(total) / static_cast<double>(partitions);
  return static_cast<int>(std::clamp(std::floor(budget / mean), 1.0, static_cast<double>(limit)));
}

}  // namespace

GroupLimits GroupLimitsFor(const warehouse::Capabilities& capabilities) {
  // The band and budgets were measured on DuckDB's row groups; another row-grouped engine will
  // want its own measurements before it shares them.
  return capabilities.row_group_rows == kDuckDbRowGroupRows ? kDuckDbGroupLimits : GroupLimits{};
}

int MaxGroupPartitions(project::Batching batching, bool has_transactions, const PartitionCost& cost,
                       int planned_partitions, int parallel, const GroupLimits& limits) {
  if (batching == project::Batching::kOff || !has_transactions) return 1;
  int cap = limits.max_partitions;
  if (cost.partitions == 0) {
    cap = kFirstGroupPartitions;
  } else {
    cap = std::min(cap, WithinBudget(kGroupBudgetMs, cost.duration_ms, cost.partitions, cap));
    cap = std::min(cap, WithinBudget(limits.max_rows, cost.rows, cost.partitions, cap));
  }
  if (parallel > 1) {
    const int share = (std::max(planned_partitions, 1) + 2 * parallel - 1) / (2 * parallel);
    cap = std::min(cap, share);
  }
  if (limits.avoid_to > 0 && cost.partitions > 0 && cost.rows > 0) {
    const double mean = static_cast<double>(cost.rows) / static_cast<double>(cost.partitions);
    const double rows = mean * cap;
    if (rows >= limits.avoid_from && rows < limits.avoid_to) {
      // Lowered only when that leaves the band (a partition of a row group or more cannot).
      const int lowered = WithinBudget(limits.below_band, cost.rows, cost.partitions, cap);
      if (mean * lowered < limits.avoid_from) cap = lowered;
    }
  }
  return std::max(cap, 1);
}

}  // namespace strata::materialize
