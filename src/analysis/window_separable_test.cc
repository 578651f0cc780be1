#include "analysis/window_separable.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata::analysis {
namespace {

constexpr std::string_view kWindow = "WHERE ts >= @start_date AND ts < @end_date\n";

bool Separable(const std::string& sql, std::string_view time_column = "d",
               Grain grain = Grain::kDay) {
  return ProveWindowSeparable(sql, sql::Dialect::kDuckDb, time_column, grain);
}

TEST(WindowSeparableTest, ADailyAggregateGroupedByItsDayIsSeparable) {
  EXPECT_TRUE(Separable(
      "SELECT DATE_TRUNC('day', ts) AS d, customer_id, COUNT(*) AS n, SUM(amount) AS revenue\n"
      "FROM events\n" +
      std::string(kWindow) + "GROUP BY 1, 2"));
  // By expression, by GROUP BY ALL, with HAVING, a distinct count and row predicates.
  EXPECT_TRUE(Separable("SELECT DATE_TRUNC('day', ts) AS d, COUNT(DISTINCT c) AS n FROM events\n" +
                        std::string(kWindow) +
                        "  AND CASE WHEN c = 3 THEN error('boom') ELSE true END\n"
                        "GROUP BY DATE_TRUNC('day', ts) HAVING COUNT(*) > 1"));
  EXPECT_TRUE(
      Separable("SELECT DATE_TRUNC('day', e.ts) AS d, r.region, COUNT(*) AS n\n"
                "FROM events AS e JOIN regions AS r ON r.id = e.region_id\n"
                "WHERE e.ts >= @start_date AND e.ts < @end_date GROUP BY ALL"));
  // A rollup of a daily model: the time column itself is the key.
  EXPECT_TRUE(
      Separable("SELECT d, SUM(n) AS n FROM daily\n"
                "WHERE d >= @start_date AND d < @end_date GROUP BY 1"));
  // A finer key than the grain: each group is still inside one partition.
  EXPECT_TRUE(Separable("SELECT DATE_TRUNC('hour', ts) AS d, COUNT(*) AS n FROM events\n" +
                        std::string(kWindow) + "GROUP BY 1"));
}

TEST(WindowSeparableTest, RowByRowModelsAreSeparable) {
  EXPECT_TRUE(
      Separable("SELECT ts AS d, id, lower(name) AS name, COALESCE(x, 0) AS x\n"
                "FROM events\n" +
                std::string(kWindow)));
  // The quoted placeholders, either way round, in casts.
  EXPECT_TRUE(
      Separable("SELECT ts, id FROM events\n"
                "WHERE '@start_date'::TIMESTAMP <= ts AND CAST(@end_date AS TIMESTAMP) > ts",
                "ts"));
  // A finer truncation than a day grain's keeps each row in its day.
  EXPECT_TRUE(
      Separable("SELECT DATE_TRUNC('hour', ts) AS d, id FROM events\n" + std::string(kWindow)));
}

TEST(WindowSeparableTest, RowsThatDependOnTheWindowAreNotProven) {
  const std::string from = "FROM events\n" + std::string(kWindow);
  // Window functions, a whole-window aggregate, a key coarser than the grain or crossing it.
  EXPECT_FALSE(Separable("SELECT ts AS d, COUNT(*) OVER () AS n " + from));
  EXPECT_FALSE(
      Separable("SELECT DATE_TRUNC('day', ts) AS d, c, COUNT(*) OVER (PARTITION BY c) "
                "AS n " +
                from + "GROUP BY 1, 2"));
  EXPECT_FALSE(Separable("SELECT MIN(ts) AS d, COUNT(*) AS n " + from));
  EXPECT_FALSE(Separable("SELECT MIN(ts) AS d, c, COUNT(*) AS n " + from + "GROUP BY c"));
  EXPECT_FALSE(Separable("SELECT DATE_TRUNC('day', MIN(ts)) AS d, COUNT(*) AS n " + from +
                         "GROUP BY DATE_TRUNC('month', ts)"));
  // A coarser key beside the day's keeps the groups inside a day.
  EXPECT_TRUE(Separable("SELECT DATE_TRUNC('day', ts) AS d, COUNT(*) AS n " + from +
                        "GROUP BY DATE_TRUNC('month', ts), 1"));
  EXPECT_FALSE(
      Separable("SELECT DATE_TRUNC('week', ts) AS d, COUNT(*) AS n " + from + "GROUP BY 1"));
  EXPECT_FALSE(Separable("SELECT DATE_TRUNC('day', ts) AS d, COUNT(*) AS n " + from + "GROUP BY 1",
                         "d", Grain::kHour));
  EXPECT_FALSE(Separable("SELECT ts AS d, SUM(x) AS n " + from + "GROUP BY ROLLUP (ts)"));
  EXPECT_FALSE(Separable("SELECT DISTINCT ts AS d, c " + from));
  EXPECT_FALSE(Separable("SELECT ts AS d, c " + from + "LIMIT 10"));
  EXPECT_FALSE(Separable("SELECT ts AS d, c " + from + "QUALIFY c > 1"));
  // A function the list does not know may be an aggregate.
  EXPECT_FALSE(Separable("SELECT ts AS d, my_macro(c) AS c " + from));
  // The placeholders anywhere else, or another one.
  EXPECT_FALSE(Separable("SELECT ts AS d, @start_date AS since " + from));
  EXPECT_FALSE(Separable("SELECT ts AS d, '@end_date' AS until " + from));
  EXPECT_FALSE(Separable("SELECT ts AS d FROM events JOIN dims ON dims.at < @end_date\n" +
                         std::string(kWindow)));
  EXPECT_FALSE(Separable("SELECT ts AS d " + from + "  AND c = @customer"));
}

TEST(WindowSeparableTest, OnlyTheTwoHalfOpenConjunctsOnOneColumnCount) {
  const auto with_where = [](const std::string& where) {
    return Separable("SELECT ts AS d, c FROM events WHERE " + where);
  };
  EXPECT_TRUE(with_where("(ts >= @start_date) AND (ts < @end_date) AND c > 0"));
  EXPECT_FALSE(with_where("ts > @start_date AND ts < @end_date"));
  EXPECT_FALSE(with_where("ts >= @start_date AND ts <= @end_date"));
  EXPECT_FALSE(with_where("ts BETWEEN @start_date AND @end_date"));
  EXPECT_FALSE(with_where("(ts >= @start_date AND ts < @end_date) OR c IS NULL"));
  EXPECT_FALSE(with_where("ts >= @start_date AND created_at < @end_date"));
  EXPECT_FALSE(with_where("events.ts >= @start_date AND ts < @end_date"));
  EXPECT_FALSE(with_where("ts + INTERVAL 1 HOUR >= @start_date AND ts < @end_date"));
  EXPECT_FALSE(with_where("ts >= @start_date - INTERVAL 1 DAY AND ts < @end_date"));
  // The output time column must come from the bounded column.
  EXPECT_FALSE(Separable("SELECT created_at AS d FROM events\n" + std::string(kWindow)));
  EXPECT_FALSE(Separable("SELECT * FROM events\n" + std::string(kWindow), "created_at"));
  EXPECT_FALSE(Separable("SELECT ts AS d, ts AS d FROM events\n" + std::string(kWindow)));
}

TEST(WindowSeparableTest, TheStoredTimeColumnMustBeTheNamedItem) {
  // Found in review: a star's columns are unknown here (REPLACE may put any time under the
  // column's name, a struct's star may be another ts, a duplicate name is renamed), and an
  // unaliased parenthesized column is named like the column.
  const std::string window(kWindow);
  EXPECT_FALSE(Separable("SELECT * FROM events\n" + window, "ts"));
  EXPECT_FALSE(
      Separable("SELECT * REPLACE (DATE_TRUNC('month', ts) AS ts) FROM events\n" + window, "ts"));
  EXPECT_FALSE(
      Separable("SELECT *, ts2 AS ts FROM events\n"
                "WHERE ts2 >= @start_date AND ts2 < @end_date",
                "ts"));
  EXPECT_FALSE(Separable("SELECT payload.*, ts AS d FROM events\n" + window));
  EXPECT_FALSE(Separable("SELECT (payload.ts), ts AS d FROM events\n" + window));
  EXPECT_FALSE(Separable("SELECT ts AS d, COLUMNS('x_.*') FROM events\n" + window));
  // A cast also takes a string column, whose bounds compare as text: not the time.
  EXPECT_FALSE(Separable("SELECT CAST(ts AS DATE) AS d, COUNT(*) AS n FROM events\n" + window +
                         "GROUP BY 1"));
  // Other items may be unaliased columns and expressions.
  EXPECT_TRUE(Separable("SELECT ts AS d, e.k, k + 1, upper(name) FROM events AS e\n" + window));
}

TEST(WindowSeparableTest, TheWindowIsComparedWithTheColumnAsATime) {
  // Found in review: a string column bounded through a cast is stored, guarded and deleted as
  // text; a placeholder cast to text compares a DATE column as text.
  EXPECT_FALSE(
      Separable("SELECT event_time AS d, k FROM events\n"
                "WHERE CAST(event_time AS TIMESTAMP) >= @start_date\n"
                "  AND CAST(event_time AS TIMESTAMP) < @end_date"));
  EXPECT_FALSE(
      Separable("SELECT d, k FROM events\n"
                "WHERE d >= CAST(@start_date AS VARCHAR) AND d < @end_date"));
  EXPECT_TRUE(
      Separable("SELECT d, k FROM events\n"
                "WHERE d >= CAST(@start_date AS DATE) AND d < @end_date::TIMESTAMP"));
  EXPECT_TRUE(
      Separable("SELECT DATE_TRUNC('day', ts) AS d, COUNT(*) AS n FROM events\n"
                "WHERE DATE_TRUNC('day', ts) >= @start_date AND ts < @end_date\n"
                "GROUP BY 1"));
}

TEST(WindowSeparableTest, HourGrainsAreNotProven) {
  // A DATE column compared with an hour's bounds is compared with its day, and the proof does
  // not know the column's type.
  EXPECT_FALSE(
      Separable("SELECT DATE_TRUNC('hour', d) AS h, COUNT(*) AS n FROM events\n"
                "WHERE d >= @start_date AND d < @end_date GROUP BY 1",
                "h", Grain::kHour));
  EXPECT_FALSE(
      Separable("SELECT ts AS h, k FROM events\n" + std::string(kWindow), "h", Grain::kHour));
  EXPECT_TRUE(
      Separable("SELECT ts AS h, k FROM events\n" + std::string(kWindow), "h", Grain::kMonth));
}

TEST(WindowSeparableTest, QualifiedCallsAndTheQueryTextAreNotTrusted) {
  const std::string from = "FROM events\n" + std::string(kWindow);
  EXPECT_FALSE(Separable("SELECT ts AS d, s.lower(name) AS n " + from));
  EXPECT_FALSE(Separable("SELECT ts AS d, name.lower() AS n " + from));
  EXPECT_FALSE(Separable("SELECT DATE_TRUNC('day', ts) AS d, current_query() AS q, COUNT(*) AS n " +
                         from + "GROUP BY 1, 2"));
  EXPECT_TRUE(Separable("SELECT ts AS d, lower(name) AS n " + from));
}

TEST(WindowSeparableTest, QueriesInsideTheQueryAreNotProven) {
  const std::string window(kWindow);
  EXPECT_FALSE(Separable("SELECT ts AS d FROM events " + window +
                         "  AND c NOT IN (SELECT c FROM daily WHERE d < DATE '2025-01-01')"));
  EXPECT_FALSE(Separable("WITH e AS (SELECT * FROM events) SELECT ts AS d FROM e " + window));
  EXPECT_FALSE(Separable("SELECT ts AS d FROM (FROM events) AS e " + window));
  EXPECT_FALSE(Separable("SELECT ts AS d FROM events " + window +
                         "UNION ALL SELECT ts AS d FROM more " + window));
  EXPECT_FALSE(Separable("SELECT ts AS d, (SELECT max(x) FROM dims) AS m FROM events " + window));
  EXPECT_FALSE(Separable("SELECT ts AS d FROM events WHERE"));  // does not parse
  EXPECT_FALSE(Separable("SELECT 'unterminated"));              // does not lex
}

// What a caller checks against the warehouse's own functions (a macro named lower could hide a
// window function behind a name the proof trusts).
TEST(WindowSeparableTest, CalledNamesListsEveryNameBeforeAParenthesisOnce) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(CalledNames("SELECT LOWER (name), s.Upper(x), x.trim(), \"My\"\"Fn\"(y), lower(z)\n"
                        "FROM t WHERE c IN (1) -- f(x)\n AND 'g(' = CAST(a AS INT)",
                        sql::Dialect::kDuckDb),
            (Names{"cast", "in", "lower", "my\"fn", "trim", "upper"}));
  EXPECT_EQ(CalledNames("SELECT 1 FROM t", sql::Dialect::kDuckDb), Names{});
  EXPECT_EQ(CalledNames("SELECT 'unterminated", sql::Dialect::kDuckDb), Names{});
}

}  // namespace
}  // namespace strata::analysis
