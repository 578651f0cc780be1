// PlanRollupBuild and PlanRollupAppendMarker for Trino: the dialect's pieces (microsecond
// truncation, exact percentiles without percentile_cont, typed append bounds). The DuckDB and
// PostgreSQL shapes are covered through the rollup and query tests that execute them.
#include "semantic/rollup_sql.h"

#include <gtest/gtest.h>

#include "semantic/loader.h"

namespace strata::semantic {
namespace {

const char* const kModel = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: status, type: string }
      - { name: order_date, type: time, sql: order_at }
      - { name: order_id, type: number }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: median_amount, agg: median, sql: amount }
      - { name: p90_amount, agg: p90, sql: amount }
rollups:
  - name: daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, median_amount, p90_amount]
    sketches: [p90_amount]
  - name: appended
    entity: Order
    dimensions: [{ name: order_date, grain: day }]
    measures: [revenue]
    partition: { by: day, append: true }
    refresh: { when_changed: order_id }
  - name: appended_raw
    entity: Order
    dimensions: [{ name: order_date, grain: day }]
    measures: [revenue]
    partition: { by: day, append: true }
    refresh: { when_changed: loaded_at }
)";

class TrinoRollupSqlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto outcome = LoadSemanticModel({{"m.yml", kModel}}, sql::Dialect::kTrino, 1);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
    model_ = std::move(*outcome.model);
  }
  const Rollup& Named(std::string_view name) const {
    for (const Rollup& rollup : model_.rollups) {
      if (rollup.name == name) return rollup;
    }
    throw std::runtime_error("no rollup");
  }
  SemanticModel model_;
};

TEST_F(TrinoRollupSqlTest, BuildTruncatesMicrosecondsAndInterpolatesExactly) {
  auto plan = PlanRollupBuild(model_, Named("daily"), sql::Dialect::kTrino,
                              std::make_pair(UnixSeconds{1767225600}, UnixSeconds{1767312000}));
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("date_trunc('day', CAST(\"t0\".\"c1\" AS TIMESTAMP(6)))"),
            std::string::npos)
      << plan->sql;
  EXPECT_EQ(plan->sql.find("percentile_cont"), std::string::npos) << plan->sql;
  EXPECT_EQ(plan->sql.find("approx_percentile"), std::string::npos) << plan->sql;
  EXPECT_NE(plan->sql.find("array_sort(array_agg(CAST("), std::string::npos) << plan->sql;
  EXPECT_NE(plan->sql.find(">= TIMESTAMP '2026-01-01 00:00:00'"), std::string::npos) << plan->sql;
  // The sketched percentile is read as (group, value, count) rows and sketched locally.
  ASSERT_EQ(plan->sketches.size(), 1u);
  EXPECT_EQ(plan->sketches[0].kind, RollupSketchQuery::Kind::kValueCounts);
  EXPECT_NE(plan->sketches[0].sql.find("COUNT(*) AS \"n\""), std::string::npos);
}

TEST_F(TrinoRollupSqlTest, TimeBoundsKeepMicroseconds) {
  auto bounds = PlanRollupTimeBounds(model_, Named("daily"), sql::Dialect::kTrino);
  ASSERT_TRUE(bounds.ok()) << bounds.error().ToString();
  EXPECT_NE(bounds->find("MAX(CAST(\"t0\".\"c0\" AS TIMESTAMP(6)))"), std::string::npos) << *bounds;
}

TEST_F(TrinoRollupSqlTest, AppendBoundsAreLiteralsOfTheColumnsType) {
  AppendBounds bounds;
  bounds.after = "41";
  bounds.through = "90";
  auto plan =
      PlanRollupBuild(model_, Named("appended"), sql::Dialect::kTrino, std::nullopt, false, bounds);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("> 41 AND"), std::string::npos) << plan->sql;
  EXPECT_NE(plan->sql.find("<= 90"), std::string::npos) << plan->sql;

  auto marker = PlanRollupAppendMarker(model_, Named("appended"), sql::Dialect::kTrino,
                                       std::string("90"), std::string("80"));
  ASSERT_TRUE(marker.ok()) << marker.error().ToString();
  EXPECT_NE(marker->find(") < 90 AS \"behind\""), std::string::npos) << *marker;
  EXPECT_NE(marker->find(">= 80 AND"), std::string::npos) << *marker;

  // A number column's marker that is not a number is refused rather than pasted.
  bounds.after = "4; DROP";
  EXPECT_EQ(
      PlanRollupBuild(model_, Named("appended"), sql::Dialect::kTrino, std::nullopt, false, bounds)
          .error()
          .code,
      ErrorCode::kSemanticInvalid);
}

TEST_F(TrinoRollupSqlTest, TimeAppendBoundIsATimestampLiteral) {
  const Rollup& rollup = Named("daily");
  AppendBounds bounds;
  bounds.from = "2026-01-01 10:00:00.123456";
  // PlanRollupBuild takes the append column from the rollup; "daily" appends by order_date.
  auto plan = PlanRollupBuild(model_, rollup, sql::Dialect::kTrino, std::nullopt, false, bounds);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find(">= TIMESTAMP '2026-01-01 10:00:00.123456'"), std::string::npos)
      << plan->sql;
  auto duckdb = PlanRollupBuild(model_, rollup, sql::Dialect::kDuckDb, std::nullopt, false, bounds);
  ASSERT_TRUE(duckdb.ok());
  EXPECT_NE(duckdb->sql.find(">= '2026-01-01 10:00:00.123456'"), std::string::npos) << duckdb->sql;
}

TEST_F(TrinoRollupSqlTest, RawAppendColumnTakesTheTypeOfItsMarker) {
  AppendBounds bounds;
  bounds.after = "2026-01-01 00:00:00+00";
  bounds.before = "2026-02-01";
  auto plan = PlanRollupBuild(model_, Named("appended_raw"), sql::Dialect::kTrino, std::nullopt,
                              false, bounds);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("> TIMESTAMP '2026-01-01 00:00:00+00'"), std::string::npos) << plan->sql;
  EXPECT_NE(plan->sql.find("< TIMESTAMP '2026-02-01'"), std::string::npos) << plan->sql;
  bounds.after = "17";
  bounds.before = "it's";
  plan = PlanRollupBuild(model_, Named("appended_raw"), sql::Dialect::kTrino, std::nullopt, false,
                         bounds);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_NE(plan->sql.find("> 17 AND"), std::string::npos) << plan->sql;
  EXPECT_NE(plan->sql.find("< 'it''s'"), std::string::npos) << plan->sql;
}

}  // namespace
}  // namespace strata::semantic
