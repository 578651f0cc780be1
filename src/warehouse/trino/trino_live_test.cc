// The Trino adapter against a real Trino 476 coordinator (scripts/trino_test_server.sh), whose URL
// is in STRATA_TRINO_URL. Not a ctest test: tests/trino/ runs it once the session's server is up,
// after ctest (scripts/test.sh). Fails, never skips, without the variable.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "warehouse/trino/trino_warehouse.h"

namespace strata::warehouse::trino {
namespace {

ClientSettings LiveSettings(const std::string& catalog) {
  const char* url = std::getenv("STRATA_TRINO_URL");
  if (url == nullptr) throw std::runtime_error("STRATA_TRINO_URL is not set");
  ClientSettings settings;
  settings.url = url;
  settings.user = "strata";
  settings.catalog = catalog;
  return settings;
}

// A schema of its own per test, in `catalog`.
class TrinoLiveTest : public ::testing::Test {
 protected:
  void Use(const std::string& catalog) {
    schema_ = "live_" + std::to_string(std::random_device{}() % 1000000000);
    ClientSettings settings = LiveSettings(catalog);
    settings.schema = schema_;
    connection_ = std::make_unique<TrinoConnection>(settings);
    Run("CREATE SCHEMA " + catalog + "." + schema_);
  }
  QueryResult Run(const std::string& sql) {
    auto result = connection_->Execute(sql);
    if (!result.ok()) ADD_FAILURE() << sql << ": " << result.error().ToString();
    return result.ok() ? std::move(result).value() : QueryResult{};
  }
  std::int64_t Count(const std::string& table) {
    QueryResult result = Run("SELECT count(*) FROM " + table);
    return result.row_count() == 1 ? std::get<std::int64_t>(result.columns[0].values[0]) : -1;
  }
  std::string schema_;
  std::unique_ptr<TrinoConnection> connection_;
};

TEST_F(TrinoLiveTest, ValuesOfEveryTypeComeBackInTheAdaptersForms) {
  Use("iceberg");
  Run("CREATE TABLE t (b boolean, i bigint, d double, m decimal(12, 3), s varchar, dt date, "
      "ts timestamp(6), tz timestamp(6) with time zone)");
  Run("INSERT INTO t VALUES (true, 9007199254740993, 0.25, DECIMAL '-12.500', 'it''s', "
      "DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59.250000', "
      "TIMESTAMP '2024-02-29 23:59:59.000001 UTC'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL)");
  QueryResult result = Run("SELECT * FROM t ORDER BY i NULLS LAST");
  ASSERT_EQ(result.row_count(), 2U);
  std::vector<Value> first;
  for (const auto& column : result.columns) first.push_back(column.values[0]);
  EXPECT_EQ(first,
            (std::vector<Value>{true, std::int64_t{9007199254740993}, 0.25, std::string("-12.500"),
                                std::string("it's"), std::string("2024-02-29"),
                                std::string("2024-02-29 23:59:59.25"),
                                std::string("2024-02-29 23:59:59.000001+00")}));
  for (const auto& column : result.columns) {
    EXPECT_EQ(column.values[1], Value(std::monostate{})) << column.column.name;
  }
  auto described = connection_->DescribeTable({"", "", "t"});
  ASSERT_TRUE(described.ok()) << described.error().ToString();
  std::vector<ColumnType> types;
  for (const auto& column : *described) types.push_back(column.type);
  EXPECT_EQ(types, (std::vector<ColumnType>{ColumnType::kBoolean, ColumnType::kInteger,
                                            ColumnType::kDouble, ColumnType::kDecimal,
                                            ColumnType::kString, ColumnType::kDate,
                                            ColumnType::kTimestamp, ColumnType::kTimestamp}));
  EXPECT_EQ((*described)[7].type_name, "timestamp(6) with time zone");
}

TEST_F(TrinoLiveTest, TableExistsAndMissingTablesAreCatalogErrors) {
  Use("iceberg");
  Run("CREATE TABLE present (x bigint)");
  EXPECT_TRUE(*connection_->TableExists({"", "", "present"}));
  EXPECT_TRUE(*connection_->TableExists({"iceberg", schema_, "PRESENT"}));
  EXPECT_FALSE(*connection_->TableExists({"", "", "absent"}));
  auto missing = connection_->DescribeTable({"", "", "absent"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kWarehouseCatalog);
  auto query = connection_->Execute("SELECT * FROM absent");
  ASSERT_FALSE(query.ok());
  EXPECT_EQ(query.error().code, ErrorCode::kWarehouseCatalog);
}

TEST_F(TrinoLiveTest, ASyntaxErrorIsCodedWithItsLineAndColumn) {
  Use("memory");
  auto result = connection_->Execute("SELECT 1,\n  2 FROM FROM x");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseSyntax);
  ASSERT_TRUE(result.error().span.has_value());
  EXPECT_EQ(result.error().span->line, 2);
  EXPECT_EQ(result.error().span->column, 10);
  EXPECT_NE(result.error().message.find("SYNTAX_ERROR"), std::string::npos);
}

TEST_F(TrinoLiveTest, AHiveTransactionCommitsOrRollsBackAsAWhole) {
  Use("hive");
  Run("CREATE TABLE events (x bigint, day date) WITH (partitioned_by = ARRAY['day'])");
  Run("INSERT INTO events VALUES (1, DATE '2024-01-01'), (2, DATE '2024-01-02')");
  Run("START TRANSACTION");
  EXPECT_TRUE(connection_->client().in_transaction());
  Run("DELETE FROM events WHERE day = DATE '2024-01-01'");
  Run("INSERT INTO events VALUES (10, DATE '2024-01-01'), (11, DATE '2024-01-01')");
  Run("ROLLBACK");
  EXPECT_FALSE(connection_->client().in_transaction());
  EXPECT_EQ(Count("events"), 2);
  Run("START TRANSACTION");
  Run("DELETE FROM events WHERE day = DATE '2024-01-01'");
  Run("INSERT INTO events VALUES (10, DATE '2024-01-01'), (11, DATE '2024-01-01')");
  Run("COMMIT");
  EXPECT_EQ(Count("events"), 3);
}

TEST_F(TrinoLiveTest, IcebergRefusesWritesInsideAnExplicitTransaction) {
  Use("iceberg");
  Run("CREATE TABLE t (x bigint)");
  Run("START TRANSACTION");
  auto write = connection_->Execute("INSERT INTO t VALUES (1)");
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.error().code, ErrorCode::kWarehouseUnsupported) << write.error().ToString();
  EXPECT_NE(write.error().message.find("AUTOCOMMIT_WRITE_CONFLICT"), std::string::npos);
  (void)connection_->Execute("ROLLBACK");
  EXPECT_EQ(Count("t"), 0);
}

TEST_F(TrinoLiveTest, AStreamedResultComesInBoundedBatchesInOrder) {
  Use("memory");
  std::size_t rows = 0;
  std::size_t largest = 0;
  std::int64_t expected = 1;
  bool in_order = true;
  Status status = connection_->ExecuteStreamed(
      "SELECT a * 10000 + b AS x FROM UNNEST(sequence(0, 1)) AS s(a) CROSS JOIN "
      "UNNEST(sequence(1, 10000)) AS t(b) ORDER BY x",
      [&](const QueryResult& batch) {
        largest = std::max(largest, batch.row_count());
        for (const auto& value : batch.columns[0].values) {
          in_order = in_order && std::get<std::int64_t>(value) == expected++;
        }
        rows += batch.row_count();
        return OkStatus();
      });
  ASSERT_TRUE(status.ok()) << status.error().ToString();
  EXPECT_EQ(rows, 20000U);
  EXPECT_LE(largest, kMaxStreamBatchRows);
  EXPECT_TRUE(in_order);
}

TEST_F(TrinoLiveTest, InterruptCancelsTheQueryOnTheCoordinator) {
  Use("memory");
  std::thread interrupter([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    connection_->Interrupt();
  });
  auto started = std::chrono::steady_clock::now();
  auto result = connection_->Execute(
      "SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x) CROSS JOIN UNNEST(sequence(1, 10000)) "
      "b(y) CROSS JOIN UNNEST(sequence(1, 1000)) c(z) WHERE x * y + z = 7");
  interrupter.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseInterrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  // The coordinator ends it too: no query of this text is still running.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  QueryResult running =
      Run("SELECT count(*) FROM system.runtime.queries WHERE state IN ('QUEUED', 'PLANNING', "
          "'STARTING', 'RUNNING') AND query LIKE '%x * y + z = 7%' AND query NOT LIKE '%runtime%'");
  EXPECT_EQ(running.columns.at(0).values.at(0), Value(std::int64_t{0}));
}

TEST_F(TrinoLiveTest, SessionPropertiesAreSentWithEveryQuery) {
  ClientSettings settings = LiveSettings("memory");
  settings.session["query_max_run_time"] = "1h";
  TrinoConnection connection(settings);
  auto result = connection.Execute("SHOW SESSION LIKE 'query_max_run_time'");
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  ASSERT_EQ(result->row_count(), 1U);
  EXPECT_EQ(result->columns[1].values[0], Value(std::string("1h")));
}

}  // namespace
}  // namespace strata::warehouse::trino
