// Emitter::Grouped against real DuckDB: one statement writes several batches with the same rows,
// counts and checksums as writing them one by one, and its guard names the batch that wrote
// outside its window.
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
    const PartitionKey first = *PartitionKey::Parse(c.first, c.grain);
    std::vector<PartitionKey> keys{first};
    while (static_cast<int>(keys.size()) < c.keys) keys.push_back(keys.back().Next());
    const std::vector<PartitionOverwrite> planned =
        Plan(f.emitter, keys, "SELECT * FROM raw.events WHERE t >= @start AND t < @end");
    auto write = f.emitter.Grouped(kTarget, "t", c.grain, Inserts(keys, planned));
    ASSERT_TRUE(write.ok()) << write.error().message;
    Exec(*f.connection, write->delete_window);
    const QueryResult inserted = Exec(*f.connection, write->insert);
    const QueryResult grouped = Exec(*f.connection, write->stats);
    const auto expected = StatsOneByOne(f, keys);
    std::vector<std::pair<std::int64_t, std::string>> actual(keys.size(), {0, "0"});
    std::int64_t counted = 0;
    for (std::size_t row = 0; row < grouped.row_count(); ++row) {
      const std::int64_t index = std::get<std::int64_t>(grouped.columns[0].values[row]);
      ASSERT_GE(index, 0);
      ASSERT_LT(index, static_cast<std::int64_t>(keys.size()));
      actual[static_cast<std::size_t>(index)] = {
          std::get<std::int64_t>(grouped.columns[1].values[row]),
          ValueToString(grouped.columns[2].values[row])};
      counted += actual[static_cast<std::size_t>(index)].first;
    }
    EXPECT_EQ(actual, expected);
    EXPECT_EQ(counted, inserted.rows_changed);
    EXPECT_GT(counted, 0);
    // The same rows as the source over the whole range.
    const Window whole{keys.front().start(), keys.back().window().end};
    const QueryResult source = Exec(*f.connection, "SELECT count(*) FROM raw.events WHERE " +
                                                       f.emitter.WindowPredicate("t", whole));
    EXPECT_EQ(std::get<std::int64_t>(source.columns[0].values[0]), counted);
  }
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
  EXPECT_EQ(Exec(*f.connection, write->insert).rows_changed, 2 * 24 * 60 / 7 + 1);
}

}  // namespace
}  // namespace strata::warehouse
