#include "state/state_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "state/internal/test_support.h"

namespace strata::state {
namespace {

using internal::FixedClock;

constexpr UnixSeconds kApril7 = 1775520000;  // 2026-04-07T00:00:00Z
constexpr UnixSeconds kDay = 86400;

PartitionRecord Partition(std::string model, std::string key, PartitionStatus status) {
  PartitionRecord record;
  record.model_name = std::move(model);
  record.partition_key = std::move(key);
  record.status = status;
  record.computed_at = kApril7 + 3600;
  record.row_count = 42;
  record.duration_ms = 1234;
  record.run_id = "run-1";
  record.start = kApril7;
  record.end = kApril7 + kDay;
  return record;
}

// Sets PRAGMA user_version directly, as a newer strata would.
void SetUserVersion(const std::string& path, int version) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql = "PRAGMA user_version = " + std::to_string(version);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

class StateStoreTest : public internal::TempDirTest {
 protected:
  std::unique_ptr<StateStore> OpenStore() {
    auto store = StateStore::Open(PathTo("models/.strata-state.db"), clock_);
    EXPECT_TRUE(store.ok()) << store.error().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  FixedClock clock_{kApril7 + 7200};
};

TEST(PartitionStatusTest, NamesRoundTripCaseInsensitively) {
  for (PartitionStatus status :
       {PartitionStatus::kComputed, PartitionStatus::kFailed, PartitionStatus::kInProgress,
        PartitionStatus::kInterrupted, PartitionStatus::kSkipped}) {
    EXPECT_EQ(ParsePartitionStatus(PartitionStatusName(status)), status);
  }
  EXPECT_EQ(PartitionStatusName(PartitionStatus::kInProgress), "InProgress");
  EXPECT_EQ(ParsePartitionStatus("computed"), PartitionStatus::kComputed);
  EXPECT_EQ(ParsePartitionStatus("INTERRUPTED"), PartitionStatus::kInterrupted);
  EXPECT_EQ(ParsePartitionStatus("Compute"), std::nullopt);
  EXPECT_EQ(ParsePartitionStatus(""), std::nullopt);
}

TEST_F(StateStoreTest, CreatesParentDirectoriesAndPersistsAcrossReopen) {
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(
        store->UpsertPartitions({Partition("orders", "2026-04-07", PartitionStatus::kComputed)})
            .ok());
  }
  EXPECT_TRUE(std::filesystem::exists(PathTo("models/.strata-state.db")));
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto listed = store->ListPartitions(std::nullopt, std::nullopt);
  ASSERT_TRUE(listed.ok()) << listed.error().ToString();
  ASSERT_EQ(listed->size(), 1u);
  const PartitionRecord& record = listed->front();
  EXPECT_EQ(record.model_name, "orders");
  EXPECT_EQ(record.partition_key, "2026-04-07");
  EXPECT_EQ(record.status, PartitionStatus::kComputed);
  EXPECT_EQ(record.computed_at, kApril7 + 3600);
  EXPECT_EQ(record.row_count, 42);
  EXPECT_EQ(record.duration_ms, 1234);
  EXPECT_EQ(record.run_id, "run-1");
  EXPECT_EQ(record.checksum, std::nullopt);
  EXPECT_EQ(record.start, kApril7);
  EXPECT_EQ(record.end, kApril7 + kDay);
  EXPECT_EQ(record.error, "");
}

TEST_F(StateStoreTest, UpsertUpdatesInPlace) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(
      store->UpsertPartitions({Partition("orders", "2026-04-07", PartitionStatus::kInProgress)})
          .ok());
  PartitionRecord failed = Partition("orders", "2026-04-07", PartitionStatus::kFailed);
  failed.run_id = "run-2";
  failed.row_count = 0;
  failed.error = "division by zero";
  ASSERT_TRUE(store->UpsertPartitions({failed}).ok());

  auto listed = store->ListPartitions("orders", std::nullopt);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().status, PartitionStatus::kFailed);
  EXPECT_EQ(listed->front().run_id, "run-2");
  EXPECT_EQ(listed->front().row_count, 0);
  EXPECT_EQ(listed->front().error, "division by zero");

  auto one = store->GetPartition("orders", "2026-04-07");
  ASSERT_TRUE(one.ok());
  ASSERT_TRUE(one->has_value());
  EXPECT_EQ((*one)->error, "division by zero");
  auto missing = store->GetPartition("orders", "2026-04-08");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_F(StateStoreTest, DeletePartitionsForgetsOneModelOnly) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(
      store
          ->UpsertPartitions({Partition("orders", "2026-04-07", PartitionStatus::kComputed),
                              Partition("orders", "2026-04-08", PartitionStatus::kFailed),
                              Partition("customers", "2026-04-07", PartitionStatus::kComputed)})
          .ok());
  auto first = store->FirstComputedPartition("orders");
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->partition_key, "2026-04-07");
  EXPECT_EQ((*first)->end, kApril7 + kDay);
  auto deleted = store->DeletePartitions("orders");
  ASSERT_TRUE(deleted.ok()) << deleted.error().ToString();
  EXPECT_EQ(*deleted, 2);
  EXPECT_TRUE(store->ListPartitions("orders", std::nullopt)->empty());
  EXPECT_EQ(store->ListPartitions("customers", std::nullopt)->size(), 1u);
  EXPECT_EQ(*store->DeletePartitions("orders"), 0);
  EXPECT_FALSE(store->FirstComputedPartition("orders")->has_value());
}

TEST_F(StateStoreTest, ListFiltersByModelAndStatusInKeyOrder) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->UpsertPartitions({
                      Partition("orders", "2026-04-09", PartitionStatus::kComputed),
                      Partition("customers", "2026-04-07", PartitionStatus::kComputed),
                      Partition("orders", "2026-04-07", PartitionStatus::kFailed),
                      Partition("orders", "2026-04-08", PartitionStatus::kComputed),
                  })
                  .ok());
  auto keys_of = [](const std::vector<PartitionRecord>& records) {
    std::vector<std::string> keys;
    keys.reserve(records.size());
    for (const auto& record : records)
      keys.push_back(record.model_name + "/" + record.partition_key);
    return keys;
  };
  auto all = store->ListPartitions(std::nullopt, std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(keys_of(*all), (std::vector<std::string>{"customers/2026-04-07", "orders/2026-04-07",
                                                     "orders/2026-04-08", "orders/2026-04-09"}));
  auto orders = store->ListPartitions("orders", std::nullopt);
  ASSERT_TRUE(orders.ok());
  EXPECT_EQ(keys_of(*orders), (std::vector<std::string>{"orders/2026-04-07", "orders/2026-04-08",
                                                        "orders/2026-04-09"}));
  auto computed = store->ListPartitions(std::nullopt, PartitionStatus::kComputed);
  ASSERT_TRUE(computed.ok());
  EXPECT_EQ(
      keys_of(*computed),
      (std::vector<std::string>{"customers/2026-04-07", "orders/2026-04-08", "orders/2026-04-09"}));
  auto failed_orders = store->ListPartitions("orders", PartitionStatus::kFailed);
  ASSERT_TRUE(failed_orders.ok());
  EXPECT_EQ(keys_of(*failed_orders), (std::vector<std::string>{"orders/2026-04-07"}));
  auto none = store->ListPartitions("nope", std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(StateStoreTest, ChecksumRoundTripsAllSixtyFourBits) {
  const std::vector<std::uint64_t> values = {
      0, 1, (1ull << 63) - 1, 1ull << 63, 0xfedcba9876543210ull, ~0ull};
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    std::vector<PartitionRecord> records;
    for (std::size_t i = 0; i < values.size(); ++i) {
      records.push_back(Partition("m", "k" + std::to_string(i), PartitionStatus::kComputed));
      records.back().checksum = values[i];
    }
    ASSERT_TRUE(store->UpsertPartitions(records).ok());
  }
  auto store = OpenStore();  // read back from disk, not from any cache
  ASSERT_NE(store, nullptr);
  auto listed = store->ListPartitions("m", std::nullopt);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ((*listed)[i].checksum, values[i]) << "key " << (*listed)[i].partition_key;
  }
}

TEST_F(StateStoreTest, ComputedKeysAreSortedAndOnlyComputed) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->UpsertPartitions({
                      Partition("orders", "2026-04-10", PartitionStatus::kComputed),
                      Partition("orders", "2026-04-07", PartitionStatus::kComputed),
                      Partition("orders", "2026-04-08", PartitionStatus::kFailed),
                      Partition("orders", "2026-04-09", PartitionStatus::kInProgress),
                      Partition("orders", "2026-04-11", PartitionStatus::kInterrupted),
                      Partition("other", "2026-04-08", PartitionStatus::kComputed),
                  })
                  .ok());
  auto keys = store->ComputedKeys("orders");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"2026-04-07", "2026-04-10"}));
  auto empty = store->ComputedKeys("missing");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_F(StateStoreTest, ComputedTotalsSumOnlyComputedPartitionsPerModel) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  PartitionRecord big = Partition("orders", "2026-04-09", PartitionStatus::kComputed);
  big.row_count = 8;
  big.duration_ms = 6;
  ASSERT_TRUE(store
                  ->UpsertPartitions({
                      Partition("orders", "2026-04-07", PartitionStatus::kComputed),
                      Partition("orders", "2026-04-08", PartitionStatus::kFailed),
                      big,
                      Partition("other", "2026-04-08", PartitionStatus::kInProgress),
                  })
                  .ok());
  auto totals = store->ComputedTotalsByModel();
  ASSERT_TRUE(totals.ok());
  ASSERT_EQ(totals->size(), 1U);
  EXPECT_EQ((*totals)[0].model, "orders");
  EXPECT_EQ((*totals)[0].partitions, 2);
  EXPECT_EQ((*totals)[0].rows, 42 + 8);
  EXPECT_EQ((*totals)[0].duration_ms, 1234 + 6);
}

TEST_F(StateStoreTest, RecoverInterruptedMarksInProgressPartitionsAndRuns) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  PartitionRecord in_progress = Partition("orders", "2026-04-08", PartitionStatus::kInProgress);
  in_progress.run_id = "run-dead";
  ASSERT_TRUE(store
                  ->UpsertPartitions({Partition("orders", "2026-04-07", PartitionStatus::kComputed),
                                      in_progress,
                                      Partition("orders", "2026-04-09", PartitionStatus::kFailed)})
                  .ok());
  RunRecord run{"run-dead", kApril7, 0, "running", "strata run", 999};
  ASSERT_TRUE(store->BeginRun(run).ok());
  ASSERT_TRUE(store
                  ->RecordRunPartitions({{"run-dead", "orders", "2026-04-08",
                                          PartitionStatus::kInProgress, 0, 0, "", 1}})
                  .ok());

  auto recovered = store->RecoverInterrupted();
  ASSERT_TRUE(recovered.ok()) << recovered.error().ToString();
  EXPECT_EQ(*recovered, 1);

  auto interrupted = store->ListPartitions("orders", PartitionStatus::kInterrupted);
  ASSERT_TRUE(interrupted.ok());
  ASSERT_EQ(interrupted->size(), 1u);
  EXPECT_EQ(interrupted->front().partition_key, "2026-04-08");
  EXPECT_EQ(interrupted->front().error,
            "interrupted: run run-dead ended without finishing this partition");
  EXPECT_EQ(interrupted->front().computed_at, clock_.Now());
  auto computed = store->ComputedKeys("orders");
  ASSERT_TRUE(computed.ok());
  EXPECT_EQ(*computed, std::vector<std::string>{"2026-04-07"});
  auto failed = store->ListPartitions("orders", PartitionStatus::kFailed);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->size(), 1u);

  auto runs = store->ListRuns(10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().status, "interrupted");
  auto run_partitions = store->ListRunPartitions("run-dead");
  ASSERT_TRUE(run_partitions.ok());
  ASSERT_EQ(run_partitions->size(), 1u);
  EXPECT_EQ(run_partitions->front().status, PartitionStatus::kInterrupted);

  auto again = store->RecoverInterrupted();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST_F(StateStoreTest, NewerSchemaVersionIsRefusedWithStateSchema) {
  ASSERT_NE(OpenStore(), nullptr);
  SetUserVersion(PathTo("models/.strata-state.db"), 99);
  auto store = StateStore::Open(PathTo("models/.strata-state.db"), clock_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, ErrorCode::kStateSchema);
  EXPECT_NE(store.error().message.find("99"), std::string::npos) << store.error().message;
  EXPECT_NE(store.error().hint.find("upgrade"), std::string::npos) << store.error().hint;
}

// A file written by schema version 1 (whose run_partitions refused 'Skipped') keeps its history
// and accepts Skipped rows after the migration.
TEST_F(StateStoreTest, VersionOneFileMigratesAndKeepsItsRunHistory) {
  const std::string path = PathTo("v1.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* v1 = R"sql(
CREATE TABLE run_partitions (
  run_id TEXT NOT NULL, model_name TEXT NOT NULL, partition_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('Computed', 'Failed', 'InProgress', 'Interrupted')),
  row_count INTEGER NOT NULL DEFAULT 0, duration_ms INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '', attempts INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (run_id, model_name, partition_key)) WITHOUT ROWID;
CREATE TABLE partitions (model_name TEXT NOT NULL, partition_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('Computed', 'Failed', 'InProgress', 'Interrupted')),
  computed_at INTEGER NOT NULL, row_count INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0, run_id TEXT NOT NULL DEFAULT '', checksum INTEGER,
  start INTEGER NOT NULL, "end" INTEGER NOT NULL, error TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (model_name, partition_key)) WITHOUT ROWID;
CREATE TABLE runs (run_id TEXT NOT NULL PRIMARY KEY, started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, command TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL DEFAULT 0);
CREATE TABLE plans (plan_id TEXT NOT NULL PRIMARY KEY, created_at INTEGER NOT NULL,
  body TEXT NOT NULL);
INSERT INTO run_partitions VALUES ('run-old', 'orders', '2026-04-07', 'Computed', 5, 9, '', 2);
PRAGMA user_version = 1;
)sql";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  auto store = StateStore::Open(path, clock_);
  ASSERT_TRUE(store.ok()) << store.error().ToString();
  auto old = (*store)->ListRunPartitions("run-old");
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->size(), 1u);
  EXPECT_EQ(old->front().status, PartitionStatus::kComputed);
  EXPECT_EQ(old->front().attempts, 2);
  RunPartitionRecord skipped{"run-new",
                             "orders",
                             "2026-04-08",
                             PartitionStatus::kSkipped,
                             0,
                             0,
                             "skipped: upstream partition 2026-04-08 of model stg did not succeed",
                             0};
  ASSERT_TRUE((*store)->RecordRunPartitions({skipped}).ok());
  auto fresh = (*store)->ListRunPartitions("run-new");
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(fresh->size(), 1u);
  EXPECT_EQ(fresh->front().status, PartitionStatus::kSkipped);
  EXPECT_EQ(fresh->front().attempts, 0);
}

TEST_F(StateStoreTest, FileThatIsNotADatabaseIsAnError) {
  const std::string path = PathTo("garbage.db");
  std::ofstream(path) << std::string(4096, 'x');
  auto store = StateStore::Open(path, clock_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, ErrorCode::kStateStore);
  EXPECT_NE(store.error().message.find(path), std::string::npos) << store.error().message;
}

TEST_F(StateStoreTest, UnwritableDirectoryIsAnIoError) {
  const std::string blocker = PathTo("file");
  std::ofstream(blocker) << "not a directory";
  auto store = StateStore::Open(blocker + "/sub/state.db", clock_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, ErrorCode::kIo);
}

// A store this user may not write (a read-only checkout, another user's project): Open fails,
// OpenForReading reads it, and a write through it fails. As root, the checks run in a child that
// has become nobody.
TEST_F(StateStoreTest, AStoreThisUserMayNotWriteIsOpenedForReading) {
  namespace fs = std::filesystem;
  const std::string path = PathTo("models/.strata-state.db");
  {
    auto store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(
        store->UpsertPartitions({Partition("orders", "2026-04-07", PartitionStatus::kComputed)})
            .ok());
  }
  ASSERT_FALSE(fs::exists(path + "-wal"));  // the last close checkpointed it
  const fs::path root = fs::path(path).parent_path().parent_path();
  fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(fs::path(path).parent_path(),
                  fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                      fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  // 0 when every expectation holds; the number of the first that does not.
  const auto check = [&]() -> int {
    auto writable = StateStore::Open(path, clock_);
    if (writable.ok() || writable.error().code != ErrorCode::kIo) return 1;
    auto store = StateStore::OpenForReading(path, clock_);
    if (!store.ok()) return 2;
    auto records = (*store)->ListPartitions(std::nullopt, std::nullopt);
    if (!records.ok() || records->size() != 1 || records->front().partition_key != "2026-04-07")
      return 3;
    if ((*store)
            ->UpsertPartitions({Partition("orders", "2026-04-08", PartitionStatus::kComputed)})
            .ok())
      return 4;
    if (fs::exists(path + "-shm") || fs::exists(path + "-wal")) return 5;
    return 0;
  };
  int failed = 0;
  if (::getuid() != 0) {
    failed = check();
  } else {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(9);
      ::_exit(check());
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    failed = WEXITSTATUS(status);
  }
  fs::permissions(fs::path(path).parent_path(), fs::perms::owner_all);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(failed, 0) << "1: Open did not fail with Io; 2: OpenForReading failed; 3: wrong "
                          "records; 4: a write succeeded; 5: a -shm or -wal file was made; 9: "
                          "could not become nobody";
}

TEST_F(StateStoreTest, ConcurrentWritersFromSeveralThreads) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string key = "t" + std::to_string(t) + "-" + std::to_string(1000 + i);
        if (!store->UpsertPartitions({Partition("m", key, PartitionStatus::kComputed)}).ok()) {
          ++failures[t];
        }
        if (!store->ComputedKeys("m").ok()) ++failures[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(std::count(failures.begin(), failures.end(), 0), kThreads);
  auto keys = store->ComputedKeys("m");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), static_cast<std::size_t>(kThreads * kPerThread));
}

// A sanity check of the bulk path; timing is measured by bench/, not asserted here.
TEST_F(StateStoreTest, EightyThousandPartitionsInOneUpsert) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  constexpr int kCount = 80000;
  std::vector<PartitionRecord> records;
  records.reserve(kCount);
  for (int i = 0; i < kCount; ++i) {
    // Hourly keys over ~9 years, inserted newest first so the read must sort.
    const UnixSeconds start = kApril7 - static_cast<UnixSeconds>(i) * 3600;
    records.push_back(Partition("events", FormatIso8601(start), PartitionStatus::kComputed));
    records.back().start = start;
    records.back().end = start + 3600;
    records.back().checksum = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
  }
  records.push_back(Partition("events", "zz-failed", PartitionStatus::kFailed));
  ASSERT_TRUE(store->UpsertPartitions(records).ok());
  auto keys = store->ComputedKeys("events");
  ASSERT_TRUE(keys.ok()) << keys.error().ToString();
  ASSERT_EQ(keys->size(), static_cast<std::size_t>(kCount));
  EXPECT_TRUE(std::is_sorted(keys->begin(), keys->end()));
  EXPECT_EQ(keys->back(), FormatIso8601(kApril7));
}

}  // namespace
}  // namespace strata::state

namespace strata::state {
namespace {

// Counts the sleeps of SQLite's busy handler while alive: the default VFS is replaced by a copy
// whose xSleep counts, then calls the real one. A connection waiting for a lock sleeps.
class BusySleepCounter {
 public:
  BusySleepCounter() : real_(sqlite3_vfs_find(nullptr)), spy_(*real_) {
    real_vfs_ = real_;
    sleeps_ = 0;
    spy_.zName = "strata-busy-sleep-counter";
    spy_.xSleep = &BusySleepCounter::Sleep;
    EXPECT_EQ(sqlite3_vfs_register(&spy_, /*makeDflt=*/1), SQLITE_OK);
  }
  ~BusySleepCounter() {
    sqlite3_vfs_unregister(&spy_);
    sqlite3_vfs_register(real_, /*makeDflt=*/1);
  }
  int sleeps() const { return sleeps_.load(); }

 private:
  static int Sleep(sqlite3_vfs* /*spy*/, int microseconds) {
    ++sleeps_;
    return real_vfs_->xSleep(real_vfs_, microseconds);
  }
  static inline std::atomic<int> sleeps_{0};
  static inline sqlite3_vfs* real_vfs_ = nullptr;
  sqlite3_vfs* real_;
  sqlite3_vfs spy_;
};

// Two processes opening a brand-new state store at once (a run creating it while `strata
// partitions` polls): the second must wait for the first, not fail with "database is locked".
// The holder releases only once the opener has been seen waiting for its lock.
TEST_F(StateStoreTest, OpeningWhileAnotherConnectionCreatesTheFileWaits) {
  BusySleepCounter counter;
  const std::string path = PathTo("state.db");
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE; CREATE TABLE t(x);", nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::optional<Result<std::unique_ptr<StateStore>>> store;
  std::atomic<bool> returned{false};
  std::thread opener([&] {
    store = StateStore::Open(path);
    returned = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (counter.sleeps() == 0 && !returned.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool waited = counter.sleeps() > 0;
  const bool returned_while_held = returned.load();
  sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  opener.join();
  sqlite3_close(holder);
  EXPECT_TRUE(waited) << "StateStore::Open never waited for the holder's lock";
  EXPECT_FALSE(returned_while_held) << "StateStore::Open returned while the lock was held";
  ASSERT_TRUE(store.has_value());
  ASSERT_TRUE(store->ok()) << store->error().ToString();
}

}  // namespace
}  // namespace strata::state
