// Append refreshes (rollup/append.h) end to end in one process: rows past the stored append
// marker are merged into the files of their periods (existing, new, earlier, compacted and the
// NULL-time file), every answer stays equal to the live one, history is not read again, an
// unchanged marker skips, a failed append keeps the previous version and a marker that went
// back rebuilds.
#include "rollup/append.h"

#include <map>
#include <random>

#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

using testing::FixedClock;
using testing::RollupQueryTest;

// Orders run from 2025-11-03 to 2026-12-12 (rollup_query_fixture.h).
const FixedClock kNow(ToUnixSeconds({2027, 1, 15, 12, 0, 0}));

std::string AppendRollup(const std::string& refresh, const std::string& partition_extra = "") {
  return R"(rollups:
  - name: appended
    entity: Order
    dimensions: [status, { name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count, avg_amount, min_amount, max_amount, customers_approx,
               median_amount, p90_amount]
    sketches: [customers_approx, median_amount, p90_amount]
    sort_by: [order_date]
)" + refresh +
         "    partition: { by: month, append: true" + partition_extra + " }\n";
}

const char* const kQueries[] = {
    R"({"measures": ["Order.revenue", "Order.order_count", "Order.avg_amount",
                     "Order.min_amount", "Order.max_amount", "Order.customers_approx",
                     "Order.median_amount", "Order.p90_amount"],
        "dimensions": ["Order.status", "Customer.region"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day"}]})",
    R"({"measures": ["Order.revenue", "Order.median_amount", "Order.customers_approx"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})",
    R"({"measures": ["Order.revenue", "Order.order_count", "Order.p90_amount"],
        "dimensions": ["Order.status"], "order": [{"member": "Order.status"}]})",
    R"({"measures": ["Order.order_count", "Order.max_amount"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                             "range": ["2026-11-01", "2027-01-01"]}]})",
};

class AppendTest : public RollupQueryTest {
 protected:
  void SetUp() override {
    RollupQueryTest::SetUp();
    Exec("ALTER TABLE raw.orders ADD COLUMN batch BIGINT DEFAULT 0");
    Exec("UPDATE raw.orders SET batch = 0");
  }

  void Exec(const std::string& sql) {
    auto done = connection_->Execute(sql);
    ASSERT_TRUE(done.ok()) << done.error().ToString();
  }

  RollupOutcome Refresh(bool full = false) {
    BuildOptions options;
    options.clock = &kNow;
    options.full = full;
    auto report = BuildRollups(model_, *warehouse_, *engine_, *store_, options);
    EXPECT_TRUE(report.ok());
    if (!report.ok() || report->rollups.size() != 1) return {};
    return report->rollups.front();
  }

  Manifest Current() {
    auto manifest = store_->Load("appended");
    EXPECT_TRUE(manifest.ok() && manifest->has_value());
    if (!manifest.ok() || !manifest->has_value()) return {};
    return **manifest;
  }

  void ExpectAnswersEqualLive() {
    for (const char* text : kQueries) EXPECT_EQ(ExpectSameAnswer(text), "appended") << text;
  }

  // Rows of batch `batch`: in two built months, at the boundary instant of a month, in a month
  // after the stored range and one before it, and one without a time.
  void InsertBatch(int batch) {
    const int id = 100000 + batch * 10;
    Exec(fmt::format(
        "INSERT INTO raw.orders VALUES "
        "({0}, 7, 'paid', 'web', TIMESTAMP '2026-03-10 08:00:00', 12.50, {1}), "
        "({0} + 1, 8, 'shipped', 'store', TIMESTAMP '2026-03-10 09:00:00', 3.25, {1}), "
        "({0} + 2, 9, 'paid', 'web', TIMESTAMP '2026-07-01 00:00:00', 99.99, {1}), "
        "({0} + 3, 10, 'refunded', 'web', TIMESTAMP '2027-0{2}-02 10:00:00', 1.00, {1}), "
        "({0} + 4, 11, 'paid', 'store', TIMESTAMP '2025-0{3}-20 10:00:00', 7.00, {1}), "
        "({0} + 5, 12, 'paid', 'web', NULL, 4.00, {1})",
        id, batch, 1 + batch % 3, 6 + batch % 3));
  }

  std::map<std::string, int> Statuses(const RollupOutcome& outcome) {
    std::map<std::string, int> statuses;
    for (const PeriodOutcome& period : outcome.periods) ++statuses[period.status];
    return statuses;
  }
};

TEST_F(AppendTest, AppendedBatchesAnswerAsTheLiveRowsAndAsAFullRebuild) {
  Load(AppendRollup("    refresh: { when_changed: batch }\n"));
  RollupOutcome first = Refresh();
  ASSERT_EQ(first.status, "built") << (first.error ? first.error->ToString() : "");
  EXPECT_EQ(Current().append_marker, std::optional<std::string>("0"));
  const std::size_t built_files = Current().files.size();
  ExpectAnswersEqualLive();
  for (int batch = 1; batch <= 4; ++batch) {
    InsertBatch(batch);
    RollupOutcome appended = Refresh();
    ASSERT_EQ(appended.status, "built") << (appended.error ? appended.error->ToString() : "");
    EXPECT_EQ(appended.marker, std::optional<std::string>(std::to_string(batch)));
    EXPECT_EQ(Current().append_marker, std::optional<std::string>(std::to_string(batch)));
    const std::map<std::string, int> statuses = Statuses(appended);
    // March and July 2026 and the NULL-time file take the new rows; the rest are kept.
    EXPECT_GE(statuses.at("appended"), 3) << "batch " << batch;
    EXPECT_GE(statuses.at("kept"), static_cast<int>(built_files) - 3) << "batch " << batch;
    ExpectAnswersEqualLive();
  }
  // The range grew to the new months at both ends.
  const Manifest appended = Current();
  EXPECT_EQ(appended.range_start, std::optional<UnixSeconds>(ToUnixSeconds({2025, 6, 1})));
  EXPECT_EQ(appended.range_end, std::optional<UnixSeconds>(ToUnixSeconds({2027, 4, 1})));
  std::vector<std::string> answers;
  for (const char* text : kQueries) answers.push_back(Ask(text, true)->ToJson()["rows"].dump());
  // A full rebuild at the same marker stores the same groups and values.
  RollupOutcome rebuilt = Refresh(/*full=*/true);
  ASSERT_EQ(rebuilt.status, "built");
  for (std::size_t i = 0; i < std::size(kQueries); ++i) {
    EXPECT_EQ(Ask(kQueries[i], true)->ToJson()["rows"].dump(), answers[i]) << kQueries[i];
  }
  EXPECT_EQ(Current().TotalRows(), appended.TotalRows());
}

TEST_F(AppendTest, AnAppendDoesNotReadHistoryAgainAndAnUnchangedMarkerSkips) {
  Load(AppendRollup("    refresh: { when_changed: batch }\n"));
  ASSERT_EQ(Refresh().status, "built");
  // A change at or below the stored marker is not an append: it stays unseen.
  Exec("UPDATE raw.orders SET amount = amount + 1000 WHERE order_id = 5");
  RollupOutcome skipped = Refresh();
  EXPECT_EQ(skipped.status, "skipped");
  EXPECT_NE(skipped.reason.find("freshness marker did not move"), std::string::npos);
  InsertBatch(1);
  RollupOutcome appended = Refresh();
  ASSERT_EQ(appended.status, "built");
  const char* const month_query = R"({"measures": ["Order.max_amount"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                           "range": ["2025-11-03", "2025-11-04"]}]})";
  auto live = Ask(month_query, false);
  auto routed = Ask(month_query, true);
  ASSERT_TRUE(live.ok() && routed.ok());
  EXPECT_EQ(routed->used, std::vector<std::string>{"appended"});
  EXPECT_NE(live->ToJson()["rows"].dump(), routed->ToJson()["rows"].dump())
      << "the append read the history again";
  ASSERT_EQ(Refresh(/*full=*/true).status, "built");
  EXPECT_EQ(ExpectSameAnswer(month_query), "appended");
}

TEST_F(AppendTest, TheTimeDimensionIsTheMarkerWithoutWhenChanged) {
  Load(AppendRollup(""));
  ASSERT_EQ(Refresh().status, "built");
  const std::optional<std::string> marker = Current().append_marker;
  ASSERT_TRUE(marker);
  EXPECT_EQ(Refresh().status, "skipped");
  Exec(
      "INSERT INTO raw.orders VALUES "
      "(200001, 3, 'paid', 'web', TIMESTAMP '2026-12-12 23:59:59', 10.00, 0), "
      "(200002, 4, 'paid', 'web', TIMESTAMP '2027-01-01 00:00:00', 20.00, 0), "
      "(200003, 5, 'shipped', 'store', TIMESTAMP '2027-02-14 12:00:00', 30.00, 0)");
  RollupOutcome appended = Refresh();
  ASSERT_EQ(appended.status, "built") << (appended.error ? appended.error->ToString() : "");
  EXPECT_NE(Current().append_marker, marker);
  ExpectAnswersEqualLive();
}

TEST_F(AppendTest, AFailedAppendKeepsThePreviousVersion) {
  Load(AppendRollup("    refresh: { when_changed: batch }\n"));
  ASSERT_EQ(Refresh().status, "built");
  const Manifest before = Current();
  InsertBatch(1);
  Exec("ALTER TABLE raw.customers RENAME TO customers_away");
  RollupOutcome failed = Refresh();
  EXPECT_EQ(failed.status, "failed");
  ASSERT_TRUE(failed.error);
  EXPECT_NE(failed.error->ToString().find("appending"), std::string::npos)
      << failed.error->ToString();
  const Manifest after = Current();
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.append_marker, before.append_marker);
  Exec("ALTER TABLE raw.customers_away RENAME TO customers");
  ASSERT_EQ(Refresh().status, "built");
  ExpectAnswersEqualLive();
}

TEST_F(AppendTest, AMarkerThatWentBackRebuilds) {
  Load(AppendRollup("    refresh: { when_changed: batch }\n"));
  InsertBatch(1);
  InsertBatch(2);
  ASSERT_EQ(Refresh().status, "built");
  EXPECT_EQ(Current().append_marker, std::optional<std::string>("2"));
  // Batch 2 is withdrawn and batch 1 reloaded with other values: no append can express that.
  Exec("DELETE FROM raw.orders WHERE batch >= 1");
  InsertBatch(1);
  Exec("UPDATE raw.orders SET amount = amount * 2 WHERE batch = 1");
  RollupOutcome rebuilt = Refresh();
  ASSERT_EQ(rebuilt.status, "built");
  EXPECT_EQ(Statuses(rebuilt).count("appended"), 0u);
  EXPECT_EQ(Current().append_marker, std::optional<std::string>("1"));
  ExpectAnswersEqualLive();
}

TEST_F(AppendTest, RowsPastTheMarkerMergeIntoCompactedFiles) {
  Load(AppendRollup("    refresh: { when_changed: batch }\n", ", compact: quarter"));
  RollupOutcome first = Refresh();
  ASSERT_EQ(first.status, "built");
  EXPECT_GT(first.compacted_files, 0u);
  for (int batch = 1; batch <= 2; ++batch) {
    InsertBatch(batch);
    RollupOutcome appended = Refresh();
    ASSERT_EQ(appended.status, "built") << (appended.error ? appended.error->ToString() : "");
    ExpectAnswersEqualLive();
  }
  // The quarter files hold three months each; March's rows went into Q1's file.
  bool quarter = false;
  for (const ManifestFile& file : Current().files) {
    if (file.start && *file.start == ToUnixSeconds({2026, 1, 1})) {
      quarter = *file.end == ToUnixSeconds({2026, 4, 1});
    }
  }
  EXPECT_TRUE(quarter);
}

// Rows that arrive after a refresh with the marker's own value (a batch stamped with one time,
// second-resolution timestamps) are read by the next refresh, exactly once.
TEST_F(AppendTest, RowsThatTieWithTheMarkerAreReadByTheNextRefresh) {
  Load(AppendRollup("    refresh: { when_changed: batch }\n"));
  InsertBatch(1);
  ASSERT_EQ(Refresh().status, "built");
  EXPECT_EQ(Current().append_marker, std::optional<std::string>("1"));
  EXPECT_FALSE(Current().append_bases.empty());
  // More of batch 1 lands after the refresh: the marker does not move.
  InsertBatch(1);
  RollupOutcome tied = Refresh();
  ASSERT_EQ(tied.status, "built") << tied.reason;
  ExpectAnswersEqualLive();
  // Again, together with a new batch; then nothing new: skipped.
  InsertBatch(1);
  InsertBatch(2);
  ASSERT_EQ(Refresh().status, "built");
  ExpectAnswersEqualLive();
  EXPECT_EQ(Refresh().status, "skipped");
  ExpectAnswersEqualLive();
}

TEST_F(AppendTest, RowsInTheMarkersBucketAreReadByTheNextRefresh) {
  Load(AppendRollup(""));
  Exec(
      "INSERT INTO raw.orders VALUES (300001, 3, 'paid', 'web', TIMESTAMP '2027-01-10 12:00:00', "
      "10.00, 0)");
  ASSERT_EQ(Refresh().status, "built");
  EXPECT_EQ(Current().append_marker, std::optional<std::string>("2027-01-10 12:00:00"));
  EXPECT_EQ(Current().append_slice_from, std::optional<std::string>("2027-01-10"));
  // A tie with the marker and an earlier row of the marker's day (the rollup's grain).
  Exec(
      "INSERT INTO raw.orders VALUES "
      "(300002, 4, 'paid', 'web', TIMESTAMP '2027-01-10 12:00:00', 20.00, 0), "
      "(300003, 5, 'shipped', 'store', TIMESTAMP '2027-01-10 08:30:00', 30.00, 0)");
  ASSERT_EQ(Refresh().status, "built");
  ExpectAnswersEqualLive();
  // Late rows of the marker's day with a later marker, then a new day with a tie.
  Exec(
      "INSERT INTO raw.orders VALUES "
      "(300004, 6, 'paid', 'web', TIMESTAMP '2027-01-10 01:00:00', 1.00, 0), "
      "(300005, 7, 'paid', 'store', TIMESTAMP '2027-01-10 23:00:00', 2.00, 0), "
      "(300006, 8, 'paid', 'store', TIMESTAMP '2027-01-12 09:00:00', 3.00, 0)");
  ASSERT_EQ(Refresh().status, "built");
  ExpectAnswersEqualLive();
  Exec(
      "INSERT INTO raw.orders VALUES "
      "(300007, 9, 'refunded', 'web', TIMESTAMP '2027-01-12 09:00:00', 4.00, 0)");
  ASSERT_EQ(Refresh().status, "built");
  ExpectAnswersEqualLive();
  EXPECT_EQ(Refresh().status, "skipped");
}

// Random inserts (ties with the marker, duplicates of stored rows, rows in the marker's bucket,
// new batches) and refreshes: after each refresh every query equals live, at every grain the
// rollup serves.
TEST_F(AppendTest, RandomInsertsAndRefreshesStayEqualToLive) {
  const char* const grains[] = {"day", "week", "month", "quarter", "year"};
  for (const bool by_time : {false, true}) {
    SCOPED_TRACE(by_time ? "time dimension" : "when_changed");
    Load(AppendRollup(by_time ? "" : "    refresh: { when_changed: batch }\n"));
    ASSERT_EQ(Refresh(/*full=*/true).status, "built");
    std::mt19937 random(by_time ? 7 : 11);
    int id = 400000, batch = 0;
    for (int step = 0; step < 8; ++step) {
      const int rows = 1 + static_cast<int>(random() % 4);
      for (int r = 0; r < rows; ++r) {
        const unsigned kind = random() % 4;  // 0 tie, 1 duplicate, 2 in the bucket, 3 new batch
        if (kind == 3) ++batch;
        const std::string at =
            kind == 0 || kind == 1 ? "(SELECT MAX(order_at) FROM raw.orders)"
            : kind == 2 ? "date_trunc('day', (SELECT MAX(order_at) FROM raw.orders)) + INTERVAL 1 "
                          "MINUTE"
                        : "(SELECT MAX(order_at) FROM raw.orders) + INTERVAL 5 HOUR";
        Exec(fmt::format("INSERT INTO raw.orders VALUES ({}, {}, '{}', 'web', {}, {}.25, {})", id++,
                         random() % 200, kind == 1 ? "paid" : "shipped", at, random() % 90, batch));
      }
      RollupOutcome refreshed = Refresh();
      ASSERT_NE(refreshed.status, "failed") << refreshed.error->ToString();
      for (const char* grain : grains) {
        EXPECT_EQ(ExpectSameAnswer(fmt::format(
                      R"({{"measures": ["Order.revenue", "Order.order_count", "Order.max_amount",
                         "Order.avg_amount"], "dimensions": ["Order.status"],
                         "time_dimensions": [{{"dimension": "Order.order_date", "grain": "{}"}}]}})",
                      grain)),
                  "appended")
            << "step " << step << ", grain " << grain;
      }
    }
    TearDown();
    SetUp();
  }
}

TEST(MergeStoredRows, RefusesAColumnThatDoesNotMerge) {
  auto outcome = semantic::LoadSemanticModel(
      {{"m.yml", std::string(testing::kEntities) + "rollups:\n  - name: r\n    entity: Order\n"
                                                   "    dimensions: [status]\n"
                                                   "    measures: [customers]\n"}},
      sql::Dialect::kDuckDb, 4);
  ASSERT_TRUE(outcome.errors.empty());
  const semantic::Rollup& rollup = outcome.model->rollups.front();
  const std::vector<ManifestColumn> columns = {{"status", "VARCHAR", "dimension", "status", ""},
                                               {"customers", "BIGINT", "measure", "customers", ""}};
  auto merged = MergeStoredRows(*outcome.model, rollup, columns, "t");
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message.find("does not merge"), std::string::npos);
}

}  // namespace
}  // namespace strata::rollup
