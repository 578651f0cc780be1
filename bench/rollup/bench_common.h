// What the rollup benchmarks share (rollup_bench.cc, lifecycle_bench.cc): the benchmark model,
// the generated N-row warehouse (reused across runs), the engine and store, timing helpers.
// Benchmark code: failures end the process (Die).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "query/query_engine.h"
#include "rollup/builder.h"
#include "rollup/definition.h"
#include "rollup/router.h"
#include "rollup/store.h"
#include "semantic/loader.h"
#include "semantic/query.h"
#include "semantic/rollup_sql.h"
#include "sql/dialect.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::rollup_bench {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;

[[noreturn]] inline void Die(const std::string& message) {
  std::cerr << "rollup_bench: " << message << "\n";
  std::exit(1);
}

template <typename T>
inline T Check(Result<T> result, const char* what) {
  if (!result.ok()) Die(fmt::format("{}: {}", what, result.error().ToString()));
  return std::move(result).value();
}

inline double MsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

inline double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const std::size_t index =
      std::min(values.size() - 1, static_cast<std::size_t>(q * static_cast<double>(values.size())));
  return values[index];
}
inline double Median(const std::vector<double>& values) { return Quantile(values, 0.5); }

inline std::string Join(const std::vector<double>& values) {
  std::string out;
  for (double value : values) out += fmt::format("{}{:.1f}", out.empty() ? "" : " ", value);
  return out;
}

inline constexpr const char* kEntities = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: order_date, type: time, sql: order_at }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: customers_approx, agg: count_distinct_approx, sql: customer_id }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: region, type: string }
)";

// The rollups of the 50 M-row benchmarks.
inline constexpr const char* kRollups = R"(rollups:
  - name: revenue_month_region
    entity: Order
    dimensions: [{ name: order_date, grain: month }, customer.region]
    measures: [revenue, order_count]
    partition: { by: month }
    sort_by: [order_date, customer.region]
  - name: customers_month
    entity: Order
    dimensions: [{ name: order_date, grain: month }]
    measures: [customers_approx]
    sketches: [customers_approx]
    partition: { by: month }
  - name: revenue_refresh
    entity: Order
    dimensions: [{ name: order_date, grain: month }, customer.region]
    measures: [revenue, order_count]
    partition: { by: month, refresh_last: 2 }
    sort_by: [order_date, customer.region]
)";

inline constexpr const char* kRevenueQuery =
    R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "month",
                       "range": ["2025-01-01", "2026-01-01"]}]})";
inline constexpr const char* kCustomersQuery = R"({"measures": ["Order.customers_approx"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "quarter",
                       "range": ["2025-01-01", "2026-01-01"]}]})";

// 100,000 customers in 5 regions; orders spread evenly over 2025-01-01 .. 2026-01-31 (395.8
// days, so 13 monthly periods), time ordered, each a customer, a status and an amount.
inline std::string TablesSql(std::int64_t rows) {
  const std::int64_t step_ms = 34'200'000'000 / rows;
  return fmt::format(R"(
CREATE SCHEMA raw;
CREATE TABLE raw.customers AS
  SELECT i AS customer_id, ['north', 'south', 'east', 'west', 'central'][1 + i % 5] AS region
  FROM range(100000) t(i);
CREATE TABLE raw.orders AS
  SELECT i AS order_id, CAST(hash(i) % 100000 AS BIGINT) AS customer_id,
         ['paid', 'shipped', 'refunded', 'pending'][1 + (i * 7) % 4] AS status,
         TIMESTAMP '2025-01-01 00:00:00' + to_milliseconds(CAST(i * {} AS BIGINT)) AS order_at,
         CAST((hash(i * 31) % 100000) / 100.0 AS DECIMAL(12, 2)) AS amount
  FROM range({}) t(i);
CHECKPOINT;
)",
                     step_ms, rows);
}

inline semantic::SemanticModel LoadModel(const std::string& rollups) {
  auto outcome = semantic::LoadSemanticModel({{"bench.yml", std::string(kEntities) + rollups}},
                                             sql::Dialect::kDuckDb, 1);
  if (!outcome.errors.empty()) Die(outcome.errors.front().ToString());
  return std::move(*outcome.model);
}

inline std::int64_t CountOrders(warehouse::Connection& connection) {
  auto counted = connection.Execute("SELECT count(*) FROM raw.orders");
  if (!counted.ok() || counted->row_count() != 1) return -1;
  return std::get<std::int64_t>(counted->columns[0].values[0]);
}

// A shared setup: the warehouse file, the engine and the rollup store.
struct Setup {
  fs::path dir;
  std::int64_t rows = 0;
  std::unique_ptr<warehouse::Warehouse> warehouse, engine;
  std::unique_ptr<warehouse::Connection> live, engine_a, engine_b;
  semantic::SemanticModel model;
  std::optional<rollup::RollupStore> store;
  std::optional<rollup::RouterCache> router;  // kept across queries, as a server keeps it
  std::string rollups = kRollups;             // the model's rollups block

  void Open() {
    const fs::path file = dir / fmt::format("warehouse-{}.duckdb", rows);
    const bool exists = fs::exists(file);
    warehouse = Check(warehouse::OpenDuckDb(file.string()), "open warehouse");
    live = Check(warehouse->Connect(), "connect");
    if (!exists || CountOrders(*live) != rows) {
      live.reset();
      warehouse.reset();
      fs::remove(file);
      fs::remove(file.string() + ".wal");
      warehouse = Check(warehouse::OpenDuckDb(file.string()), "open warehouse");
      live = Check(warehouse->Connect(), "connect");
      const auto start = SteadyClock::now();
      Check(live->Execute(TablesSql(rows)), "generate");
      std::cout << fmt::format("generated {} orders in {:.1f} s\n", rows, MsSince(start) / 1000);
    } else {
      std::cout << fmt::format("reusing {} ({} orders)\n", file.string(), rows);
    }
    engine = Check(warehouse::OpenDuckDbEngine({}), "open engine");
    engine_a = Check(engine->Connect(), "engine connect");
    engine_b = Check(engine->Connect(), "engine connect");
    model = LoadModel(rollups);
    fs::remove_all(dir / "store");
    store.emplace(dir / "store");
    router.emplace(model, *store);
  }

  rollup::BuildReport Build(std::vector<std::string> names, bool full,
                            const Clock* clock = nullptr) {
    rollup::BuildOptions options;
    options.rollups = std::move(names);
    options.full = full;
    options.clock = clock;
    auto report = Check(rollup::BuildRollups(model, *warehouse, *engine, *store, options), "build");
    for (const rollup::RollupOutcome& outcome : report.rollups) {
      if (outcome.error) Die(outcome.rollup + ": " + outcome.error->ToString());
    }
    return report;
  }

  // Loads `block` as the model's rollups, over a new empty store.
  void UseRollups(const std::string& block) {
    router.reset();
    rollups = block;
    model = LoadModel(rollups);
    fs::remove_all(dir / "store");
    store.emplace(dir / "store");
    router.emplace(model, *store);
  }

  query::QueryResponse Ask(const std::string& text, bool routed) {
    query::QueryContext context;
    warehouse::Connection* connection = live.get();
    context.live = [connection]() -> Result<warehouse::Connection*> { return connection; };
    if (routed) {
      context.store = &*store;
      context.engine = engine_a.get();
      context.router = &*router;
    }
    return Check(query::Answer(model, context, text, {}), "answer");
  }
};

inline bool SameRows(const query::QueryResponse& a, const query::QueryResponse& b) {
  const auto x = nlohmann::json::parse(a.ToJson()["rows"].dump());
  const auto y = nlohmann::json::parse(b.ToJson()["rows"].dump());
  if (x.size() != y.size()) return false;
  for (std::size_t r = 0; r < x.size(); ++r) {
    for (std::size_t c = 0; c < x[r].size(); ++c) {
      if (x[r][c].is_number() && y[r][c].is_number()) {
        const double p = x[r][c].get<double>(), q = y[r][c].get<double>();
        if (std::abs(p - q) > 1e-9 * std::max({1.0, std::abs(p), std::abs(q)})) return false;
      } else if (x[r][c] != y[r][c]) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace strata::rollup_bench
