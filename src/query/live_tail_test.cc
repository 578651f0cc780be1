// The live tail of a live_tail rollup (rollup/live_tail.h) end to end in one process: the files
// hold the closed months, the rows at or after the watermark come from the warehouse, and every
// answer equals the live answer of the same query, across inserts at the boundary instant,
// late rows, deletes and rebuilds that run while queries read.
#include <thread>

#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

using testing::FixedClock;
using testing::RollupQueryTest;

const char* const kTail = R"(rollups:
  - name: tail
    entity: Order
    dimensions: [status, { name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count, avg_amount, min_amount, customers_approx, median_amount]
    sketches: [customers_approx, median_amount]
    partition: { by: month }
    live_tail: true
)";

// 2026-09-15: the files hold 2025-11 .. 2026-08; September on is the tail (the data runs to
// 2026-12-12, and order 99999 has no time).
const FixedClock kSeptember(ToUnixSeconds({2026, 9, 15, 12, 0, 0}));
const UnixSeconds kWatermark = ToUnixSeconds({2026, 9, 1, 0, 0, 0});

const char* const kAcross = R"({"measures": ["Order.revenue", "Order.order_count",
    "Order.avg_amount", "Order.min_amount", "Order.customers_approx", "Order.median_amount"],
  "dimensions": ["Order.status"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "month",
                       "range": ["2026-06-01", "2027-01-01"]}]})";
const char* const kBefore = R"({"measures": ["Order.revenue", "Order.order_count"],
  "dimensions": ["Customer.region"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "week",
                       "range": ["2026-01-05", "2026-08-31"]}]})";
const char* const kAllTime = R"({"measures": ["Order.revenue", "Order.order_count"],
  "dimensions": ["Order.status"], "order": [{"member": "Order.status"}]})";
const char* const kOnlyTail = R"({"measures": ["Order.revenue", "Order.median_amount"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                       "range": ["2026-09-01", "2026-09-03"]}]})";

class LiveTailTest : public RollupQueryTest {
 protected:
  void SetUp() override {
    RollupQueryTest::SetUp();
    Load(kTail);
    BuildOptions options;
    options.clock = &kSeptember;
    Build(options);
  }

  // The query answered from the rollup, equal to its live answer; whether it read the tail.
  bool ExpectTailAnswer(const std::string& text) {
    EXPECT_EQ(ExpectSameAnswer(text), "tail") << text;
    auto routed = Ask(text, true);
    EXPECT_TRUE(routed.ok());
    if (!routed.ok()) return false;
    for (const query::RollupMiss& miss : routed->missed) {
      ADD_FAILURE() << miss.rollup << ": " << miss.reason << ": " << miss.detail;
    }
    const nlohmann::ordered_json meta = routed->ToJson()["meta"]["rollup"];
    EXPECT_EQ(meta.value("live_tail", false), routed->live_tail) << meta.dump();
    return routed->live_tail;
  }

  void Exec(const std::string& sql) {
    auto done = connection_->Execute(sql);
    ASSERT_TRUE(done.ok()) << done.error().ToString();
  }
};

TEST_F(LiveTailTest, FilesHoldTheClosedPeriodsAndTheWatermarkIsPersisted) {
  auto manifest = store_->Load("tail");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  EXPECT_EQ((*manifest)->range_end, std::optional<UnixSeconds>(kWatermark));
  EXPECT_EQ((*manifest)->built_through, std::optional<UnixSeconds>(kWatermark));
  for (const ManifestFile& file : (*manifest)->files) {
    EXPECT_FALSE(file.null_time);
    ASSERT_TRUE(file.end.has_value());
    EXPECT_LE(*file.end, kWatermark);
  }
}

// Without a build_range, a range that starts before the oldest built period (the data starts
// in November 2025) misses as partition_missing: outside_build_range names a build_range.
TEST_F(LiveTailTest, ARangeBeforeTheFilesWithoutABuildRangeIsPartitionMissing) {
  EXPECT_EQ(Reason(R"({"measures": ["Order.revenue"], "time_dimensions": [
                       {"dimension": "Order.order_date", "grain": "day",
                        "range": ["2025-04-01", "2025-12-01"]}]})",
                   "tail"),
            "partition_missing");
}

TEST_F(LiveTailTest, RangesAcrossTheWatermarkUnionFilesAndWarehouse) {
  EXPECT_TRUE(ExpectTailAnswer(kAcross));
  EXPECT_TRUE(ExpectTailAnswer(kOnlyTail));
  // All time: every file, then the tail with the rows without a time.
  EXPECT_TRUE(ExpectTailAnswer(kAllTime));
  auto routed = Ask(kAcross, true);
  ASSERT_TRUE(routed.ok());
  EXPECT_EQ(routed->ToJson()["meta"]["rollup"].dump(),
            R"({"used":"tail","live_tail":true,"missed":[]})");
}

// Filter groups and an offset read the files and the tail alike: the tail's rows are filtered
// by the same SQL over the union.
TEST_F(LiveTailTest, FilterGroupsAndOffsetsAcrossTheWatermark) {
  EXPECT_TRUE(ExpectTailAnswer(R"({"measures": ["Order.revenue", "Order.order_count"],
      "dimensions": ["Customer.region"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "month",
                           "range": ["2026-06-01", "2027-01-01"]}],
      "filters": [{"or": [{"member": "Order.status", "op": "equals", "values": ["paid"]},
                          {"not": {"and": [
                            {"member": "Customer.region", "op": "equals", "values": ["north"]},
                            {"member": "Order.order_date", "op": "gte", "values": ["2026-09-01"]}]}}]},
                  {"not": {"member": "Order.order_count", "op": "lt", "values": [20]}}],
      "order": [{"member": "Order.revenue", "desc": true}], "limit": 5, "offset": 3})"));
}

TEST_F(LiveTailTest, ARangeThatEndsAtTheWatermarkDoesNotOpenTheWarehouse) {
  warehouse_opened_ = 0;
  auto routed = Ask(kBefore, true);
  ASSERT_TRUE(routed.ok());
  EXPECT_EQ(routed->used, std::vector<std::string>{"tail"});
  EXPECT_FALSE(routed->live_tail);
  EXPECT_EQ(warehouse_opened_, 0);
  EXPECT_FALSE(ExpectTailAnswer(kBefore));
  const std::string ending_at_watermark = R"({"measures": ["Order.order_count"],
    "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                         "range": ["2026-08-01", "2026-09-01"]}]})";
  warehouse_opened_ = 0;
  EXPECT_FALSE(ExpectTailAnswer(ending_at_watermark));
  EXPECT_EQ(warehouse_opened_, 1);  // the live answer of ExpectSameAnswer only
}

TEST_F(LiveTailTest, RowsAtTheBoundaryInstantAndInTheOpenPeriodCountOnce) {
  Exec(
      "INSERT INTO raw.orders VALUES (70001, 3, 'paid', 'web', TIMESTAMP '2026-09-01 00:00:00', "
      "1000.00), (70003, 5, 'paid', 'web', TIMESTAMP '2026-10-09 08:00:00', 3000.00), "
      "(70004, 6, 'refunded', 'web', NULL, 4000.00)");
  // The boundary row, the open-period row and the row without a time are in the answer at
  // once, without a rebuild.
  EXPECT_TRUE(ExpectTailAnswer(kAcross));
  EXPECT_TRUE(ExpectTailAnswer(kOnlyTail));
  EXPECT_TRUE(ExpectTailAnswer(kAllTime));
  // A late row in August, a built period, one second before the watermark: it waits for the
  // rebuild of August (it is not in the tail), and nothing else differs from the live answer.
  Exec(
      "INSERT INTO raw.orders VALUES (70002, 4, 'shipped', 'store', "
      "TIMESTAMP '2026-08-31 23:59:59', 2000.00)");
  EXPECT_TRUE(ExpectTailAnswer(kOnlyTail));
  const std::string august = R"({"measures": ["Order.revenue", "Order.order_count"],
    "time_dimensions": [{"dimension": "Order.order_date", "grain": "month",
                         "range": ["2026-08-01", "2026-09-01"]}]})";
  auto routed = Ask(august, true);
  auto live = Ask(august, false);
  ASSERT_TRUE(routed.ok() && live.ok());
  std::size_t count = 0;
  while (count < live->columns.size() && live->columns[count].name != "Order.order_count") ++count;
  ASSERT_LT(count, live->columns.size());
  ASSERT_EQ(routed->rows.size(), 1u);
  ASSERT_EQ(live->rows.size(), 1u);
  EXPECT_EQ(routed->rows[0][count].get<std::int64_t>() + 1,
            live->rows[0][count].get<std::int64_t>());
  BuildOptions full;
  full.full = true;
  full.clock = &kSeptember;
  Build(full);
  EXPECT_FALSE(ExpectTailAnswer(august));
  EXPECT_TRUE(ExpectTailAnswer(kAcross));
  // Deleting the open period's rows: the answer follows.
  Exec("DELETE FROM raw.orders WHERE order_at >= TIMESTAMP '2026-10-01'");
  EXPECT_TRUE(ExpectTailAnswer(kAcross));
  EXPECT_TRUE(ExpectTailAnswer(kAllTime));
}

TEST_F(LiveTailTest, AnEmptyTailKeepsTheFilesDecimals) {
  // No row at or after the watermark: the tail's decimals have no digits to go by, and the
  // union must still keep the files' DECIMAL(38, 2).
  Exec("DELETE FROM raw.orders WHERE order_at >= TIMESTAMP '2026-09-01'");
  EXPECT_TRUE(ExpectTailAnswer(kAcross));
  EXPECT_TRUE(ExpectTailAnswer(kAllTime));
}

TEST_F(LiveTailTest, RebuildsWhileQueriesReadKeepEveryAnswerExact) {
  const RouterCache cache(model_, *store_);
  router_ = &cache;
  std::atomic<bool> done{false};
  std::thread builder([&] {
    BuildOptions full;
    full.full = true;
    full.clock = &kSeptember;
    for (int round = 0; round < 4; ++round) Build(full);
    done = true;
  });
  int asked = 0;
  while (!done || asked < 6) {
    EXPECT_TRUE(ExpectTailAnswer(asked % 2 == 0 ? kAcross : kAllTime));
    ++asked;
  }
  builder.join();
  router_ = nullptr;
}

TEST_F(LiveTailTest, AWarehouseFailureInTheTailFallsBackLive) {
  // The tail reads the warehouse: when that fails, the query is answered live (which reports
  // the warehouse's error itself), and the rollup's miss says why.
  Exec("ALTER TABLE raw.orders RENAME TO orders_gone");
  auto routed = Ask(kAcross, true);
  ASSERT_FALSE(routed.ok());
  Exec("ALTER TABLE raw.orders_gone RENAME TO orders");
  EXPECT_TRUE(ExpectTailAnswer(kAcross));
}

}  // namespace
}  // namespace strata::rollup
