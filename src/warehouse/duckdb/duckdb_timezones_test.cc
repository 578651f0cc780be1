// Strata computes every zoned window itself (base/time.h, over the system tz database); the SQL a
// user writes converts with the warehouse's zone data (DuckDB's ICU). The two must agree on every
// transition the tests use, or a model's hand-written AT TIME ZONE and strata's windows would
// disagree by an hour. This reads each transition of the test zones, 2008-2028, on both sides.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/time.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::warehouse {
namespace {

// Every instant at which `zone`'s offset changes in [from, to), and a second before each.
std::vector<UnixSeconds> TransitionsAround(const TimeZone& zone, UnixSeconds from, UnixSeconds to) {
  std::vector<UnixSeconds> instants;
  for (UnixSeconds t = from; t < to;) {
    const UnixSeconds end = zone.OffsetSpan(t).second;
    if (end >= to) break;
    instants.push_back(end - 1);
    instants.push_back(end);
    t = end;
  }
  return instants;
}

TEST(DuckDbTimeZonesTest, IcuAndTheSystemTzDatabaseAgreeOnEveryTransitionTheTestsUse) {
  auto warehouse = std::move(OpenDuckDb(":memory:")).value();
  auto connection = std::move(warehouse->Connect()).value();
  const UnixSeconds from = *ParseIso8601("2008-01-01T00:00:00Z");
  const UnixSeconds to = *ParseIso8601("2028-01-01T00:00:00Z");
  int checked = 0;
  for (const char* name : {"America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
                           "Asia/Kolkata", "Pacific/Apia", "Pacific/Kiritimati"}) {
    const TimeZone zone = *TimeZone::Find(name);
    std::vector<UnixSeconds> instants = TransitionsAround(zone, from, to);
    instants.push_back(from);  // zones without transitions are still compared once
    std::string values;
    for (const UnixSeconds t : instants) {
      values +=
          fmt::format("{}(TIMESTAMPTZ '{}+00')", values.empty() ? "" : ", ", FormatSqlTimestamp(t));
    }
    const std::string sql = fmt::format(
        "SELECT CAST(CAST(t AT TIME ZONE '{}' AS TIMESTAMP) AS VARCHAR) FROM (VALUES {}) AS v(t) "
        "ORDER BY t",
        name, values);
    Result<QueryResult> result = connection->Execute(sql);
    ASSERT_TRUE(result.ok()) << result.error().ToString();
    ASSERT_EQ(result->row_count(), instants.size()) << name;
    std::sort(instants.begin(), instants.end());
    for (std::size_t i = 0; i < instants.size(); ++i) {
      const std::string icu = ValueToString(result->columns[0].values[i]);
      const std::string ours = FormatSqlTimestamp(ToUnixSeconds(zone.ToLocal(instants[i])));
      EXPECT_EQ(icu, ours) << name << " at " << FormatIso8601(instants[i]);
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);  // New York and Berlin alone change twice a year
}

}  // namespace
}  // namespace strata::warehouse
