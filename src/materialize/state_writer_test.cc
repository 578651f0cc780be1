// StateWriter against a real state store (SQLite in a temporary directory), and its handling of a
// failed write.
#include "materialize/internal/state_writer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace strata::materialize {
namespace {

namespace fs = std::filesystem;

class StateWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "strata_writer_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto store = state::StateStore::Open((dir_ / "state.db").string());
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  static state::PartitionRecord Partition(const std::string& key, state::PartitionStatus status,
                                          std::int64_t rows = 0) {
    state::PartitionRecord record;
    record.model_name = "m";
    record.partition_key = key;
    record.status = status;
    record.row_count = rows;
    record.run_id = "run-1";
    return record;
  }
  static state::RunPartitionRecord History(const std::string& key, state::PartitionStatus status) {
    return {"run-1", "m", key, status, 0, 0, "", 1};
  }

  static StateWriter::WriteFunction Into(state::StateStore& store) {
    return [&store](const std::vector<state::PartitionRecord>& records,
                    const std::vector<state::RunPartitionRecord>& history) {
      return store.RecordPartitionResults(records, history);
    };
  }

  fs::path dir_;
  std::unique_ptr<state::StateStore> store_;
};

TEST_F(StateWriterTest, MakesEveryWriteInTheOrderSubmitted) {
  StateWriter writer(Into(*store_));
  // One key rewritten many times without waiting in between: the last submission wins.
  std::vector<std::shared_ptr<StateWriter::Write>> writes;
  for (int i = 0; i < 50; ++i) {
    const auto status =
        i % 2 == 0 ? state::PartitionStatus::kInProgress : state::PartitionStatus::kComputed;
    writes.push_back(
        writer.Submit({Partition("2026-04-07", status, i)}, {History("2026-04-07", status)}));
  }
  for (const auto& write : writes) EXPECT_TRUE(write->Wait().ok());
  auto stored = store_->GetPartition("m", "2026-04-07");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->status, state::PartitionStatus::kComputed);
  EXPECT_EQ((*stored)->row_count, 49);
  auto history = store_->ListRunPartitions("run-1");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ(history->front().status, state::PartitionStatus::kComputed);
}

TEST_F(StateWriterTest, WritesFromManyThreadsAllLandAndAnEmptyWriteIsDoneAtOnce) {
  {
    StateWriter writer(Into(*store_));
    EXPECT_TRUE(writer.Submit({}, {})->Wait().ok());
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&writer, t] {
        for (int i = 0; i < 25; ++i) {
          const std::string key = "k" + std::to_string(t) + "_" + std::to_string(i);
          auto write = writer.Submit({Partition(key, state::PartitionStatus::kComputed)},
                                     {History(key, state::PartitionStatus::kComputed)});
          if (i % 5 == 0) {
            EXPECT_TRUE(write->Wait().ok());
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
  }  // the destructor makes the writes not waited for
  auto partitions = store_->ListPartitions("m", std::nullopt);
  ASSERT_TRUE(partitions.ok());
  EXPECT_EQ(partitions->size(), 100u);
}

TEST_F(StateWriterTest, AFailedWriteFailsEveryWriteMadeWithItAndNoOther) {
  // The first write is held until three more are queued, which are then made together; that
  // group fails, the write after it does not.
  std::mutex mutex;
  std::condition_variable released_signal;
  bool released = false;
  int calls = 0;
  StateWriter writer([&](const std::vector<state::PartitionRecord>& records,
                         const std::vector<state::RunPartitionRecord>&) -> Status {
    std::unique_lock<std::mutex> lock(mutex);
    ++calls;
    if (calls == 1) {
      released_signal.wait(lock, [&] { return released; });
      return OkStatus();
    }
    if (records.size() == 3) return MakeError(ErrorCode::kIo, "disk full");
    return OkStatus();
  });
  auto one = [](const std::string& key) {
    return std::vector<state::PartitionRecord>{Partition(key, state::PartitionStatus::kComputed)};
  };
  auto first = writer.Submit(one("a"), {});
  while (true) {
    std::lock_guard<std::mutex> lock(mutex);
    if (calls == 1) break;
  }
  // `first` is being made (the writer's only thread is in it); these three queue behind it.
  std::vector<std::shared_ptr<StateWriter::Write>> grouped;
  for (const char* key : {"b", "c", "d"}) grouped.push_back(writer.Submit(one(key), {}));
  {
    std::lock_guard<std::mutex> lock(mutex);
    released = true;
  }
  released_signal.notify_all();
  EXPECT_TRUE(first->Wait().ok());
  for (const auto& write : grouped) {
    const Status status = write->Wait();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::kIo);
    EXPECT_EQ(status.error().message, "disk full");
  }
  EXPECT_TRUE(writer.Submit(one("e"), {})->Wait().ok());
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(calls, 3);  // a, then b+c+d in one write, then e
}

}  // namespace
}  // namespace strata::materialize
