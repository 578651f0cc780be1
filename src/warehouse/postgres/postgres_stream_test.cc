// Connection::ExecuteStreamed on PostgreSQL (single-row mode): bounded batches (instrumented, not
// timed), the same cells as Execute, and the ways a stream stops. Runs in postgres_warehouse_test,
// against its server.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "warehouse/postgres/postgres_warehouse.h"
#include "warehouse/postgres/testing/pg_test_server.h"

namespace strata::warehouse {
namespace {

using TestServer = testing::PgTestServerState;

class PostgresStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const TestServer& server = testing::PgTestServer();
    if (server.state == TestServer::State::kNoBinaries) {
      GTEST_SKIP() << "PostgreSQL server binaries are not installed";
    }
    ASSERT_EQ(server.state, TestServer::State::kRunning) << server.failure;
    auto opened = OpenPostgres({server.dsn, std::nullopt});
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    warehouse_ = std::move(opened).value();
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok()) << connection.error().ToString();
    connection_ = std::move(connection).value();
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

// One row per distinct value, as a count_distinct_approx sketch query: far more rows than a
// batch, handed over kMaxStreamBatchRows at a time.
TEST_F(PostgresStreamTest, BatchesNeverExceedTheBatchSize) {
  constexpr std::int64_t kRows = 100000;
  auto streamed = Streamed("SELECT v % 7 AS g, v FROM generate_series(1, " + std::to_string(kRows) +
                           ") AS v GROUP BY 1, 2");
  ASSERT_TRUE(streamed.ok()) << streamed.error().ToString();
  ASSERT_EQ(streamed->row_count(), static_cast<std::size_t>(kRows));
  EXPECT_GT(batches_, 1u);
  EXPECT_EQ(largest_batch_, kMaxStreamBatchRows);
  std::int64_t sum = 0;
  for (const Value& value : streamed->columns[1].values) sum += std::get<std::int64_t>(value);
  EXPECT_EQ(sum, kRows * (kRows + 1) / 2);
}

TEST_F(PostgresStreamTest, CellsAreExecutes) {
  const std::string sql =
      "SELECT * FROM (VALUES (true, 1::int2, 2::int8, 1.5::float8, 'text', DATE '2026-01-10', "
      "TIMESTAMP '2026-01-10 08:00:00.25', 12.30::numeric(12,2)), (NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL)) AS t(b, i2, i8, f8, s, d, ts, n)";
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

// A billion rows from a set-returning function in the select list (which streams, where one in
// FROM is materialized first): only the cancel ends it within ctest's timeout.
TEST_F(PostgresStreamTest, InterruptStopsTheStatementAndTheConnectionRunsOn) {
  std::size_t batches = 0;
  const Status status = connection_->ExecuteStreamed("SELECT generate_series(1, 1000000000) AS v",
                                                     [&](const QueryResult&) {
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

TEST_F(PostgresStreamTest, SinkAndServerErrorsStopIt) {
  std::size_t batches = 0;
  const Status stopped = connection_->ExecuteStreamed(
      "SELECT generate_series(1, 1000000000) AS v", [&](const QueryResult&) {
        ++batches;
        return Status(MakeError(ErrorCode::kQueryInvalid, "enough"));
      });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, ErrorCode::kQueryInvalid);
  EXPECT_EQ(batches, 1u);
  EXPECT_TRUE(connection_->Execute("SELECT 1").ok());
  // Division by zero after some rows were sent: the server's error, after the batches before it.
  const Status failed =
      connection_->ExecuteStreamed("SELECT 1 / (v - 50000) FROM generate_series(1, 100000) AS v",
                                   [](const QueryResult&) { return OkStatus(); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kWarehouse) << failed.error().ToString();
  EXPECT_TRUE(connection_->Execute("SELECT 1").ok());
  EXPECT_TRUE(Streamed("SELECT 1 WHERE false").ok());
  EXPECT_EQ(batches_, 0u);
}

}  // namespace
}  // namespace strata::warehouse
