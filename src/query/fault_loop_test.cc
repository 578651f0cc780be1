// A fault loop over the rollup store (STYLE.md, "Fault loops"): one small rollup build with its
// compaction runs with the Nth file-system call of the store failing (EIO, ENOSPC, a short
// write), N rising until the build completes. After each attempt the store in force answers every
// query exactly as the warehouse does (never a torn version), and the next build succeeds.
#include <cerrno>

#include "base/testing/fault_env.h"
#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

using testing::RollupQueryTest;

const FixedClock kNow(ToUnixSeconds({2027, 1, 15, 12, 0, 0}));

const char* const kQueries[] = {
    R"({"measures": ["Order.revenue", "Order.order_count", "Order.avg_amount"],
        "dimensions": ["Order.status"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})",
    R"({"measures": ["Order.revenue", "Order.max_amount"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                             "range": ["2026-11-01", "2027-01-01"]}]})",
};

TEST_F(RollupQueryTest, EveryFailedStoreCallOfABuildLeavesAStoreThatAnswersExactly) {
  Load(R"(rollups:
  - name: faulted
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, order_count, avg_amount, max_amount]
    partition: { by: month, compact: quarter }
)");
  strata::testing::FaultEnv env;
  const RollupStore faulty(store_->root(), env);
  BuildOptions options;
  options.clock = &kNow;
  options.full = true;
  int call = 1;
  for (;; ++call) {
    env.FailAt(call, call % 2 == 0 ? ENOSPC : EIO, call % 3 == 0);
    Result<BuildReport> report = BuildRollups(model_, *warehouse_, *engine_, faulty, options);
    const bool faulted = env.failed();
    env.FailAt(0);
    for (const char* text : kQueries) ExpectSameAnswer(text);
    if (Result<std::optional<Manifest>> manifest = store_->Load("faulted"); manifest.ok()) {
      if (manifest->has_value()) {
        EXPECT_TRUE(store_->VerifyFiles(**manifest, /*checksums=*/true).ok()) << "call " << call;
      }
    } else {
      ADD_FAILURE() << "call " << call << ": " << manifest.error().ToString();
    }
    if (!faulted) {
      ASSERT_TRUE(report.ok()) << report.error().ToString();
      EXPECT_FALSE(report->rollups.front().error) << report->rollups.front().error->ToString();
      break;
    }
    ASSERT_LT(call, 1000) << "the build never completed";
  }
  EXPECT_GT(call, 10) << "a build with a compaction makes more store calls than that";
  Build(options);
  for (const char* text : kQueries) EXPECT_EQ(ExpectSameAnswer(text), "faulted") << text;
}

}  // namespace
}  // namespace strata::rollup
