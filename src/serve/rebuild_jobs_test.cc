// RebuildJobs (rebuild_jobs.h): one build at a time, hook calls during a build coalesced into one
// more, the schedule's due-only builds kept apart from the hook's, failures and cancellation
// reported per job. The build function here records its calls and can be held open.
#include "serve/rebuild_jobs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace strata::serve {
namespace {

class Recorder {
 public:
  RebuildJobs::Build Function() {
    return [this](const rollup::BuildOptions& options) -> Result<rollup::BuildReport> {
      std::unique_lock<std::mutex> lock(mutex);
      calls.push_back(options);
      ++running;
      changed.notify_all();
      // A real build polls the cancel flag (warehouse/cancellation.h); so does this one.
      while (held && !options.cancel->load()) {
        changed.wait_for(lock, std::chrono::milliseconds(5));
      }
      --running;
      max_running = std::max(max_running, running + 1);
      if (fail) return MakeError(ErrorCode::kWarehouseConnection, "the warehouse is gone");
      rollup::BuildReport report;
      for (const std::string& name : options.rollups) {
        rollup::RollupOutcome outcome;
        outcome.rollup = name;
        outcome.status = "built";
        report.rollups.push_back(outcome);
      }
      cancelled = options.cancel->load();
      return report;
    };
  }
  void Hold(bool value) {
    std::lock_guard<std::mutex> lock(mutex);
    held = value;
    changed.notify_all();
  }
  void WaitForCalls(std::size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(
        changed.wait_for(lock, std::chrono::seconds(30), [&] { return calls.size() >= n; }));
  }
  std::vector<rollup::BuildOptions> Calls() {
    std::lock_guard<std::mutex> lock(mutex);
    return calls;
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<rollup::BuildOptions> calls;
  bool held = false, fail = false, cancelled = false;
  int running = 0, max_running = 0;
};

RebuildJob WaitFinished(const RebuildJobs& jobs, const std::string& id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::optional<RebuildJob> job = jobs.Find(id);
    if (job && (job->state == "succeeded" || job->state == "failed")) return *job;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ADD_FAILURE() << id << " did not finish";
  return {};
}

TEST(RebuildJobsTest, HookCallsDuringABuildBecomeOneMoreBuild) {
  Recorder recorder;
  recorder.Hold(true);
  RebuildJobs jobs(recorder.Function(), 0, nullptr);
  const std::string first = jobs.Submit({"a"}, "hook");
  recorder.WaitForCalls(1);
  EXPECT_EQ(jobs.Find(first)->state, "running");
  const std::string second = jobs.Submit({"b"}, "hook");
  EXPECT_EQ(jobs.Submit({"a"}, "hook"), second);
  EXPECT_EQ(jobs.Submit({"c", "b"}, "hook"), second);
  const RebuildJob waiting = *jobs.Find(second);
  EXPECT_EQ(waiting.state, "queued");
  EXPECT_EQ(waiting.requests, 3);
  EXPECT_EQ(waiting.rollups, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(jobs.Active().size(), 2u);
  recorder.Hold(false);
  EXPECT_EQ(WaitFinished(jobs, first).state, "succeeded");
  const RebuildJob done = WaitFinished(jobs, second);
  EXPECT_EQ(done.state, "succeeded");
  ASSERT_TRUE(done.report);
  EXPECT_EQ(done.report->rollups.size(), 3u);
  const std::vector<rollup::BuildOptions> calls = recorder.Calls();
  ASSERT_EQ(calls.size(), 2u);  // exactly one more build, never two at once
  EXPECT_EQ(recorder.max_running, 1);
  EXPECT_FALSE(calls[0].due_only);
  EXPECT_EQ(calls[1].rollups, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_TRUE(jobs.Active().empty());
  nlohmann::ordered_json json = done.ToJson();
  EXPECT_EQ(json["id"], second);
  EXPECT_EQ(json["requests"], 3);
  EXPECT_EQ(json["rollup_outcomes"].size(), 3u);
}

TEST(RebuildJobsTest, EveryRollupAbsorbsNamedOnesAndTheScheduleStaysApart) {
  Recorder recorder;
  recorder.Hold(true);
  RebuildJobs jobs(recorder.Function(), 0, nullptr);
  jobs.Submit({"a"}, "hook");
  recorder.WaitForCalls(1);
  const std::string hook = jobs.Submit({"b"}, "hook");
  EXPECT_EQ(jobs.Submit({}, "hook"), hook);
  EXPECT_TRUE(jobs.Find(hook)->rollups.empty());
  const std::string scheduled = jobs.Submit({}, "schedule");
  EXPECT_NE(scheduled, hook);
  EXPECT_EQ(jobs.Submit({}, "schedule"), scheduled);
  recorder.Hold(false);
  WaitFinished(jobs, scheduled);
  const std::vector<rollup::BuildOptions> calls = recorder.Calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_FALSE(calls[1].due_only);
  EXPECT_TRUE(calls[1].rollups.empty());
  EXPECT_TRUE(calls[2].due_only);  // the schedule builds only what is due
}

TEST(RebuildJobsTest, TheScheduleSubmitsDueOnlyBuilds) {
  Recorder recorder;
  RebuildJobs jobs(recorder.Function(), 20, nullptr);
  recorder.WaitForCalls(2);
  for (const rollup::BuildOptions& call : recorder.Calls()) {
    EXPECT_TRUE(call.due_only);
    EXPECT_TRUE(call.rollups.empty());
  }
}

TEST(RebuildJobsTest, AFailedBuildIsAFailedJobAndStoppingCancelsTheRunningOne) {
  Recorder recorder;
  recorder.fail = true;
  {
    RebuildJobs jobs(recorder.Function(), 0, nullptr);
    const RebuildJob failed = WaitFinished(jobs, jobs.Submit({"a"}, "hook"));
    EXPECT_EQ(failed.state, "failed");
    ASSERT_TRUE(failed.error);
    EXPECT_EQ(failed.error->code, ErrorCode::kWarehouseConnection);
    EXPECT_FALSE(jobs.Find("job-999"));
  }
  recorder.fail = false;
  recorder.Hold(true);
  {
    RebuildJobs jobs(recorder.Function(), 0, nullptr);
    jobs.Submit({"a"}, "hook");
    recorder.WaitForCalls(2);
  }  // the destructor cancels the held build and joins
  EXPECT_TRUE(recorder.cancelled);
}

}  // namespace
}  // namespace strata::serve
