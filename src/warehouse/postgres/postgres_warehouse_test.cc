// Runs against a real PostgreSQL server started by scripts/pg_test_server.sh for this process.
// The tests skip only when the server binaries are not installed; a server that is installed but
// does not start fails them.
#include "warehouse/postgres/postgres_warehouse.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <future>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "base/value_counts.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/emitter.h"
#include "warehouse/postgres/testing/pg_test_server.h"

namespace strata::warehouse {
namespace {

using testing::PgTestEnvironment;
using testing::PgTestServerState;
using TestServer = PgTestServerState;
inline PgTestServerState& Server() { return testing::PgTestServer(); }

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new PgTestEnvironment);

class PostgresWarehouseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const TestServer& server = Server();
    if (server.state == TestServer::State::kNoBinaries) {
      GTEST_SKIP() << "PostgreSQL server binaries are not installed";
    }
    ASSERT_EQ(server.state, TestServer::State::kRunning) << server.failure;
    auto opened = OpenPostgres({server.dsn, std::nullopt});
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    warehouse_ = std::move(opened).value();
    connection_ = Connect();
    // Each test gets its own schema so the tests stay independent.
    schema_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::transform(schema_.begin(), schema_.end(), schema_.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    Exec("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    Exec("CREATE SCHEMA " + schema_);
    Exec("SET search_path TO " + schema_);
  }

  std::unique_ptr<Connection> Connect() {
    auto connection = warehouse_->Connect();
    EXPECT_TRUE(connection.ok()) << connection.error().ToString();
    return connection.ok() ? std::move(connection).value() : nullptr;
  }

  QueryResult Exec(std::string_view sql, Connection* on = nullptr) {
    Result<QueryResult> result = (on != nullptr ? on : connection_.get())->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << (result.ok() ? "" : result.error().ToString());
    return result.ok() ? std::move(result).value() : QueryResult{};
  }

  std::string Scalar(std::string_view sql, Connection* on = nullptr) {
    QueryResult result = Exec(sql, on);
    if (result.row_count() != 1) return "<no row>";
    return ValueToString(result.columns[0].values[0]);
  }

  std::unique_ptr<Warehouse> warehouse_;
  std::unique_ptr<Connection> connection_;
  std::string schema_;
};

TEST_F(PostgresWarehouseTest, ReturnsTypedColumnsAndRowCounts) {
  Exec(
      "CREATE TABLE t (b boolean, i2 smallint, i4 integer, i8 bigint, f4 real, f8 double "
      "precision, n numeric(12, 2), s text, v varchar(10), d date, ts timestamp, tz timestamptz)");
  QueryResult insert = Exec(
      "INSERT INTO t VALUES (true, 2, 4, 9007199254740993, 1.5, 0.1, 12345678.90, 'it''s', 'v', "
      "DATE '2026-04-07', TIMESTAMP '2026-04-07 13:00:00', TIMESTAMPTZ '2026-04-07 15:00:00+02'), "
      "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
  EXPECT_EQ(insert.rows_changed, 2);
  QueryResult rows = Exec("SELECT * FROM t ORDER BY i8 NULLS LAST");
  ASSERT_EQ(rows.columns.size(), 12u);
  ASSERT_EQ(rows.row_count(), 2u);
  const auto value = [&](std::size_t column) { return rows.columns[column].values[0]; };
  const auto type = [&](std::size_t column) { return rows.columns[column].column.type; };
  EXPECT_EQ(type(0), ColumnType::kBoolean);
  EXPECT_EQ(std::get<bool>(value(0)), true);
  for (std::size_t column : {1u, 2u, 3u}) EXPECT_EQ(type(column), ColumnType::kInteger);
  EXPECT_EQ(std::get<std::int64_t>(value(1)), 2);
  EXPECT_EQ(std::get<std::int64_t>(value(2)), 4);
  EXPECT_EQ(std::get<std::int64_t>(value(3)), 9007199254740993);
  EXPECT_EQ(type(4), ColumnType::kDouble);
  EXPECT_EQ(std::get<double>(value(4)), 1.5);
  EXPECT_EQ(std::get<double>(value(5)), 0.1);
  EXPECT_EQ(type(6), ColumnType::kDecimal);
  EXPECT_EQ(std::get<std::string>(value(6)), "12345678.90");
  EXPECT_EQ(type(7), ColumnType::kString);
  EXPECT_EQ(std::get<std::string>(value(7)), "it's");
  EXPECT_EQ(type(8), ColumnType::kString);
  EXPECT_EQ(type(9), ColumnType::kDate);
  EXPECT_EQ(std::get<std::string>(value(9)), "2026-04-07");
  EXPECT_EQ(type(10), ColumnType::kTimestamp);
  EXPECT_EQ(std::get<std::string>(value(10)), "2026-04-07 13:00:00");
  EXPECT_EQ(type(11), ColumnType::kTimestamp);
  EXPECT_EQ(std::get<std::string>(value(11)), "2026-04-07 13:00:00+00");  // UTC session
  EXPECT_EQ(rows.columns[6].column.type_name, "numeric");
  for (const ResultColumn& column : rows.columns) {
    EXPECT_TRUE(std::holds_alternative<std::monostate>(column.values[1])) << column.column.name;
  }
  EXPECT_EQ(Exec("UPDATE t SET i4 = 5").rows_changed, 2);
  EXPECT_EQ(Exec("DELETE FROM t WHERE i4 = 5 AND b").rows_changed, 1);
  EXPECT_EQ(Exec("CREATE TABLE u (x int)").rows_changed, 0);
  EXPECT_EQ(Exec("SELECT 'NaN'::float8, 'Infinity'::float8").columns.size(), 2u);
}

TEST_F(PostgresWarehouseTest, SessionsAreUtc) {
  EXPECT_EQ(Scalar("SHOW TimeZone"), "UTC");
  EXPECT_EQ(Scalar("SELECT CAST(TIMESTAMPTZ '2026-04-07 00:30:00+05' AS date)"), "2026-04-06");
  // The emitter's window literal works for date and timestamp columns alike.
  Exec("CREATE TABLE w (d date, ts timestamp, tz timestamptz)");
  Exec("INSERT INTO w VALUES ('2026-04-07', '2026-04-07 23:59:59', '2026-04-07 23:59:59+00')");
  EXPECT_EQ(Scalar("SELECT count(*) FROM w WHERE d >= '2026-04-07 00:00:00' AND "
                   "d < '2026-04-08 00:00:00' AND ts >= '2026-04-07 00:00:00' AND "
                   "ts < '2026-04-08 00:00:00' AND tz >= '2026-04-07 00:00:00' AND "
                   "tz < '2026-04-08 00:00:00'"),
            "1");
  // A pooled session keeps the setting: take the same session again.
  connection_.reset();
  auto again = Connect();
  EXPECT_EQ(Scalar("SHOW TimeZone", again.get()), "UTC");
}

TEST_F(PostgresWarehouseTest, MapsSqlStatesToCodes) {
  auto syntax = connection_->Execute("SELEC 1");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().code, ErrorCode::kWarehouseSyntax);
  EXPECT_NE(syntax.error().message.find("42601"), std::string::npos) << syntax.error().message;
  EXPECT_NE(syntax.error().message.find("syntax error"), std::string::npos);
  for (const char* sql : {"SELECT * FROM missing_table", "SELECT missing_column FROM (SELECT 1) q",
                          "SELECT missing_function(1)"}) {
    auto catalog = connection_->Execute(sql);
    ASSERT_FALSE(catalog.ok()) << sql;
    EXPECT_EQ(catalog.error().code, ErrorCode::kWarehouseCatalog) << catalog.error().ToString();
  }
  auto function = connection_->Execute("SELECT missing_function(1)");
  EXPECT_FALSE(function.error().hint.empty());  // the server's hint is kept
  Exec("CREATE TABLE k (id int PRIMARY KEY)");
  Exec("INSERT INTO k VALUES (1)");
  auto duplicate = connection_->Execute("INSERT INTO k VALUES (1)");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().code, ErrorCode::kWarehouse);
  EXPECT_FALSE(duplicate.error().retryable());
  EXPECT_NE(duplicate.error().message.find("detail: Key (id)=(1) already exists"),
            std::string::npos)
      << duplicate.error().message;
  EXPECT_EQ(Scalar("SELECT 1"), "1");  // the connection is still usable
}

TEST_F(PostgresWarehouseTest, SerializationFailureIsARetryableConflict) {
  Exec("CREATE TABLE c (id int PRIMARY KEY, v int)");
  Exec("INSERT INTO c VALUES (1, 0)");
  auto other = Connect();
  Exec("SET search_path TO " + schema_, other.get());
  Exec("BEGIN ISOLATION LEVEL REPEATABLE READ");
  EXPECT_EQ(Scalar("SELECT v FROM c WHERE id = 1"), "0");  // takes the snapshot
  Exec("UPDATE c SET v = 1 WHERE id = 1", other.get());    // commits meanwhile
  auto conflict = connection_->Execute("UPDATE c SET v = 2 WHERE id = 1");
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, ErrorCode::kWarehouseConflict) << conflict.error().ToString();
  EXPECT_TRUE(conflict.error().retryable());
  Exec("ROLLBACK");
}

TEST_F(PostgresWarehouseTest, DeadlockBetweenTwoConnectionsIsARetryableConflict) {
  Exec("CREATE TABLE d (id int PRIMARY KEY, v int)");
  Exec("INSERT INTO d VALUES (1, 0), (2, 0)");
  auto other = Connect();
  Exec("SET search_path TO " + schema_, other.get());
  Exec("BEGIN");
  Exec("BEGIN", other.get());
  Exec("UPDATE d SET v = 1 WHERE id = 1");
  Exec("UPDATE d SET v = 1 WHERE id = 2", other.get());
  // Each now waits for the row the other holds; the server aborts one of them.
  auto first = std::async(std::launch::async,
                          [&] { return connection_->Execute("UPDATE d SET v = 2 WHERE id = 2"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Result<QueryResult> second = other->Execute("UPDATE d SET v = 2 WHERE id = 1");
  // The victim's transaction is aborted, which lets the other side's UPDATE finish.
  Result<QueryResult> first_result = first.get();
  ASSERT_NE(first_result.ok(), second.ok()) << "exactly one side must be the deadlock victim";
  const Error& victim = first_result.ok() ? second.error() : first_result.error();
  EXPECT_EQ(victim.code, ErrorCode::kWarehouseConflict) << victim.ToString();
  EXPECT_TRUE(victim.retryable());
  EXPECT_NE(victim.message.find("40P01"), std::string::npos);
  (void)connection_->Execute("ROLLBACK");
  (void)other->Execute("ROLLBACK");
}

TEST_F(PostgresWarehouseTest, InterruptCancelsARunningStatement) {
  const auto started = std::chrono::steady_clock::now();
  auto sleeping =
      std::async(std::launch::async, [&] { return connection_->Execute("SELECT pg_sleep(60)"); });
  // A cancel that arrives before the statement starts is ignored by the server: repeat it.
  while (sleeping.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    connection_->Interrupt();
  }
  Result<QueryResult> result = sleeping.get();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseInterrupted) << result.error().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST_F(PostgresWarehouseTest, UserFunctionNamesAreFunctionsOutsideTheCatalog) {
  Exec("CREATE SCHEMA IF NOT EXISTS udf_names");
  Exec(
      "CREATE OR REPLACE FUNCTION udf_names.\"Lower\"(x integer) RETURNS integer AS "
      "'SELECT x' LANGUAGE sql");
  auto names = connection_->UserFunctionNames();
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_TRUE(std::binary_search(names->begin(), names->end(), "lower"));
  EXPECT_FALSE(std::binary_search(names->begin(), names->end(), "upper"));  // pg_catalog's
  EXPECT_TRUE(std::is_sorted(names->begin(), names->end()));
  Exec("DROP SCHEMA udf_names CASCADE");
}

TEST_F(PostgresWarehouseTest, TableExistenceAndSchema) {
  const std::string hostile_schema = "we\"ird sch'ema";
  Exec("CREATE SCHEMA \"we\"\"ird sch'ema\"");
  Exec(
      "CREATE TABLE \"we\"\"ird sch'ema\".\"t'1\" (id bigint NOT NULL, amount numeric(12, 2), "
      "at timestamp, label varchar(20))");
  auto exists = connection_->TableExists({"", hostile_schema, "t'1"});
  ASSERT_TRUE(exists.ok()) << exists.error().ToString();
  EXPECT_TRUE(*exists);
  auto with_catalog = connection_->TableExists({"postgres", hostile_schema, "t'1"});
  ASSERT_TRUE(with_catalog.ok());
  EXPECT_TRUE(*with_catalog);
  EXPECT_FALSE(*connection_->TableExists({"", hostile_schema, "t' OR '1'='1"}));
  EXPECT_FALSE(*connection_->TableExists({"", "missing_schema", "t'1"}));
  EXPECT_FALSE(*connection_->TableExists({"other_db", hostile_schema, "t'1"}));
  // No schema: the session's current schema (the search path of this test).
  Exec("CREATE TABLE plain (x int)");
  EXPECT_TRUE(*connection_->TableExists({"", "", "plain"}));

  auto columns = connection_->DescribeTable({"", hostile_schema, "t'1"});
  ASSERT_TRUE(columns.ok()) << columns.error().ToString();
  ASSERT_EQ(columns->size(), 4u);
  EXPECT_EQ((*columns)[0].name, "id");
  EXPECT_EQ((*columns)[0].type, ColumnType::kInteger);
  EXPECT_FALSE((*columns)[0].nullable);
  EXPECT_EQ((*columns)[1].type, ColumnType::kDecimal);
  EXPECT_TRUE((*columns)[1].nullable);
  EXPECT_EQ((*columns)[2].type, ColumnType::kTimestamp);
  EXPECT_EQ((*columns)[2].type_name, "timestamp without time zone");
  EXPECT_EQ((*columns)[3].type, ColumnType::kString);
  auto missing = connection_->DescribeTable({"", hostile_schema, "missing"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kWarehouseCatalog);
}

TEST_F(PostgresWarehouseTest, DroppedConnectionIsRetryableAndReconnects) {
  auto killer = Connect();
  const std::string pid = Scalar("SELECT pg_backend_pid()");
  Exec("SELECT pg_terminate_backend(" + pid + ")", killer.get());
  auto lost = connection_->Execute("SELECT 1");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error().code, ErrorCode::kWarehouseConnection) << lost.error().ToString();
  EXPECT_TRUE(lost.error().retryable());
  EXPECT_EQ(Scalar("SELECT 2"), "2");  // reconnected
  EXPECT_EQ(Scalar("SHOW TimeZone"), "UTC");

  // Lost inside a transaction: nothing runs outside it until the caller rolls back.
  Exec("CREATE TABLE public_t (x int)");  // search_path was reset by the reconnect: public
  Exec("BEGIN");
  Exec("INSERT INTO public_t VALUES (1)");
  Exec("SELECT pg_terminate_backend(" + Scalar("SELECT pg_backend_pid()") + ")", killer.get());
  auto in_transaction = connection_->Execute("INSERT INTO public_t VALUES (2)");
  ASSERT_FALSE(in_transaction.ok());
  EXPECT_EQ(in_transaction.error().code, ErrorCode::kWarehouseConnection);
  auto still_lost = connection_->Execute("INSERT INTO public_t VALUES (3)");
  ASSERT_FALSE(still_lost.ok());
  EXPECT_EQ(still_lost.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_TRUE(connection_->Execute("ROLLBACK").ok());
  EXPECT_EQ(Scalar("SELECT count(*) FROM public_t"), "0");
  Exec("DROP TABLE public_t");
}

TEST_F(PostgresWarehouseTest, ParallelConnectionsAndOpenErrors) {
  Exec("CREATE TABLE p (worker int, n int)");
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> failures{0};
  for (int worker = 0; worker < 4; ++worker) {
    threads.emplace_back([&, worker] {
      auto connection = warehouse_->Connect();
      if (!connection.ok()) {
        ++failures;
        return;
      }
      for (int n = 0; n < 20; ++n) {
        auto result = (*connection)
                          ->Execute("INSERT INTO " + schema_ + ".p VALUES (" +
                                    std::to_string(worker) + ", " + std::to_string(n) + ")");
        if (!result.ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Scalar("SELECT count(DISTINCT (worker, n)) FROM p"), "80");

  auto malformed = OpenPostgres({"host=127.0.0.1 port", std::nullopt});
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().code, ErrorCode::kConfig);
  const std::string port = Server().dsn.substr(
      Server().dsn.rfind(':') + 1, Server().dsn.rfind('/') - Server().dsn.rfind(':') - 1);
  auto refused = OpenPostgres({"postgresql://strata@127.0.0.1:1/postgres", std::string("s3cret")});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_EQ(refused.error().ToString().find("s3cret"), std::string::npos);
  // The password from the environment is passed to libpq (trust auth ignores it) and never shown.
  auto with_password = OpenPostgres(
      {"postgresql://strata:dsn-secret@127.0.0.1:" + port + "/postgres", std::string("s3cret")});
  ASSERT_TRUE(with_password.ok()) << with_password.error().ToString();
  EXPECT_EQ((*with_password)->Describe(), "postgres:strata@127.0.0.1:" + port + "/postgres");
  EXPECT_EQ((*with_password)->dialect(), sql::Dialect::kPostgres);
}

Window DayWindow(std::string_view key) { return PartitionKey::Parse(key, Grain::kDay)->window(); }

// The emitter's PostgreSQL statements, executed: bootstrap, a bound partition overwrite, the
// window statistics (stable under reordering, sensitive to duplicates), full refresh and view.
TEST_F(PostgresWarehouseTest, EmittedStatementsRunOnPostgres) {
  const Emitter emitter(sql::Dialect::kPostgres);
  const TableName target{"", schema_, "fct"};
  const std::string source = schema_ + ".src";
  Exec("CREATE TABLE src (at timestamp, amount numeric(12, 2), who text)");
  Exec(
      "INSERT INTO src VALUES ('2026-04-07 01:00:00', 1.50, 'a'), ('2026-04-07 02:00:00', 2.25, "
      "'b'), ('2026-04-08 03:00:00', 4.00, 'c')");
  const auto model = [&](const Window& window) {
    return "SELECT who, amount, date_trunc('day', at) AS day FROM " + source +
           " WHERE at >= " + emitter.TimestampLiteral(window.start) + " AND at < " +
           emitter.TimestampLiteral(window.end);
  };
  const Window day = DayWindow("2026-04-07");
  auto bootstrap = emitter.Bootstrap(target, model({day.start, day.start}));
  ASSERT_TRUE(bootstrap.ok());
  for (const std::string& statement : *bootstrap) Exec(statement);
  EXPECT_EQ(Scalar("SELECT count(*) FROM fct"), "0");

  auto overwrite = emitter.Overwrite(target, "day", day, model(day));
  ASSERT_TRUE(overwrite.ok());
  auto probe = emitter.InsertColumnsProbe(target, overwrite->insert);
  ASSERT_TRUE(probe.ok()) << probe.error().ToString();
  std::vector<std::string> columns;
  for (const ResultColumn& column : Exec(*probe).columns) columns.push_back(column.column.name);
  EXPECT_EQ(columns, (std::vector<std::string>{"who", "amount", "day"}));
  auto insert = emitter.BindInsertColumns(target, overwrite->insert, columns);
  ASSERT_TRUE(insert.ok());
  auto stats = emitter.WindowStats(target, "day", day);
  ASSERT_TRUE(stats.ok());
  for (int run = 0; run < 2; ++run) {  // idempotent: the second run replaces the first
    Exec(overwrite->begin);
    Exec(overwrite->delete_window);
    EXPECT_EQ(Exec(*insert).rows_changed, 2);
    Exec(overwrite->commit);
  }
  QueryResult first = Exec(*stats);
  ASSERT_EQ(first.row_count(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(first.columns[0].values[0]), 2);
  EXPECT_EQ(first.columns[1].column.type, ColumnType::kDecimal);
  const std::string checksum = std::get<std::string>(first.columns[1].values[0]);
  EXPECT_EQ(checksum.find_first_not_of("0123456789"), std::string::npos) << checksum;
  EXPECT_LE(checksum.size(), 20u);
  // Same rows in another physical order: same checksum. A duplicate row: another one.
  Exec("CREATE TABLE copy AS SELECT * FROM fct ORDER BY who DESC");
  Exec("TRUNCATE fct");
  Exec("INSERT INTO fct SELECT * FROM copy ORDER BY who DESC");
  EXPECT_EQ(ValueToString(Exec(*stats).columns[1].values[0]), checksum);
  Exec("INSERT INTO fct SELECT * FROM copy WHERE who = 'a'");
  EXPECT_NE(ValueToString(Exec(*stats).columns[1].values[0]), checksum);

  // A model whose columns are reordered still lands by name; an unknown column is an error.
  auto reordered = emitter.BindInsertColumns(target, overwrite->insert, {"day", "who", "amount"});
  ASSERT_TRUE(reordered.ok());
  auto unknown = emitter.BindInsertColumns(target, overwrite->insert, {"who", "nope"});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(connection_->Execute(*unknown).error().code, ErrorCode::kWarehouseCatalog);

  for (int run = 0; run < 2; ++run) {
    auto refresh = emitter.FullRefresh({"", schema_, "staging"}, "SELECT * FROM " + source);
    ASSERT_TRUE(refresh.ok());
    for (const std::string& statement : *refresh) Exec(statement);
  }
  EXPECT_EQ(Scalar("SELECT count(*) FROM staging"), "3");
  auto view = emitter.View({"", schema_, "v"}, "SELECT who FROM " + source);
  ASSERT_TRUE(view.ok());
  for (int run = 0; run < 2; ++run) {
    for (const std::string& statement : *view) Exec(statement);
  }
  EXPECT_EQ(Scalar("SELECT count(*) FROM v"), "3");
}

// WindowStats names the row by its alias strata_row; a table column of that name must not take
// its place. The checksum is of the values, not the names: a table whose column is called
// strata_row and one whose column is called n checksum alike, equal to what earlier versions
// recorded (the whole-row text), and a change in another column changes it.
TEST_F(PostgresWarehouseTest, AColumnNamedLikeTheRowAliasIsStillTheWholeRow) {
  const Emitter emitter(sql::Dialect::kPostgres);
  const Window day = DayWindow("2026-04-07");
  for (const char* column : {"strata_row", "n"}) {
    Exec(fmt::format("CREATE TABLE t_{0} (day timestamp, {0} integer, who text)", column));
    Exec(fmt::format(
        "INSERT INTO t_{} VALUES ('2026-04-07 01:00:00', 7, 'a'), ('2026-04-07 02:00:00', 7, 'b')",
        column));
  }
  const auto checksum = [&](const std::string& table) {
    auto stats = emitter.WindowStats({"", schema_, table}, "day", day);
    EXPECT_TRUE(stats.ok());
    QueryResult result = Exec(*stats);
    EXPECT_EQ(std::get<std::int64_t>(result.columns[0].values[0]), 2);
    return ValueToString(result.columns[1].values[0]);
  };
  const std::string named = checksum("t_strata_row");
  EXPECT_EQ(named, checksum("t_n"));
  EXPECT_EQ(named, Scalar("SELECT (sum(hashtextextended(CAST(p AS text), 0)) % "
                          "18446744073709551616 + 18446744073709551616) % 18446744073709551616 "
                          "FROM t_n AS p"));
  Exec("UPDATE t_strata_row SET who = who || 'x'");
  EXPECT_NE(checksum("t_strata_row"), named);
}

// PostgresRowHash's list of hashable types is PostgreSQL's: a table with a column of each
// listed type (as information_schema spells it) is hashed by its columns, and the statistics
// query then runs and sums hash_record_extended of each row, here and under a column named like
// the row alias. A json, bit or array column, or a server older than 14, falls back to the text.
TEST_F(PostgresWarehouseTest, RowHashByColumnsCoversExactlyTheListedTypes) {
  Exec(
      "CREATE TABLE every_type (day timestamp, strata_row smallint, i4 integer, i8 bigint, "
      "n numeric(12, 2), f4 real, f8 double precision, t text, v varchar(9), c char(3), "
      "ch \"char\", nm name, b boolean, d date, tz timestamptz, tm time, ttz timetz, "
      "iv interval, u uuid, by bytea, jb jsonb, ip inet, net cidr, mac macaddr, mac8 macaddr8, "
      "o oid)");
  Exec(
      "INSERT INTO every_type VALUES ('2026-04-07 01:00:00', 1, 2, 3, 4.50, 1.5, 2.5, 'a', 'b', "
      "'c', 'x', 'nm', true, '2026-04-07', '2026-04-07 01:00:00+00', '01:02:03', '01:02:03+02', "
      "'1 day', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x0102', '{\"a\": 1}', '10.0.0.1', "
      "'10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05', 42), "
      "('2026-04-07 02:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
  Result<std::vector<Column>> columns = connection_->DescribeTable({"", schema_, "every_type"});
  ASSERT_TRUE(columns.ok()) << columns.error().ToString();
  const int version = std::stoi(Scalar("SHOW server_version_num"));
  ASSERT_GE(version, 140000) << "the test server is older than PostgreSQL 14";
  ASSERT_EQ(PostgresRowHash(version, *columns), RowHash::kColumns);
  EXPECT_EQ(PostgresRowHash(139999, *columns), RowHash::kText);

  const Emitter emitter = Emitter(sql::Dialect::kPostgres).WithRowHash(RowHash::kColumns);
  auto stats = emitter.WindowStats({"", schema_, "every_type"}, "day", DayWindow("2026-04-07"));
  ASSERT_TRUE(stats.ok());
  QueryResult result = Exec(*stats);
  EXPECT_EQ(std::get<std::int64_t>(result.columns[0].values[0]), 2);
  EXPECT_EQ(ValueToString(result.columns[1].values[0]),
            Scalar("SELECT (sum(hash_record_extended(p, 0)) % 18446744073709551616 + "
                   "18446744073709551616) % 18446744073709551616 FROM every_type AS p"));
  Exec("UPDATE every_type SET t = t || 'x'");
  EXPECT_NE(ValueToString(Exec(*stats).columns[1].values[0]),
            ValueToString(result.columns[1].values[0]));

  // A domain reads as its base type: over integer it hashes by its columns, over json not.
  Exec("CREATE DOMAIN positive AS integer CHECK (VALUE > 0)");
  Exec("CREATE DOMAIN document AS json");
  Exec("CREATE TABLE domains (day timestamp, p positive, d document)");
  Result<std::vector<Column>> domains = connection_->DescribeTable({"", schema_, "domains"});
  ASSERT_TRUE(domains.ok());
  EXPECT_EQ(PostgresRowHash(version, {(*domains)[0], (*domains)[1]}), RowHash::kColumns);
  EXPECT_EQ(PostgresRowHash(version, *domains), RowHash::kText);

  // A nondeterministic collation hashes 'paid' and 'PAID' alike by columns (so the text hash is
  // kept for it); NondeterministicCollations counts such columns, a domain's collation included.
  Exec("CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)");
  Exec("CREATE DOMAIN ci_text AS text COLLATE ci");
  Exec("CREATE TABLE labels (day timestamp, a text COLLATE ci, b ci_text, c text)");
  const auto count_collations = [&](const char* table) {
    return Scalar(*emitter.NondeterministicCollations({"", schema_, table}));
  };
  EXPECT_EQ(count_collations("labels"), "2");
  EXPECT_EQ(count_collations("every_type"), "0");
  Exec(
      "INSERT INTO labels VALUES ('2026-04-07', 'paid', 'paid', 'x'), "
      "('2026-04-07', 'PAID', 'PAID', 'x')");
  EXPECT_EQ(Scalar("SELECT count(DISTINCT hash_record_extended(l, 0)) FROM labels AS l"), "1");
  EXPECT_EQ(Scalar("SELECT count(DISTINCT hashtextextended(CAST(l AS text), 0)) FROM labels AS l"),
            "2");

  for (const char* type : {"json", "bit(3)", "integer[]", "money", "point"}) {
    Exec(fmt::format("CREATE TABLE other_type (day timestamp, x {})", type));
    Result<std::vector<Column>> other = connection_->DescribeTable({"", schema_, "other_type"});
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(PostgresRowHash(version, *other), RowHash::kText) << type;
    Exec("DROP TABLE other_type");
  }
}

// WindowStatsByKey's key (a bisection over the windows' starts, as PostgreSQL evaluates it)
// gives each row the window WindowStats counts it in, for a timestamp and a date column: 1 to 13
// day windows, contiguous or with gaps, over rows on every boundary, a microsecond either side,
// at noon, before, after and NULL.
TEST_F(PostgresWarehouseTest, TheKeyOfEveryRowIsTheWindowWindowStatsCountsItIn) {
  const Emitter emitter(sql::Dialect::kPostgres);
  Exec(
      "CREATE TABLE probes AS SELECT TIMESTAMP '2025-12-30 00:00:00' + d * INTERVAL '1 day' + o * "
      "INTERVAL '1 microsecond' AS t, CAST(TIMESTAMP '2025-12-30 00:00:00' + d * INTERVAL "
      "'1 day' + o * INTERVAL '1 microsecond' AS date) AS dt, d * 10 + o AS v FROM "
      "generate_series(0, 21) AS d, (VALUES (-1), (0), (1), (43200000000)) AS offsets(o)");
  Exec("INSERT INTO probes VALUES (NULL, NULL, -7)");
  const PartitionKey first = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  for (const auto& [column, type] :
       {std::pair{"t", TimeColumnType::kTimestamp}, std::pair{"dt", TimeColumnType::kDate}}) {
    for (int n = 1; n <= 13; ++n) {
      for (const bool gaps : {false, true}) {
        SCOPED_TRACE(fmt::format("{}: {} windows, gaps {}", column, n, gaps));
        std::vector<Window> windows;
        PartitionKey key = first;
        for (int day = 0; static_cast<int>(windows.size()) < n; ++day, key = key.Next()) {
          if (!gaps || day % 3 != 1) windows.push_back(key.window());
        }
        auto by_key = emitter.WindowStatsByKey({"", schema_, "probes"}, column, windows, type);
        ASSERT_TRUE(by_key.ok());
        std::vector<std::pair<std::string, std::string>> grouped(windows.size(), {"0", "0"});
        const QueryResult result = Exec(*by_key);
        for (std::size_t row = 0; row < result.row_count(); ++row) {
          if (std::holds_alternative<std::monostate>(result.columns[0].values[row])) {
            EXPECT_TRUE(gaps);  // the rows between windows: no window's
            continue;
          }
          const auto index =
              static_cast<std::size_t>(std::stoi(ValueToString(result.columns[0].values[row])));
          ASSERT_LT(index, windows.size());
          grouped[index] = {ValueToString(result.columns[1].values[row]),
                            ValueToString(result.columns[2].values[row])};
        }
        std::vector<std::pair<std::string, std::string>> one_by_one;
        for (const Window& window : windows) {
          const QueryResult one =
              Exec(*emitter.WindowStats({"", schema_, "probes"}, column, window, type));
          one_by_one.emplace_back(ValueToString(one.columns[0].values[0]),
                                  ValueToString(one.columns[1].values[0]));
          // Midnight, +1 us, noon and 23:59:59.999999 (the date column: the same four days).
          EXPECT_EQ(one_by_one.back().first, "4");
        }
        EXPECT_EQ(grouped, one_by_one);
      }
    }
  }
}

// The value-count sketch's kPostgres interpolation (and strata_quantile_merge_postgres in the
// rollup engine) is PostgreSQL's percentile_cont over float8, bit for bit; DuckDB's form
// (strata_quantile_merge) differs in the last bits for some inputs.
TEST_F(PostgresWarehouseTest, PercentileContIsTheValueCountsPostgresForm) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> wide(-1e6, 1e6);
  std::vector<ValueCount> counts;
  std::string values;
  for (int i = 0; i < 3000; ++i) {
    const double x =
        i % 3 == 0 ? static_cast<double>(static_cast<int>(random() % 41) - 20) * 0.1 : wide(random);
    counts.push_back({x, 1});
    values += fmt::format("{}({:.17g}::float8)", values.empty() ? "" : ", ", x);
  }
  Exec("CREATE TABLE v (x double precision)");
  Exec("INSERT INTO v VALUES " + values);
  std::vector<double> quantiles = {0, 1, 0.5, 0.9, 0.95, 0.99, 0.25, 0.001};
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 40; ++i) quantiles.push_back(unit(random));
  // The same rows fetched from PostgreSQL, appended into the rollup engine and sketched there.
  auto engine = OpenDuckDbEngine();
  ASSERT_TRUE(engine.ok());
  auto duckdb = (*engine)->Connect();
  ASSERT_TRUE(duckdb.ok());
  ASSERT_TRUE((*duckdb)->Execute("CREATE TABLE v (x DOUBLE)").ok());
  ASSERT_TRUE(AppendRows(**duckdb, "v", Exec("SELECT x FROM v")).ok());
  ASSERT_TRUE((*duckdb)
                  ->Execute("CREATE TABLE parts AS SELECT strata_value_counts(x) AS vc FROM v "
                            "GROUP BY hash(x) % 7")
                  .ok());
  int duckdb_form_differs = 0;
  for (const double q : quantiles) {
    QueryResult result = Exec(
        fmt::format("SELECT percentile_cont({:.17g}::float8) WITHIN GROUP (ORDER BY x) FROM v", q));
    ASSERT_EQ(result.row_count(), 1u);
    const double postgres = std::get<double>(result.columns[0].values[0]);
    const double ours = *ContinuousQuantile(counts, q, QuantileInterpolation::kPostgres);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(postgres), std::bit_cast<std::uint64_t>(ours))
        << fmt::format("q {:.17g}: {:.17g} vs {:.17g}", q, postgres, ours);
    if (*ContinuousQuantile(counts, q) != postgres) ++duckdb_form_differs;
    Result<QueryResult> merged = (*duckdb)->Execute(
        fmt::format("SELECT strata_quantile_merge_postgres(vc, '{:.17g}'::DOUBLE) FROM parts", q));
    ASSERT_TRUE(merged.ok()) << merged.error().message;
    const double rollup = std::get<double>(merged->columns[0].values[0]);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(postgres), std::bit_cast<std::uint64_t>(rollup))
        << fmt::format("q {:.17g}: {:.17g} vs {:.17g}", q, postgres, rollup);
  }
  std::cout << "DuckDB's interpolation differs from PostgreSQL's for " << duckdb_form_differs
            << " of " << quantiles.size() << " quantiles\n";
}

}  // namespace
}  // namespace strata::warehouse
