#include <gtest/gtest.h>

#include "state/internal/test_support.h"
#include "state/state_store.h"

namespace strata::state {
namespace {

constexpr UnixSeconds kNoon = 1775563200;  // 2026-04-07T12:00:00Z

class RunHistoryTest : public internal::TempDirTest {
 protected:
  void SetUp() override {
    internal::TempDirTest::SetUp();
    auto store = StateStore::Open(PathTo("state.db"), clock_);
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    store_ = std::move(store).value();
  }
  internal::FixedClock clock_{kNoon};
  std::unique_ptr<StateStore> store_;
};

TEST_F(RunHistoryTest, BeginFinishAndListNewestFirst) {
  ASSERT_TRUE(store_->BeginRun({"run-a", kNoon, 0, "running", "strata run", 100}).ok());
  ASSERT_TRUE(
      store_->BeginRun({"run-b", kNoon + 60, 0, "running", "strata run --from x", 101}).ok());
  ASSERT_TRUE(store_->BeginRun({"run-c", kNoon + 60, 0, "running", "strata run -m y", 102}).ok());
  ASSERT_TRUE(store_->FinishRun("run-a", "partial_failure", kNoon + 30).ok());

  auto runs = store_->ListRuns(0);
  ASSERT_TRUE(runs.ok()) << runs.error().ToString();
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[0].run_id, "run-c");  // same start as run-b, inserted later
  EXPECT_EQ((*runs)[1].run_id, "run-b");
  EXPECT_EQ((*runs)[2].run_id, "run-a");
  EXPECT_EQ((*runs)[2].status, "partial_failure");
  EXPECT_EQ((*runs)[2].finished_at, kNoon + 30);
  EXPECT_EQ((*runs)[2].started_at, kNoon);
  EXPECT_EQ((*runs)[2].command, "strata run");
  EXPECT_EQ((*runs)[2].pid, 100);
  EXPECT_EQ((*runs)[1].status, "running");
  EXPECT_EQ((*runs)[1].finished_at, 0);

  auto newest = store_->ListRuns(1);
  ASSERT_TRUE(newest.ok());
  ASSERT_EQ(newest->size(), 1u);
  EXPECT_EQ(newest->front().run_id, "run-c");
}

TEST_F(RunHistoryTest, RejectsDuplicateUnknownAndInvalid) {
  ASSERT_TRUE(store_->BeginRun({"run-a", kNoon, 0, "running", "strata run", 100}).ok());
  Status duplicate = store_->BeginRun({"run-a", kNoon, 0, "running", "strata run", 100});
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().code, ErrorCode::kStateStore);

  Status unknown = store_->FinishRun("run-zzz", "success", kNoon);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kStateStore);

  Status invalid = store_->FinishRun("run-a", "done", kNoon);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, ErrorCode::kInternal);
  EXPECT_FALSE(store_->BeginRun({"run-b", kNoon, 0, "Running", "", 1}).ok());
  EXPECT_TRUE(IsRunStatus("interrupted"));
  EXPECT_FALSE(IsRunStatus("Success"));
}

TEST_F(RunHistoryTest, RunPartitionsUpsertPerRun) {
  ASSERT_TRUE(store_->BeginRun({"run-a", kNoon, 0, "running", "strata run", 100}).ok());
  ASSERT_TRUE(store_
                  ->RecordRunPartitions({
                      {"run-a", "orders", "2026-04-08", PartitionStatus::kInProgress, 0, 0, "", 1},
                      {"run-a", "orders", "2026-04-07", PartitionStatus::kComputed, 10, 5, "", 1},
                      {"run-b", "orders", "2026-04-07", PartitionStatus::kComputed, 11, 6, "", 1},
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->RecordRunPartitions({{"run-a", "orders", "2026-04-08", PartitionStatus::kFailed,
                                          0, 9, "timeout", 3}})
                  .ok());
  auto records = store_->ListRunPartitions("run-a");
  ASSERT_TRUE(records.ok()) << records.error().ToString();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].partition_key, "2026-04-07");
  EXPECT_EQ((*records)[0].row_count, 10);
  EXPECT_EQ((*records)[1].partition_key, "2026-04-08");
  EXPECT_EQ((*records)[1].status, PartitionStatus::kFailed);
  EXPECT_EQ((*records)[1].error, "timeout");
  EXPECT_EQ((*records)[1].attempts, 3);
  EXPECT_EQ((*records)[1].duration_ms, 9);
  auto none = store_->ListRunPartitions("run-nope");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(RunHistoryTest, PlansSaveLoadAndReplace) {
  const std::string body =
      R"({"plan_id":"p1","partitions":["2026-04-07"],"note":"it's \"quoted\""})";
  ASSERT_TRUE(store_->SavePlan("p1", kNoon, body).ok());
  auto loaded = store_->LoadPlan("p1");
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, body);

  auto missing = store_->LoadPlan("p2");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  ASSERT_TRUE(store_->SavePlan("p1", kNoon + 1, "{}").ok());
  store_.reset();
  auto reopened = StateStore::Open(PathTo("state.db"), clock_);
  ASSERT_TRUE(reopened.ok());
  auto replaced = (*reopened)->LoadPlan("p1");
  ASSERT_TRUE(replaced.ok());
  ASSERT_TRUE(replaced->has_value());
  EXPECT_EQ(**replaced, "{}");
}

}  // namespace
}  // namespace strata::state

namespace strata::state {
namespace {

TEST(RecordPartitionResultsTest, WritesBothTablesTogether) {
  const auto dir = std::filesystem::temp_directory_path() / "strata_record_results_test";
  std::filesystem::remove_all(dir);
  auto store = StateStore::Open((dir / "state.db").string());
  ASSERT_TRUE(store.ok()) << store.error().ToString();
  ASSERT_TRUE((*store)->BeginRun({"run_1", 1, 0, "running", "strata run", 1}).ok());
  PartitionRecord partition;
  partition.model_name = "fct";
  partition.partition_key = "2026-04-07";
  partition.status = PartitionStatus::kComputed;
  partition.row_count = 3;
  partition.run_id = "run_1";
  RunPartitionRecord history{"run_1", "fct", "2026-04-07", PartitionStatus::kComputed, 3, 5, "", 2};
  ASSERT_TRUE((*store)->RecordPartitionResults({partition}, {history}).ok());
  auto stored = (*store)->GetPartition("fct", "2026-04-07");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->row_count, 3);
  auto runs = (*store)->ListRunPartitions("run_1");
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].attempts, 2);
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace strata::state
