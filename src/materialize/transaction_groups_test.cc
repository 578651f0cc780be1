#include "materialize/transaction_groups.h"

#include <gtest/gtest.h>

#include "warehouse/registry.h"

namespace strata::materialize {
namespace {

using project::Batching;

PartitionCost Cost(std::int64_t partitions, std::int64_t ms, std::int64_t rows) {
  PartitionCost cost;
  cost.Add(partitions, ms, rows);
  return cost;
}

TEST(TransactionGroupsTest, OffAndNoTransactionsMeanOneBatchPerTransaction) {
  EXPECT_EQ(MaxGroupPartitions(Batching::kOff, true, Cost(10, 10, 10), 365, 1, GroupLimits{}), 1);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, false, Cost(10, 10, 10), 365, 1, GroupLimits{}), 1);
}

TEST(TransactionGroupsTest, NothingMeasuredStartsWithAProbe) {
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, PartitionCost{}, 365, 1, GroupLimits{}),
            kFirstGroupPartitions);
}

TEST(TransactionGroupsTest, CheapPartitionsFillTheLargestTransaction) {
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(100, 500, 1000), 365, 1, GroupLimits{}),
            GroupLimits{}.max_partitions);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(100, 0, 0), 365, 1, GroupLimits{}),
            GroupLimits{}.max_partitions);
}

TEST(TransactionGroupsTest, TheTimeBudgetBounds) {
  // 100 ms per partition: 2000 / 100 = 20.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 1000, 10), 365, 1, GroupLimits{}),
            20);
  // Slower than the whole budget: still one partition per transaction.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(1, 5000, 10), 365, 1, GroupLimits{}), 1);
}

TEST(TransactionGroupsTest, TheRowBudgetBounds) {
  // 500k rows per partition: 2M / 500k = 4.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(2, 2, 1'000'000), 365, 1, GroupLimits{}),
            4);
}

TEST(TransactionGroupsTest, DuckDbTransactionsHoldUnderOneRowGroupOrAtLeastThree) {
  const GroupLimits duckdb = GroupLimitsFor(warehouse::CapabilitiesOf(sql::Dialect::kDuckDb));
  const auto cap = [&](std::int64_t rows_per_partition, int planned, int parallel) {
    return MaxGroupPartitions(Batching::kAuto, true, Cost(10, 10, 10 * rows_per_partition), planned,
                              parallel, duckdb);
  };
  // 5,000 rows per partition: four row groups (491,520 rows) is 98 partitions.
  EXPECT_EQ(cap(5'000, 365, 1), 98);
  // 2,000 rows: the 128-partition cap is 256,000 rows, two row groups: below the band instead.
  EXPECT_EQ(cap(2'000, 365, 1), 50);
  // With 4 workers each gets ceil(365 / 8) = 46 partitions: 230,000 rows, in the band.
  EXPECT_EQ(cap(5'000, 365, 4), 20);
  // Small partitions stay under one row group at the partition cap; huge ones go one by one.
  EXPECT_EQ(cap(100, 365, 1), 128);
  EXPECT_EQ(cap(600'000, 365, 1), 1);
  // Partitions of a row group or more keep their cap: lowering it cannot leave the band.
  EXPECT_EQ(cap(125'000, 365, 1), 3);
  EXPECT_EQ(cap(170'000, 365, 1), 2);
  // Every cap's mean rows are under one row group or at least 3.3 of them, unless one
  // partition alone reaches a row group.
  for (std::int64_t rows = 50; rows <= 300'000; rows = rows * 11 / 10 + 1) {
    for (int parallel : {1, 2, 4}) {
      const double total = static_cast<double>(rows) * cap(rows, 365, parallel);
      EXPECT_TRUE(total < kDuckDbRowGroupRows || total >= 3.3 * kDuckDbRowGroupRows ||
                  static_cast<double>(rows) >= kDuckDbRowGroupRows)
          << rows << " rows per partition, parallel " << parallel << ": " << total;
    }
  }
  // Elsewhere: no band, the 64-partition cap.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 10, 50'000), 365, 1,
                               GroupLimitsFor(warehouse::CapabilitiesOf(sql::Dialect::kPostgres))),
            64);
}

TEST(TransactionGroupsTest, ParallelRunsLeaveWorkForEveryWorker) {
  // 40 partitions, 4 workers: ceil(40 / 8) = 5.
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 10, 10), 40, 4, GroupLimits{}), 5);
  EXPECT_EQ(MaxGroupPartitions(Batching::kAuto, true, Cost(10, 10, 10), 1, 4, GroupLimits{}), 1);
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
