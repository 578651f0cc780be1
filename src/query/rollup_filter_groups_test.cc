// Filter groups and `offset` through the router and the rollup SQL (the fixture:
// query/testing/rollup_query_fixture.h): a group answers from a rollup only when every member it
// reads is a stored dimension (else filter_not_stored), and every answer equals the live one,
// NULLs under `not` included; `offset` pages the same rows live and from a rollup, within the
// max_rows cap.
#include <string>
#include <vector>

#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

using testing::RollupQueryTest;

const char* const kDaily = R"(rollups:
  - name: daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count, avg_amount]
    partition: { by: month }
)";

std::string Query(const std::string& filters, const std::string& rest = "") {
  return R"({"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
             "filters": [)" +
         filters + "]" + rest + "}";
}

// The region of every fourth customer is NULL in the fixture.
TEST_F(RollupQueryTest, GroupsOnStoredDimensionsAnswerFromTheRollup) {
  Load(kDaily);
  Build();
  const std::string north = R"({"member": "Customer.region", "op": "equals", "values": ["north"]})";
  const std::string paid = R"({"member": "Order.status", "op": "equals", "values": ["paid"]})";
  const std::string january =
      R"({"and": [{"member": "Order.order_date", "op": "gte", "values": ["2026-01-01"]},
                  {"member": "Order.order_date", "op": "lt", "values": ["2026-02-01"]}]})";
  for (const std::string& filters : std::vector<std::string>{
           "{\"or\": [" + north + ", " + paid + "]}",
           "{\"not\": " + north + "}",
           "{\"not\": {\"or\": [" + north + ", " + paid + "]}}",
           "{\"or\": [{\"not\": " + january + "}, {\"and\": [" + paid + ", {\"not\": " + north +
               "}]}]}",
           R"({"or": [{"member": "Order.customer.region", "op": "not_set"},
                      {"not": {"member": "Order.status", "op": "not_equals", "values": ["x"]}}]})",
       }) {
    SCOPED_TRACE(filters);
    EXPECT_EQ(ExpectSameAnswer(Query(filters)), "daily");
  }
  // `not` is SQL's NOT: a NULL region is neither north nor not north.
  const auto total = [&](const std::string& filters) {
    auto answer = Ask(R"({"measures": ["Order.order_count"], "filters": [)" + filters + "]}", true);
    EXPECT_TRUE(answer.ok());
    EXPECT_EQ(answer->used, std::vector<std::string>{"daily"});
    return answer->rows.at(0).at(0).get<std::int64_t>();
  };
  const std::int64_t all = total("");
  const std::int64_t in_north = total(north);
  const std::int64_t not_north = total("{\"not\": " + north + "}");
  const std::int64_t no_region = total(R"({"member": "Customer.region", "op": "not_set"})");
  EXPECT_GT(no_region, 0);
  EXPECT_EQ(in_north + not_north + no_region, all);
  EXPECT_EQ(total(R"({"member": "Customer.region", "op": "not_equals", "values": ["north"]})"),
            not_north + no_region);
}

TEST_F(RollupQueryTest, AGroupReadingAnUnstoredMemberGoesLive) {
  Load(kDaily);
  Build();
  const std::string paid = R"({"member": "Order.status", "op": "equals", "values": ["paid"]})";
  for (
      const std::string& filters : {
          "{\"or\": [" + paid +
              R"(, {"member": "Order.channel", "op": "equals", "values": ["web"]}]})",
          "{\"not\": {\"and\": [" + paid +
              R"(, {"member": "Order.order_id", "op": "gt", "values": [10]}]}})",
          // Not on a day boundary: a stored day cannot say which of its orders are before noon.
          "{\"or\": [" + paid +
              R"(, {"member": "Order.order_date", "op": "lt", "values": ["2026-01-01 12:00:00"]}]})",
      }) {
    SCOPED_TRACE(filters);
    EXPECT_EQ(Reason(Query(filters), "daily"), "filter_not_stored");
    EXPECT_EQ(ExpectSameAnswer(Query(filters)), "");
  }
}

TEST_F(RollupQueryTest, MeasureGroupsFilterTheRollupsAggregates) {
  Load(kDaily);
  Build();
  const std::string query = R"({"measures": ["Order.revenue", "Order.avg_amount"],
      "dimensions": ["Order.status", "Customer.region"],
      "filters": [{"or": [{"member": "Order.order_count", "op": "gt", "values": [1500]},
                          {"not": {"member": "Order.avg_amount", "op": "lt", "values": [50]}}]},
                  {"not": {"member": "Customer.region", "op": "equals", "values": ["east"]}}]})";
  EXPECT_EQ(ExpectSameAnswer(query), "daily");
}

TEST_F(RollupQueryTest, OffsetPagesTheSameRowsLiveAndFromARollup) {
  Load(kDaily);
  Build();
  // 3 statuses x 4 regions (NULL included) = 12 rows.
  const std::string by_pair = R"({"measures": ["Order.revenue"],
      "dimensions": ["Order.status", "Customer.region"],
      "order": [{"member": "Order.revenue", "desc": true}])";
  const auto rows = [&](const std::string& rest, bool routed,
                        std::optional<std::int64_t> max_rows) -> Result<std::size_t> {
    query::QueryContext context;
    context.live = [this]() -> Result<warehouse::Connection*> { return connection_.get(); };
    if (routed) {
      context.store = &*store_;
      context.engine = engine_connection_.get();
    }
    STRATA_ASSIGN_OR_RETURN(
        query::QueryResponse response,
        query::Answer(model_, context, by_pair + rest + "}", {std::nullopt, max_rows}));
    EXPECT_EQ(response.used.empty(), !routed) << rest;
    return response.rows.size();
  };
  const std::string all = ExpectSameAnswer(by_pair + "}");
  EXPECT_EQ(all, "daily");
  for (const char* rest : {R"(, "limit": 4, "offset": 3)", R"(, "offset": 5)", R"(, "offset": 12)",
                           R"(, "offset": 100, "limit": 1)"}) {
    SCOPED_TRACE(rest);
    EXPECT_EQ(ExpectSameAnswer(by_pair + rest + "}"), "daily");
  }
  for (const bool routed : {false, true}) {
    SCOPED_TRACE(routed ? "rollup" : "live");
    EXPECT_EQ(rows(R"(, "offset": 5)", routed, std::nullopt).value(), 7u);
    // The cap counts the rows after the offset: a page within it answers, a longer one is
    // refused whole, never cut.
    EXPECT_EQ(rows(R"(, "offset": 9)", routed, 3).value(), 3u);
    EXPECT_EQ(rows(R"(, "offset": 2, "limit": 3)", routed, 3).value(), 3u);
    auto over = rows(R"(, "offset": 8)", routed, 3);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.error().code, ErrorCode::kQueryInvalid);
  }
}

}  // namespace
}  // namespace strata::rollup
