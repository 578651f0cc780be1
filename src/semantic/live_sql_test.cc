// PlanLiveQuery and ParseQueryJson: member resolution (paths, ambiguity, fan-out), query shape
// errors, literals and dialect differences. Execution is covered by query/query_duckdb_test.cc.
#include "semantic/live_sql.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "sql/parser.h"

namespace strata::semantic {
namespace {

// Order reaches Customer twice (customer, referrer); Warehouse is reachable from nothing.
const char* const kAmbiguousModel = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: status, type: string }
    measures:
      - { name: order_count, agg: count }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
      - { name: referrer, entity: Customer, type: many_to_one, foreign_key: referrer_id }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: region, type: string }
    measures:
      - { name: customer_count, agg: count }
    relationships:
      - { name: orders, entity: Order, type: one_to_many, foreign_key: customer_id }
  - name: Depot
    sql: SELECT 1 AS depot_id, 'x' AS city
    primary_key: depot_id
    dimensions:
      - { name: city, type: string }
)";

SemanticModel Load(const char* yaml) {
  auto outcome = LoadSemanticModel({{"m.yml", yaml}}, sql::Dialect::kDuckDb, 4);
  EXPECT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
  return std::move(*outcome.model);
}

Result<LivePlan> Plan(const SemanticModel& model, const std::string& json,
                      const std::optional<std::string>& role = std::nullopt,
                      sql::Dialect dialect = sql::Dialect::kDuckDb) {
  STRATA_ASSIGN_OR_RETURN(const SemanticQuery query, ParseQueryJson(json));
  return PlanLiveQuery(model, query, {dialect, role});
}

TEST(Resolution, UniqueManyToOnePath) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  auto plan = Plan(model, R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"]})");
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("LEFT JOIN (SELECT \"customer_id\" AS \"c0\", \"region\" AS \"c1\" FROM "
                           "\"raw\".\"customers\")"),
            std::string::npos)
      << plan->sql;
  EXPECT_EQ(plan->entities, std::vector<std::string>{"Order"});
  ASSERT_EQ(plan->columns.size(), 2u);
  EXPECT_EQ(plan->columns[0].name, "Customer.region");
  EXPECT_EQ(plan->columns[0].type, DimensionType::kString);
}

TEST(Resolution, AmbiguousPathListsCandidates) {
  const SemanticModel model = Load(kAmbiguousModel);
  auto plan =
      Plan(model, R"({"measures": ["Order.order_count"], "dimensions": ["Customer.region"]})");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kAmbiguousPath);
  EXPECT_NE(plan.error().message.find("Order.customer.region"), std::string::npos)
      << plan.error().message;
  EXPECT_NE(plan.error().message.find("Order.referrer.region"), std::string::npos)
      << plan.error().message;
  // The written path removes the ambiguity.
  EXPECT_TRUE(
      Plan(model, R"({"measures": ["Order.order_count"], "dimensions": ["Order.referrer.region"]})")
          .ok());
}

TEST(Resolution, FanOutListsPaths) {
  const SemanticModel model = Load(kAmbiguousModel);
  auto plan =
      Plan(model, R"({"measures": ["Customer.customer_count"], "dimensions": ["Order.status"]})");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kFanOut);
  EXPECT_NE(plan.error().message.find("Customer.orders.status"), std::string::npos)
      << plan.error().message;
  auto written = Plan(
      model,
      R"({"measures": ["Customer.customer_count"], "dimensions": ["Customer.orders.status"]})");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, ErrorCode::kFanOut);
}

TEST(Resolution, UnreachableEntity) {
  const SemanticModel model = Load(kAmbiguousModel);
  auto plan = Plan(model, R"({"measures": ["Order.order_count"], "dimensions": ["Depot.city"]})");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kQueryInvalid);
}

TEST(Resolution, EntitySqlBecomesADerivedTable) {
  const SemanticModel model = Load(kAmbiguousModel);
  auto plan = Plan(model, R"({"dimensions": ["Depot.city"]})");
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("FROM (SELECT 1 AS depot_id, 'x' AS city) AS \"s\""), std::string::npos)
      << plan->sql;
}

// Without measures the query reads the first entity every dimension is reachable from.
TEST(Resolution, DimensionsOnlyPickAnEntityThatReachesAll) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  auto plan = Plan(model, R"({"dimensions": ["Customer.region", "Order.status"]})");
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(
      plan->sql.find(
          "FROM (SELECT \"customer_id\" AS \"c0\", \"status\" AS \"c1\" FROM \"raw\".\"orders\")"),
      std::string::npos)
      << plan->sql;
  auto unrelated = Plan(model, R"({"dimensions": ["Order.status", "Ticket.priority"]})");
  ASSERT_FALSE(unrelated.ok());
  EXPECT_EQ(unrelated.error().code, ErrorCode::kFanOut);
}

TEST(Resolution, UnknownMembersGetHints) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  auto plan = Plan(model, R"({"measures": ["Order.revenu"]})");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kQueryInvalid);
  EXPECT_EQ(plan.error().hint, "did you mean \"revenue\"?");
  plan = Plan(model, R"({"measures": ["Ordr.revenue"]})");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().hint, "did you mean \"Order\"?");
  plan = Plan(model, R"({"measures": ["Order.status"]})");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kQueryInvalid);
}

TEST(Resolution, ApproximateMeasuresOnlyAsColumns) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  auto plan =
      Plan(model, R"({"measures": ["Order.customer_id_approx"], "dimensions": ["Order.status"]})");
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->sketches.size(), 1u);
  EXPECT_EQ(plan->sketches[0].column, 1u);
  EXPECT_EQ(plan->sketches[0].key_count, 1u);
  EXPECT_EQ(Plan(model, R"({"measures": ["Order.customer_id_approx"],
                            "filters": [{"member": "Order.customer_id_approx", "op": "gt", "values": [1]}]})")
                .error()
                .code,
            ErrorCode::kQueryInvalid);
}

TEST(Resolution, PercentilesPerDialect) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  const std::string query = R"({"measures": ["Order.median_amount"]})";
  EXPECT_NE(
      Plan(model, query)->sql.find("quantile_cont(CAST(\"t0\".\"c0\" AS DOUBLE PRECISION), 0.5)"),
      std::string::npos);
  EXPECT_NE(Plan(model, query, std::nullopt, sql::Dialect::kPostgres)
                ->sql.find("percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(\"t0\".\"c0\" AS "
                           "DOUBLE PRECISION))"),
            std::string::npos);
}

TEST(Resolution, ValuesAreTypedLiterals) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  auto plan = Plan(model, R"({"measures": ["Order.order_count"], "filters": [
      {"member": "Order.status", "op": "equals", "values": ["it's"]},
      {"member": "Order.order_id", "op": "gte", "values": [2]},
      {"member": "Order.order_date", "op": "lt", "values": ["2026-01-02"]}]})");
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("= 'it''s'"), std::string::npos);
  EXPECT_NE(plan->sql.find(">= 2"), std::string::npos);
  EXPECT_NE(plan->sql.find("< TIMESTAMP '2026-01-02 00:00:00'"), std::string::npos);
  for (const char* bad :
       {R"({"member": "Order.order_id", "op": "equals", "values": ["2; DROP TABLE x"]})",
        R"({"member": "Order.order_date", "op": "gt", "values": ["2026-02-30"]})",
        R"({"member": "Order.order_id", "op": "contains", "values": ["1"]})"}) {
    auto result = Plan(
        model, std::string(R"({"measures": ["Order.order_count"], "filters": [)") + bad + "]}");
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_EQ(result.error().code, ErrorCode::kQueryInvalid) << bad;
  }
}

TEST(QueryJson, ShapeErrors) {
  for (
      const char* bad :
      {"not json", "[]", R"({"measure": ["Order.revenue"]})", R"({"measures": "Order.revenue"})",
       R"({"measures": ["Order.revenue"], "limit": -1})",
       R"({"measures": ["Order.revenue"], "limit": 1.5})",
       R"({"time_dimensions": [{"dimension": "Order.order_date", "grain": "mnth"}]})",
       R"({"measures": ["Order.revenue"], "filters": [{"member": "Order.status", "op": "eq", "values": ["a"]}]})",
       R"({"measures": ["Order.revenue"], "filters": [{"member": "Order.revenue", "op": "gt", "values": [1, 2]}]})",
       R"({"measures": ["Order.revenue"], "filters": [{"member": "Order.status", "op": "set", "values": ["a"]}]})",
       R"({"measures": ["Order.revenue"], "filters": [{"member": "Order.status", "op": "equals"}]})",
       R"({})"}) {
    auto query = ParseQueryJson(bad);
    ASSERT_FALSE(query.ok()) << bad;
    EXPECT_EQ(query.error().code, ErrorCode::kQueryInvalid) << bad;
  }
  EXPECT_EQ(ParseQueryJson(R"({"measure": []})").error().hint, "did you mean \"measures\"?");
}

TEST(QueryJson, DeepNestingAndNulBytesAreRefusedBeforeTheParse) {
  // 100,000 levels under a list the parser walks: refused, not a stack overflow.
  for (const char* key : {"filters", "order", "time_dimensions", "measures"}) {
    const std::string deep =
        fmt::format(R"({{"{}": {}{}}})", key, std::string(100'000, '['), std::string(100'000, ']'));
    auto query = ParseQueryJson(deep);
    ASSERT_FALSE(query.ok()) << key;
    EXPECT_EQ(query.error().code, ErrorCode::kQueryInvalid);
    EXPECT_NE(query.error().message.find("levels deep"), std::string::npos);
  }
  const std::string nul = std::string(R"({"measures": ["Order.revenue"]})") + std::string(2, '\0');
  auto with_nul = ParseQueryJson(nul);
  ASSERT_FALSE(with_nul.ok());
  EXPECT_NE(with_nul.error().message.find("NUL"), std::string::npos);
  // Brackets inside strings do not count; 16 levels are accepted by the scan.
  EXPECT_FALSE(JsonNestedDeeperThan(R"({"a": "[[[[[[[[[[[[[[[[[[[[\"[[[["})", 2));
  EXPECT_FALSE(JsonNestedDeeperThan(std::string(16, '[') + std::string(16, ']'), 16));
  EXPECT_TRUE(JsonNestedDeeperThan(std::string(17, '[') + std::string(17, ']'), 16));
  EXPECT_TRUE(ParseQueryJson(R"({"measures": ["Order.revenue"], "filters": [{"member":
      "Order.status", "op": "equals", "values": ["[[[[[[[[[[[[[[[[[[[[[[[["]}]})")
                  .ok());
}

// A role is never told about what it may not read: no "did you mean" naming a member of an
// entity it may not read, no "is a dimension, not a measure" about one; such a member is
// AccessDenied, and an unknown entity is suggested among the readable ones only.
TEST(Resolution, ErrorsNameNothingTheRoleMayNotRead) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  const std::string paid = "paid_orders_only";
  for (
      const char* query :
      {R"({"measures": ["Order.revenue"], "dimensions": ["Customer.regin"]})",
       R"({"measures": ["Order.revenue"], "dimensions": ["Order.customer.regin"]})",
       R"({"measures": ["Customer.region"]})",
       R"({"measures": ["Order.revenue"], "filters": [{"member": "Ticket.nope", "op": "set"}]})"}) {
    auto refused = Plan(model, query, paid);
    ASSERT_FALSE(refused.ok()) << query;
    EXPECT_EQ(refused.error().code, ErrorCode::kAccessDenied) << query;
    EXPECT_EQ(refused.error().hint.find("region"), std::string::npos) << refused.error().hint;
  }
  auto unknown = Plan(model, R"({"measures": ["Custmer.revenue"]})", paid);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kQueryInvalid);
  EXPECT_EQ(unknown.error().hint.find("Customer"), std::string::npos) << unknown.error().hint;
  // A role that may read everything, and a trusted caller, still get the suggestion.
  for (const std::optional<std::string>& role :
       {std::optional<std::string>("admin"), std::optional<std::string>()}) {
    auto misspelt =
        Plan(model, R"({"measures": ["Order.revenue"], "dimensions": ["Customer.regin"]})", role);
    ASSERT_FALSE(misspelt.ok());
    EXPECT_EQ(misspelt.error().code, ErrorCode::kQueryInvalid);
    EXPECT_NE(misspelt.error().hint.find("region"), std::string::npos);
    EXPECT_NE(Plan(model, R"({"measures": ["Custmer.customer_count"]})", role)
                  .error()
                  .hint.find("Customer"),
              std::string::npos);
  }
}

TEST(QueryJson, ARepeatedKeyIsRefusedNotResolvedToTheLastOne) {
  for (const char* bad :
       {R"({"measures": ["Order.revenue"], "limit": 1, "limit": 1000})",
        R"({"measures": ["Order.revenue"], "measures": ["Order.count"]})",
        R"({"measures": ["Order.revenue"], "filters": [{"member": "Order.status", "op": "equals",
            "values": ["a"], "member": "Order.id"}]})"}) {
    auto query = ParseQueryJson(bad);
    ASSERT_FALSE(query.ok()) << bad;
    EXPECT_EQ(query.error().code, ErrorCode::kQueryInvalid) << bad;
    EXPECT_NE(query.error().message.find("appears twice"), std::string::npos)
        << query.error().message;
  }
  // The same key in two different objects is no repetition.
  EXPECT_TRUE(ParseQueryJson(R"({"measures": ["Order.revenue"], "filters": [
      {"member": "Order.status", "op": "equals", "values": ["a"]},
      {"member": "Order.status", "op": "equals", "values": ["b"]}]})")
                  .ok());
}

TEST(QueryJson, FullQuery) {
  auto query = ParseQueryJson(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_quarter", "range": ["2026-01-01", "2026-07-01"]}],
      "filters": [{"member": "Order.status", "op": "not_set"}], "order": [{"member": "Order.revenue", "desc": true}],
      "limit": 5})");
  ASSERT_TRUE(query.ok()) << query.error().ToString();
  EXPECT_EQ(query->time_dimensions[0].grain, TimeGrain::kFiscalQuarter);
  EXPECT_EQ(query->filters[0].filter.op, FilterOp::kNotSet);
  EXPECT_TRUE(query->order[0].desc);
  EXPECT_EQ(query->limit, 5);
}

}  // namespace
}  // namespace strata::semantic

namespace strata::semantic {
namespace {

// The query's zone, else the model's default, makes grains local; UTC keeps the plain SQL.
TEST(TimeZones, QueryZoneElseModelDefault) {
  const std::string by_day =
      R"({"measures": ["Order.order_count"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "day"}])";
  const SemanticModel utc_model = Load(testing::kExampleModelYaml);
  auto plain = Plan(utc_model, by_day + "}");
  ASSERT_TRUE(plain.ok()) << plain.error().ToString();
  EXPECT_TRUE(plain->zone.is_utc());
  EXPECT_EQ(plain->sql.find("AT TIME ZONE"), std::string::npos);
  auto zoned = Plan(utc_model, by_day + R"(, "timezone": "Europe/Berlin"})");
  ASSERT_TRUE(zoned.ok()) << zoned.error().ToString();
  EXPECT_EQ(zoned->zone.name(), "Europe/Berlin");
  EXPECT_NE(zoned->sql.find("date_trunc('day', ((CAST(\"t0\".\"c0\" AS TIMESTAMP) AT TIME ZONE "
                            "'UTC') AT TIME ZONE 'Europe/Berlin'))"),
            std::string::npos)
      << zoned->sql;

  auto outcome = LoadSemanticModel({{"m.yml", testing::kExampleModelYaml}}, sql::Dialect::kDuckDb,
                                   4, *TimeZone::Find("Europe/Berlin"));
  ASSERT_TRUE(outcome.errors.empty());
  auto by_default = Plan(*outcome.model, by_day + "}");
  ASSERT_TRUE(by_default.ok());
  EXPECT_EQ(by_default->sql, zoned->sql);
  auto utc_again = Plan(*outcome.model, by_day + R"(, "timezone": "UTC"})");
  ASSERT_TRUE(utc_again.ok());
  EXPECT_EQ(utc_again->sql, plain->sql);
  EXPECT_TRUE(utc_again->zone.is_utc());
}

// Range bounds are local dates, written as the UTC instants that start them.
TEST(TimeZones, RangeBoundsAreLocal) {
  const SemanticModel model = Load(testing::kExampleModelYaml);
  auto plan = Plan(model, R"({"measures": ["Order.order_count"], "timezone": "America/New_York",
      "time_dimensions": [{"dimension": "Order.order_date", "range": ["2026-03-01", "2026-04-01"]}]})");
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find(">= TIMESTAMP '2026-03-01 05:00:00' AND"), std::string::npos)
      << plan->sql;
  EXPECT_NE(plan->sql.find("< TIMESTAMP '2026-04-01 04:00:00'"), std::string::npos) << plan->sql;
}

// Every dialect's zoned grains parse back in that dialect (DuckDB, PostgreSQL and Trino run in
// the golden and end-to-end tests).
TEST(TimeZones, EveryDialectParsesTheZonedGrains) {
  for (sql::Dialect dialect :
       {sql::Dialect::kDuckDb, sql::Dialect::kPostgres, sql::Dialect::kSnowflake,
        sql::Dialect::kDatabricks, sql::Dialect::kBigQuery, sql::Dialect::kRedshift,
        sql::Dialect::kTrino}) {
    SCOPED_TRACE(std::string(sql::DialectName(dialect)));
    auto outcome = LoadSemanticModel({{"m.yml", testing::kExampleModelYaml}}, dialect, 4);
    ASSERT_TRUE(outcome.errors.empty());
    auto plan =
        Plan(*outcome.model, R"({"measures": ["Order.order_count"], "timezone": "Asia/Kolkata",
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_year"}]})",
             std::nullopt, dialect);
    ASSERT_TRUE(plan.ok()) << plan.error().ToString();
    EXPECT_NE(plan->sql.find("'Asia/Kolkata'"), std::string::npos) << plan->sql;
    auto parsed = sql::ParseStatement(plan->sql, dialect);
    EXPECT_TRUE(parsed.ok()) << plan->sql << "\n" << (parsed.ok() ? "" : parsed.error().ToString());
  }
}

TEST(QueryJson, TimezoneIsAKnownZoneName) {
  auto berlin = ParseQueryJson(R"({"measures": ["Order.revenue"], "timezone": "Europe/Berlin"})");
  ASSERT_TRUE(berlin.ok());
  ASSERT_TRUE(berlin->timezone.has_value());
  EXPECT_EQ(berlin->timezone->name(), "Europe/Berlin");
  EXPECT_FALSE(ParseQueryJson(R"({"measures": ["Order.revenue"]})")->timezone.has_value());
  auto typo = ParseQueryJson(R"({"measures": ["Order.revenue"], "timezone": "europe/berlin"})");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().code, ErrorCode::kInvalidTimeZone);
  EXPECT_NE(typo.error().message.find("\"timezone\""), std::string::npos);
  auto not_text = ParseQueryJson(R"({"measures": ["Order.revenue"], "timezone": 1})");
  ASSERT_FALSE(not_text.ok());
  EXPECT_EQ(not_text.error().code, ErrorCode::kQueryInvalid);
  // A quote cannot reach SQL: only names of the tz database are accepted.
  auto injected =
      ParseQueryJson(R"({"measures": ["Order.revenue"], "timezone": "UTC' OR '1'='1"})");
  ASSERT_FALSE(injected.ok());
  EXPECT_EQ(injected.error().code, ErrorCode::kInvalidTimeZone);
}

}  // namespace
}  // namespace strata::semantic
