// The rollup lifecycle benchmarks of issue 11, each printing a ratio against a baseline measured
// in the same process and interleaved with it (figures in docs/benchmarks.md's table; every run
// in docs/benchmarks-history.md, "9c. Rollup lifecycle"), over the warehouse of rollup_bench
// (orders evenly over 2025-01-01 .. 2026-01-31):
//
//   tail     a live_tail rollup built "on 2026-01-15" (files: 2025; the tail: January 2026, a
//            thirteenth of the rows) answering revenue by month x region for 2025-01 .. 2026-01,
//            vs the same query live, vs a range that ends at the watermark (files only)
//   compact  a day-partitioned rollup (build_range 400 days, built "on 2026-02-10") before and
//            after compaction into months: files (401 -> 23 in the recorded run: 13 months and
//            the 10 days of February), and revenue by week x region over 2025 read from the day
//            files vs from the month files
//
//   append   a month-partitioned partition.append rollup (marker: the time dimension): a refresh
//            whose marker did not move vs its one max() query alone; then batches of 100,000
//            new orders (from 2026-02-01, after every stored one) appended vs a full rebuild.
//            The rows are deleted afterwards, so the warehouse is reused as it was.
//
//   rollup_lifecycle_bench [--dir DIR] [--rows N] [--runs K] [--only tail,compact,append]
#include <set>
#include <sstream>

#include "bench_common.h"
#include "rollup/compaction.h"

namespace {

using namespace strata;
using namespace strata::rollup_bench;

constexpr const char* kTailRollup = R"(rollups:
  - name: tail_day_region
    entity: Order
    dimensions: [{ name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count]
    partition: { by: month }
    live_tail: true
)";

constexpr const char* kAcrossQuery =
    R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "month",
                       "range": ["2025-01-01", "2026-02-01"]}]})";

struct Timed {
  std::vector<double> ms;
  query::QueryResponse last;
};

// Runs each of `queries` `runs` times, interleaved; the timings per query.
std::vector<Timed> Interleave(Setup& setup,
                              const std::vector<std::pair<std::string, bool>>& queries, int runs) {
  std::vector<Timed> timed(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    timed[q].last = setup.Ask(queries[q].first, queries[q].second);  // warm
  }
  for (int run = 0; run < runs; ++run) {
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto start = SteadyClock::now();
      timed[q].last = setup.Ask(queries[q].first, queries[q].second);
      timed[q].ms.push_back(MsSince(start));
    }
  }
  return timed;
}

void BenchTail(Setup& setup, int runs) {
  std::cout << "\n== 6. live tail vs live, " << setup.rows << " orders, " << runs
            << " runs each (interleaved) ==\n";
  setup.UseRollups(kTailRollup);
  const FixedClock january(ToUnixSeconds({2026, 1, 15, 12, 0, 0}));
  auto start = SteadyClock::now();
  setup.Build({}, true, &january);
  std::cout << fmt::format("built tail_day_region (2025 in files) in {:.1f} s\n",
                           MsSince(start) / 1000);
  std::string stored_only = kAcrossQuery;
  stored_only.replace(stored_only.find("2026-02-01"), 10, "2026-01-01");
  const std::vector<Timed> timed =
      Interleave(setup, {{kAcrossQuery, false}, {kAcrossQuery, true}, {stored_only, true}}, runs);
  if (timed[1].last.used.empty() || !timed[1].last.live_tail) Die("the tail query did not hit");
  if (timed[2].last.live_tail) Die("the stored-only query read the tail");
  const double live = Median(timed[0].ms), tail = Median(timed[1].ms), files = Median(timed[2].ms);
  std::cout << fmt::format(
      "revenue by month x region, 2025-01 .. 2026-01 (answers equal: {})\n"
      "  live                      median {:9.2f} ms  runs {}\n"
      "  rollup + live tail        median {:9.2f} ms  runs {}\n"
      "  rollup, range to the watermark (files only) median {:9.2f} ms  runs {}\n"
      "  speed-up live / (rollup + tail): {:.1f}x; tail hit / files-only hit: {:.1f}\n",
      SameRows(timed[0].last, timed[1].last) ? "yes" : "NO", live, Join(timed[0].ms), tail,
      Join(timed[1].ms), files, Join(timed[2].ms), live / tail, tail / files);
}

std::string DailyRollup(bool compact) {
  return std::string(R"(rollups:
  - name: daily_region
    entity: Order
    dimensions: [{ name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count]
    sort_by: [order_date]
    build_range: { dimension: order_date, days: 400 }
    partition: { by: day)") +
         (compact ? ", compact: month" : "") + " }\n";
}

constexpr const char* kWeeklyQuery =
    R"({"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Customer.region"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "week",
                       "range": ["2025-01-06", "2025-12-29"]}]})";

std::size_t FileCount(const Setup& setup) {
  auto manifest = Check(setup.store->Load("daily_region"), "load manifest");
  return manifest ? manifest->files.size() : 0;
}

void BenchCompact(Setup& setup, int runs) {
  std::cout << "\n== 7. compaction: day files vs month files, " << setup.rows << " orders, " << runs
            << " runs each ==\n";
  const FixedClock later(ToUnixSeconds({2026, 2, 10, 0, 0, 0}));
  setup.UseRollups(DailyRollup(false));
  auto start = SteadyClock::now();
  setup.Build({}, true, &later);
  const double build_ms = MsSince(start);
  const std::size_t before_files = FileCount(setup);
  std::vector<Timed> before = Interleave(setup, {{kWeeklyQuery, true}}, runs);
  // The same definition with compact: compact the files in place (compact is not part of the
  // definition hash, so the store stays valid).
  std::optional<rollup::RollupStore> store = std::move(setup.store);
  setup.router.reset();
  setup.rollups = DailyRollup(true);
  setup.model = LoadModel(setup.rollups);
  setup.store = std::move(store);
  setup.router.emplace(setup.model, *setup.store);
  start = SteadyClock::now();
  const rollup::CompactionOutcome outcome = rollup::CompactRollup(
      setup.model, setup.model.rollups[0], *setup.engine, *setup.store, later.Now());
  const double compact_ms = MsSince(start);
  if (outcome.error) Die(outcome.error->ToString());
  const std::size_t after_files = FileCount(setup);
  std::vector<Timed> after = Interleave(setup, {{kWeeklyQuery, true}}, runs);
  std::cout << fmt::format(
      "daily_region: built in {:.1f} s; compacted {} files into {} in {:.0f} ms ({:.3f} of the "
      "build)\n"
      "  files: {} before, {} after\n"
      "  weekly query over 2025 on day files   median {:8.2f} ms  runs {}\n"
      "  weekly query over 2025 on month files median {:8.2f} ms  runs {}\n"
      "  ratio month files / day files: {:.2f} (answers equal: {})\n",
      build_ms / 1000, outcome.merged_files, outcome.written_files, compact_ms,
      compact_ms / build_ms, before_files, after_files, Median(before[0].ms), Join(before[0].ms),
      Median(after[0].ms), Join(after[0].ms), Median(after[0].ms) / Median(before[0].ms),
      SameRows(before[0].last, after[0].last) ? "yes" : "NO");
}

constexpr const char* kAppendRollup = R"(rollups:
  - name: append_region
    entity: Order
    dimensions: [{ name: order_date, grain: day }, customer.region, status]
    measures: [revenue, order_count]
    partition: { by: month, append: true }
)";

constexpr const char* kMonthQuery =
    R"({"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Customer.region"],
  "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})";

constexpr std::int64_t kBatchRows = 100'000;

// Inserts batch `batch` (0-based): kBatchRows orders after every stored one.
void InsertBatch(Setup& setup, int batch) {
  const std::int64_t first = setup.rows + batch * kBatchRows;
  Check(setup.live->Execute(fmt::format(
            "INSERT INTO raw.orders SELECT i, CAST(hash(i) % 100000 AS BIGINT), 'paid', "
            "TIMESTAMP '2026-02-01 00:00:00' + to_seconds(CAST({} + (i - {}) AS BIGINT)), "
            "CAST((hash(i * 31) % 100000) / 100.0 AS DECIMAL(12, 2)) FROM range({}, {}) t(i)",
            batch * kBatchRows, first, first, first + kBatchRows)),
        "insert a batch");
}

const rollup::RollupOutcome& Only(const rollup::BuildReport& report) {
  if (report.rollups.size() != 1) Die("expected one rollup");
  return report.rollups.front();
}

void BenchAppend(Setup& setup, int runs) {
  std::cout << "\n== 8. append refresh vs full rebuild, " << setup.rows << " orders, " << runs
            << " runs each ==\n";
  setup.UseRollups(kAppendRollup);
  const FixedClock later(ToUnixSeconds({2026, 3, 1, 0, 0, 0}));
  auto start = SteadyClock::now();
  setup.Build({}, true, &later);
  const double first_build = MsSince(start);
  std::vector<double> skipped, max_alone;
  for (int run = 0; run < runs; ++run) {
    start = SteadyClock::now();
    if (Only(setup.Build({}, false, &later)).status != "skipped") Die("the refresh did not skip");
    skipped.push_back(MsSince(start));
    start = SteadyClock::now();
    Check(setup.live->Execute("SELECT MAX(order_at) FROM raw.orders"), "max");
    max_alone.push_back(MsSince(start));
  }
  std::vector<double> appended, rebuilt;
  bool equal = true;
  for (int run = 0; run < runs; ++run) {
    InsertBatch(setup, run);
    start = SteadyClock::now();
    const rollup::BuildReport report = setup.Build({}, false, &later);
    appended.push_back(MsSince(start));
    std::size_t merged = 0;
    for (const rollup::PeriodOutcome& period : Only(report).periods) {
      merged += period.status == "appended" || period.status == "built";
    }
    if (merged != 1) Die("the append did not touch February alone");
    const query::QueryResponse after_append = setup.Ask(kMonthQuery, true);
    equal = equal && SameRows(after_append, setup.Ask(kMonthQuery, false));
    start = SteadyClock::now();
    setup.Build({}, true, &later);
    rebuilt.push_back(MsSince(start));
    equal = equal && SameRows(after_append, setup.Ask(kMonthQuery, true));
  }
  Check(setup.live->Execute(
            fmt::format("DELETE FROM raw.orders WHERE order_id >= {}; CHECKPOINT", setup.rows)),
        "delete the batches");
  std::cout << fmt::format(
      "append_region: first build {:.1f} s\n"
      "  refresh, marker unchanged (skipped) median {:8.2f} ms  runs {}\n"
      "  its SELECT MAX(order_at) alone      median {:8.2f} ms  runs {}\n"
      "  overhead beyond the max() query: {:.2f} ms\n"
      "  append {} new orders               median {:8.1f} ms  runs {}\n"
      "  full rebuild with them             median {:8.1f} ms  runs {}\n"
      "  ratio append / full rebuild: {:.3f} (answers equal to live and to the rebuild: {})\n",
      first_build / 1000, Median(skipped), Join(skipped), Median(max_alone), Join(max_alone),
      Median(skipped) - Median(max_alone), kBatchRows, Median(appended), Join(appended),
      Median(rebuilt), Join(rebuilt), Median(appended) / Median(rebuilt), equal ? "yes" : "NO");
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark may die on an unexpected exception.
int main(int argc, char** argv) {
  Setup setup;
  setup.dir = fs::temp_directory_path() / "strata-rollup-bench";
  setup.rows = 50'000'000;
  int runs = 5;
  std::set<std::string> only = {"tail", "compact", "append"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--dir") {
      setup.dir = value;
    } else if (flag == "--rows") {
      setup.rows = std::atoll(value.c_str());
    } else if (flag == "--runs") {
      runs = std::atoi(value.c_str());
    } else if (flag == "--only") {
      only.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) only.insert(item);
    } else {
      Die("unknown flag " + flag);
    }
  }
  fs::create_directories(setup.dir);
  setup.Open();
  if (only.count("tail")) BenchTail(setup, runs);
  if (only.count("compact")) BenchCompact(setup, runs);
  if (only.count("append")) BenchAppend(setup, runs);
  return 0;
}
