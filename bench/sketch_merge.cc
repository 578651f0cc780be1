// Re-aggregating stored HLL sketches inside DuckDB against counting distinct values from the raw
// rows, in one process on one engine (warehouse/duckdb/duckdb_engine.h).
//
//   sketch_merge_bench [--rows N] [--customers C] [--sketches S] [--amounts A] [--reps K]
//                      [--threads T]
//
// Builds `facts` (N rows, customer ids uniform in [0, C), amounts uniform over A cent values)
// and `sketches` (S rows: one strata_hll_add and one strata_value_counts sketch per slice of
// facts, as a rollup stores per-day sketches), then measures, median of K runs:
//   merge     SELECT strata_hll_estimate(strata_hll_merge(s)) FROM sketches
//   distinct  SELECT count(DISTINCT customer::VARCHAR) FROM facts     (the live answer)
//   build     the sketches table itself (strata_hll_add over facts)
//   quantile  strata_quantile_merge over S value-count sketches vs quantile_cont over facts
// and prints distinct / merge (the speed-up a rollup hit gets) with the estimate's error.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "warehouse/duckdb/duckdb_engine.h"

namespace {

using namespace strata;
using warehouse::Connection;
using warehouse::QueryResult;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "sketch_merge_bench: " << message << "\n";
  std::exit(1);
}

QueryResult Run(Connection& connection, const std::string& sql) {
  Result<QueryResult> result = connection.Execute(sql);
  if (!result.ok()) Die(sql + ": " + result.error().ToString());
  return std::move(result).value();
}

double MedianMs(int reps, const std::function<void()>& body) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Options {
  long long rows = 10'000'000;
  long long customers = 1'000'000;
  long long sketches = 365;
  long long amounts = 1000;
  int reps = 5;
  int threads = 0;
};

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long value = std::atoll(argv[i + 1]);
    if (flag == "--rows") {
      options.rows = value;
    } else if (flag == "--customers") {
      options.customers = value;
    } else if (flag == "--sketches") {
      options.sketches = value;
    } else if (flag == "--amounts") {
      options.amounts = value;
    } else if (flag == "--reps") {
      options.reps = static_cast<int>(value);
    } else if (flag == "--threads") {
      options.threads = static_cast<int>(value);
    } else {
      Die("unknown flag " + flag);
    }
  }
  return options;
}

std::int64_t Int(const QueryResult& result) {
  return std::get<std::int64_t>(result.columns[0].values[0]);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  warehouse::EngineOptions engine_options;
  engine_options.threads = options.threads;
  auto engine = warehouse::OpenDuckDbEngine(engine_options);
  if (!engine.ok()) Die(engine.error().ToString());
  auto opened = (*engine)->Connect();
  if (!opened.ok()) Die(opened.error().ToString());
  Connection& connection = **opened;

  Run(connection,
      fmt::format("CREATE TABLE facts AS SELECT i % {} AS slice, "
                  "(hash(i) % {})::BIGINT AS customer, (hash(i + 1) % {})::DOUBLE / 100 "
                  "AS amount FROM range({}) r(i)",
                  options.sketches, options.customers, options.amounts, options.rows));
  const std::string build_sql =
      "CREATE OR REPLACE TABLE sketches AS SELECT slice, strata_hll_add(customer::VARCHAR) AS s, "
      "strata_value_counts(amount) AS vc FROM facts GROUP BY slice";
  const double build = MedianMs(options.reps, [&] { Run(connection, build_sql); });

  std::int64_t estimate = 0, exact = 0;
  const double merge = MedianMs(options.reps, [&] {
    estimate =
        Int(Run(connection, "SELECT strata_hll_estimate(strata_hll_merge(s)) FROM sketches"));
  });
  const double distinct = MedianMs(options.reps, [&] {
    exact = Int(Run(connection, "SELECT count(DISTINCT customer::VARCHAR) FROM facts"));
  });
  double merged_p90 = 0, live_p90 = 0;
  const double quantile_merge = MedianMs(options.reps, [&] {
    merged_p90 =
        std::get<double>(Run(connection, "SELECT strata_quantile_merge(vc, 0.9) FROM sketches")
                             .columns[0]
                             .values[0]);
  });
  const double quantile_cont = MedianMs(options.reps, [&] {
    live_p90 = std::get<double>(
        Run(connection, "SELECT quantile_cont(amount, 0.9) FROM facts").columns[0].values[0]);
  });

  fmt::print("rows {} customers {} sketches {} amounts {} threads {} reps {}\n", options.rows,
             options.customers, options.sketches, options.amounts, options.threads, options.reps);
  fmt::print("build sketches (strata_hll_add + strata_value_counts): {:.1f} ms\n", build);
  fmt::print("count(DISTINCT) over facts:      {:9.2f} ms  exact {}\n", distinct, exact);
  fmt::print("strata_hll_merge over sketches:  {:9.2f} ms  estimate {} (error {:+.3f} %)\n", merge,
             estimate, 100.0 * static_cast<double>(estimate - exact) / static_cast<double>(exact));
  fmt::print("ratio distinct / merge: {:.1f}x\n", distinct / merge);
  fmt::print("quantile_cont over facts:        {:9.2f} ms  p90 {}\n", quantile_cont, live_p90);
  fmt::print("strata_quantile_merge:           {:9.2f} ms  p90 {} ({})\n", quantile_merge,
             merged_p90, merged_p90 == live_p90 ? "equal" : "DIFFERENT");
  fmt::print("ratio quantile_cont / quantile_merge: {:.1f}x\n", quantile_cont / quantile_merge);
  return merged_p90 == live_p90 ? 0 : 1;
}
