// Filter groups ({"and"}, {"or"}, {"not"}) and `offset`: their JSON shapes and errors, the live
// SQL they render (typed literals, parenthesized boolean SQL, dimension groups in the WHERE and
// measure groups after aggregation), and OFFSET in every dialect. Execution and rollup answers:
// query/rollup_query_test.cc, query/query_duckdb_test.cc and tests/e2e/test_query_groups.py.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "semantic/live_sql.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "sql/parser.h"

namespace strata::semantic {
namespace {

SemanticModel ExampleModel() {
  auto outcome =
      LoadSemanticModel({{"m.yml", testing::kExampleModelYaml}}, sql::Dialect::kDuckDb, 4);
  EXPECT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
  return std::move(*outcome.model);
}

Result<LivePlan> Plan(const SemanticModel& model, const std::string& json,
                      sql::Dialect dialect = sql::Dialect::kDuckDb) {
  STRATA_ASSIGN_OR_RETURN(const SemanticQuery query, ParseQueryJson(json));
  return PlanLiveQuery(model, query, {dialect, std::nullopt});
}

std::string Filter(const char* member, const char* op, const char* values) {
  return fmt::format(R"({{"member": "{}", "op": "{}", "values": {}}})", member, op, values);
}

TEST(FilterGroupJson, NestedGroupsKeepTheirShape) {
  auto query = ParseQueryJson(fmt::format(
      R"({{"measures": ["Order.revenue"], "filters": [{}, {{"or": [{}, {{"not": {{"and": [{},
          {}]}}}}]}}], "limit": 10, "offset": 20}})",
      Filter("Order.status", "equals", R"(["paid"])"),
      Filter("Customer.region", "equals", R"(["north"])"), Filter("Order.amount", "gt", "[100]"),
      Filter("Order.status", "not_equals", R"(["x"])")));
  ASSERT_TRUE(query.ok()) << query.error().ToString();
  ASSERT_EQ(query->filters.size(), 2u);
  EXPECT_EQ(query->filters[0].kind, FilterNode::Kind::kFilter);
  EXPECT_EQ(query->filters[0].filter.member, "Order.status");
  const FilterNode& any = query->filters[1];
  ASSERT_EQ(any.kind, FilterNode::Kind::kOr);
  ASSERT_EQ(any.items.size(), 2u);
  EXPECT_EQ(any.items[0].filter.member, "Customer.region");
  ASSERT_EQ(any.items[1].kind, FilterNode::Kind::kNot);
  ASSERT_EQ(any.items[1].items.size(), 1u);
  const FilterNode& all = any.items[1].items[0];
  ASSERT_EQ(all.kind, FilterNode::Kind::kAnd);
  ASSERT_EQ(all.items.size(), 2u);
  EXPECT_EQ(all.items[1].filter.op, FilterOp::kNotEquals);
  std::vector<std::string> members;
  for (const FilterRequest* filter : FiltersOf(query->filters)) members.push_back(filter->member);
  EXPECT_EQ(members, (std::vector<std::string>{"Order.status", "Customer.region", "Order.amount",
                                               "Order.status"}));
  EXPECT_EQ(query->limit, 10);
  EXPECT_EQ(query->offset, 20);
  EXPECT_EQ(ParseQueryJson(R"({"measures": ["Order.revenue"]})")->offset, 0);
}

TEST(FilterGroupJson, ShapeErrorsAreQueryInvalid) {
  const std::string status = Filter("Order.status", "equals", R"(["paid"])");
  for (const std::string& bad : std::vector<std::string>{
           R"({"or": []})",
           R"({"and": []})",
           R"({"or": {"member": "Order.status", "op": "set"}})",
           R"({"not": []})",
           fmt::format(R"({{"not": [{}]}})", status),
           fmt::format(R"({{"or": [{}], "and": [{}]}})", status, status),
           fmt::format(R"({{"or": [{}], "member": "Order.status"}})", status),
           R"({"or": [1]})",
           R"({"or": [{"member": "Order.status", "op": "eq", "values": ["a"]}]})",
           R"({"not": {"or": [{"member": "Order.status", "op": "set", "values": ["a"]}]}})",
           R"({"nor": []})",
       }) {
    auto query = ParseQueryJson(R"({"measures": ["Order.revenue"], "filters": [)" + bad + "]}");
    ASSERT_FALSE(query.ok()) << bad;
    EXPECT_EQ(query.error().code, ErrorCode::kQueryInvalid) << bad;
  }
  auto typo = ParseQueryJson(R"({"measures": ["Order.revenue"], "filters": [{"nott": {}}]})");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().hint, "did you mean \"not\"?");
  for (const char* bad : {"-1", "1.5", "\"2\"", "true", "null"}) {
    auto query =
        ParseQueryJson(fmt::format(R"({{"measures": ["Order.revenue"], "offset": {}}})", bad));
    ASSERT_FALSE(query.ok()) << bad;
    EXPECT_EQ(query.error().code, ErrorCode::kQueryInvalid) << bad;
    EXPECT_NE(query.error().message.find("offset"), std::string::npos) << bad;
  }
}

// {"not": {"not": ... }} 20 deep nests 24 levels: accepted. 100,000 deep: refused before the
// parse, as any deep document.
TEST(FilterGroupJson, DeepGroupsWithinTheDepthLimit) {
  std::string nested = Filter("Order.status", "equals", R"(["paid"])");
  for (int i = 0; i < 20; ++i) nested = R"({"not": )" + nested + "}";
  auto query = ParseQueryJson(R"({"measures": ["Order.revenue"], "filters": [)" + nested + "]}");
  ASSERT_TRUE(query.ok()) << query.error().ToString();
  const SemanticModel model = ExampleModel();
  auto plan = PlanLiveQuery(model, *query, {sql::Dialect::kDuckDb, std::nullopt});
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_TRUE(sql::ParseStatement(plan->sql, sql::Dialect::kDuckDb).ok()) << plan->sql;

  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += R"({"or": [)";
  auto refused = ParseQueryJson(R"({"measures": ["Order.revenue"], "filters": [)" + deep);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kQueryInvalid);
  EXPECT_NE(refused.error().message.find("levels deep"), std::string::npos);
}

TEST(FilterGroupSql, DimensionGroupsAreParenthesizedInTheWhere) {
  const SemanticModel model = ExampleModel();
  auto plan = Plan(model, fmt::format(R"({{"measures": ["Order.revenue"], "filters": [
      {{"or": [{}, {{"not": {{"and": [{}, {}]}}}}]}}, {}]}})",
                                      Filter("Order.status", "equals", R"(["it's"])"),
                                      Filter("Customer.region", "equals", R"(["north"])"),
                                      Filter("Order.amount", "gt", "[100]"),
                                      Filter("Order.status", "set", "[]")));
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("WHERE (\"t0\".\"c0\" = 'it''s' OR NOT ((\"t1\".\"c1\" = 'north' AND "
                           "\"t0\".\"c2\" > 100)))\n  AND \"t0\".\"c0\" IS NOT NULL"),
            std::string::npos)
      << plan->sql;
  // A one-item group is its item.
  auto single = Plan(model, fmt::format(R"({{"measures": ["Order.revenue"], "filters": [
      {{"and": [{{"or": [{}]}}]}}]}})",
                                        Filter("Order.status", "equals", R"(["paid"])")));
  ASSERT_TRUE(single.ok()) << single.error().ToString();
  EXPECT_NE(single->sql.find("WHERE \"t0\".\"c0\" = 'paid'\n"), std::string::npos) << single->sql;
}

TEST(FilterGroupSql, MeasureGroupsFilterAfterAggregation) {
  const SemanticModel model = ExampleModel();
  auto plan = Plan(model, fmt::format(R"({{"measures": ["Order.revenue"], "dimensions":
      ["Order.status"], "filters": [{{"or": [{}, {{"not": {}}}]}}]}})",
                                      Filter("Order.revenue", "gt", "[1000]"),
                                      Filter("Order.average_order_value", "lt", "[50]")));
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find(") AS \"q\"\nWHERE (\"m0\" > 1000 OR NOT ((CAST(\"m0\" AS DOUBLE "
                           "PRECISION) / NULLIF(\"m1\", 0)) < 50))"),
            std::string::npos)
      << plan->sql;
}

TEST(FilterGroupSql, AGroupMixingDimensionsAndMeasuresIsRefused) {
  const SemanticModel model = ExampleModel();
  auto plan = Plan(model, fmt::format(R"({{"measures": ["Order.revenue"], "filters": [
      {{"or": [{}, {{"not": {}}}]}}]}})",
                                      Filter("Order.status", "equals", R"(["paid"])"),
                                      Filter("Order.revenue", "gt", "[10]")));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kQueryInvalid);
  EXPECT_NE(plan.error().message.find("Order.status"), std::string::npos);
  EXPECT_NE(plan.error().message.find("Order.revenue"), std::string::npos);
  EXPECT_FALSE(plan.error().hint.empty());
  // Members and values inside groups are checked as a lone filter's are.
  for (const std::string& bad : {Filter("Order.stauts", "equals", R"(["a"])"),
                                 Filter("Order.order_id", "equals", R"(["2; DROP TABLE x"])"),
                                 Filter("Order.customer_id_approx", "gt", "[1]")}) {
    auto result = Plan(
        model, R"({"measures": ["Order.revenue"], "filters": [{"not": {"or": [)" + bad + "]}}]}");
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_EQ(result.error().code, ErrorCode::kQueryInvalid) << bad;
  }
}

TEST(OffsetSql, EveryDialectWritesItsOwnForm) {
  const SemanticModel model = ExampleModel();
  const std::string paged =
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"], "limit": 5, "offset": 10})";
  const std::string skipped =
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"], "offset": 10})";
  const std::string none =
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"], "offset": 0})";
  struct Expected {
    sql::Dialect dialect;
    const char* paged;
    const char* skipped;
  };
  for (const Expected& expected : std::vector<Expected>{
           {sql::Dialect::kDuckDb, "\nLIMIT 5\nOFFSET 10", "\nOFFSET 10"},
           {sql::Dialect::kPostgres, "\nLIMIT 5\nOFFSET 10", "\nOFFSET 10"},
           {sql::Dialect::kRedshift, "\nLIMIT 5\nOFFSET 10", "\nOFFSET 10"},
           {sql::Dialect::kDatabricks, "\nLIMIT 5\nOFFSET 10", "\nOFFSET 10"},
           {sql::Dialect::kTrino, "\nOFFSET 10\nLIMIT 5", "\nOFFSET 10"},
           {sql::Dialect::kSnowflake, "\nLIMIT 5\nOFFSET 10", "\nLIMIT NULL\nOFFSET 10"},
           {sql::Dialect::kBigQuery, "\nLIMIT 5\nOFFSET 10",
            "\nLIMIT 9223372036854775807\nOFFSET 10"}}) {
    SCOPED_TRACE(sql::DialectName(expected.dialect));
    for (const auto& [query, tail] :
         {std::pair(paged, expected.paged), std::pair(skipped, expected.skipped)}) {
      auto plan = Plan(model, query, expected.dialect);
      ASSERT_TRUE(plan.ok()) << plan.error().ToString();
      const std::string end = "NULLS LAST" + std::string(tail);
      ASSERT_GE(plan->sql.size(), end.size());
      EXPECT_EQ(plan->sql.substr(plan->sql.size() - end.size()), end) << plan->sql;
      auto parsed = sql::ParseStatement(plan->sql, expected.dialect);
      EXPECT_TRUE(parsed.ok()) << plan->sql << "\n"
                               << (parsed.ok() ? "" : parsed.error().ToString());
    }
    auto plain = Plan(model, none, expected.dialect);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->sql.find("OFFSET"), std::string::npos) << plain->sql;
  }
}

}  // namespace
}  // namespace strata::semantic
