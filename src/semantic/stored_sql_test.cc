// PlanStoredQuery: which stored relation answers which query (every miss reason the planner
// decides), the re-aggregation SQL, and the grain derivability table. Execution over real
// Parquet files is covered by query/ and tests/e2e/test_rollup_*.py.
#include "semantic/stored_sql.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "semantic/loader.h"
#include "semantic/rollup_sql.h"

namespace strata::semantic {
namespace {

const char* const kModel = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: status, type: string }
      - { name: channel, type: string }
      - { name: order_date, type: time, sql: order_at }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: customers, agg: count_distinct, sql: customer_id }
      - { name: customers_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: median_amount, agg: median, sql: amount }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
    metrics:
      - { name: aov, expr: revenue / order_count }
      - { name: per_customer, expr: revenue / customers }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: region, type: string }
rollups:
  - name: daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count, avg_amount, customers, customers_approx, median_amount]
    sketches: [customers_approx, median_amount]
data_roles:
  - name: north
    access:
      - { entity: Order, row_filter: { member: customer.region, op: equals, values: [north] } }
      - { entity: Customer, row_filter: { member: region, op: equals, values: [north] } }
  - name: by_channel
    access:
      - { entity: Order, row_filter: { member: channel, op: equals, values: [web] } }
)";

class StoredPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto outcome = LoadSemanticModel({{"m.yml", kModel}}, sql::Dialect::kDuckDb, 4);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
    model_ = std::move(*outcome.model);
    auto layout = PlanRollupBuild(model_, model_.rollups[0], sql::Dialect::kDuckDb, std::nullopt);
    ASSERT_TRUE(layout.ok()) << layout.error().ToString();
    relation_.entity = model_.FindEntity("Order");
    relation_.dimensions = layout->dimensions;
    relation_.measures = layout->measures;
    relation_.relation = [](std::optional<UnixSeconds>, std::optional<UnixSeconds>) {
      return StoredRows{"read_parquet(['x.parquet'])", 10};
    };
  }

  // The miss reason, or "" for a hit (whose SQL goes to *sql).
  std::string Route(const std::string& json, const std::optional<std::string>& role = std::nullopt,
                    std::string* sql = nullptr) {
    auto query = ParseQueryJson(json);
    EXPECT_TRUE(query.ok()) << query.error().ToString();
    auto planned = PlanStoredQuery(model_, *query, {sql::Dialect::kDuckDb, role}, {&relation_});
    EXPECT_TRUE(planned.ok()) << planned.error().ToString();
    if (!planned.ok()) return "error";
    if (planned->plan) {
      if (sql != nullptr) *sql = planned->plan->sql;
      EXPECT_TRUE(planned->plan->sketches.empty());
      return "";
    }
    EXPECT_EQ(planned->candidates.size(), 1u);
    return planned->candidates[0].miss ? planned->candidates[0].miss->reason : "no miss?";
  }

  SemanticModel model_;
  StoredRelation relation_;
};

TEST_F(StoredPlanTest, ReaggregatesAtCoarserGrains) {
  std::string sql;
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue", "Order.avg_amount", "Order.aov",
                                    "Order.customers_approx", "Order.median_amount"],
                      "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})",
                  std::nullopt, &sql),
            "");
  EXPECT_NE(sql.find("date_trunc('month'"), std::string::npos) << sql;
  EXPECT_NE(sql.find("strata_hll_merge"), std::string::npos) << sql;
  EXPECT_NE(sql.find("strata_quantile_merge(\"t0\".\"median_amount__values\", 0.5)"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("SUM(\"t0\".\"avg_amount__sum\")"), std::string::npos) << sql;
  EXPECT_NE(sql.find("read_parquet(['x.parquet']) AS \"t0\""), std::string::npos) << sql;
  EXPECT_EQ(sql.find("raw"), std::string::npos) << sql;
}

// Value counts built from PostgreSQL merge with PostgreSQL's percentile_cont interpolation, so
// a hit returns the bits the live answer on PostgreSQL returns.
TEST_F(StoredPlanTest, PercentilesInterpolateAsTheWarehouseDoes) {
  const std::string text = R"({"measures": ["Order.median_amount"]})";
  std::string sql;
  EXPECT_EQ(Route(text, std::nullopt, &sql), "");
  EXPECT_NE(sql.find("strata_quantile_merge(\"t0\""), std::string::npos) << sql;
  relation_.percentiles = sql::Dialect::kPostgres;
  EXPECT_EQ(Route(text, std::nullopt, &sql), "");
  EXPECT_NE(sql.find("strata_quantile_merge_postgres(\"t0\".\"median_amount__values\", 0.5)"),
            std::string::npos)
      << sql;
}

TEST_F(StoredPlanTest, JoinedDimensionByEitherName) {
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"]})"), "");
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "dimensions": ["Order.customer.region"]})"),
            "");
}

TEST_F(StoredPlanTest, MissReasons) {
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "dimensions": ["Order.channel"]})"),
            miss::kDimensionNotStored);
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"],
                      "time_dimensions": [{"dimension": "Order.order_date", "grain": "hour"}]})"),
            miss::kGrainNotDerivable);
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"],
                      "filters": [{"member": "Order.channel", "op": "equals", "values": ["web"]}]})"),
            miss::kFilterNotStored);
  // Exact distinct counts only at exactly the stored dimensions and grain.
  EXPECT_EQ(Route(R"({"measures": ["Order.customers"], "dimensions": ["Order.status"]})"),
            miss::kNotAdditive);
  EXPECT_EQ(Route(R"({"measures": ["Order.per_customer"], "dimensions": ["Order.status"]})"),
            miss::kNotAdditive);
  EXPECT_EQ(Route(R"({"measures": ["Order.customers"],
                      "dimensions": ["Order.status", "Customer.region"],
                      "time_dimensions": [{"dimension": "Order.order_date", "grain": "day"}]})"),
            "");
  EXPECT_EQ(
      Route(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})", "by_channel"),
      miss::kRowSecurity);
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})", "north"),
            "");
}

TEST_F(StoredPlanTest, TimeFiltersOnlyOnBucketBoundaries) {
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "filters": [
                      {"member": "Order.order_date", "op": "gte", "values": ["2026-01-01"]}]})"),
            "");
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "filters": [
                      {"member": "Order.order_date", "op": "gte", "values": ["2026-01-01 10:00:00"]}]})"),
            miss::kFilterNotStored);
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "filters": [
                      {"member": "Order.order_date", "op": "gt", "values": ["2026-01-01"]}]})"),
            miss::kFilterNotStored);
}

// A group answers only when every filter in it reads a stored dimension (time: gte/lt on bucket
// boundaries); it is rendered over the stored columns as it is over the entity's.
TEST_F(StoredPlanTest, FilterGroupsOnlyOnStoredDimensions) {
  std::string sql;
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "offset": 3, "filters": [{"or": [
                      {"member": "Order.status", "op": "equals", "values": ["paid"]},
                      {"not": {"and": [
                        {"member": "Customer.region", "op": "equals", "values": ["north"]},
                        {"member": "Order.order_date", "op": "gte", "values": ["2026-01-01"]}]}}]}]})",
                  std::nullopt, &sql),
            "");
  EXPECT_NE(sql.find("WHERE (\"t0\".\"status\" = 'paid' OR NOT ((\"t0\".\"customer.region\" = "
                     "'north' AND \"t0\".\"order_date\" >= TIMESTAMP '2026-01-01 00:00:00')))"),
            std::string::npos)
      << sql;
  EXPECT_NE(sql.find("\nOFFSET 3"), std::string::npos) << sql;
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "filters": [{"or": [
                      {"member": "Order.status", "op": "equals", "values": ["paid"]},
                      {"not": {"member": "Order.channel", "op": "equals", "values": ["web"]}}]}]})"),
            miss::kFilterNotStored);
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "filters": [{"and": [
                      {"member": "Order.status", "op": "equals", "values": ["paid"]},
                      {"member": "Order.order_date", "op": "gt", "values": ["2026-01-01"]}]}]})"),
            miss::kFilterNotStored);
  // A group on measures filters the re-aggregated answer: no stored member needed.
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
                      "filters": [{"not": {"or": [
                        {"member": "Order.revenue", "op": "gt", "values": [10]},
                        {"member": "Order.aov", "op": "lt", "values": [2]}]}}]})"),
            "");
}

TEST_F(StoredPlanTest, RangesGoThroughTheRelationsCheck) {
  relation_.range_dimension = "order_date";
  relation_.no_range_reason = miss::kOutsideBuildRange;
  relation_.range_check = [](const StoredDimension&, UnixSeconds from, UnixSeconds) {
    return from < 1767225600 ? std::string(miss::kOutsideBuildRange) : std::string();
  };
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"]})"), miss::kOutsideBuildRange);
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "time_dimensions": [
                      {"dimension": "Order.order_date", "range": ["2026-01-01", "2026-02-01"]}]})"),
            "");
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "time_dimensions": [
                      {"dimension": "Order.order_date", "range": ["2025-01-01", "2026-02-01"]}]})"),
            miss::kOutsideBuildRange);
}

TEST_F(StoredPlanTest, MeasureNotStoredAndIncompleteJoins) {
  const char* extra = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: status, type: string }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: tax, agg: sum, sql: tax }
)";
  auto outcome = LoadSemanticModel({{"m.yml", extra}}, sql::Dialect::kDuckDb, 4);
  ASSERT_TRUE(outcome.errors.empty());
  StoredRelation relation;
  relation.entity = outcome.model->FindEntity("Order");
  relation.dimensions = {{"status", std::nullopt, "status"}};
  relation.measures = {{"revenue", StoredForm::kAdditive, {"revenue"}}};
  relation.relation = [](std::optional<UnixSeconds>, std::optional<UnixSeconds>) {
    return StoredRows{"r", 1};
  };
  auto query = ParseQueryJson(R"({"measures": ["Order.tax"]})");
  auto planned = PlanStoredQuery(*outcome.model, *query, {}, {&relation});
  ASSERT_TRUE(planned.ok());
  EXPECT_FALSE(planned->plan);
  ASSERT_TRUE(planned->candidates[0].miss);
  EXPECT_EQ(planned->candidates[0].miss->reason, miss::kMeasureNotStored);
}

TEST(GrainDerivable, FixedTable) {
  using G = TimeGrain;
  EXPECT_TRUE(GrainDerivable(G::kHour, G::kFiscalYear, 4));
  EXPECT_TRUE(GrainDerivable(G::kDay, G::kWeek, 1));
  EXPECT_FALSE(GrainDerivable(G::kDay, G::kHour, 1));
  EXPECT_FALSE(GrainDerivable(G::kWeek, G::kMonth, 1));
  EXPECT_TRUE(GrainDerivable(G::kMonth, G::kFiscalQuarter, 2));
  EXPECT_FALSE(GrainDerivable(G::kMonth, G::kWeek, 1));
  EXPECT_TRUE(GrainDerivable(G::kQuarter, G::kFiscalYear, 4));
  EXPECT_FALSE(GrainDerivable(G::kQuarter, G::kFiscalYear, 2));
  EXPECT_FALSE(GrainDerivable(G::kQuarter, G::kMonth, 1));
  EXPECT_FALSE(GrainDerivable(G::kYear, G::kQuarter, 1));
}

TEST(GrainBoundary, Buckets) {
  EXPECT_TRUE(IsGrainBoundary(1767225600, TimeGrain::kYear, 1));  // 2026-01-01
  EXPECT_FALSE(IsGrainBoundary(1767225600, TimeGrain::kFiscalYear, 4));
  EXPECT_TRUE(IsGrainBoundary(1767225600 + 3600, TimeGrain::kHour, 1));
  EXPECT_FALSE(IsGrainBoundary(1767225600 + 3600, TimeGrain::kDay, 1));
  EXPECT_TRUE(IsGrainBoundary(1767571200, TimeGrain::kWeek, 1));   // Monday 2026-01-05
  EXPECT_FALSE(IsGrainBoundary(1767225600, TimeGrain::kWeek, 1));  // Thursday
}

}  // namespace
}  // namespace strata::semantic

namespace strata::semantic {
namespace {

// A relation's stored buckets serve a query's grains only in the query's zone; an hour-grain
// relation also serves a zone whose offsets are whole hours over the range.
TEST_F(StoredPlanTest, ZonesMustAgreeForStoredGrains) {
  const std::string by_day = R"({"measures": ["Order.revenue"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "day"}])";
  EXPECT_EQ(Route(by_day + "}"), "");
  EXPECT_EQ(Route(by_day + R"(, "timezone": "Europe/Berlin"})"), miss::kTimezoneMismatch);
  relation_.zone = *TimeZone::Find("Europe/Berlin");
  EXPECT_EQ(Route(by_day + "}"), miss::kTimezoneMismatch);
  std::string sql;
  EXPECT_EQ(Route(by_day + R"(, "timezone": "Europe/Berlin"})", std::nullopt, &sql), "");
  EXPECT_EQ(sql.find("AT TIME ZONE"), std::string::npos) << sql;  // the stored buckets as they are
  // Monthly from Berlin days: truncated in Berlin.
  EXPECT_EQ(Route(R"({"measures": ["Order.revenue"], "timezone": "Europe/Berlin",
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})",
                  std::nullopt, &sql),
            "");
  EXPECT_NE(sql.find("AT TIME ZONE 'Europe/Berlin'"), std::string::npos) << sql;
  // A time filter must fall on the stored (Berlin) buckets' boundaries.
  const std::string filtered = R"({"measures": ["Order.revenue"], "timezone": "Europe/Berlin",
      "filters": [{"member": "Order.order_date", "op": "gte", "values": [")";
  EXPECT_EQ(Route(filtered + R"(2026-03-30"]}]})"), "");
  EXPECT_EQ(Route(filtered + R"(2026-03-30T00:00:00Z"]}]})"), miss::kFilterNotStored);
}

TEST_F(StoredPlanTest, UtcHoursServeWholeHourZones) {
  std::string yaml = kModel;
  yaml.insert(yaml.find("data_roles:"), R"(  - name: hourly
    entity: Order
    dimensions: [{ name: order_date, grain: hour }]
    measures: [revenue]
)");
  auto outcome = LoadSemanticModel({{"m.yml", yaml}}, sql::Dialect::kDuckDb, 4);
  ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
  model_ = std::move(*outcome.model);
  auto layout = PlanRollupBuild(model_, model_.rollups[1], sql::Dialect::kDuckDb, std::nullopt);
  ASSERT_TRUE(layout.ok());
  relation_.entity = model_.FindEntity("Order");
  relation_.dimensions = layout->dimensions;
  relation_.measures = layout->measures;
  const auto by_day = [](const char* zone, const char* range) {
    return fmt::format(R"({{"measures": ["Order.revenue"], "timezone": "{}",
        "time_dimensions": [{{"dimension": "Order.order_date", "grain": "day"{}}}]}})",
                       zone, range);
  };
  const char* march = R"(, "range": ["2026-03-01", "2026-04-01"])";
  std::string sql;
  EXPECT_EQ(Route(by_day("Europe/Berlin", march), std::nullopt, &sql), "");
  EXPECT_NE(sql.find("AT TIME ZONE 'Europe/Berlin'"), std::string::npos) << sql;
  // Kolkata is UTC+05:30: its days do not start on UTC hours.
  EXPECT_EQ(Route(by_day("Asia/Kolkata", march)), miss::kTimezoneMismatch);
  // Without a range, over the rows the relation holds; unknown: not served.
  EXPECT_EQ(Route(by_day("Europe/Berlin", "")), miss::kTimezoneMismatch);
  relation_.span = std::make_pair(ToUnixSeconds({2026, 1, 1}), ToUnixSeconds({2026, 6, 1}));
  EXPECT_EQ(Route(by_day("Europe/Berlin", "")), "");
  // Berlin kept local mean time (+00:53:28) until 1893.
  relation_.span = std::make_pair(ToUnixSeconds({1890, 1, 1}), ToUnixSeconds({2026, 6, 1}));
  EXPECT_EQ(Route(by_day("Europe/Berlin", "")), miss::kTimezoneMismatch);
}

TEST(GrainBoundary, InAZone) {
  const TimeZone berlin = *TimeZone::Find("Europe/Berlin");
  EXPECT_TRUE(IsGrainBoundary(ToUnixSeconds({2026, 3, 29, 22, 0, 0}), TimeGrain::kDay, 1, berlin));
  EXPECT_FALSE(IsGrainBoundary(ToUnixSeconds({2026, 3, 30, 0, 0, 0}), TimeGrain::kDay, 1, berlin));
  // Monday 2026-03-30 starts at 22:00 UTC on Sunday.
  EXPECT_TRUE(IsGrainBoundary(ToUnixSeconds({2026, 3, 29, 22, 0, 0}), TimeGrain::kWeek, 1, berlin));
  EXPECT_TRUE(
      IsGrainBoundary(ToUnixSeconds({2025, 12, 31, 23, 0, 0}), TimeGrain::kYear, 1, berlin));
}

}  // namespace
}  // namespace strata::semantic
