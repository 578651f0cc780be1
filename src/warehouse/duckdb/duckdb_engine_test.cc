#include "warehouse/duckdb/duckdb_engine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::warehouse {
namespace {

class DuckDbEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.threads = 2;
    options.memory_limit = "1GB";
    auto engine = OpenDuckDbEngine(options);
    ASSERT_TRUE(engine.ok()) << engine.error().message;
    engine_ = std::move(engine).value();
    auto connection = engine_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(connection).value();
  }

  QueryResult Exec(std::string_view sql) {
    Result<QueryResult> result = connection_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << (result.ok() ? "" : result.error().message);
    return result.ok() ? std::move(result).value() : QueryResult{};
  }
  std::int64_t Count(std::string_view table) {
    QueryResult result = Exec("SELECT count(*) FROM " + std::string(table));
    return result.row_count() == 1 ? std::get<std::int64_t>(result.columns[0].values[0]) : -1;
  }

  std::unique_ptr<Warehouse> engine_;
  std::unique_ptr<Connection> connection_;
};

QueryResult Rows(std::vector<std::vector<Value>> columns) {
  QueryResult rows;
  for (std::vector<Value>& values : columns) {
    ResultColumn column;
    column.values = std::move(values);
    rows.columns.push_back(std::move(column));
  }
  return rows;
}

// Every Value alternative, into columns of every type a warehouse result carries; read back
// through the engine as the same values.
TEST_F(DuckDbEngineTest, AppendRowsRoundTripsEveryType) {
  Exec(
      "CREATE TABLE t (b BOOLEAN, i BIGINT, small INTEGER, u UBIGINT, x DOUBLE, s VARCHAR, "
      "d DATE, ts TIMESTAMP, tz TIMESTAMPTZ, amount DECIMAL(18, 3), whole DOUBLE)");
  const std::string long_text(300, 'x');
  QueryResult rows = Rows({
      {true, false, std::monostate{}},
      {std::int64_t{-9223372036854775807 - 1}, std::int64_t{42}, std::monostate{}},
      {std::int64_t{-7}, std::int64_t{2147483647}, std::monostate{}},
      {std::uint64_t{18446744073709551615u}, std::uint64_t{0}, std::monostate{}},
      {-0.1, 1e300, std::monostate{}},
      {std::string("it's"), long_text, std::monostate{}},
      {std::string("2026-04-07"), std::string("1970-01-01"), std::monostate{}},
      {std::string("2026-04-07 13:00:00"), std::string("2026-04-07 13:00:00.123456"),
       std::monostate{}},
      {std::string("2026-04-07 13:00:00+00"), std::string("2026-04-07 15:00:00+02"),
       std::monostate{}},
      {std::string("1234567.891"), std::string("-0.001"), std::monostate{}},
      {std::int64_t{3}, std::string("2.5"), std::monostate{}},
  });
  Status status = AppendRows(*connection_, "t", rows);
  ASSERT_TRUE(status.ok()) << status.error().message;
  // TIMESTAMPTZ as text: ReadDuckDbResult does not read TIMESTAMPTZ cells (duckdb_value_varchar
  // gives NULL for them).
  QueryResult back = Exec("SELECT * REPLACE (tz::VARCHAR AS tz) FROM t ORDER BY i NULLS LAST");
  ASSERT_EQ(back.row_count(), 3u);
  const std::vector<std::vector<std::string>> expected = {
      {"true", "-9223372036854775808", "-7", "18446744073709551615", "-0.1", "it's", "2026-04-07",
       "2026-04-07 13:00:00", "2026-04-07 13:00:00+00", "1234567.891", "3"},
      {"false", "42", "2147483647", "0", "1e+300", long_text, "1970-01-01",
       "2026-04-07 13:00:00.123456", "2026-04-07 13:00:00+00", "-0.001", "2.5"},  // +02 offset
  };
  for (std::size_t row = 0; row < 2; ++row) {
    for (std::size_t column = 0; column < back.columns.size(); ++column) {
      EXPECT_EQ(ValueToString(back.columns[column].values[row]), expected[row][column])
          << "row " << row << " column " << back.columns[column].column.name;
    }
  }
  for (const ResultColumn& column : back.columns) {
    EXPECT_TRUE(std::holds_alternative<std::monostate>(column.values[2])) << column.column.name;
  }
  EXPECT_EQ(std::get<double>(back.columns[4].values[0]), -0.1);  // doubles exactly
}

TEST_F(DuckDbEngineTest, AppendRowsIntoASchemaAndManyRows) {
  Exec("CREATE SCHEMA staging");
  Exec("CREATE TABLE staging.big (n BIGINT, s VARCHAR)");
  QueryResult rows = Rows({{}, {}});
  for (std::int64_t i = 0; i < 500000; ++i) {
    rows.columns[0].values.emplace_back(i);
    rows.columns[1].values.emplace_back("s" + std::to_string(i % 1000));
  }
  ASSERT_TRUE(AppendRows(*connection_, "staging.big", rows).ok());
  EXPECT_EQ(Count("staging.big"), 500000);
  QueryResult sum = Exec("SELECT sum(n), count(DISTINCT s) FROM staging.big");
  EXPECT_EQ(std::get<std::string>(sum.columns[0].values[0]), "124999750000");
  EXPECT_EQ(std::get<std::int64_t>(sum.columns[1].values[0]), 1000);
}

TEST_F(DuckDbEngineTest, AppendRowsErrorsNameTheTableAndKeepNothing) {
  auto missing = AppendRows(*connection_, "nope", Rows({{std::int64_t{1}}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kWarehouseCatalog);
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);

  Exec("CREATE TABLE t (n BIGINT, d DATE)");
  auto columns = AppendRows(*connection_, "t", Rows({{std::int64_t{1}}}));
  ASSERT_FALSE(columns.ok());
  EXPECT_EQ(columns.error().code, ErrorCode::kWarehouse);
  EXPECT_NE(columns.error().message.find('t'), std::string::npos);

  // A bad cell after many good rows (past the appender's first flush): nothing is kept.
  QueryResult rows = Rows({{}, {}});
  for (std::int64_t i = 0; i < 300000; ++i) {
    rows.columns[0].values.emplace_back(i);
    rows.columns[1].values.emplace_back(std::string("2026-01-01"));
  }
  rows.columns[0].values.emplace_back(std::int64_t{-1});
  rows.columns[1].values.emplace_back(std::string("not a date"));
  auto bad = AppendRows(*connection_, "t", rows);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kWarehouse);
  EXPECT_NE(bad.error().message.find("not a date"), std::string::npos) << bad.error().message;
  EXPECT_EQ(Count("t"), 0);
  // The connection is still usable, with and without an open transaction.
  ASSERT_TRUE(
      AppendRows(*connection_, "t", Rows({{std::int64_t{1}}, {std::string("2026-01-02")}})).ok());
  EXPECT_EQ(Count("t"), 1);
  Exec("BEGIN TRANSACTION");
  ASSERT_TRUE(
      AppendRows(*connection_, "t", Rows({{std::int64_t{2}}, {std::string("2026-01-03")}})).ok());
  EXPECT_EQ(Count("t"), 2);
  Exec("ROLLBACK");
  EXPECT_EQ(Count("t"), 1);
}

// AppendRows works on any DuckDB connection of this adapter, and refuses others' connections.
TEST_F(DuckDbEngineTest, AppendRowsOnAFileDatabaseAndOnAnotherAdapter) {
  auto plain = OpenDuckDb(":memory:");
  ASSERT_TRUE(plain.ok());
  auto connection = (*plain)->Connect();
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE((*connection)->Execute("CREATE TABLE t (n BIGINT)").ok());
  EXPECT_TRUE(AppendRows(**connection, "t", Rows({{std::int64_t{1}}})).ok());

  class Other final : public Connection {
   public:
    Result<QueryResult> Execute(std::string_view) override { return QueryResult{}; }
    void Interrupt() override {}
    Result<bool> TableExists(const TableName&) override { return false; }
    Result<std::vector<Column>> DescribeTable(const TableName&) override {
      return std::vector<Column>{};
    }
    Result<std::vector<std::string>> UserFunctionNames() override {
      return std::vector<std::string>{};
    }
  } other;
  auto refused = AppendRows(other, "t", Rows({{std::int64_t{1}}}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kWarehouseUnsupported);
}

TEST(DuckDbEngineOptionsTest, BadOptionsAreConnectionErrors) {
  EngineOptions options;
  options.memory_limit = "lots";
  auto engine = OpenDuckDbEngine(options);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.error().code, ErrorCode::kWarehouseConnection);
}

TEST(DuckDbEngineOptionsTest, TheParquetMetadataCacheIsOffUnlessAsked) {
  for (const bool cached : {false, true}) {
    EngineOptions options;
    options.parquet_metadata_cache = cached;
    auto engine = OpenDuckDbEngine(options);
    ASSERT_TRUE(engine.ok()) << engine.error().message;
    auto connection = (*engine)->Connect();
    ASSERT_TRUE(connection.ok());
    auto setting =
        (*connection)->Execute("SELECT CAST(current_setting('parquet_metadata_cache') AS VARCHAR)");
    ASSERT_TRUE(setting.ok()) << setting.error().message;
    EXPECT_EQ(std::get<std::string>(setting->columns[0].values[0]), cached ? "true" : "false");
  }
}

// A Parquet file that cannot be read (a rollup file deleted or damaged under a running server)
// fails its statement only: the in-memory engine has no write-ahead log to protect, so it is
// not poisoned as a file database is after a storage failure, and the next statement, on this
// connection or another, runs.
TEST_F(DuckDbEngineTest, AnUnreadableFileFailsOneStatementAndNotTheEngine) {
  const std::string missing =
      (std::filesystem::temp_directory_path() / "strata-no-such-rollup-file.parquet").string();
  auto failed = connection_->Execute("SELECT count(*) FROM read_parquet('" + missing + "')");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kWarehouseStorage) << failed.error().message;
  EXPECT_EQ(Count("(SELECT 1) AS t"), 1);
  auto other = engine_->Connect();
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_TRUE((*other)->Execute("SELECT 1").ok());
}

}  // namespace
}  // namespace strata::warehouse
