// The rollup benchmarks of issue 10, each printing a ratio against a baseline measured in the
// same process and interleaved with it (figures in docs/benchmarks.md's table; every run in
// docs/benchmarks-history.md, "9. Rollups"):
//
//   hit      rollup hit vs live (query::Answer both ways) on an N-row fact table in a DuckDB
//            warehouse file: revenue by month x region over a year, distinct customers
//            (count_distinct_approx, sketched) by quarter; median live / rollup per query
//   router   the routing decision (parse -> live plan -> route -> SQL, nothing executed) with 20
//            built rollups on the queried entity, against the live plan alone; p50 / p99
//   floor    a rollup hit through query::Answer on a warm engine connection vs the same
//            re-aggregation written by hand on another connection of the same engine (same
//            registered functions, same Parquet files)
//   build    rollup::BuildRollups of one rollup vs a hand-written COPY (SELECT ... GROUP BY ...)
//            TO 'x.parquet' of the same rows on the same warehouse
//   refresh  a plain build with refresh_last = 2 after a full build vs a full rebuild
//
//   rollup_bench [--dir DIR] [--rows N] [--runs K] [--floor-reps K] [--router-samples K]
//                [--build-rounds K] [--only hit,router,floor,build,refresh]
//
// The warehouse (DIR/warehouse-N.duckdb) is generated with DuckDB SQL on first use and reused
// afterwards (its row count is checked); the rollup store is rebuilt every run.
#include <set>
#include <sstream>

#include "bench_common.h"
#include "rollup/definition.h"
#include "semantic/rollup_sql.h"

namespace {

using namespace strata;
using namespace strata::rollup_bench;

// --- 1. hit vs live ---------------------------------------------------------------------------

void BenchHit(Setup& setup, int runs) {
  std::cout << "\n== 1. rollup hit vs live, " << setup.rows << " orders, " << runs
            << " runs each (interleaved) ==\n";
  for (const auto& [name, text] :
       {std::pair{"revenue by month x region, 2025", kRevenueQuery},
        std::pair{"distinct customers by quarter, 2025", kCustomersQuery}}) {
    const query::QueryResponse warm_live = setup.Ask(text, false);
    const query::QueryResponse warm_hit = setup.Ask(text, true);
    if (warm_hit.used.empty()) Die(fmt::format("{}: not a rollup hit", name));
    std::vector<double> live_ms, hit_ms;
    for (int run = 0; run < runs; ++run) {
      auto start = SteadyClock::now();
      const query::QueryResponse live = setup.Ask(text, false);
      live_ms.push_back(MsSince(start));
      start = SteadyClock::now();
      const query::QueryResponse hit = setup.Ask(text, true);
      hit_ms.push_back(MsSince(start));
    }
    const double live = Median(live_ms), hit = Median(hit_ms);
    std::cout << fmt::format(
        "{}: rollup {} ({} rows, answers equal: {})\n"
        "  live   median {:9.2f} ms  runs {}\n"
        "  rollup median {:9.2f} ms  runs {}\n"
        "  speed-up live / rollup: {:.0f}x  (target >= 100x)\n",
        name, warm_hit.used.front(), warm_hit.rows.size(),
        SameRows(warm_live, warm_hit) ? "yes" : "NO", live, Join(live_ms), hit, Join(hit_ms),
        live / hit);
  }
}

// --- 3. near the floor ------------------------------------------------------------------------

std::string ParquetList(const rollup::RollupStore& store, const std::string& rollup,
                        UnixSeconds from, UnixSeconds to) {
  const auto manifest = Check(store.Load(rollup), "load manifest");
  if (!manifest) Die(rollup + " is not built");
  std::string list;
  for (const rollup::ManifestFile& file : manifest->files) {
    if (!file.start || *file.start < from || *file.end > to) continue;
    list += (list.empty() ? "" : ", ") +
            sql::QuoteString((store.FolderOf(rollup) / file.path).string(), sql::Dialect::kDuckDb);
  }
  return "read_parquet([" + list + "])";
}

void BenchFloor(Setup& setup, int reps) {
  std::cout << "\n== 3. near the floor: query::Answer (warm engine) vs hand SQL on the same "
               "engine, "
            << reps << " reps each (interleaved) ==\n";
  const UnixSeconds from = 1735689600, to = 1767225600;  // 2025-01-01, 2026-01-01
  const std::string revenue_hand =
      "SELECT \"customer.region\", \"order_date\", SUM(\"revenue\") AS revenue FROM " +
      ParquetList(*setup.store, "revenue_month_region", from, to) +
      " WHERE \"order_date\" >= TIMESTAMP '2025-01-01' AND \"order_date\" < TIMESTAMP "
      "'2026-01-01' GROUP BY ALL ORDER BY 1, 2";
  const std::string customers_hand =
      "SELECT date_trunc('quarter', \"order_date\") AS quarter, "
      "COALESCE(strata_hll_estimate(strata_hll_merge(\"customers_approx__hll\")), 0) AS n FROM " +
      ParquetList(*setup.store, "customers_month", from, to) +
      " WHERE \"order_date\" >= TIMESTAMP '2025-01-01' AND \"order_date\" < TIMESTAMP "
      "'2026-01-01' GROUP BY 1 ORDER BY 1";
  for (const auto& [name, text, hand] :
       {std::tuple{"revenue by month x region", kRevenueQuery, revenue_hand},
        std::tuple{"distinct customers by quarter", kCustomersQuery, customers_hand}}) {
    const query::QueryResponse first = setup.Ask(text, true);
    const auto hand_rows = Check(setup.engine_b->Execute(hand), "hand SQL");
    std::cout << fmt::format("{}: strata SQL:\n  {}\nhand SQL:\n  {}\n", name, first.sql, hand);
    if (hand_rows.row_count() != first.rows.size()) {
      Die(fmt::format("hand SQL gave {} rows, strata {}", hand_rows.row_count(),
                      first.rows.size()));
    }
    std::vector<double> answer_ms, hand_ms;
    for (int rep = 0; rep < reps; ++rep) {
      const bool hand_first = rep % 2 == 1;
      for (int side = 0; side < 2; ++side) {
        const bool hand_turn = (side == 0) == hand_first;
        const auto start = SteadyClock::now();
        if (hand_turn) {
          Check(setup.engine_b->Execute(hand), "hand SQL");
          hand_ms.push_back(MsSince(start));
        } else {
          setup.Ask(text, true);
          answer_ms.push_back(MsSince(start));
        }
      }
    }
    const double answer = Median(answer_ms), by_hand = Median(hand_ms);
    std::cout << fmt::format(
        "  query::Answer   median {:7.3f} ms  p90 {:7.3f} ms\n"
        "  hand SQL (C API) median {:7.3f} ms  p90 {:7.3f} ms\n"
        "  ratio Answer / hand: {:.2f}  (target <= 1.5)\n",
        answer, Quantile(answer_ms, 0.9), by_hand, Quantile(hand_ms, 0.9), answer / by_hand);
  }
}

// --- 4. build one rollup vs a hand COPY --------------------------------------------------------

void BenchBuild(Setup& setup, int rounds) {
  std::cout << "\n== 4. BuildRollups(revenue_month_region, full) vs hand COPY ... TO parquet, "
            << rounds << " rounds (order alternating) ==\n";
  const fs::path hand_file = setup.dir / "hand.parquet";
  const std::string hand =
      "COPY (SELECT date_trunc('month', o.order_at) AS order_date, c.region AS "
      "\"customer.region\", SUM(o.amount) AS revenue, COUNT(*) AS order_count FROM raw.orders "
      "AS o LEFT JOIN raw.customers AS c ON c.customer_id = o.customer_id GROUP BY 1, 2 ORDER "
      "BY 1, 2) TO " +
      sql::QuoteString(hand_file.string(), sql::Dialect::kDuckDb) + " (FORMAT parquet)";
  // The builder's warehouse SQL for one period, for the record.
  const semantic::Rollup* rollup = nullptr;
  for (const semantic::Rollup& r : setup.model.rollups) {
    if (r.name == "revenue_month_region") rollup = &r;
  }
  const auto plan =
      Check(semantic::PlanRollupBuild(setup.model, *rollup, sql::Dialect::kDuckDb,
                                      std::pair<UnixSeconds, UnixSeconds>{1735689600, 1738368000}),
            "plan build");
  std::cout << "builder's warehouse SQL (period 2025-01):\n  " << plan.sql << "\nhand:\n  " << hand
            << "\n";
  std::vector<double> build_ms, hand_ms, period_sum_ms, warehouse_sql_ms;
  std::int64_t built_rows = 0;
  std::size_t periods = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int side = 0; side < 2; ++side) {
      const bool hand_turn = (side == 0) == (round % 2 == 1);
      const auto start = SteadyClock::now();
      if (hand_turn) {
        Check(setup.live->Execute(hand), "hand COPY");
        hand_ms.push_back(MsSince(start));
      } else {
        const rollup::BuildReport report = setup.Build({"revenue_month_region"}, true);
        build_ms.push_back(MsSince(start));
        double sum = 0;
        for (const rollup::PeriodOutcome& period : report.rollups[0].periods) {
          sum += period.duration_ms;
        }
        period_sum_ms.push_back(sum);
        built_rows = report.rollups[0].rows;
        periods = report.rollups[0].periods.size();
      }
    }
  }
  // Attribution: the builder's per-period warehouse queries alone, on the same connection.
  const auto manifest = Check(setup.store->Load("revenue_month_region"), "load");
  for (int round = 0; round < rounds; ++round) {
    const auto start = SteadyClock::now();
    for (const rollup::ManifestFile& file : manifest->files) {
      std::optional<std::pair<UnixSeconds, UnixSeconds>> window;
      if (file.start) window = std::pair{*file.start, *file.end};
      const auto period_plan =
          Check(semantic::PlanRollupBuild(setup.model, *rollup, sql::Dialect::kDuckDb, window,
                                          file.null_time),
                "plan");
      Check(setup.live->Execute(period_plan.sql), "period SQL");
    }
    warehouse_sql_ms.push_back(MsSince(start));
  }
  const auto hand_rows =
      Check(setup.live->Execute("SELECT count(*) FROM read_parquet(" +
                                sql::QuoteString(hand_file.string(), sql::Dialect::kDuckDb) + ")"),
            "count");
  std::cout << fmt::format(
      "rows: builder {} in {} period files, hand {} in one file\n"
      "  BuildRollups  median {:8.1f} ms  runs {}\n"
      "    of which periods (sum of duration_ms) {:.1f} ms\n"
      "  hand COPY     median {:8.1f} ms  runs {}\n"
      "  attribution: the builder's {} period queries alone on the warehouse: median {:.1f} ms\n"
      "  ratio BuildRollups / hand COPY: {:.2f}  (target <= 1.2)\n",
      built_rows, periods, warehouse::ValueToString(hand_rows.columns[0].values[0]),
      Median(build_ms), Join(build_ms), Median(period_sum_ms), Median(hand_ms), Join(hand_ms),
      manifest->files.size(), Median(warehouse_sql_ms), Median(build_ms) / Median(hand_ms));
}

// --- 5. refresh_last = 2 vs full rebuild -------------------------------------------------------

void BenchRefresh(Setup& setup, int rounds) {
  std::cout << "\n== 5. plain build (refresh_last = 2) vs full rebuild of revenue_refresh, "
            << rounds << " rounds ==\n";
  std::vector<double> full_ms, plain_ms;
  std::size_t built = 0, kept = 0, total = 0;
  for (int round = 0; round < rounds; ++round) {
    auto start = SteadyClock::now();
    setup.Build({"revenue_refresh"}, true);
    full_ms.push_back(MsSince(start));
    start = SteadyClock::now();
    const rollup::BuildReport report = setup.Build({"revenue_refresh"}, false);
    plain_ms.push_back(MsSince(start));
    built = kept = 0;
    total = report.rollups[0].periods.size();
    std::string labels;
    for (const rollup::PeriodOutcome& period : report.rollups[0].periods) {
      if (period.status == "built") {
        ++built;
        labels += " " + period.label;
      } else if (period.status == "kept") {
        ++kept;
      }
    }
    if (round == 0) std::cout << "plain build rebuilt:" << labels << "\n";
  }
  std::cout << fmt::format(
      "periods: {} in the manifest; the refresh read {} (rebuilt) and kept {}\n"
      "  full rebuild  median {:8.1f} ms  runs {}\n"
      "  refresh       median {:8.1f} ms  runs {}\n"
      "  ratio refresh / full: {:.3f}  (periods ratio {}/{} = {:.3f})\n",
      total, built, kept, Median(full_ms), Join(full_ms), Median(plain_ms), Join(plain_ms),
      Median(plain_ms) / Median(full_ms), built, total,
      static_cast<double>(built) / static_cast<double>(total));
}

// --- 2. router decision -------------------------------------------------------------------------

std::string TwentyRollups() {
  const std::vector<std::string> dimensions = {
      "[{ name: order_date, grain: month }, customer.region]",
      "[{ name: order_date, grain: day }, customer.region]",
      "[{ name: order_date, grain: month }, status]",
      "[{ name: order_date, grain: day }, status, customer.region]",
      "[{ name: order_date, grain: month }, status, customer.region]"};
  const std::vector<std::string> measures = {
      "[revenue]", "[revenue, order_count]", "[order_count]",
      "[revenue, order_count, customers_approx]\n    sketches: [customers_approx]"};
  std::string yaml = "rollups:\n";
  for (int i = 0; i < 20; ++i) {
    yaml += fmt::format(
        "  - name: r{:02}\n    entity: Order\n    dimensions: {}\n    measures: {}\n"
        "    partition: {{ by: month }}\n",
        i, dimensions[i % 5], measures[i / 5]);
  }
  return yaml;
}

void BenchRouter(const fs::path& dir, int samples) {
  std::cout << "\n== 2. router decision with 20 built rollups on Order, " << samples
            << " samples each (interleaved) ==\n";
  auto warehouse = Check(warehouse::OpenDuckDb(":memory:"), "open");
  auto connection = Check(warehouse->Connect(), "connect");
  Check(connection->Execute(R"(
CREATE SCHEMA raw;
CREATE TABLE raw.customers AS
  SELECT i AS customer_id, ['north', 'south', 'east', 'west', 'central'][1 + i % 5] AS region
  FROM range(1000) t(i);
CREATE TABLE raw.orders AS
  SELECT i AS order_id, CAST(hash(i) % 1000 AS BIGINT) AS customer_id,
         ['paid', 'shipped', 'refunded', 'pending'][1 + (i * 7) % 4] AS status,
         TIMESTAMP '2025-01-01 00:00:00' + to_milliseconds(CAST(i * 171000 AS BIGINT)) AS order_at,
         CAST((hash(i * 31) % 100000) / 100.0 AS DECIMAL(12, 2)) AS amount
  FROM range(200000) t(i);
)"),
        "generate");
  const semantic::SemanticModel model = LoadModel(TwentyRollups());
  auto engine = Check(warehouse::OpenDuckDbEngine({}), "engine");
  fs::remove_all(dir / "router-store");
  const rollup::RollupStore store(dir / "router-store");
  const auto start_build = SteadyClock::now();
  const auto report = Check(rollup::BuildRollups(model, *warehouse, *engine, store, {}), "build");
  std::size_t files = 0;
  for (const rollup::RollupOutcome& outcome : report.rollups) {
    if (outcome.error) Die(outcome.rollup + ": " + outcome.error->ToString());
    files += outcome.periods.size();
  }
  std::cout << fmt::format("built {} rollups ({} period files) in {:.1f} s\n",
                           report.rollups.size(), files, MsSince(start_build) / 1000);

  const std::string text = kRevenueQuery;
  const semantic::PlanOptions options{sql::Dialect::kDuckDb, std::nullopt};
  {
    const auto query = Check(semantic::ParseQueryJson(text), "parse");
    const auto live = Check(semantic::PlanLiveQuery(model, query, options), "plan");
    const rollup::Route route = rollup::RouteQuery(model, query, options, live, store);
    if (!route.hit()) Die("router query is not a hit");
    std::cout << "routed to " << route.used.front() << "; SQL: " << route.plan->sql << "\n";
  }
  // Three sides, interleaved: the live plan alone (baseline), the decision with a RouterCache
  // kept across queries (what a server does), and with a cache made per query (the CLI).
  const rollup::RouterCache cache(model, store);
  const rollup::RouteOptions route_options{options, sql::Dialect::kDuckDb, {}};
  std::vector<double> plan_us, route_us, cold_us;
  std::size_t sql_bytes = 0;
  for (int sample = 0; sample < samples; ++sample) {
    for (int step = 0; step < 3; ++step) {
      const int side = (step + sample) % 3;
      const auto start = SteadyClock::now();
      const auto query = Check(semantic::ParseQueryJson(text), "parse");
      const auto live = Check(semantic::PlanLiveQuery(model, query, options), "plan");
      if (side == 0) {
        sql_bytes += live.sql.size();
        plan_us.push_back(MsSince(start) * 1000);
      } else if (side == 1) {
        const rollup::Route route = rollup::RouteQuery(query, route_options, live, cache);
        if (!route.hit()) Die("cached route missed");
        sql_bytes += route.plan->sql.size();
        route_us.push_back(MsSince(start) * 1000);  // includes dropping the lease
      } else {
        const rollup::Route route = rollup::RouteQuery(model, query, options, live, store);
        if (!route.hit()) Die("route missed");
        sql_bytes += route.plan->sql.size();
        cold_us.push_back(MsSince(start) * 1000);
      }
    }
  }
  // Attribution of the cached decision: the per-candidate check that the cached manifests are
  // current (one stat each), and the lease of the chosen one.
  std::vector<double> current_us, lease_us;
  for (int sample = 0; sample < std::max(1, samples / 10); ++sample) {
    auto start = SteadyClock::now();
    std::shared_ptr<const rollup::StampedManifest> last;
    for (const semantic::Rollup& rollup : model.rollups) {
      last = Check(cache.manifests().Current(rollup.name), "current");
    }
    current_us.push_back(MsSince(start) * 1000);
    start = SteadyClock::now();
    auto lease = Check(store.OpenForReadIfCurrent(model.rollups.back().name, *last), "lease");
    if (!lease) Die("lease refused");
    lease.reset();
    lease_us.push_back(MsSince(start) * 1000);
  }
  std::cout << fmt::format(
      "  parse + live plan + route, kept RouterCache  p50 {:8.1f} us  p99 {:8.1f} us  (target "
      "p50 <= 500 us)\n"
      "  parse + live plan + route, cache per query   p50 {:8.1f} us  p99 {:8.1f} us\n"
      "  parse + live plan (baseline)                 p50 {:8.1f} us  p99 {:8.1f} us\n"
      "  ratio kept-cache decision / live plan:       p50 {:8.2f}     p99 {:8.2f}\n"
      "  attribution (medians): 20 x ManifestCache::Current (stat) {:.1f} us, "
      "OpenForReadIfCurrent of the chosen {:.1f} us\n",
      Quantile(route_us, 0.5), Quantile(route_us, 0.99), Quantile(cold_us, 0.5),
      Quantile(cold_us, 0.99), Quantile(plan_us, 0.5), Quantile(plan_us, 0.99),
      Quantile(route_us, 0.5) / Quantile(plan_us, 0.5),
      Quantile(route_us, 0.99) / Quantile(plan_us, 0.99), Median(current_us), Median(lease_us));
  if (sql_bytes == 0) Die("no SQL planned");
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark may die on an unexpected exception.
int main(int argc, char** argv) {
  Setup setup;
  setup.dir = fs::temp_directory_path() / "strata-rollup-bench";
  setup.rows = 50'000'000;
  int runs = 5, floor_reps = 31, router_samples = 2000, build_rounds = 3;
  std::set<std::string> only = {"hit", "router", "floor", "build", "refresh"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--dir") {
      setup.dir = value;
    } else if (flag == "--rows") {
      setup.rows = std::atoll(value.c_str());
    } else if (flag == "--runs") {
      runs = std::atoi(value.c_str());
    } else if (flag == "--floor-reps") {
      floor_reps = std::atoi(value.c_str());
    } else if (flag == "--router-samples") {
      router_samples = std::atoi(value.c_str());
    } else if (flag == "--build-rounds") {
      build_rounds = std::atoi(value.c_str());
    } else if (flag == "--only") {
      only.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) only.insert(item);
    } else {
      Die("unknown flag " + flag);
    }
  }
  fs::create_directories(setup.dir);
  if (only.count("router")) BenchRouter(setup.dir, router_samples);
  if (only.count("hit") || only.count("floor") || only.count("build") || only.count("refresh")) {
    setup.Open();
    if (only.count("hit") || only.count("floor")) {
      const auto start = SteadyClock::now();
      setup.Build({"revenue_month_region", "customers_month"}, true);
      std::cout << fmt::format("built revenue_month_region and customers_month in {:.1f} s\n",
                               MsSince(start) / 1000);
    }
    if (only.count("hit")) BenchHit(setup, runs);
    if (only.count("floor")) BenchFloor(setup, floor_reps);
    if (only.count("build")) BenchBuild(setup, build_rounds);
    if (only.count("refresh")) BenchRefresh(setup, build_rounds);
  }
  return 0;
}
