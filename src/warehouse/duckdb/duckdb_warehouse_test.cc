#include "warehouse/duckdb/duckdb_warehouse.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace strata::warehouse {
namespace {

std::unique_ptr<Connection> Connect(Warehouse& warehouse) {
  Result<std::unique_ptr<Connection>> connection = warehouse.Connect();
  EXPECT_TRUE(connection.ok());
  return std::move(connection).value();
}

QueryResult Exec(Connection& connection, std::string_view sql) {
  Result<QueryResult> result = connection.Execute(sql);
  EXPECT_TRUE(result.ok()) << sql << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? std::move(result).value() : QueryResult{};
}

TEST(DuckDbWarehouseTest, ReturnsTypedColumnsAndRowCounts) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  Exec(*connection,
       "CREATE TABLE t (d DATE, ts TIMESTAMP, n BIGINT, s VARCHAR, x DOUBLE, b BOOLEAN)");
  QueryResult insert =
      Exec(*connection,
           "INSERT INTO t VALUES (DATE '2026-04-07', TIMESTAMP '2026-04-07 13:00:00', "
           "42, 'it''s', 1.5, true), (NULL, NULL, NULL, NULL, NULL, NULL)");
  EXPECT_EQ(insert.rows_changed, 2);
  QueryResult rows = Exec(*connection, "SELECT * FROM t ORDER BY n NULLS LAST");
  ASSERT_EQ(rows.columns.size(), 6u);
  ASSERT_EQ(rows.row_count(), 2u);
  EXPECT_EQ(rows.columns[0].column.type, ColumnType::kDate);
  EXPECT_EQ(std::get<std::string>(rows.columns[0].values[0]), "2026-04-07");
  EXPECT_EQ(rows.columns[1].column.type, ColumnType::kTimestamp);
  EXPECT_EQ(std::get<std::string>(rows.columns[1].values[0]), "2026-04-07 13:00:00");
  EXPECT_EQ(std::get<std::int64_t>(rows.columns[2].values[0]), 42);
  EXPECT_EQ(std::get<std::string>(rows.columns[3].values[0]), "it's");
  EXPECT_EQ(std::get<double>(rows.columns[4].values[0]), 1.5);
  EXPECT_EQ(std::get<bool>(rows.columns[5].values[0]), true);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(rows.columns[2].values[1]));
}

// TIMESTAMPTZ values read as UTC text (DuckDB's text form of a TIMESTAMPTZ needs ICU, which the
// deprecated value API does not use: it returned "" before).
TEST(DuckDbWarehouseTest, UserFunctionNamesAreTheMacrosOfEveryDatabaseAndNoBuiltIn) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  auto none = connection->UserFunctionNames();
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(*none, std::vector<std::string>{});
  Exec(*connection, "CREATE MACRO Upper(x) AS x");
  Exec(*connection, "CREATE TEMP MACRO twice(x) AS x * 2");
  // A table macro named like the catalog function the names are read from answers nothing.
  Exec(*connection,
       "CREATE MACRO duckdb_functions() AS TABLE SELECT 'fake' AS function_name, false AS "
       "internal");
  auto names = connection->UserFunctionNames();
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"duckdb_functions", "twice", "upper"}));
}

TEST(DuckDbWarehouseTest, TimestampWithTimeZoneReadsAsUtcText) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  QueryResult rows = Exec(*connection,
                          "SELECT CAST(TIMESTAMP '2026-04-07 13:05:09' AS TIMESTAMPTZ) AS a, "
                          "CAST(TIMESTAMP '1969-12-31 23:59:59.25' AS TIMESTAMPTZ) AS b, "
                          "CAST(NULL AS TIMESTAMPTZ) AS c");
  ASSERT_EQ(rows.columns.size(), 3u);
  EXPECT_EQ(rows.columns[0].column.type, ColumnType::kTimestamp);
  EXPECT_EQ(std::get<std::string>(rows.columns[0].values[0]), "2026-04-07 13:05:09+00");
  EXPECT_EQ(std::get<std::string>(rows.columns[1].values[0]), "1969-12-31 23:59:59.25+00");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(rows.columns[2].values[0]));
}

TEST(DuckDbWarehouseTest, MapsErrorsToCodes) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  auto syntax = connection->Execute("SELEC 1");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().code, ErrorCode::kWarehouseSyntax);
  auto catalog = connection->Execute("SELECT * FROM missing_table");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.error().code, ErrorCode::kWarehouseCatalog);
}

TEST(DuckDbWarehouseTest, ConcurrentWritesToTheSameRowConflictAndAreRetryable) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto first = Connect(**warehouse);
  auto second = Connect(**warehouse);
  Exec(*first, "CREATE TABLE t AS SELECT 1 AS id");
  Exec(*first, "BEGIN TRANSACTION");
  Exec(*second, "BEGIN TRANSACTION");
  Exec(*first, "DELETE FROM t WHERE id = 1");
  auto conflict = second->Execute("DELETE FROM t WHERE id = 1");
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, ErrorCode::kWarehouseConflict);
  EXPECT_TRUE(conflict.error().retryable());
}

TEST(DuckDbWarehouseTest, DisjointDeletesInParallelTransactionsCommit) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto first = Connect(**warehouse);
  auto second = Connect(**warehouse);
  Exec(*first, "CREATE TABLE t AS SELECT i AS id FROM range(10) r(i)");
  Exec(*first, "BEGIN TRANSACTION");
  Exec(*second, "BEGIN TRANSACTION");
  Exec(*first, "DELETE FROM t WHERE id < 5");
  Exec(*second, "DELETE FROM t WHERE id >= 5");
  Exec(*first, "INSERT INTO t VALUES (100)");
  Exec(*second, "INSERT INTO t VALUES (200)");
  Exec(*first, "COMMIT");
  Exec(*second, "COMMIT");
  QueryResult count = Exec(*first, "SELECT count(*) FROM t");
  EXPECT_EQ(std::get<std::int64_t>(count.columns[0].values[0]), 2);
}

TEST(DuckDbWarehouseTest, TableExistenceAndSchema) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  const TableName name{"", "marts", "fct"};
  auto before = connection->TableExists(name);
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(*before);
  Exec(*connection, "CREATE SCHEMA marts");
  Exec(*connection, "CREATE TABLE marts.fct (order_date DATE NOT NULL, revenue DECIMAL(18,2))");
  auto after = connection->TableExists(name);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(*after);
  auto columns = connection->DescribeTable(name);
  ASSERT_TRUE(columns.ok());
  ASSERT_EQ(columns->size(), 2u);
  EXPECT_EQ((*columns)[0].name, "order_date");
  EXPECT_EQ((*columns)[0].type, ColumnType::kDate);
  EXPECT_FALSE((*columns)[0].nullable);
  EXPECT_EQ((*columns)[1].type, ColumnType::kDecimal);
  EXPECT_TRUE((*columns)[1].nullable);
  auto missing = connection->DescribeTable({"", "marts", "nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kWarehouseCatalog);
}

// TableExists and DescribeTable look a name up in the connection's own database as DuckDB's
// statements resolve it: names with quotes and spaces are exact, a table is found whatever the
// case of its name (DuckDB resolves identifiers so), a view is not a table but has columns, and
// a table of another attached database is not there.
TEST(DuckDbWarehouseTest, TableLookupsFollowDuckDbsNameResolution) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  Exec(*connection, "CREATE SCHEMA \"we ird\"");
  Exec(*connection,
       "CREATE TABLE \"we ird\".\"t\"\"x\" (a TIMESTAMPTZ NOT NULL, b DECIMAL(38,2), "
       "c STRUCT(x INT, \"y z\" VARCHAR), \"d\"\"q\" TIMESTAMP_NS)");
  Exec(*connection, "CREATE VIEW \"we ird\".v AS SELECT 1 AS x");
  Exec(*connection, "ATTACH ':memory:' AS other");
  Exec(*connection, "CREATE SCHEMA other.\"we ird\"");
  Exec(*connection, "CREATE TABLE other.\"we ird\".only_there (z INT)");
  const TableName quoted{"", "we ird", "t\"x"};
  ASSERT_TRUE(connection->TableExists(quoted).ok());
  EXPECT_TRUE(*connection->TableExists(quoted));
  EXPECT_TRUE(*connection->TableExists({"", "WE IRD", "T\"X"}));
  EXPECT_FALSE(*connection->TableExists({"", "we ird", "v"}));
  EXPECT_FALSE(*connection->TableExists({"", "we ird", "only_there"}));
  EXPECT_FALSE(*connection->TableExists({"", "nope", "t\"x"}));
  auto columns = connection->DescribeTable(quoted);
  ASSERT_TRUE(columns.ok()) << columns.error().message;
  // The same names, types and nullability as duckdb_columns() reports.
  QueryResult expected = Exec(*connection,
                              "SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
                              "WHERE database_name = current_database() AND schema_name = 'we ird' "
                              "AND table_name = 't\"x' ORDER BY column_index");
  ASSERT_EQ(columns->size(), expected.row_count());
  for (std::size_t i = 0; i < columns->size(); ++i) {
    EXPECT_EQ((*columns)[i].name, std::get<std::string>(expected.columns[0].values[i]));
    EXPECT_EQ((*columns)[i].type_name, std::get<std::string>(expected.columns[1].values[i]));
    EXPECT_EQ((*columns)[i].nullable, std::get<bool>(expected.columns[2].values[i]));
  }
  EXPECT_EQ((*columns)[0].type, ColumnType::kTimestamp);
  EXPECT_FALSE((*columns)[0].nullable);
  EXPECT_EQ((*columns)[3].name, "d\"q");
  // A view has columns too (a model may read one).
  auto view = connection->DescribeTable({"", "we ird", "v"});
  ASSERT_TRUE(view.ok()) << view.error().message;
  ASSERT_EQ(view->size(), 1u);
  EXPECT_EQ(view->front().name, "x");
  for (const TableName& absent :
       {TableName{"", "we ird", "only_there"}, TableName{"", "nope", "t\"x"}}) {
    auto described = connection->DescribeTable(absent);
    ASSERT_FALSE(described.ok()) << absent.ToString();
    EXPECT_EQ(described.error().code, ErrorCode::kWarehouseCatalog);
  }
}

// Describing a source must never touch what the source reads: a view over a file that is gone
// keeps its stored columns (DESCRIBE would bind the view again, fail on the file and poison the
// writable database). A temporary table is not the database's.
TEST(DuckDbWarehouseTest, DescribingAViewOverAMissingFileNeitherFailsNorPoisons) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("strata_duckdb_view_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string parquet = (dir / "events.parquet").string();
  {
    auto warehouse = OpenDuckDb((dir / "w.duckdb").string());
    ASSERT_TRUE(warehouse.ok());
    auto connection = Connect(**warehouse);
    Exec(*connection, "COPY (SELECT 1 AS id, TIMESTAMP '2026-01-01' AS at) TO '" + parquet +
                          "' (FORMAT parquet)");
    Exec(*connection, "CREATE VIEW events AS SELECT * FROM read_parquet('" + parquet + "')");
    std::filesystem::remove(parquet);
    auto columns = connection->DescribeTable({"", "", "events"});
    ASSERT_TRUE(columns.ok()) << columns.error().ToString();
    ASSERT_EQ(columns->size(), 2u);
    EXPECT_EQ((*columns)[1].name, "at");
    EXPECT_EQ((*columns)[1].type, ColumnType::kTimestamp);
    auto exists = connection->TableExists({"", "", "events"});  // a view, not a table
    ASSERT_TRUE(exists.ok()) << exists.error().ToString();
    EXPECT_FALSE(*exists);
    Exec(*connection, "CREATE TEMP TABLE scratch (x INT)");
    EXPECT_FALSE(*connection->TableExists({"", "main", "scratch"}));
    EXPECT_FALSE(connection->DescribeTable({"", "main", "scratch"}).ok());
    // Not poisoned: the database still takes statements.
    Exec(*connection, "CREATE TABLE kept AS SELECT 7 AS seven");
    EXPECT_TRUE(*connection->TableExists({"", "", "kept"}));
  }
  std::filesystem::remove_all(dir);
}

// An interrupt sent before the query starts is lost, so the interrupter keeps sending until the
// query returns. The query ends by itself (in about a minute on a busy machine) when no interrupt
// ever lands: a failure, not a hang. The deadline bounds how long interrupting may take.
TEST(DuckDbWarehouseTest, InterruptCancelsARunningQuery) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  std::atomic<bool> returned{false};
  std::atomic<int> interrupts{0};
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::seconds(30);
  std::thread interrupter([&] {
    while (!returned.load() && std::chrono::steady_clock::now() < deadline) {
      connection->Interrupt();
      ++interrupts;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  auto result = connection->Execute(
      "SELECT count(*) FROM range(100000000) a(i), range(10) b(j) WHERE i * j % 7 = 3");
  returned = true;
  const auto took = std::chrono::steady_clock::now() - started;
  interrupter.join();
  EXPECT_GT(interrupts.load(), 0);
  ASSERT_FALSE(result.ok()) << "the query ran to the end: no interrupt landed";
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseInterrupted);
  EXPECT_LT(took, std::chrono::seconds(30));
}

TEST(DuckDbWarehouseTest, ConnectionsUseUtcWhateverTheMachineZone) {
  ::setenv("TZ", "America/New_York", 1);
  auto warehouse = OpenDuckDb(":memory:");
  ::unsetenv("TZ");
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  QueryResult zone = Exec(*connection, "SELECT current_setting('TimeZone')");
  EXPECT_EQ(std::get<std::string>(zone.columns[0].values[0]), "UTC");
  QueryResult hour =
      Exec(*connection, "SELECT CAST(TIMESTAMPTZ '2026-04-07 00:00:00+00' AS VARCHAR)");
  EXPECT_EQ(std::get<std::string>(hour.columns[0].values[0]), "2026-04-07 00:00:00+00");
}

TEST(DuckDbWarehouseTest, PersistsToAFile) {
  const auto path = std::filesystem::temp_directory_path() / "strata_duckdb_test.duckdb";
  std::filesystem::remove(path);
  {
    auto warehouse = OpenDuckDb(path.string());
    ASSERT_TRUE(warehouse.ok());
    auto connection = Connect(**warehouse);
    Exec(*connection, "CREATE TABLE kept AS SELECT 7 AS seven");
  }
  auto warehouse = OpenDuckDb(path.string());
  ASSERT_TRUE(warehouse.ok());
  auto connection = Connect(**warehouse);
  QueryResult result = Exec(*connection, "SELECT seven FROM kept");
  EXPECT_EQ(std::get<std::int64_t>(result.columns[0].values[0]), 7);
  std::filesystem::remove(path);
}

TEST(DuckDbWarehouseTest, ReadOnlyOpenReadsAndRefusesWrites) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("strata_duckdb_read_only_" + std::to_string(::getpid()) + ".duckdb");
  std::filesystem::remove(path);
  {
    auto warehouse = OpenDuckDb(path.string());
    ASSERT_TRUE(warehouse.ok());
    Exec(*Connect(**warehouse), "CREATE TABLE kept AS SELECT 7 AS seven");
  }
  {
    auto warehouse = OpenDuckDb(path.string(), AccessMode::kReadOnly);
    ASSERT_TRUE(warehouse.ok()) << warehouse.error().ToString();
    auto connection = Connect(**warehouse);
    QueryResult result = Exec(*connection, "SELECT seven FROM kept");
    EXPECT_EQ(std::get<std::int64_t>(result.columns[0].values[0]), 7);
    EXPECT_FALSE(connection->Execute("INSERT INTO kept VALUES (8)").ok());
    // A storage error fails its statement only: a read-only database writes nothing, so it has
    // nothing to protect by refusing the next statements as a writable one does.
    auto unreadable = connection->Execute("SELECT * FROM read_parquet('" + path.string() +
                                          ".no-such-file.parquet')");
    ASSERT_FALSE(unreadable.ok());
    EXPECT_EQ(unreadable.error().code, ErrorCode::kWarehouseStorage);
    EXPECT_EQ(
        std::get<std::int64_t>(Exec(*connection, "SELECT seven FROM kept").columns[0].values[0]),
        7);
  }
  std::filesystem::remove(path);
}

// A file this user may not open is a WarehouseStorage error (not retryable: waiting changes
// nothing; not WarehouseConnection, which is) whose
// hint is about owner and mode. As root the open runs in a child that has become nobody.
TEST(DuckDbWarehouseTest, AFileThisUserMayNotOpenIsANonRetryableStorageError) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("strata_duckdb_denied_" + std::to_string(::getpid()) + ".duckdb");
  std::filesystem::remove(path);
  {
    auto warehouse = OpenDuckDb(path.string());
    ASSERT_TRUE(warehouse.ok());
    Exec(*Connect(**warehouse), "CREATE TABLE kept AS SELECT 7 AS seven");
  }
  std::filesystem::permissions(path, std::filesystem::perms::none);
  const auto denied = [&]() -> bool {
    auto warehouse = OpenDuckDb(path.string());
    return !warehouse.ok() && warehouse.error().code == ErrorCode::kWarehouseStorage &&
           !warehouse.error().retryable() &&
           warehouse.error().hint.find("owner and mode") != std::string::npos;
  };
  if (::getuid() != 0) {
    EXPECT_TRUE(denied());
  } else {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
      ::_exit(denied() ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: could not become nobody; 1: not the expected error";
  }
  std::filesystem::remove(path);
}

// A writable database file is poisoned by its first storage failure, whatever caused it (see
// DatabaseState in duckdb_warehouse.cc; the full-disk case is duckdb_storage_test.cc, as root):
// no statement reaches it again, so no later checkpoint can make lost rows durable.
TEST(DuckDbWarehouseTest, AStorageFailurePoisonsAWritableDatabase) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("strata_duckdb_poisoned_" + std::to_string(::getpid()) + ".duckdb");
  std::filesystem::remove(path);
  {
    auto warehouse = OpenDuckDb(path.string());
    ASSERT_TRUE(warehouse.ok());
    auto connection = Connect(**warehouse);
    Exec(*connection, "CREATE TABLE kept AS SELECT 7 AS seven");
    auto unreadable = connection->Execute("SELECT * FROM read_parquet('" + path.string() +
                                          ".no-such-file.parquet')");
    ASSERT_FALSE(unreadable.ok());
    EXPECT_EQ(unreadable.error().code, ErrorCode::kWarehouseStorage);
    auto after = connection->Execute("SELECT seven FROM kept");
    ASSERT_FALSE(after.ok());
    EXPECT_EQ(after.error().code, ErrorCode::kWarehouseStorage);
    EXPECT_FALSE((*warehouse)->Connect().ok());
  }
  {
    auto reopened = OpenDuckDb(path.string());  // the write-ahead log replays: nothing lost
    ASSERT_TRUE(reopened.ok());
    auto connection = Connect(**reopened);
    EXPECT_EQ(
        std::get<std::int64_t>(Exec(*connection, "SELECT seven FROM kept").columns[0].values[0]),
        7);
  }
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + ".wal");
}

TEST(DuckDbWarehouseTest, ReadOnlyOpenOfAMissingFileFailsAndCreatesNothing) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("strata_duckdb_missing_" + std::to_string(::getpid()) + ".duckdb");
  std::filesystem::remove(path);
  auto warehouse = OpenDuckDb(path.string(), AccessMode::kReadOnly);
  ASSERT_FALSE(warehouse.ok());
  EXPECT_EQ(warehouse.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_NE(warehouse.error().message.find(path.string()), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  // In memory there is nothing to share: read-only is ignored there.
  EXPECT_TRUE(OpenDuckDb(":memory:", AccessMode::kReadOnly).ok());
}

}  // namespace
}  // namespace strata::warehouse
