// Test fixture for rollups end to end in one process (rollup_query_test.cc and the slow-tier
// rollup_query_property_test.cc): a real DuckDB warehouse with orders and customers, a sketch
// engine and a temporary store; Build() builds the loaded rollups, ExpectSameAnswer() asks a query
// routed and live and compares every cell. Test-only.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "query/query_engine.h"
#include "rollup/builder.h"
#include "semantic/loader.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::rollup::testing {

using nlohmann::json;
namespace fs = std::filesystem;

inline constexpr const char* kEntities = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: channel, type: string }
      - { name: order_date, type: time, sql: order_at }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: paid_revenue, agg: sum, sql: amount, filter: "status = 'paid'" }
      - { name: min_amount, agg: min, sql: amount }
      - { name: max_amount, agg: max, sql: amount }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: customers, agg: count_distinct, sql: customer_id }
      - { name: customers_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: median_amount, agg: median, sql: amount }
      - { name: p90_amount, agg: p90, sql: amount }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
    metrics:
      - { name: aov, expr: revenue / order_count }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: region, type: string }
data_roles:
  - name: north
    access:
      - { entity: Order, row_filter: { member: customer.region, op: equals, values: [north] } }
      - { entity: Customer, row_filter: { member: region, op: equals, values: [north] } }
)";

inline constexpr const char* kTables = R"(
CREATE SCHEMA raw;
CREATE TABLE raw.customers AS
  SELECT i AS customer_id, ['north', 'south', 'east', NULL][1 + i % 4] AS region
  FROM range(200) t(i);
CREATE TABLE raw.orders AS
  SELECT i AS order_id, i % 200 AS customer_id,
         ['paid', 'shipped', 'refunded'][1 + (i * 7) % 3] AS status,
         ['web', 'store'][1 + (i * 13) % 2] AS channel,
         TIMESTAMP '2025-11-03 00:00:00' + to_minutes(CAST(i * 97 AS BIGINT)) AS order_at,
         CAST(((i * 7919) % 10000) / 100.0 AS DECIMAL(12, 2)) AS amount
  FROM range(6000) t(i);
INSERT INTO raw.orders VALUES (99999, 1, 'paid', 'web', NULL, 5.00);
)";

using strata::FixedClock;  // base/time.h

class RollupQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() / fmt::format("strata-rollup-test-{}-{}", ::getpid(), counter_++);
    fs::remove_all(root_);
    auto warehouse = warehouse::OpenDuckDb(":memory:");
    ASSERT_TRUE(warehouse.ok());
    warehouse_ = std::move(*warehouse);
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(*connection);
    ASSERT_TRUE(connection_->Execute(kTables).ok());
    auto engine = warehouse::OpenDuckDbEngine({});
    ASSERT_TRUE(engine.ok()) << engine.error().ToString();
    engine_ = std::move(*engine);
    auto engine_connection = engine_->Connect();
    ASSERT_TRUE(engine_connection.ok());
    engine_connection_ = std::move(*engine_connection);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Load(const std::string& rollups) {
    auto outcome = semantic::LoadSemanticModel({{"m.yml", std::string(kEntities) + rollups}},
                                               sql::Dialect::kDuckDb, 4);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
    model_ = std::move(*outcome.model);
    store_.emplace(root_ / "store");
  }

  BuildReport Build(const BuildOptions& options = {}) {
    auto report = BuildRollups(model_, *warehouse_, *engine_, *store_, options);
    EXPECT_TRUE(report.ok()) << report.error().ToString();
    for (const RollupOutcome& rollup : report->rollups) {
      EXPECT_FALSE(rollup.error) << rollup.rollup << ": " << rollup.error->ToString();
    }
    return std::move(*report);
  }

  Result<query::QueryResponse> Ask(const std::string& text, bool routed,
                                   const std::optional<std::string>& role = std::nullopt) {
    query::QueryContext context;
    context.dialect = sql::Dialect::kDuckDb;
    context.live = [this]() -> Result<warehouse::Connection*> {
      ++warehouse_opened_;
      return connection_.get();
    };
    if (routed) {
      context.store = &*store_;
      context.engine = engine_connection_.get();
      context.router = router_;
    }
    return query::Answer(model_, context, text, {role, std::nullopt});
  }

  static bool Close(const json& a, const json& b) {
    if (a.is_number() && b.is_number()) {
      const double x = a.get<double>(), y = b.get<double>();
      return std::abs(x - y) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(y)});
    }
    return a == b;
  }

  // The rollup answer equals the live one; returns the rollup used ("" when live).
  std::string ExpectSameAnswer(const std::string& text,
                               const std::optional<std::string>& role = std::nullopt) {
    auto live = Ask(text, false, role);
    auto routed = Ask(text, true, role);
    EXPECT_TRUE(live.ok() && routed.ok()) << text;
    if (!live.ok() || !routed.ok()) return "error";
    const json want = json::parse(live->ToJson()["rows"].dump());
    const json got = json::parse(routed->ToJson()["rows"].dump());
    EXPECT_EQ(want.size(), got.size()) << text << "\nlive: " << want << "\nrollup: " << got << "\n"
                                       << routed->sql;
    for (std::size_t r = 0; r < std::min(want.size(), got.size()); ++r) {
      EXPECT_EQ(want[r].size(), got[r].size());
      for (std::size_t c = 0; c < std::min(want[r].size(), got[r].size()); ++c) {
        EXPECT_TRUE(Close(want[r][c], got[r][c]))
            << text << "\nrow " << r << " col " << c << ": live " << want[r] << " rollup " << got[r]
            << "\n"
            << routed->sql;
      }
    }
    return routed->used.empty() ? "" : routed->used.front();
  }

  std::string Reason(const std::string& text, const std::string& rollup,
                     const std::optional<std::string>& role = std::nullopt) {
    auto routed = Ask(text, true, role);
    EXPECT_TRUE(routed.ok());
    if (!routed.ok()) return "error";
    for (const std::string& used : routed->used) {
      if (used == rollup) return "used";
    }
    for (const query::RollupMiss& miss : routed->missed) {
      if (miss.rollup == rollup) return miss.reason;
    }
    return "absent";
  }

  static inline int counter_ = 0;
  std::atomic<int> warehouse_opened_{0};  // calls of a query's `live` (the warehouse opened)
  const RouterCache* router_ = nullptr;   // null: a cache per query
  fs::path root_;
  std::unique_ptr<warehouse::Warehouse> warehouse_, engine_;
  std::unique_ptr<warehouse::Connection> connection_, engine_connection_;
  semantic::SemanticModel model_;
  std::optional<RollupStore> store_;
};

}  // namespace strata::rollup::testing
