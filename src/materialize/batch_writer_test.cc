// WriteTransaction against real DuckDB: which way each write takes its statistics (returned by
// the insert only while its rows are known to be few; read back by a scan otherwise), and that
// every way records the same counts and checksums and keeps the output guard.
#include "materialize/internal/batch_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::materialize {
namespace {

const warehouse::TableName kTarget{"", "marts", "fct"};

// Counts the statements that return folded statistics and the statistics scans.
class CountingConnection final : public warehouse::Connection {
 public:
  explicit CountingConnection(std::unique_ptr<warehouse::Connection> inner)
      : inner_(std::move(inner)) {}
  Result<warehouse::QueryResult> Execute(std::string_view sql) override {
    if (sql.starts_with("SELECT count(*) AS row_count") || sql.starts_with("SELECT CASE")) {
      ++scans;
    }
    return inner_->Execute(sql);
  }
  Result<warehouse::FoldedRows> ExecuteFolded(std::string_view sql, std::size_t keys) override {
    ++folds;
    return inner_->ExecuteFolded(sql, keys);
  }
  void Interrupt() override { inner_->Interrupt(); }
  Result<bool> TableExists(const warehouse::TableName& name) override {
    return inner_->TableExists(name);
  }
  Result<std::vector<warehouse::Column>> DescribeTable(const warehouse::TableName& name) override {
    return inner_->DescribeTable(name);
  }
  Result<std::vector<std::string>> UserFunctionNames() override {
    return inner_->UserFunctionNames();
  }
  int folds = 0;
  int scans = 0;

 private:
  std::unique_ptr<warehouse::Connection> inner_;
};

struct Fixture {
  std::unique_ptr<warehouse::Warehouse> warehouse;
  std::unique_ptr<CountingConnection> connection;
  warehouse::Emitter emitter{sql::Dialect::kDuckDb};
  std::vector<PlannedBatch> batches;
  std::vector<const PlannedBatch*> pointers;
};

// The model's SELECT for `window`: raw.events' rows in it, shifted by `shift_hours`.
std::string SelectFor(const warehouse::Emitter& emitter, const Window& window, int shift_hours) {
  return "SELECT t + to_hours(" + std::to_string(shift_hours) +
         ") AS t, k, v FROM raw.events WHERE t >= " + emitter.TimestampLiteral(window.start) +
         " AND t < " + emitter.TimestampLiteral(window.end);
}

// raw.events: a row every 7 minutes from 2026-01-01 for six days; the batches are `batch_size`
// days each over the first six days, each shifting its rows by `shift_hours`.
Fixture Open(int batch_size, int shift_hours = 0) {
  Fixture f;
  f.warehouse = std::move(warehouse::OpenDuckDb(":memory:")).value();
  f.connection = std::make_unique<CountingConnection>(std::move(f.warehouse->Connect()).value());
  for (const char* sql :
       {"CREATE SCHEMA raw", "CREATE SCHEMA marts",
        "CREATE TABLE raw.events AS SELECT TIMESTAMP '2026-01-01 00:00:00' + to_minutes(i * 7) "
        "AS t, i % 13 AS k, i * 1.5 AS v FROM range(6 * 24 * 60 // 7) AS r(i)",
        "CREATE TABLE marts.fct AS SELECT * FROM raw.events LIMIT 0"}) {
    EXPECT_TRUE(f.connection->Execute(sql).ok()) << sql;
  }
  PartitionKey key = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  for (int b = 0; b < 6 / batch_size; ++b) {
    PlannedBatch batch;
    for (int i = 0; i < batch_size; ++i, key = key.Next()) batch.keys.push_back(key);
    batch.window = {batch.keys.front().start(), batch.keys.back().window().end};
    const std::string select = SelectFor(f.emitter, batch.window, shift_hours);
    batch.statements = std::move(f.emitter.Overwrite(kTarget, "t", batch.window, select)).value();
    f.batches.push_back(std::move(batch));
  }
  for (const PlannedBatch& batch : f.batches) f.pointers.push_back(&batch);
  return f;
}

BatchOutcome Write(Fixture& f, std::optional<double> rows_per_key) {
  const std::atomic<bool> cancel{false};
  return WriteTransaction(*f.connection, f.emitter, f.pointers, kTarget, "t", rows_per_key, cancel);
}

std::vector<std::pair<std::int64_t, std::uint64_t>> StatsOf(const BatchOutcome& outcome) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> stats;
  for (const KeyStats& key : outcome.stats) stats.emplace_back(key.row_count, key.checksum);
  return stats;
}

TEST(BatchWriterTest, StatisticsAreReturnedOnlyWhileTheRowsAreKnownToBeFew) {
  // Unmeasured: one scan per batch, nothing returned (and so nothing grouped).
  Fixture unmeasured = Open(2);
  const BatchOutcome scanned = Write(unmeasured, std::nullopt);
  ASSERT_EQ(scanned.status, BatchStatus::kCommitted) << scanned.error->message;
  EXPECT_EQ(unmeasured.connection->folds, 0);
  EXPECT_EQ(unmeasured.connection->scans, 3);
  // Measured and few: one grouped insert returns every key's statistics.
  Fixture few = Open(2);
  const BatchOutcome grouped = Write(few, 206.0);
  ASSERT_EQ(grouped.status, BatchStatus::kCommitted);
  EXPECT_EQ(few.connection->folds, 1);
  EXPECT_EQ(few.connection->scans, 0);
  // Measured and many (6 keys of 110,000 rows exceed kReturnedStatsMaxRows, 2 keys do not):
  // not grouped, each batch's own insert returns its statistics.
  Fixture many = Open(2);
  const BatchOutcome apart = Write(many, 110'000.0);
  ASSERT_EQ(apart.status, BatchStatus::kCommitted);
  EXPECT_EQ(many.connection->folds, 3);
  EXPECT_EQ(many.connection->scans, 0);
  // Too many for one batch: read back.
  Fixture huge = Open(2);
  const BatchOutcome read_back = Write(huge, 400'000.0);
  ASSERT_EQ(read_back.status, BatchStatus::kCommitted);
  EXPECT_EQ(huge.connection->folds, 0);
  EXPECT_EQ(huge.connection->scans, 3);
  // Every way, the same counts and checksums, key by key.
  ASSERT_EQ(scanned.stats.size(), 6u);
  EXPECT_GT(scanned.stats[0].row_count, 0);
  EXPECT_EQ(StatsOf(grouped), StatsOf(scanned));
  EXPECT_EQ(StatsOf(apart), StatsOf(scanned));
  EXPECT_EQ(StatsOf(read_back), StatsOf(scanned));
}

// Each key of a multi-key batch gets the count and checksum of its own rows: those it gets
// when it is a batch of its own (read back by its own scan), whichever way the batch takes its
// statistics; and the counts are the source's rows per day.
TEST(BatchWriterTest, EachKeyOfABatchHasTheCountAndChecksumOfItsOwnRows) {
  Fixture alone = Open(1);
  const BatchOutcome single = Write(alone, std::nullopt);
  ASSERT_EQ(single.status, BatchStatus::kCommitted) << single.error->message;
  ASSERT_EQ(single.stats.size(), 6u);
  for (int day = 0; day < 6; ++day) {
    auto count = alone.connection->Execute(
        "SELECT count(*) FROM raw.events WHERE t >= TIMESTAMP '2026-01-01' + to_days(" +
        std::to_string(day) + ") AND t < TIMESTAMP '2026-01-01' + to_days(" +
        std::to_string(day + 1) + ")");
    ASSERT_TRUE(count.ok());
    EXPECT_EQ(single.stats[day].row_count, std::get<std::int64_t>(count->columns[0].values[0]));
    for (int other = 0; other < day; ++other) {
      EXPECT_NE(single.stats[day].checksum, single.stats[other].checksum) << day << " " << other;
    }
  }
  for (const int batch_size : {2, 3, 6}) {
    for (const std::optional<double> rows_per_key :
         {std::optional<double>(), std::optional<double>(206.0), std::optional<double>(110'000.0),
          std::optional<double>(400'000.0)}) {
      Fixture batched = Open(batch_size);
      const BatchOutcome outcome = Write(batched, rows_per_key);
      ASSERT_EQ(outcome.status, BatchStatus::kCommitted);
      EXPECT_EQ(StatsOf(outcome), StatsOf(single))
          << "batches of " << batch_size << ", rows per key " << rows_per_key.value_or(-1);
    }
  }
}

std::int64_t CountRows(Fixture& f) {
  auto count = f.connection->Execute("SELECT count(*) FROM marts.fct");
  EXPECT_TRUE(count.ok());
  return count.ok() ? std::get<std::int64_t>(count->columns[0].values[0]) : -1;
}

TEST(BatchWriterTest, BeforeCommitRunsAfterTheInsertsAndItsErrorRollsTheTransactionBack) {
  const std::atomic<bool> cancel{false};
  // It runs inside the transaction, after every insert: the rows are there, not yet committed.
  Fixture ok = Open(2);
  std::int64_t rows_seen = -1;
  int calls = 0;
  const BatchOutcome committed =
      WriteTransaction(*ok.connection, ok.emitter, ok.pointers, kTarget, "t", 206.0, cancel, [&] {
        ++calls;
        rows_seen = CountRows(ok);
        return OkStatus();
      });
  ASSERT_EQ(committed.status, BatchStatus::kCommitted);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(rows_seen, CountRows(ok));
  EXPECT_GT(rows_seen, 0);
  // Its error is the outcome's, and nothing is committed.
  Fixture refused = Open(2);
  const BatchOutcome failed = WriteTransaction(
      *refused.connection, refused.emitter, refused.pointers, kTarget, "t", 206.0, cancel,
      [] { return Status(MakeError(ErrorCode::kStateStore, "the state store is full")); });
  EXPECT_EQ(failed.status, BatchStatus::kFailed);
  ASSERT_TRUE(failed.error.has_value());
  EXPECT_EQ(failed.error->code, ErrorCode::kStateStore);
  EXPECT_EQ(failed.error->message, "the state store is full");
  EXPECT_EQ(CountRows(refused), 0);
}

TEST(BatchWriterTest, TheOutputGuardHoldsWhetherStatisticsAreReturnedOrReadBack) {
  // Every batch's rows shifted by an hour: the last hour of each batch lands in the next window.
  for (const std::optional<double> rows_per_key :
       {std::optional<double>(), std::optional<double>(206.0), std::optional<double>(400'000.0)}) {
    for (const int batch_size : {1, 3}) {
      Fixture f = Open(batch_size, 1);
      const BatchOutcome outcome = Write(f, rows_per_key);
      EXPECT_EQ(outcome.status, BatchStatus::kFailed);
      ASSERT_TRUE(outcome.error.has_value());
      EXPECT_EQ(outcome.error->code, ErrorCode::kOutputOutsideWindow) << outcome.error->message;
      // A batch is named (which one first, when several fail in one grouped statement, is
      // DuckDB's thread order).
      EXPECT_TRUE(outcome.failed_batch.has_value());
    }
  }
}

// The fused insert of Open's model over `range`, counting its calls.
FusedInsert Fused(const warehouse::Emitter& emitter, int shift_hours, int& calls) {
  return [&emitter, shift_hours, &calls](const Window& range) -> Result<std::string> {
    ++calls;
    STRATA_ASSIGN_OR_RETURN(
        warehouse::PartitionOverwrite statements,
        emitter.Overwrite(kTarget, "t", range, SelectFor(emitter, range, shift_hours)));
    return statements.insert;
  };
}

TEST(BatchWriterTest, AFusedStatementWritesWhatEachBatchsOwnSelectWrites) {
  const std::atomic<bool> cancel{false};
  for (const int batch_size : {1, 2}) {
    Fixture grouped = Open(batch_size);
    const BatchOutcome each_own = Write(grouped, 206.0);
    ASSERT_EQ(each_own.status, BatchStatus::kCommitted);
    Fixture fused = Open(batch_size);
    int calls = 0;
    const BatchOutcome one_select =
        WriteTransaction(*fused.connection, fused.emitter, fused.pointers, kTarget, "t", 206.0,
                         cancel, {}, Fused(fused.emitter, 0, calls));
    ASSERT_EQ(one_select.status, BatchStatus::kCommitted) << one_select.error->message;
    // One SELECT over the six days, in the one grouped insert that returns the statistics.
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(fused.connection->folds, 1);
    ASSERT_EQ(one_select.stats.size(), 6u);
    EXPECT_EQ(StatsOf(one_select), StatsOf(each_own));
    EXPECT_EQ(CountRows(fused), CountRows(grouped));
  }
  // Written apart (statistics read back: not grouped), nothing is fused.
  Fixture apart = Open(1);
  int calls = 0;
  const BatchOutcome read_back =
      WriteTransaction(*apart.connection, apart.emitter, apart.pointers, kTarget, "t", std::nullopt,
                       cancel, {}, Fused(apart.emitter, 0, calls));
  ASSERT_EQ(read_back.status, BatchStatus::kCommitted);
  EXPECT_EQ(calls, 0);
}

TEST(BatchWriterTest, AFusedStatementsFailureIsNoOneBatchs) {
  const std::atomic<bool> cancel{false};
  // Rows shifted out of the range: the guard fails for the range, and no batch is named, so the
  // transaction is split in halves and each batch alone runs its own SELECT.
  Fixture shifted = Open(1, 1);
  int calls = 0;
  const BatchOutcome guarded =
      WriteTransaction(*shifted.connection, shifted.emitter, shifted.pointers, kTarget, "t", 206.0,
                       cancel, {}, Fused(shifted.emitter, 1, calls));
  EXPECT_EQ(guarded.status, BatchStatus::kFailed);
  ASSERT_TRUE(guarded.error.has_value());
  EXPECT_EQ(guarded.error->code, ErrorCode::kOutputOutsideWindow) << guarded.error->message;
  EXPECT_NE(guarded.error->message.find("2026-01-07 00:00:00"), std::string::npos)
      << guarded.error->message;
  EXPECT_FALSE(guarded.failed_batch.has_value());
  EXPECT_EQ(CountRows(shifted), 0);
  // The fused SELECT cannot be compiled: that error, nothing written.
  Fixture refused = Open(1);
  const BatchOutcome failed =
      WriteTransaction(*refused.connection, refused.emitter, refused.pointers, kTarget, "t", 206.0,
                       cancel, {}, [](const Window&) -> Result<std::string> {
                         return MakeError(ErrorCode::kCompile, "no SQL for the range");
                       });
  EXPECT_EQ(failed.status, BatchStatus::kFailed);
  ASSERT_TRUE(failed.error.has_value());
  EXPECT_EQ(failed.error->message, "no SQL for the range");
  EXPECT_FALSE(failed.failed_batch.has_value());
  EXPECT_EQ(CountRows(refused), 0);
}

}  // namespace
}  // namespace strata::materialize
