// Rollups end to end in one process: build into a temporary store from a real DuckDB warehouse,
// route queries, answer them from the Parquet files through the engine, and compare every
// answer with the live answer of the same query (the fixture: rollup/testing/
// rollup_query_fixture.h). The random property test is rollup_query_property_test.cc (slow tier).
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "query/testing/rollup_query_fixture.h"
#include "rollup/refresh_record.h"
#include "rollup/status.h"

namespace strata::rollup {
namespace {

namespace fs = std::filesystem;
using testing::FixedClock;
using testing::RollupQueryTest;

const char* const kDaily = R"(rollups:
  - name: daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count, paid_revenue, min_amount, max_amount, avg_amount, customers,
               customers_approx, median_amount]
    sketches: [customers_approx, median_amount]
    partition: { by: month }
    sort_by: [order_date, customer.region]
  - name: by_status
    entity: Order
    dimensions: [status]
    measures: [revenue, order_count]
    refresh: { every: 1h, when_changed: order_date }
)";

TEST_F(RollupQueryTest, AnswersEqualLiveAndRouteToTheSmallestRollup) {
  Load(kDaily);
  const BuildReport report = Build();
  ASSERT_EQ(report.rollups.size(), 2u);
  EXPECT_GT(report.rollups[0].periods.size(), 3u);  // months plus the NULL-time file
  // The freshness marker is the source's max(order_at) at build time.
  auto newest = connection_->Execute("SELECT CAST(MAX(order_at) AS VARCHAR) FROM raw.orders");
  ASSERT_TRUE(newest.ok());
  auto manifest = store_->Load("by_status");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  EXPECT_EQ((*manifest)->freshness_marker,
            std::optional<std::string>(std::get<std::string>(newest->columns[0].values[0])));
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue", "Order.order_count"],
                                 "dimensions": ["Order.status"]})"),
            "by_status");
  // No stored row passes the filter: an ungrouped count is 0, as live, and the sum NULL.
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.order_count", "Order.revenue"],
                                 "filters": [{"member": "Order.status", "op": "equals",
                                              "values": ["no such status"]}]})"),
            "by_status");
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue", "Order.avg_amount", "Order.aov",
                                   "Order.min_amount", "Order.max_amount",
                                   "Order.customers_approx", "Order.median_amount"],
                                 "dimensions": ["Customer.region"],
                                 "time_dimensions": [{"dimension": "Order.order_date",
                                                      "grain": "month"}]})"),
            "daily");
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.paid_revenue"],
                                 "time_dimensions": [{"dimension": "Order.order_date",
                                   "grain": "fiscal_quarter", "range": ["2026-01-01", "2026-03-01"]}],
                                 "filters": [{"member": "Order.status", "op": "not_equals",
                                              "values": ["refunded"]}]})"),
            "daily");
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})",
                             "north"),
            "daily");
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.customers"],
                                 "dimensions": ["Order.status", "Customer.region"],
                                 "time_dimensions": [{"dimension": "Order.order_date",
                                                      "grain": "day"}]})"),
            "daily");
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue"], "dimensions": ["Order.channel"]})"),
            "");
  EXPECT_EQ(Reason(R"({"measures": ["Order.revenue"], "dimensions": ["Order.channel"]})", "daily"),
            "dimension_not_stored");
  EXPECT_EQ(Reason(R"({"measures": ["Order.customers"], "dimensions": ["Order.status"]})", "daily"),
            "not_additive");
  EXPECT_EQ(Reason(R"({"measures": ["Order.revenue"], "time_dimensions": [
                       {"dimension": "Order.order_date", "grain": "month",
                        "range": ["2026-01-01 06:00:00", "2026-02-01"]}]})",
                   "daily"),
            "range_not_aligned");
  EXPECT_EQ(Reason(R"({"measures": ["Order.revenue"], "time_dimensions": [
                       {"dimension": "Order.order_date", "grain": "month",
                        "range": ["2030-01-01", "2030-02-01"]}]})",
                   "daily"),
            "partition_missing");
}

// semantic.md: a rollup answers only when its answer equals the warehouse's. An average over a
// DECIMAL column is the same double to the last bit, live and from the stored sum and count.
TEST_F(RollupQueryTest, AnAverageFromARollupIsTheLiveAnswerToTheLastBit) {
  Load(kDaily);
  Build();
  for (const std::string grain : {"month", "year"}) {
    const std::string text = R"({"measures": ["Order.avg_amount"], "dimensions": ["Order.status"],
                                 "time_dimensions": [{"dimension": "Order.order_date",
                                                      "grain": ")" +
                             grain + R"("}]})";
    auto live = Ask(text, false);
    auto routed = Ask(text, true);
    ASSERT_TRUE(live.ok() && routed.ok()) << text;
    ASSERT_EQ(routed->used, std::vector<std::string>{"daily"}) << text;
    EXPECT_EQ(live->ToJson()["rows"].dump(), routed->ToJson()["rows"].dump()) << text;
  }
}

TEST_F(RollupQueryTest, AnUnreadableRollupFallsToTheNextRollupBeforeLive) {
  Load(kDaily);
  Build();
  const std::string text = R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})";
  EXPECT_EQ(ExpectSameAnswer(text), "by_status");  // the fewest rows; daily answers it too
  // semantic.md: a hit lists every rollup it did not read too; daily answers but reads more.
  EXPECT_EQ(Reason(text, "by_status"), "used");
  EXPECT_EQ(Reason(text, "daily"), "costlier");
  EXPECT_EQ(Reason(R"({"measures": ["Order.customers_approx"], "dimensions": ["Order.status"]})",
                   "by_status"),
            "measure_not_stored");
  auto manifest = store_->Load("by_status");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  fs::remove(store_->FolderOf("by_status") / (*manifest)->files.front().path);
  EXPECT_EQ(ExpectSameAnswer(text), "daily");
  EXPECT_EQ(Reason(text, "by_status"), "store_error");  // named beside the rollup that answered
  // With daily unreadable too, the answer is live, and both say store_error.
  manifest = store_->Load("daily");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  for (const auto& file : (*manifest)->files) fs::remove(store_->FolderOf("daily") / file.path);
  EXPECT_EQ(ExpectSameAnswer(text), "");
  EXPECT_EQ(Reason(text, "by_status"), "store_error");
  EXPECT_EQ(Reason(text, "daily"), "store_error");
}

TEST_F(RollupQueryTest, DefinitionChangeAndUnreadableFilesGoLive) {
  Load(kDaily);
  Build();
  const std::string text = R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
                               "time_dimensions": [{"dimension": "Order.order_date",
                                                    "grain": "year"}]})";
  EXPECT_EQ(ExpectSameAnswer(text), "daily");
  // Corrupt one file of the manifest: the query answers live, with store_error.
  auto manifest = store_->Load("daily");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  const fs::path victim = store_->FolderOf("daily") / (*manifest)->files.front().path;
  fs::resize_file(victim, fs::file_size(victim) / 2);
  EXPECT_EQ(ExpectSameAnswer(text), "");
  EXPECT_EQ(Reason(text, "daily"), "store_error");
  // A changed definition is never served in its old shape.
  Load(std::string(kDaily).replace(std::string(kDaily).find("min_amount, max_amount"), 22,
                                   "max_amount"));
  EXPECT_EQ(Reason(text, "daily"), "not_built");
  Build();
  EXPECT_EQ(ExpectSameAnswer(text), "daily");
}

TEST_F(RollupQueryTest, PlainBuildKeepsOldPeriodsAndRebuildsTheNewest) {
  Load(std::string(kDaily).replace(std::string(kDaily).find("partition: { by: month }"), 24,
                                   "partition: { by: month, refresh_last: 2 }"));
  Build();
  const BuildReport second = Build();
  int kept = 0, built = 0;
  for (const PeriodOutcome& period : second.rollups[0].periods) {
    kept += period.status == "kept";
    built += period.status == "built";
  }
  EXPECT_GT(kept, 0);
  EXPECT_EQ(built, 3);  // the newest two months and the NULL-time file
  BuildOptions full;
  full.full = true;
  full.parallel = 3;
  const BuildReport third = Build(full);
  for (const PeriodOutcome& period : third.rollups[0].periods) EXPECT_EQ(period.status, "built");
}

// A period file written while its period was open (the current month) is re-read by the next
// plain build even with refresh_last 0: otherwise the rows that arrived after it stayed out of
// the rollup for good, while it kept answering that month as built.
TEST_F(RollupQueryTest, APeriodOpenWhenItsFileWasWrittenIsReadAgainByTheNextBuild) {
  Load(kDaily);  // partition: { by: month }, no refresh_last
  const FixedClock december(ToUnixSeconds({2026, 12, 12, 23, 0, 0}));
  BuildOptions options;
  options.clock = &december;
  Build(options);
  ASSERT_TRUE(connection_
                  ->Execute("INSERT INTO raw.orders VALUES (80001, 9, 'paid', 'web', "
                            "TIMESTAMP '2026-12-12 23:30:00', 1000.00)")
                  .ok());
  const FixedClock january(ToUnixSeconds({2027, 1, 5, 0, 0, 0}));
  options.clock = &january;
  const BuildReport second = Build(options);
  for (const PeriodOutcome& period : second.rollups[0].periods) {
    if (period.null_time) continue;
    EXPECT_EQ(period.status, period.label == "2026-12-01" ? "built" : "kept") << period.label;
  }
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue", "Order.order_count"],
                                 "time_dimensions": [{"dimension": "Order.order_date",
                                   "grain": "month", "range": ["2026-12-01", "2027-01-01"]}]})"),
            "daily");
  // December has ended and its file was written after: the next build keeps it.
  const BuildReport third = Build(options);
  for (const PeriodOutcome& period : third.rollups[0].periods) {
    if (!period.null_time) {
      EXPECT_EQ(period.status, "kept") << period.label;
    }
  }
}

// Periods run from the oldest row's through the newest row's, not to the month of now; the
// NULL-time file exists only while some row has no time. Months after the data are missing
// (answered live), not stored empty.
TEST_F(RollupQueryTest, PeriodsEndAtTheNewestRowAndNullFileOnlyWithNullTimes) {
  Load(kDaily);
  const FixedClock later(ToUnixSeconds({2028, 6, 15, 12, 0, 0}));
  BuildOptions options;
  options.clock = &later;
  const BuildReport with_null = Build(options);
  const std::vector<PeriodOutcome>& periods = with_null.rollups[0].periods;
  ASSERT_FALSE(periods.empty());
  EXPECT_EQ(periods.front().label, "2025-11-01");
  EXPECT_TRUE(periods.back().null_time);  // order 99999 has no time
  ASSERT_GE(periods.size(), 2u);
  // 6,000 orders 97 minutes apart from 2025-11-03: the newest is on 2026-12-12.
  EXPECT_EQ(periods[periods.size() - 2].label, "2026-12-01");
  EXPECT_EQ(periods.size(), 15u);  // 14 months and the NULL-time file
  EXPECT_EQ(Reason(R"({"measures": ["Order.revenue"], "time_dimensions": [
                       {"dimension": "Order.order_date", "grain": "month",
                        "range": ["2027-01-01", "2027-02-01"]}]})",
                   "daily"),
            "partition_missing");
  ASSERT_TRUE(connection_->Execute("DELETE FROM raw.orders WHERE order_at IS NULL").ok());
  const BuildReport without_null = Build(options);
  for (const PeriodOutcome& period : without_null.rollups[0].periods) {
    EXPECT_FALSE(period.null_time) << period.label;
  }
  EXPECT_EQ(without_null.rollups[0].periods.size(), 14u);
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue", "Order.order_count"],
                                 "dimensions": ["Order.status", "Customer.region"]})"),
            "daily");
}

// A router cache kept across queries (as a server keeps it) serves each rebuild's new version,
// never the cached one.
TEST_F(RollupQueryTest, AKeptRouterCacheFollowsRebuilds) {
  Load(kDaily);
  Build();
  const RouterCache cache(model_, *store_);
  router_ = &cache;
  const std::string text = R"({"measures": ["Order.revenue", "Order.customers_approx"],
                               "dimensions": ["Order.status"],
                               "time_dimensions": [{"dimension": "Order.order_date",
                                                    "grain": "month"}]})";
  EXPECT_EQ(ExpectSameAnswer(text), "daily");
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(connection_
                    ->Execute("UPDATE raw.orders SET amount = amount + 1 WHERE order_id % 7 = " +
                              std::to_string(round))
                    .ok());
    BuildOptions full;
    full.full = true;
    Build(full);
    EXPECT_EQ(ExpectSameAnswer(text), "daily") << "round " << round;
  }
  router_ = nullptr;
}

// A plain build of a rollup whose freshness marker did not move is skipped (nothing read or
// published); a moved marker, a changed period set or --full builds. `rollups refresh` builds
// only what refresh.every says is due, and a manual rollup only when named.
TEST_F(RollupQueryTest, UnchangedMarkersSkipAndRefreshBuildsWhatIsDue) {
  Load(std::string(kDaily) +
       R"(  - name: hourly_marker
    entity: Order
    dimensions: [status, channel]
    measures: [revenue]
    refresh: { every: 1h, when_changed: order_date }
  - name: manual_one
    entity: Order
    dimensions: [channel]
    measures: [revenue]
    refresh: { manual: true, when_changed: order_date }
)");
  const FixedClock t0(ToUnixSeconds({2028, 1, 10, 12, 0, 0}));
  const auto build = [&](const Clock& clock, bool due_only, std::vector<std::string> names = {}) {
    BuildOptions options;
    options.clock = &clock;
    options.due_only = due_only;
    options.rollups = std::move(names);
    std::map<std::string, RollupOutcome> by_name;
    for (RollupOutcome& outcome : Build(options).rollups) by_name[outcome.rollup] = outcome;
    return by_name;
  };
  auto first = build(t0, false);
  EXPECT_EQ(first.at("hourly_marker").status, "built");
  ASSERT_TRUE(first.at("hourly_marker").marker.has_value());
  EXPECT_EQ(first.at("manual_one").status, "built");  // build builds every rollup
  const std::int64_t version = first.at("hourly_marker").version;

  auto again = build(t0, false);
  EXPECT_EQ(again.at("hourly_marker").status, "skipped");
  EXPECT_NE(again.at("hourly_marker").reason.find("freshness marker did not move"),
            std::string::npos);
  EXPECT_EQ(again.at("hourly_marker").version, version);
  EXPECT_EQ(again.at("hourly_marker").marker, first.at("hourly_marker").marker);
  EXPECT_EQ(again.at("daily").status, "built");  // no marker: always built
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue"],
                                 "dimensions": ["Order.status", "Order.channel"]})"),
            "hourly_marker");

  const FixedClock t30(ToUnixSeconds({2028, 1, 10, 12, 30, 0}));
  auto early = build(t30, true);
  EXPECT_EQ(early.at("hourly_marker").status, "skipped");
  EXPECT_NE(early.at("hourly_marker").reason.find("not due until 2028-01-10T13:00:00Z"),
            std::string::npos)
      << early.at("hourly_marker").reason;
  EXPECT_EQ(early.at("manual_one").status, "skipped");
  EXPECT_NE(early.at("manual_one").reason.find("manual"), std::string::npos);
  // The skip is the last refresh on record (no manifest was published for it).
  auto record = ReadRefreshRecord(*store_, "hourly_marker");
  ASSERT_TRUE(record.ok() && record->has_value());
  EXPECT_EQ((*record)->at, "2028-01-10T12:30:00Z");
  EXPECT_EQ((*record)->status, "skipped");
  EXPECT_EQ((*record)->reason, early.at("hourly_marker").reason);
  EXPECT_EQ((*record)->version, version);
  for (const RollupStatus& status : StatusOf(model_, *store_)) {
    ASSERT_TRUE(status.last_refresh.has_value()) << status.rollup;
    // daily has no refresh.every: always due, built again.
    EXPECT_EQ(status.ToJson()["last_refresh"]["status"],
              status.rollup == "daily" ? "built" : "skipped")
        << status.rollup;
  }

  ASSERT_TRUE(connection_
                  ->Execute("INSERT INTO raw.orders VALUES (100001, 3, 'paid', 'web', "
                            "TIMESTAMP '2026-12-12 23:00:00', 7.25)")
                  .ok());
  const FixedClock t2h(ToUnixSeconds({2028, 1, 10, 14, 0, 0}));
  auto due = build(t2h, true);
  EXPECT_EQ(due.at("hourly_marker").status, "built");
  EXPECT_GT(due.at("hourly_marker").version, version);
  EXPECT_EQ(due.at("manual_one").status, "skipped");
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue"],
                                 "dimensions": ["Order.status", "Order.channel"]})"),
            "hourly_marker");
  auto named = build(t2h, true, {"manual_one"});
  EXPECT_EQ(named.at("manual_one").status, "built");
  BuildOptions full;
  full.full = true;
  full.clock = &t2h;
  for (const RollupOutcome& outcome : Build(full).rollups) EXPECT_EQ(outcome.status, "built");
}

// A truncated or deleted file of the published version: status says damaged, and the next
// build or refresh (due or not, marker unchanged or not) rebuilds the rollup whole.
TEST_F(RollupQueryTest, ADamagedFileIsReportedAndRebuiltWholeByTheNextBuild) {
  Load(std::string(kDaily) +
       R"(  - name: hourly_marker
    entity: Order
    dimensions: [status, channel]
    measures: [revenue]
    refresh: { every: 1h, when_changed: order_date }
)");
  const FixedClock t0(ToUnixSeconds({2028, 1, 10, 12, 0, 0}));
  BuildOptions options;
  options.clock = &t0;
  Build(options);
  const std::string text = R"({"measures": ["Order.revenue"],
                               "dimensions": ["Order.status", "Order.channel"]})";
  EXPECT_EQ(ExpectSameAnswer(text), "hourly_marker");
  auto manifest = store_->Load("hourly_marker");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  const fs::path victim = store_->FolderOf("hourly_marker") / (*manifest)->files.front().path;
  fs::resize_file(victim, 200);
  const auto state_of = [&](const std::string& name) {
    for (const RollupStatus& status : StatusOf(model_, *store_)) {
      if (status.rollup == name) return std::make_pair(status.state, status.error);
    }
    return std::make_pair(std::string("missing"), std::string());
  };
  EXPECT_EQ(state_of("hourly_marker").first, "damaged");
  EXPECT_NE(state_of("hourly_marker").second.find(victim.filename().string()), std::string::npos)
      << state_of("hourly_marker").second;
  EXPECT_EQ(state_of("daily").first, "built");
  EXPECT_EQ(Reason(text, "hourly_marker"), "store_error");
  // Not due for another hour, and the marker did not move: rebuilt anyway.
  const FixedClock t10(ToUnixSeconds({2028, 1, 10, 12, 10, 0}));
  options.clock = &t10;
  options.due_only = true;
  options.rollups = {"hourly_marker"};
  const BuildReport refreshed = Build(options);
  ASSERT_EQ(refreshed.rollups.size(), 1u);
  EXPECT_EQ(refreshed.rollups[0].status, "built");
  EXPECT_NE(refreshed.rollups[0].reason.find("damaged"), std::string::npos)
      << refreshed.rollups[0].reason;
  EXPECT_GT(refreshed.rollups[0].version, (*manifest)->version);
  EXPECT_EQ(state_of("hourly_marker").first, "built");
  EXPECT_EQ(ExpectSameAnswer(text), "hourly_marker");
  // Intact again: the next refresh skips as before.
  EXPECT_EQ(Build(options).rollups[0].status, "skipped");
}

// SIGINT/SIGTERM (the cancel flag) stops a build: nothing more is published, rollups not yet
// started do not start, and the version in force stays.
TEST_F(RollupQueryTest, ACancelledBuildPublishesNothingMore) {
  Load(kDaily);
  Build();
  const std::int64_t version = (*store_->Load("daily"))->version;
  std::atomic<bool> cancel{false};
  BuildOptions options;
  options.full = true;
  options.cancel = &cancel;
  options.progress = [&](const std::string&, const PeriodOutcome&, std::size_t, std::size_t) {
    cancel.store(true);  // as the signal handler does, during the first rollup
  };
  Result<BuildReport> report = BuildRollups(model_, *warehouse_, *engine_, *store_, options);
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(report->ok());
  ASSERT_EQ(report->rollups.size(), 2u);
  for (const RollupOutcome& outcome : report->rollups) {
    EXPECT_EQ(outcome.status, "failed") << outcome.rollup;
    ASSERT_TRUE(outcome.error.has_value()) << outcome.rollup;
    EXPECT_EQ(outcome.error->code, ErrorCode::kInterrupted) << outcome.error->ToString();
  }
  EXPECT_TRUE(report->rollups[1].periods.empty()) << "the second rollup never started";
  EXPECT_EQ((*store_->Load("daily"))->version, version);
  EXPECT_EQ(ExpectSameAnswer(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})"),
            "by_status");
}

}  // namespace
}  // namespace strata::rollup
