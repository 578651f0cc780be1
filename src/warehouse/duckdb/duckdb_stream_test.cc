// Connection::ExecuteStreamed on DuckDB: bounded batches (instrumented, not timed), the same cells
// as Execute, and the ways a stream stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::warehouse {
namespace {

class DuckDbStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto warehouse = OpenDuckDb(":memory:");
    ASSERT_TRUE(warehouse.ok()) << warehouse.error().ToString();
    warehouse_ = std::move(*warehouse);
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok()) << connection.error().ToString();
    connection_ = std::move(*connection);
  }

  // Every batch of `sql` appended into one result; records the largest batch.
  Result<QueryResult> Streamed(std::string_view sql) {
    QueryResult all;
    STRATA_TRY(connection_->ExecuteStreamed(sql, [&](const QueryResult& batch) {
      largest_batch_ = std::max(largest_batch_, batch.row_count());
      ++batches_;
      if (all.columns.empty()) all.columns.resize(batch.columns.size());
      for (std::size_t c = 0; c < batch.columns.size(); ++c) {
        all.columns[c].column = batch.columns[c].column;
        all.columns[c].values.insert(all.columns[c].values.end(), batch.columns[c].values.begin(),
                                     batch.columns[c].values.end());
      }
      return OkStatus();
    }));
    return all;
  }

  std::unique_ptr<Warehouse> warehouse_;
  std::unique_ptr<Connection> connection_;
  std::size_t largest_batch_ = 0;
  std::size_t batches_ = 0;
};

// A grouped query with one row per distinct value, as a count_distinct_approx sketch query:
// far more rows than a batch, handed over a chunk at a time.
TEST_F(DuckDbStreamTest, BatchesNeverExceedAChunk) {
  constexpr std::int64_t kRows = 300000;
  auto streamed = Streamed("SELECT i % 7 AS g, i AS v FROM range(" + std::to_string(kRows) +
                           ") t(i) GROUP BY 1, 2");
  ASSERT_TRUE(streamed.ok()) << streamed.error().ToString();
  ASSERT_EQ(streamed->row_count(), static_cast<std::size_t>(kRows));
  EXPECT_GT(batches_, 1u);
  EXPECT_GT(largest_batch_, 0u);
  EXPECT_LE(largest_batch_, kMaxStreamBatchRows);
  std::int64_t sum = 0;
  for (const Value& value : streamed->columns[1].values) sum += std::get<std::int64_t>(value);
  EXPECT_EQ(sum, kRows * (kRows - 1) / 2);
}

// The cells are Execute's, type by type: read from the vectors, or cast to text by DuckDB.
// (Types DuckDB's value API cannot read, ENUM and nested ones, are empty text from Execute and
// DuckDB's text here; see duckdb_stream.h.)
TEST_F(DuckDbStreamTest, CellsAreExecutes) {
  const std::string sql =
      "SELECT * FROM (VALUES "
      "(true, 1::TINYINT, -2::SMALLINT, 3::INTEGER, -4::BIGINT, 5::UTINYINT, 18446744073709551615"
      "::UBIGINT, 1.5::FLOAT, 0.1::DOUBLE, 'text', DATE '2026-01-10', TIMESTAMP '2026-01-10 "
      "08:00:00.25', TIMESTAMPTZ '2026-01-10 08:00:00.5+00', 12.30::DECIMAL(12,2), "
      "170141183460469231731687303715884105727::HUGEINT, INTERVAL 1 DAY), "
      "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL)) AS t(b, i1, i2, i4, i8, u1, u8, f4, f8, s, d, ts, tz, dec, huge, iv)";
  auto executed = connection_->Execute(sql);
  ASSERT_TRUE(executed.ok()) << executed.error().ToString();
  auto streamed = Streamed(sql);
  ASSERT_TRUE(streamed.ok()) << streamed.error().ToString();
  ASSERT_EQ(streamed->columns.size(), executed->columns.size());
  for (std::size_t c = 0; c < executed->columns.size(); ++c) {
    SCOPED_TRACE(executed->columns[c].column.name);
    EXPECT_EQ(streamed->columns[c].column.name, executed->columns[c].column.name);
    EXPECT_EQ(streamed->columns[c].column.type, executed->columns[c].column.type);
    EXPECT_EQ(streamed->columns[c].values, executed->columns[c].values);
  }
}

TEST_F(DuckDbStreamTest, InterruptStopsBetweenBatchesAndTheConnectionRunsOn) {
  std::size_t batches = 0;
  const Status status =
      connection_->ExecuteStreamed("SELECT i FROM range(100000000) t(i)", [&](const QueryResult&) {
        if (++batches == 1) connection_->Interrupt();
        return OkStatus();
      });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kWarehouseInterrupted) << status.error().ToString();
  EXPECT_EQ(batches, 1u);
  auto next = connection_->Execute("SELECT 42");
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  EXPECT_EQ(std::get<std::int64_t>(next->columns[0].values[0]), 42);
}

TEST_F(DuckDbStreamTest, SinkErrorStopsAndStatementErrorsAreCoded) {
  std::size_t batches = 0;
  const Status stopped =
      connection_->ExecuteStreamed("SELECT i FROM range(100000000) t(i)", [&](const QueryResult&) {
        ++batches;
        return Status(MakeError(ErrorCode::kQueryInvalid, "enough"));
      });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, ErrorCode::kQueryInvalid);
  EXPECT_EQ(batches, 1u);
  const Status missing = connection_->ExecuteStreamed(
      "SELECT * FROM no_such_table", [](const QueryResult&) { return OkStatus(); });
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kWarehouseCatalog) << missing.error().ToString();
  EXPECT_TRUE(connection_->Execute("SELECT 1").ok());
  // A statement with no rows hands nothing over.
  EXPECT_TRUE(Streamed("SELECT 1 WHERE false").ok());
  EXPECT_EQ(batches_, 0u);
}

}  // namespace
}  // namespace strata::warehouse
