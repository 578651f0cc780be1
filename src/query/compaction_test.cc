// Compaction (rollup/compaction.h) end to end in one process: daily files of ended months are
// merged into one file per month, atomically, answers stay equal to the live ones (and to the
// answers before), later plain builds keep the merged files, and a full build compacts again.
#include "rollup/compaction.h"

#include <set>

#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

using testing::FixedClock;
using testing::RollupQueryTest;

// Orders run from 2025-11-03 to 2026-12-12 (rollup_query_fixture.h); now is 2026-09-15, so the
// months 2025-11 .. 2026-08 have ended, September has not, and October to December hold rows
// dated after now.
const FixedClock kSeptember(ToUnixSeconds({2026, 9, 15, 12, 0, 0}));

std::string DailyRollup(const std::string& partition) {
  return R"(rollups:
  - name: daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, order_count, avg_amount, customers_approx, median_amount, max_amount]
    sketches: [customers_approx, median_amount]
    refresh: { when_changed: order_date }
    sort_by: [order_date]
    partition: )" +
         partition + "\n";
}

const char* const kQueries[] = {
    R"({"measures": ["Order.revenue", "Order.avg_amount", "Order.customers_approx",
                     "Order.median_amount"], "dimensions": ["Order.status"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})",
    R"({"measures": ["Order.order_count", "Order.max_amount"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                             "range": ["2026-02-27", "2026-03-03"]}]})",
    R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "week",
                             "range": ["2026-06-29", "2026-09-28"]}]})",
};

class CompactionTest : public RollupQueryTest {
 protected:
  std::vector<ManifestFile> Files() {
    auto manifest = store_->Load("daily");
    EXPECT_TRUE(manifest.ok() && manifest->has_value());
    if (!manifest.ok() || !manifest->has_value()) return {};
    return (*manifest)->files;
  }

  std::vector<std::string> Answers() {
    std::vector<std::string> answers;
    for (const char* text : kQueries) {
      EXPECT_EQ(ExpectSameAnswer(text), "daily") << text;
      auto routed = Ask(text, true);
      answers.push_back(routed.ok() ? routed->ToJson()["rows"].dump() : "error");
    }
    return answers;
  }

  BuildOptions At(bool full = false) {
    BuildOptions options;
    options.clock = &kSeptember;
    options.full = full;
    return options;
  }
};

// Month spans of the merged files, and the count of single-day files.
std::pair<std::set<std::string>, std::size_t> Layout(const std::vector<ManifestFile>& files) {
  std::set<std::string> months;
  std::size_t days = 0;
  for (const ManifestFile& file : files) {
    if (!file.start) continue;
    if (*file.end - *file.start == 86400) {
      ++days;
    } else {
      months.insert(FormatIso8601(*file.start) + "/" + FormatIso8601(*file.end));
    }
  }
  return {months, days};
}

TEST_F(CompactionTest, EndedMonthsMergeIntoOneFileEachAndAnswersStayTheSame) {
  Load(DailyRollup("{ by: day }"));
  Build(At());
  const std::vector<ManifestFile> before = Files();
  ASSERT_EQ(Layout(before).first.size(), 0u);
  const std::size_t days = Layout(before).second;
  EXPECT_GT(days, 400u);
  const std::vector<std::string> answers = Answers();
  // The same definition with compact (not part of the definition hash): compact in place.
  Load(DailyRollup("{ by: day, compact: month }"));
  const CompactionOutcome outcome =
      CompactRollup(model_, model_.rollups[0], *engine_, *store_, kSeptember.Now());
  ASSERT_FALSE(outcome.error) << outcome.error->ToString();
  EXPECT_EQ(outcome.status, "compacted");
  const auto [months, left] = Layout(Files());
  // 2025-11 (from the 3rd: the data's first day) .. 2026-08: ten months, one file each.
  EXPECT_EQ(months.size(), 10u);
  EXPECT_TRUE(months.count("2025-11-03T00:00:00Z/2025-12-01T00:00:00Z")) << *months.begin();
  EXPECT_TRUE(months.count("2026-08-01T00:00:00Z/2026-09-01T00:00:00Z"));
  EXPECT_EQ(outcome.written_files, 10u);
  EXPECT_EQ(left + outcome.merged_files, days);
  std::int64_t rows_before = 0, rows_after = 0;
  for (const ManifestFile& file : before) rows_before += file.rows;
  for (const ManifestFile& file : Files()) rows_after += file.rows;
  EXPECT_EQ(rows_before, rows_after);
  EXPECT_EQ(Answers(), answers);
  // Nothing more has ended: a second compaction changes nothing.
  const CompactionOutcome again =
      CompactRollup(model_, model_.rollups[0], *engine_, *store_, kSeptember.Now());
  EXPECT_EQ(again.status, "unchanged");
  EXPECT_EQ(again.version, outcome.version);
}

TEST_F(CompactionTest, BuildsCompactAfterPublishingAndKeepMergedFiles) {
  Load(DailyRollup("{ by: day, compact: month, refresh_last: 3 }"));
  const BuildReport first = Build(At());
  ASSERT_EQ(first.rollups.size(), 1u);
  EXPECT_GT(first.rollups[0].compacted_files, 250u);
  const std::vector<ManifestFile> compacted = Files();
  EXPECT_EQ(Layout(compacted).first.size(), 10u);
  const std::vector<std::string> answers = Answers();
  // A plain build with the marker unchanged: skipped, the merged files in force.
  const BuildReport second = Build(At());
  EXPECT_EQ(second.rollups[0].status, "skipped") << second.rollups[0].reason;
  // A new row in the newest period: a plain build rebuilds the newest 3 days and every day that
  // had not ended when its file was written (the data runs past the clock's now), and keeps
  // every merged file (each once).
  ASSERT_TRUE(connection_
                  ->Execute("INSERT INTO raw.orders VALUES (80001, 9, 'paid', 'web', "
                            "TIMESTAMP '2026-12-12 10:00:00', 12.00)")
                  .ok());
  const BuildReport third = Build(At());
  EXPECT_EQ(third.rollups[0].status, "built");
  const std::vector<PeriodOutcome>& periods = third.rollups[0].periods;
  std::size_t dated = 0;
  for (const PeriodOutcome& period : periods) dated += !period.null_time;
  std::size_t expected = 0;
  for (std::size_t i = 0; i < periods.size(); ++i) {
    const PeriodOutcome& period = periods[i];
    if (period.null_time) continue;  // the NULL-time file is re-read
    const bool newest = i + 3 >= dated;
    const bool open_when_built = *period.end > kSeptember.Now();
    expected += newest || open_when_built;
    EXPECT_EQ(period.status, newest || open_when_built ? "built" : "kept") << period.label;
  }
  EXPECT_EQ(expected, 89u);  // 2026-09-15 .. 2026-12-12
  const std::vector<ManifestFile> kept = Files();
  std::set<std::string> paths;
  for (const ManifestFile& file : kept) EXPECT_TRUE(paths.insert(file.path).second) << file.path;
  EXPECT_EQ(Layout(kept).first, Layout(compacted).first);
  EXPECT_EQ(kept.size(), compacted.size());
  for (const char* text : kQueries) EXPECT_EQ(ExpectSameAnswer(text), "daily");
  // A full build writes daily files again and compacts them again.
  const BuildReport full = Build(At(true));
  EXPECT_EQ(Layout(Files()).first, Layout(compacted).first);
  EXPECT_EQ(Files().size(), compacted.size());
  (void)answers;
}

TEST_F(CompactionTest, TheNewestRefreshLastPeriodsAndTheOpenMonthStayFine) {
  Load(DailyRollup("{ by: day, compact: month, refresh_last: 40 }"));
  Build(At());
  auto manifest = store_->Load("daily");
  ASSERT_TRUE(manifest.ok() && manifest->has_value());
  // The newest 40 daily periods start on 2026-11-03: October and November keep their days
  // (November holds some of the 40), and so does every month from September (not ended).
  const auto [months, days] = Layout((*manifest)->files);
  EXPECT_EQ(months.size(), 10u);
  EXPECT_TRUE(CompactionGroups(model_.rollups[0], **manifest, kSeptember.Now()).empty());
  // Later, once those months have ended and left the newest 40: they merge too.
  const FixedClock later(ToUnixSeconds({2027, 3, 1, 0, 0, 0}));
  const auto groups = CompactionGroups(model_.rollups[0], **manifest, later.Now());
  EXPECT_EQ(groups.size(), 2u);  // September and October; November holds newest periods
  (void)days;
}

}  // namespace
}  // namespace strata::rollup
