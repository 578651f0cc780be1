// Emitter::Grouped against real DuckDB: one statement writes several batches with the same rows,
// counts and checksums as writing them one by one, and its guard names the batch that wrote
// outside its window.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/emitter.h"

namespace strata::warehouse {
namespace {

const TableName kTarget{"", "marts", "fct"};

QueryResult Exec(Connection& connection, std::string_view sql) {
  Result<QueryResult> result = connection.Execute(sql);
  EXPECT_TRUE(result.ok()) << sql << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? std::move(result).value() : QueryResult{};
}

struct Fixture {
  std::unique_ptr<Warehouse> warehouse;
  std::unique_ptr<Connection> connection;
  Emitter emitter{sql::Dialect::kDuckDb};
};

// raw.events: one row every 7 minutes from 2026-01-01 for `hours` hours, the time column typed
// `type`; marts.fct: the same columns, empty.
Fixture Open(const std::string& type, int hours) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  Exec(*f.connection, "CREATE SCHEMA raw");
  Exec(*f.connection, "CREATE SCHEMA marts");
  Exec(*f.connection,
       "CREATE TABLE raw.events AS SELECT CAST(TIMESTAMP '2026-01-01 00:00:00' + "
       "to_minutes(i * 7) AS " +
           type + ") AS t, i % 13 AS k, i * 1.5 AS v FROM range(" + std::to_string(hours * 60 / 7) +
           ") AS r(i)");
  Exec(*f.connection, "CREATE TABLE marts.fct AS SELECT * FROM raw.events LIMIT 0");
  return f;
}

// Each key's batch as Overwrite plans it; the model keeps `t` (here: the rows of its window).
std::vector<PartitionOverwrite> Plan(const Emitter& emitter, const std::vector<PartitionKey>& keys,
                                     const std::string& select_of_window) {
  std::vector<PartitionOverwrite> planned;
  for (const PartitionKey& key : keys) {
    std::string select = select_of_window;
    for (const auto& [placeholder, at] : {std::pair{std::string("@start"), key.window().start},
                                          std::pair{std::string("@end"), key.window().end}}) {
      for (std::size_t i = select.find(placeholder); i != std::string::npos;
           i = select.find(placeholder)) {
        select.replace(i, placeholder.size(), emitter.TimestampLiteral(at));
      }
    }
    planned.push_back(std::move(emitter.Overwrite(kTarget, "t", key.window(), select)).value());
  }
  return planned;
}

std::vector<Emitter::BatchInsert> Inserts(const std::vector<PartitionKey>& keys,
                                          const std::vector<PartitionOverwrite>& planned) {
  std::vector<Emitter::BatchInsert> inserts;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    inserts.push_back({keys[i].window(), planned[i].insert});
  }
  return inserts;
}

// (row_count, checksum) of every key, one WindowStats query each.
std::vector<std::pair<std::int64_t, std::string>> StatsOneByOne(
    Fixture& f, const std::vector<PartitionKey>& keys) {
  std::vector<std::pair<std::int64_t, std::string>> stats;
  for (const PartitionKey& key : keys) {
    QueryResult result = Exec(*f.connection, *f.emitter.WindowStats(kTarget, "t", key.window()));
    stats.emplace_back(std::get<std::int64_t>(result.columns[0].values[0]),
                       ValueToString(result.columns[1].values[0]));
  }
  return stats;
}

// `count` consecutive keys of `grain` from `first`.
std::vector<PartitionKey> Keys(std::string_view first, Grain grain, int count) {
  std::vector<PartitionKey> keys{*PartitionKey::Parse(first, grain)};
  while (static_cast<int>(keys.size()) < count) keys.push_back(keys.back().Next());
  return keys;
}

// raw.events' rows of `keys` written into marts.fct by one grouped statement; what it returned,
// folded per key.
Result<FoldedRows> WriteGrouped(Fixture& f, Grain grain, const std::vector<PartitionKey>& keys) {
  const std::vector<PartitionOverwrite> planned =
      Plan(f.emitter, keys, "SELECT * FROM raw.events WHERE t >= @start AND t < @end");
  STRATA_ASSIGN_OR_RETURN(Emitter::GroupedWrite write,
                          f.emitter.Grouped(kTarget, "t", grain, Inserts(keys, planned)));
  Exec(*f.connection, write.delete_window);
  return f.connection->ExecuteFolded(write.insert, keys.size());
}

// (row_count, checksum) of each key, as StatsOneByOne reads them.
std::vector<std::pair<std::int64_t, std::string>> StatsOf(const FoldedRows& folded) {
  std::vector<std::pair<std::int64_t, std::string>> stats;
  for (const KeyFold& key : folded.keys) stats.emplace_back(key.rows, std::to_string(key.hash_sum));
  return stats;
}

TEST(DuckDbGroupedTest, TheStatisticsOfEveryKeyEqualWindowStatsForEveryGrainAndType) {
  struct Case {
    std::string type;
    Grain grain;
    std::string first;
    int keys;
    int hours;
  };
  const std::vector<Case> cases = {
      {"TIMESTAMP", Grain::kHour, "2026-01-01T00", 30, 40},
      {"TIMESTAMP", Grain::kDay, "2026-01-01", 20, 24 * 22},
      {"DATE", Grain::kDay, "2026-01-01", 20, 24 * 22},
      {"TIMESTAMPTZ", Grain::kDay, "2026-01-02", 10, 24 * 14},
      {"TIMESTAMP", Grain::kMonth, "2026-01", 3, 24 * 100},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type + " " + std::string(GrainName(c.grain)));
    Fixture f = Open(c.type, c.hours);
    const std::vector<PartitionKey> keys = Keys(c.first, c.grain, c.keys);
    Result<FoldedRows> folded = WriteGrouped(f, c.grain, keys);
    ASSERT_TRUE(folded.ok()) << folded.error().message;
    EXPECT_EQ(StatsOf(*folded), StatsOneByOne(f, keys));
    EXPECT_EQ(folded->unkeyed_rows, 0);
    const std::int64_t counted = folded->total_rows();
    EXPECT_GT(counted, 0);
    // The same rows as the source over the whole range.
    const Window whole{keys.front().start(), keys.back().window().end};
    const QueryResult source = Exec(*f.connection, "SELECT count(*) FROM raw.events WHERE " +
                                                       f.emitter.WindowPredicate("t", whole));
    EXPECT_EQ(std::get<std::int64_t>(source.columns[0].values[0]), counted);
  }
}

// A zoned model's keys (New York's days across the spring-forward change, the 23-hour day
// included) are numbered by their windows, not by UTC days from the range's start.
TEST(DuckDbGroupedTest, AZonedModelsKeysAreNumberedByTheirWindows) {
  Fixture f = Open("TIMESTAMP", 24 * 80);
  const TimeZone new_york = *TimeZone::Find("America/New_York");
  std::vector<PartitionKey> keys{*PartitionKey::Parse("2026-03-06", Grain::kDay, new_york)};
  while (keys.size() < 6) keys.push_back(keys.back().Next());
  const std::vector<PartitionOverwrite> planned =
      Plan(f.emitter, keys, "SELECT * FROM raw.events WHERE t >= @start AND t < @end");
  std::vector<Window> windows;
  windows.reserve(keys.size());
  for (const PartitionKey& key : keys) windows.push_back(key.window());
  auto write = f.emitter.Grouped(kTarget, "t", Grain::kDay, Inserts(keys, planned), &windows);
  ASSERT_TRUE(write.ok()) << write.error().message;
  Exec(*f.connection, write->delete_window);
  Result<FoldedRows> folded = f.connection->ExecuteFolded(write->insert, keys.size());
  ASSERT_TRUE(folded.ok()) << folded.error().message;
  EXPECT_EQ(StatsOf(*folded), StatsOneByOne(f, keys));
  EXPECT_EQ(folded->unkeyed_rows, 0);
  // The 23-hour day holds fewer rows than its neighbours: UTC day arithmetic would not say so.
  EXPECT_LT(folded->keys[2].rows, folded->keys[1].rows);
  // Without the windows, the UTC numbering misfiles rows (a New York day spans two UTC days).
  auto utc = f.emitter.Grouped(kTarget, "t", Grain::kDay, Inserts(keys, planned));
  ASSERT_TRUE(utc.ok());
  Exec(*f.connection, utc->delete_window);
  Result<FoldedRows> misfiled = f.connection->ExecuteFolded(utc->insert, keys.size());
  ASSERT_TRUE(misfiled.ok());
  EXPECT_NE(StatsOf(*misfiled), StatsOneByOne(f, keys));
}

// Before 1970 the cast of a TIMESTAMP_NS to TIMESTAMP rounds toward zero: half a microsecond
// before midnight becomes midnight. Such a row still belongs to the day before, as the window
// predicate says, in the grouped write's keys too.
TEST(DuckDbGroupedTest, ANanosecondRowJustBeforeMidnightBefore1970KeepsItsDay) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  Exec(*f.connection, "CREATE SCHEMA raw");
  Exec(*f.connection, "CREATE SCHEMA marts");
  Exec(*f.connection, "CREATE TABLE raw.events (t TIMESTAMP_NS, k INTEGER, v DOUBLE)");
  Exec(*f.connection,
       "INSERT INTO raw.events SELECT CAST(d AS TIMESTAMP_NS) + INTERVAL (h) HOUR, h, 1.5 FROM "
       "range(DATE '1969-12-29', DATE '1970-01-03', INTERVAL 1 DAY) AS r(d), "
       "(VALUES (0), (12)) AS hours(h)");
  for (const char* at : {"1969-12-29 23:59:59.9999995", "1969-12-30 23:59:59.999999999",
                         "1969-12-31 23:59:59.9999995", "1970-01-01 23:59:59.9999995"}) {
    Exec(*f.connection,
         fmt::format("INSERT INTO raw.events VALUES (CAST('{}' AS TIMESTAMP_NS), 99, 2.5)", at));
  }
  Exec(*f.connection, "CREATE TABLE marts.fct AS SELECT * FROM raw.events LIMIT 0");
  const std::vector<PartitionKey> keys = Keys("1969-12-29", Grain::kDay, 5);
  Result<FoldedRows> folded = WriteGrouped(f, Grain::kDay, keys);
  ASSERT_TRUE(folded.ok()) << folded.error().message;
  const auto expected = StatsOneByOne(f, keys);
  EXPECT_EQ(StatsOf(*folded), expected);
  ASSERT_EQ(expected.size(), 5U);
  EXPECT_EQ(expected[2].first, 3);  // 1969-12-31: 00:00, 12:00 and the last half microsecond
  EXPECT_EQ(folded->unkeyed_rows, 0);
  EXPECT_EQ(folded->total_rows(), 14);
}

TEST(DuckDbGroupedTest, TheGuardNamesTheBatchThatWroteIntoItsNeighbour) {
  Fixture f = Open("TIMESTAMP", 24 * 5);
  const PartitionKey first = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  const std::vector<PartitionKey> keys{first, first.Next(), first.Next().Next()};
  // Every batch shifts its rows a day back: the first batch's rows land before the range, the
  // others' in the window before theirs. The first batch fails first.
  std::vector<PartitionOverwrite> planned =
      Plan(f.emitter, keys,
           "SELECT t - INTERVAL 1 DAY AS t, k, v FROM raw.events WHERE t >= @start AND t < @end");
  auto write = f.emitter.Grouped(kTarget, "t", Grain::kDay, Inserts(keys, planned));
  ASSERT_TRUE(write.ok());
  Result<QueryResult> failed = f.connection->Execute(write->insert);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(Emitter::GuardFailedBatch(failed.error().message), std::optional<std::size_t>(0))
      << failed.error().message;
  // Only the third batch shifts, into the second's window: the guard names batch 2.
  planned = Plan(f.emitter, {keys[0], keys[1]},
                 "SELECT * FROM raw.events WHERE t >= @start AND t < @end");
  planned.push_back(Plan(f.emitter, {keys[2]},
                         "SELECT t - INTERVAL 1 HOUR AS t, k, v FROM raw.events "
                         "WHERE t >= @start AND t < @end")
                        .front());
  write = f.emitter.Grouped(kTarget, "t", Grain::kDay, Inserts(keys, planned));
  failed = f.connection->Execute(write->insert);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(Emitter::GuardFailedBatch(failed.error().message), std::optional<std::size_t>(2))
      << failed.error().message;
  // A NULL time column fails the guard too.
  planned[2] = Plan(f.emitter, {keys[2]},
                    "SELECT CAST(NULL AS TIMESTAMP) AS t, k, v FROM raw.events "
                    "WHERE t >= @start AND t < @end")
                   .front();
  write = f.emitter.Grouped(kTarget, "t", Grain::kDay, Inserts(keys, planned));
  failed = f.connection->Execute(write->insert);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(Emitter::GuardFailedBatch(failed.error().message), std::optional<std::size_t>(2));
}

TEST(DuckDbGroupedTest, AModelEndingInALineCommentStillGroups) {
  Fixture f = Open("TIMESTAMP", 24 * 3);
  const PartitionKey first = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  const std::vector<PartitionKey> keys{first, first.Next()};
  const std::vector<PartitionOverwrite> planned = Plan(
      f.emitter, keys, "SELECT * FROM raw.events WHERE t >= @start AND t < @end -- the last line");
  auto write = f.emitter.Grouped(kTarget, "t", Grain::kDay, Inserts(keys, planned));
  ASSERT_TRUE(write.ok());
  EXPECT_EQ(Exec(*f.connection, write->insert).row_count(), 2 * 24 * 60 / 7 + 1);
}

// Windows `days` (offsets from 2026-01-01) as day windows.
std::vector<Window> DayWindows(const std::vector<int>& days) {
  const PartitionKey first = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  std::vector<Window> windows;
  for (const int day : days) {
    PartitionKey key = first;
    for (int i = 0; i < day; ++i) key = key.Next();
    windows.push_back(key.window());
  }
  return windows;
}

// WindowStatsByKey's key gives each row the window WindowStats counts it in: for 1 to 13 windows,
// contiguous or with gaps, over rows on every boundary, a microsecond either side, at noon, before,
// after and NULL.
TEST(DuckDbGroupedTest, TheKeyOfEveryRowIsTheWindowWindowStatsCountsItIn) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  Exec(*f.connection, "CREATE SCHEMA marts");
  Exec(*f.connection,
       "CREATE TABLE marts.fct AS SELECT TIMESTAMP '2025-12-30 00:00:00' + to_hours(d * 24) + "
       "to_microseconds(o) AS t, d * 10 + o AS v FROM range(22) AS days(d), "
       "(VALUES (-1), (0), (1), (43200000000)) AS offsets(o)");
  Exec(*f.connection, "INSERT INTO marts.fct VALUES (NULL, -7)");
  for (int n = 1; n <= 13; ++n) {
    for (const bool gaps : {false, true}) {
      std::vector<int> days;
      for (int day = 0; static_cast<int>(days.size()) < n; ++day) {
        if (!gaps || day % 3 != 1) days.push_back(day);
      }
      SCOPED_TRACE(fmt::format("{} windows, gaps {}", n, gaps));
      const std::vector<Window> windows = DayWindows(days);
      auto by_key = f.emitter.WindowStatsByKey(kTarget, "t", windows);
      ASSERT_TRUE(by_key.ok());
      std::vector<std::pair<std::int64_t, std::string>> grouped(windows.size(), {0, "0"});
      const QueryResult result = Exec(*f.connection, *by_key);
      for (std::size_t row = 0; row < result.row_count(); ++row) {
        // The rows in the gaps between windows: no window's.
        if (std::holds_alternative<std::monostate>(result.columns[0].values[row])) {
          EXPECT_TRUE(gaps);
          continue;
        }
        const auto key =
            static_cast<std::size_t>(std::stoi(ValueToString(result.columns[0].values[row])));
        ASSERT_LT(key, windows.size());
        grouped[key] = {std::get<std::int64_t>(result.columns[1].values[row]),
                        ValueToString(result.columns[2].values[row])};
      }
      std::vector<std::pair<std::int64_t, std::string>> one_by_one;
      for (const Window& window : windows) {
        const QueryResult one = Exec(*f.connection, *f.emitter.WindowStats(kTarget, "t", window));
        one_by_one.emplace_back(std::get<std::int64_t>(one.columns[0].values[0]),
                                ValueToString(one.columns[1].values[0]));
        EXPECT_EQ(one_by_one.back().first,
                  4);  // the day's midnight, +1 us, noon and 23:59:59.999999
      }
      EXPECT_EQ(grouped, one_by_one);
    }
  }
}

// A table of many column types, one column the SELECT does not name (NULL) and the SELECT's
// columns in another order than the table's: what InsertReturningStats folds equals what
// WindowStats reads back, key by key, and a row outside every window is unkeyed.
TEST(DuckDbReturningStatsTest, TheFoldsEqualWindowStatsForManyTypes) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  Exec(*f.connection, "CREATE SCHEMA marts");
  Exec(*f.connection,
       "CREATE TABLE marts.fct (t TIMESTAMP, d DECIMAL(38, 2), s VARCHAR, z TIMESTAMPTZ, "
       "l INTEGER[], st STRUCT(a INTEGER, b VARCHAR), missing BIGINT, h HUGEINT, f DOUBLE)");
  const PartitionKey first = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  const std::vector<PartitionKey> keys{first, first.Next(), first.Next().Next()};
  const std::string select =
      "SELECT i * 0.25 AS d, TIMESTAMP '2026-01-01 00:00:00' + to_minutes(i * 17) AS t, "
      "CASE WHEN i % 5 = 0 THEN NULL ELSE 'é' || i END AS s, i / 3.0 AS f, "
      "CAST(TIMESTAMP '2026-01-01 00:00:00' AS TIMESTAMPTZ) AS z, [i, NULL] AS l, "
      "{'a': i, 'b': NULL} AS st, CAST(i AS HUGEINT) * 1000000000000 AS h "
      "FROM range(260) AS r(i)";
  // One statement for two windows (a batch of batch_size 2) whose SELECT also writes rows past
  // them (the third day and beyond): those are unkeyed, the guard's count.
  auto planned = f.emitter.Overwrite(kTarget, "t", keys[0].window(), select);
  ASSERT_TRUE(planned.ok());
  auto insert = f.emitter.InsertReturningStats(kTarget, "t", planned->insert,
                                               {keys[0].window(), keys[1].window()});
  ASSERT_TRUE(insert.ok()) << insert.error().message;
  Result<FoldedRows> folded = f.connection->ExecuteFolded(*insert, 2);
  ASSERT_TRUE(folded.ok()) << folded.error().message;
  const auto expected = StatsOneByOne(f, {keys[0], keys[1]});
  ASSERT_EQ(folded->keys.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(folded->keys[i].rows, expected[i].first);
    EXPECT_EQ(std::to_string(folded->keys[i].hash_sum), expected[i].second);
    EXPECT_GT(folded->keys[i].rows, 0);
  }
  const QueryResult outside = Exec(*f.connection,
                                   "SELECT count(*) FROM marts.fct WHERE t >= '2026-01-03' OR t "
                                   "IS NULL");
  EXPECT_EQ(folded->unkeyed_rows, std::get<std::int64_t>(outside.columns[0].values[0]));
  EXPECT_GT(folded->unkeyed_rows, 0);
  EXPECT_EQ(folded->total_rows(), 260);
}

// A one-column table: the hash of one argument is the hash of the one-field row.
TEST(DuckDbReturningStatsTest, AOneColumnTableFoldsAsWindowStats) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  Exec(*f.connection, "CREATE SCHEMA marts");
  Exec(*f.connection, "CREATE TABLE marts.fct (t DATE)");
  const PartitionKey key = *PartitionKey::Parse("2026-01", Grain::kMonth);
  auto planned = f.emitter.Overwrite(
      kTarget, "t", key.window(),
      "SELECT DATE '2026-01-01' + CAST(i AS INTEGER) AS t FROM range(31) AS r(i)");
  ASSERT_TRUE(planned.ok());
  auto insert = f.emitter.InsertReturningStats(kTarget, "t", planned->insert, {key.window()});
  ASSERT_TRUE(insert.ok());
  Result<FoldedRows> folded = f.connection->ExecuteFolded(*insert, 1);
  ASSERT_TRUE(folded.ok()) << folded.error().message;
  const auto expected = StatsOneByOne(f, {key});
  EXPECT_EQ(folded->keys[0].rows, 31);
  EXPECT_EQ(std::to_string(folded->keys[0].hash_sum), expected[0].second);
}

// WindowStats names the row by its alias strata_row; a table column of that name must not take
// its place: the statistics read back equal the ones the insert returned, equal what earlier
// versions recorded (hash of the row struct, here of a table whose column has another name), and
// a change in another column changes them.
TEST(DuckDbReturningStatsTest, AColumnNamedLikeTheRowAliasIsStillTheWholeRow) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  Exec(*f.connection, "CREATE SCHEMA marts");
  Exec(*f.connection, "CREATE TABLE marts.fct (t DATE, strata_row INTEGER, v VARCHAR)");
  const PartitionKey key = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  auto planned =
      f.emitter.Overwrite(kTarget, "t", key.window(),
                          "SELECT DATE '2026-01-01' AS t, 7 AS strata_row, 'v' || i AS v "
                          "FROM range(5) AS r(i)");
  ASSERT_TRUE(planned.ok());
  auto insert = f.emitter.InsertReturningStats(kTarget, "t", planned->insert, {key.window()});
  ASSERT_TRUE(insert.ok());
  Result<FoldedRows> folded = f.connection->ExecuteFolded(*insert, 1);
  ASSERT_TRUE(folded.ok()) << folded.error().message;
  const auto read_back = StatsOneByOne(f, {key});
  EXPECT_EQ(read_back[0].first, 5);
  EXPECT_EQ(std::to_string(folded->keys[0].hash_sum), read_back[0].second);
  const QueryResult struct_hash =
      Exec(*f.connection,
           "SELECT CAST(SUM(hash(p)) % 18446744073709551616 AS UBIGINT) FROM (SELECT t, strata_row "
           "AS n, v FROM marts.fct) AS p");
  EXPECT_EQ(ValueToString(struct_hash.columns[0].values[0]), read_back[0].second);
  Exec(*f.connection, "UPDATE marts.fct SET v = v || 'x'");
  EXPECT_NE(StatsOneByOne(f, {key})[0].second, read_back[0].second);
}

// The adapter's vector fold and the generic fold of the typed values agree, over several chunks,
// INTEGER and BIGINT keys, NULL and out-of-range keys, UBIGINT and BIGINT hashes.
TEST(DuckDbReturningStatsTest, TheVectorFoldEqualsTheGenericFold) {
  Fixture f;
  f.warehouse = std::move(OpenDuckDb(":memory:")).value();
  f.connection = std::move(f.warehouse->Connect()).value();
  for (const std::string sql :
       {"SELECT CAST(CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END AS INTEGER) AS key_index, "
        "hash(i) AS row_hash FROM range(10000) AS r(i)",
        "SELECT i % 9 - 1 AS key_index, CAST(hash(i) % 1000000 AS BIGINT) - 500000 AS row_hash "
        "FROM range(5000) AS r(i)"}) {
    SCOPED_TRACE(sql);
    Result<FoldedRows> fast = f.connection->ExecuteFolded(sql, 6);
    Result<FoldedRows> generic = FoldRows(Exec(*f.connection, sql), 6);
    ASSERT_TRUE(fast.ok() && generic.ok());
    ASSERT_EQ(fast->keys.size(), 6U);
    for (std::size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(fast->keys[i].rows, generic->keys[i].rows);
      EXPECT_EQ(fast->keys[i].hash_sum, generic->keys[i].hash_sum);
      EXPECT_GT(fast->keys[i].rows, 0);
    }
    EXPECT_EQ(fast->unkeyed_rows, generic->unkeyed_rows);
    EXPECT_GT(fast->unkeyed_rows, 0);
  }
  // Another shape is refused, not misread.
  EXPECT_FALSE(f.connection->ExecuteFolded("SELECT 1 AS a", 1).ok());
  EXPECT_FALSE(f.connection->ExecuteFolded("SELECT 0 AS key_index, NULL AS row_hash", 1).ok());
}

}  // namespace
}  // namespace strata::warehouse
