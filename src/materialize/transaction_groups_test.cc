#include "materialize/transaction_groups.h"

#include <gtest/gtest.h>

namespace strata::materialize {
namespace {

using project::Batching;

PartitionCost Cost(std::int64_t partitions, std::int64_t ms, std::int64_t rows) {
  PartitionCost cost;
  cost.Add(partitions, ms, rows);
  return cost;
}

TEST(TransactionGroupsTest, OffAndNoTransactionsMeanOneBatchPerTransaction) {
  EXPECT_EQ(MaxGroupPartitions(Batching::kOff, true, Cost(10, 10, 10), 365, 1, kGroupMaxRows), 1);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, false, Cost(10, 10, 10), 365, 1, kGroupMaxRows), 1);
}

TEST(TransactionGroupsTest, NothingMeasuredStartsWithAProbe) {
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, PartitionCost{}, 365, 1, kGroupMaxRows),
            kFirstGroupPartitions);
}

TEST(TransactionGroupsTest, CheapPartitionsFillTheLargestTransaction) {
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(100, 500, 1000), 365, 1, kGroupMaxRows),
            kMaxGroupPartitions);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(100, 0, 0), 365, 1, kGroupMaxRows),
            kMaxGroupPartitions);
}

TEST(TransactionGroupsTest, TheTimeBudgetBounds) {
  // 100 ms per partition: 2000 / 100 = 20.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 1000, 10), 365, 1, kGroupMaxRows),
            20);
  // Slower than the whole budget: still one partition per transaction.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(1, 5000, 10), 365, 1, kGroupMaxRows), 1);
}

TEST(TransactionGroupsTest, TheRowBudgetBounds) {
  // 500k rows per partition: 2M / 500k = 4.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(2, 2, 1'000'000), 365, 1, kGroupMaxRows),
            4);
}

TEST(TransactionGroupsTest, DuckDbKeepsATransactionWithinOneRowGroup) {
  // 5,000 rows per partition: 100,000 / 5,000 = 20 on DuckDB, the 64 cap elsewhere.
  const PartitionCost cost = Cost(10, 10, 50'000);
  EXPECT_EQ(
      MaxGroupPartitions(Batching::kAuto, true, cost, 365, 1, GroupMaxRows(sql::Dialect::kDuckDb)),
      20);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, cost, 365, 1,
                               GroupMaxRows(sql::Dialect::kPostgres)),
            kMaxGroupPartitions);
}

TEST(TransactionGroupsTest, ParallelRunsLeaveWorkForEveryWorker) {
  // 40 partitions, 4 workers: ceil(40 / 8) = 5.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 10, 10), 40, 4, kGroupMaxRows), 5);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 10, 10), 1, 4, kGroupMaxRows), 1);
}

TEST(TransactionGroupsTest, CostsFromStateAreTheModelsTotals) {
  const std::vector<state::StateStore::ComputedTotals> totals{{"a", 2, 400, 40}, {"b", 1, 999, 99}};
  const std::map<std::string, PartitionCost> costs = CostsFromState(totals);
  EXPECT_EQ(costs.at("a").partitions, 2);
  EXPECT_EQ(costs.at("a").rows, 40);
  EXPECT_EQ(costs.at("a").duration_ms, 400);
  EXPECT_EQ(costs.at("b").partitions, 1);
  EXPECT_EQ(costs.count("c"), 0U);
}

}  // namespace
}  // namespace strata::materialize
