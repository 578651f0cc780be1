// DuckDB on a full disk (a small tmpfs): committed rows must survive a failed checkpoint. Needs
// root to mount; skipped with the reason otherwise.
//
// DuckDB 1.4.4 drops a table's rows from memory when the automatic checkpoint at COMMIT fails
// (the committed rows are still in the WAL). If the same database then checkpoints successfully,
// which it does on close once there is room again, it writes the empty table and truncates the
// WAL: the committed rows are lost. The adapter must never let that happen.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::warehouse {
namespace {

class SmallDisk {
 public:
  explicit SmallDisk(const std::string& size) {
    path_ = std::filesystem::temp_directory_path() /
            ("strata_small_disk_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
    mounted_ = ::mount("tmpfs", path_.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
  }
  // Never throws: a destructor that throws aborts the test binary. The mount can still be busy
  // when the adapter left a poisoned database open on purpose (DuckDbWarehouse's destructor,
  // when the checkpoint on shutdown could not be switched off); it is then detached lazily and
  // goes away with the process.
  ~SmallDisk() {
    if (mounted_ && ::umount(path_.c_str()) != 0) ::umount2(path_.c_str(), MNT_DETACH);
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  bool mounted() const { return mounted_; }
  bool Grow(const std::string& size) {
    return ::mount("tmpfs", path_.c_str(), "tmpfs", MS_REMOUNT, ("size=" + size).c_str()) == 0;
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
  bool mounted_ = false;
};

// BEGIN; DELETE the day; INSERT 21,600 rows of the day; COMMIT. The first failing step's result.
Result<QueryResult> WriteDay(Connection& connection, int day) {
  const std::string start = "TIMESTAMP '2026-01-01' + INTERVAL " + std::to_string(day) + " DAY";
  const std::string end = "TIMESTAMP '2026-01-01' + INTERVAL " + std::to_string(day + 1) + " DAY";
  const std::string statements[] = {
      "BEGIN", "DELETE FROM events WHERE event_at >= " + start + " AND event_at < " + end,
      "INSERT INTO events SELECT t, hash(t), md5(CAST(t AS VARCHAR)) FROM generate_series(" +
          start + ", " + end + " - INTERVAL 1 SECOND, INTERVAL 4 SECOND) AS g(t)"};
  for (const std::string& sql : statements) {
    Result<QueryResult> step = connection.Execute(sql);
    if (!step.ok()) {
      (void)connection.Execute("ROLLBACK");
      return step;
    }
  }
  return connection.Execute("COMMIT");
}

constexpr const char* kCreateEvents =
    "CREATE TABLE events (event_at TIMESTAMP, v UBIGINT, h VARCHAR)";

std::int64_t CountRows(const std::string& path) {
  auto warehouse = OpenDuckDb(path);
  EXPECT_TRUE(warehouse.ok());
  if (!warehouse.ok()) return -1;
  auto connection = (*warehouse)->Connect();
  EXPECT_TRUE(connection.ok());
  auto count = (*connection)->Execute("SELECT count(*) FROM events");
  EXPECT_TRUE(count.ok()) << count.error().message;
  return count.ok() ? std::get<std::int64_t>(count->columns[0].values[0]) : -1;
}

TEST(DuckDbStorageTest, AFailedCheckpointNeverLosesCommittedRows) {
  SmallDisk disk("20m");
  if (!disk.mounted())
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << strerror(errno);
  const std::string path = disk.File("warehouse.duckdb");
  int committed = 0;
  {
    auto warehouse = OpenDuckDb(path);
    ASSERT_TRUE(warehouse.ok());
    auto connection = (*warehouse)->Connect();
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE((*connection)->Execute(kCreateEvents).ok());
    std::optional<Error> failure;
    for (int day = 0; day < 100 && !failure; ++day) {
      Result<QueryResult> written = WriteDay(**connection, day);
      if (written.ok())
        ++committed;
      else
        failure = written.error();
    }
    ASSERT_TRUE(failure.has_value()) << "the disk never filled up";
    EXPECT_EQ(failure->code, ErrorCode::kWarehouseStorage) << failure->message;
    EXPECT_FALSE(failure->retryable());
    EXPECT_NE(failure->message.find(path), std::string::npos) << failure->message;
    // Nothing more reaches this database: DuckDB's view of the table is no longer the truth.
    auto after = (*connection)->Execute("SELECT count(*) FROM events");
    ASSERT_FALSE(after.ok());
    EXPECT_EQ(after.error().code, ErrorCode::kWarehouseStorage);
    auto other = (*warehouse)->Connect();
    if (other.ok()) {
      auto read = (*other)->Execute("SELECT 1");
      ASSERT_FALSE(read.ok());
      EXPECT_EQ(read.error().code, ErrorCode::kWarehouseStorage);
    }
    ASSERT_TRUE(disk.Grow("400m"));  // room again before the database is closed
  }
  ASSERT_GT(committed, 0);
  EXPECT_EQ(CountRows(path), std::int64_t{committed} * 21600);
}

// A storage failure in the middle of a large transaction (DuckDB writes a large insert's row
// groups to the file before COMMIT) poisons the database with the transaction still open; the
// runner's ROLLBACK is then refused like every other statement. Closing the connection and the
// database must not crash (DuckDB's own rollback at disconnect threw a FATAL error from a
// destructor, aborting the process), and the committed days must all be there after reopening.
TEST(DuckDbStorageTest, AFullDiskInsideAnOpenTransactionClosesCleanly) {
  SmallDisk disk("20m");
  if (!disk.mounted())
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << strerror(errno);
  const std::string path = disk.File("warehouse.duckdb");
  constexpr int kCommittedDays = 3;
  {
    auto warehouse = OpenDuckDb(path);
    ASSERT_TRUE(warehouse.ok());
    auto connection = (*warehouse)->Connect();
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE((*connection)->Execute(kCreateEvents).ok());
    for (int day = 0; day < kCommittedDays; ++day) ASSERT_TRUE(WriteDay(**connection, day).ok());
    ASSERT_TRUE((*connection)->Execute("BEGIN").ok());
    std::optional<Error> failure;
    // As the runner writes a transaction of several partitions: per day DELETE, then INSERT,
    // beginning with the committed days (rewritten) and going on past them.
    for (int day = 0; day < 400 && !failure; ++day) {
      const std::string start = "TIMESTAMP '2026-01-01' + INTERVAL " + std::to_string(day) + " DAY";
      Result<QueryResult> deleted = (*connection)
                                        ->Execute("DELETE FROM events WHERE event_at >= " + start +
                                                  " AND event_at < " + start + " + INTERVAL 1 DAY");
      if (!deleted.ok()) {
        failure = deleted.error();
        break;
      }
      Result<QueryResult> inserted = (*connection)
                                         ->Execute(
                                             "INSERT INTO events SELECT t, hash(t), "
                                             "md5(CAST(t AS VARCHAR)) FROM generate_series(" +
                                             start + ", " + start +
                                             " + INTERVAL 86399 SECOND, INTERVAL 4 SECOND) "
                                             "AS g(t)");
      if (!inserted.ok()) failure = inserted.error();
    }
    if (!failure) {
      Result<QueryResult> committed = (*connection)->Execute("COMMIT");
      ASSERT_FALSE(committed.ok()) << "the disk never filled up";
      failure = committed.error();
    }
    EXPECT_EQ(failure->code, ErrorCode::kWarehouseStorage) << failure->message;
    EXPECT_FALSE((*connection)->Execute("ROLLBACK").ok());  // refused: the database is poisoned
    ASSERT_TRUE(disk.Grow("400m"));
  }  // the connection and the database close here
  EXPECT_EQ(CountRows(path), std::int64_t{kCommittedDays} * 21600);
}

}  // namespace
}  // namespace strata::warehouse
