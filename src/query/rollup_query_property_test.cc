// The rollup property test (slow tier): random rollup definitions and random queries, rollup
// answer == live answer (sketches included: a merged HLL is the HLL of the union, so even
// approximate distinct counts agree exactly). The fixture: query/testing/rollup_query_fixture.h.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

using nlohmann::json;
using testing::RollupQueryTest;

// A random and/or/not group over the fixture's dimensions (status, channel, customer.region,
// order_date on day boundaries), NULL regions included: its rows are the live ones whether or not
// a rollup stores every member it reads.
json RandomGroup(std::mt19937& random, int depth) {
  const auto filter = [&]() -> json {
    switch (random() % 5) {
      case 0:
        return {{"member", "Order.status"}, {"op", "equals"}, {"values", {"paid"}}};
      case 1:
        return {{"member", "Order.channel"}, {"op", "not_equals"}, {"values", {"web"}}};
      case 2:
        return {{"member", "Customer.region"}, {"op", "equals"}, {"values", {"north", "east"}}};
      case 3:
        return {{"member", "Customer.region"}, {"op", "not_set"}};
      default:
        return {{"member", "Order.order_date"},
                {"op", random() % 2 ? "gte" : "lt"},
                {"values", {"2026-01-01"}}};
    }
  };
  const auto item = [&]() {
    return depth > 1 && random() % 2 ? RandomGroup(random, depth - 1) : filter();
  };
  switch (random() % 3) {
    case 0:
      return {{"not", item()}};
    case 1:
      return {{"or", {item(), item()}}};
    default:
      return {{"and", {item(), item()}}};
  }
}

// Random rollups, random queries (filter groups and offsets included): whatever routes must
// answer what the live path answers.
TEST_F(RollupQueryTest, PropertyRollupAnswersEqualLive) {
  std::mt19937 random(20261201);
  const std::vector<std::string> dims = {"status", "channel", "customer.region"};
  const std::vector<std::string> grains = {"hour", "day", "week", "month", "quarter", "year"};
  const std::vector<std::string> measures = {"revenue",          "order_count",   "paid_revenue",
                                             "min_amount",       "max_amount",    "avg_amount",
                                             "customers_approx", "median_amount", "p90_amount"};
  std::string yaml = "rollups:\n";
  for (int r = 0; r < 12; ++r) {
    std::string dimension_list;
    for (const std::string& d : dims) {
      if (random() % 2) dimension_list += d + ", ";
    }
    const std::string& grain = grains[random() % grains.size()];
    dimension_list += "{ name: order_date, grain: " + grain + " }";
    std::string measure_list, sketch_list;
    for (const std::string& m : measures) {
      if (random() % 3 == 0) continue;
      measure_list += (measure_list.empty() ? "" : ", ") + m;
      if ((m == "customers_approx" || m.find("amount") != std::string::npos) && m != "min_amount" &&
          m != "max_amount" && m != "avg_amount" && random() % 4 != 0) {
        sketch_list += (sketch_list.empty() ? "" : ", ") + m;
      }
    }
    yaml += fmt::format(
        "  - name: r{}\n    entity: Order\n    dimensions: [{}]\n"
        "    measures: [{}]\n    sketches: [{}]\n",
        r, dimension_list, measure_list, sketch_list);
    // partition.by must hold whole stored buckets (the loader refuses a split).
    const std::vector<std::string> bys = grain == "week"   ? std::vector<std::string>{"week"}
                                         : grain == "year" ? std::vector<std::string>{"year"}
                                         : grain == "quarter"
                                             ? std::vector<std::string>{"quarter", "year"}
                                             : std::vector<std::string>{"month", "quarter"};
    if (random() % 2) yaml += "    partition: { by: " + bys[random() % bys.size()] + " }\n";
  }
  Load(yaml);
  BuildOptions options;
  options.parallel = 2;
  Build(options);
  const std::vector<std::string> query_grains = {"day",     "week", "month",
                                                 "quarter", "year", "fiscal_year"};
  const std::vector<std::string> query_dims = {"Order.status", "Order.channel", "Customer.region"};
  int hits = 0;
  for (int q = 0; q < 60; ++q) {
    json query = {{"measures", json::array()}};
    for (const std::string& m : measures) {
      if (random() % 4 == 0) query["measures"].push_back("Order." + m);
    }
    if (query["measures"].empty()) query["measures"].push_back("Order.revenue");
    json dimension_list = json::array();
    for (const std::string& d : query_dims) {
      if (random() % 3 == 0) dimension_list.push_back(d);
    }
    query["dimensions"] = dimension_list;
    if (random() % 3 != 0) {
      json time = {{"dimension", "Order.order_date"},
                   {"grain", query_grains[random() % query_grains.size()]}};
      if (random() % 2) time["range"] = {"2025-12-01", "2026-03-01"};
      query["time_dimensions"] = json::array({time});
    }
    if (random() % 3 == 0) {
      query["filters"] = json::array(
          {{{"member", "Order.status"}, {"op", "equals"}, {"values", {"paid", "shipped"}}}});
    }
    if (random() % 3 == 0) query["filters"].push_back(RandomGroup(random, 2));
    if (random() % 4 == 0) query["offset"] = random() % 6;
    const std::optional<std::string> role =
        random() % 5 == 0 ? std::optional<std::string>("north") : std::nullopt;
    if (!ExpectSameAnswer(query.dump(), role).empty()) ++hits;
  }
  EXPECT_GE(hits, 15) << "too few queries routed to a rollup for the property to mean much";
}

// A year rollup cannot answer a fiscal year that starts in another month than January (the
// fixture's starts in April): the query goes live, and the live answer is the right one.
TEST_F(RollupQueryTest, AYearRollupDoesNotAnswerAnAprilFiscalYear) {
  Load(R"(rollups:
  - name: yearly
    entity: Order
    dimensions: [status, { name: order_date, grain: year }]
    measures: [revenue, order_count]
    partition: { by: year }
)");
  Build();
  const std::string fiscal = R"({"measures": ["Order.revenue", "Order.order_count"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_year"}]})";
  EXPECT_EQ(Reason(fiscal, "yearly"), "grain_not_derivable");
  EXPECT_EQ(ExpectSameAnswer(fiscal), "");
  const std::string calendar = R"({"measures": ["Order.revenue", "Order.order_count"],
      "dimensions": ["Order.status"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "year"}]})";
  EXPECT_EQ(ExpectSameAnswer(calendar), "yearly");
}

}  // namespace
}  // namespace strata::rollup
