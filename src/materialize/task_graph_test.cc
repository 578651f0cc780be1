#include "materialize/internal/task_graph.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace strata::materialize {
namespace {

TEST(TaskGraphTest, RunsDependenciesFirstAndByPriority) {
  TaskGraph graph;
  const TaskId a = graph.Add({0, 0, 0}, {});
  const TaskId late = graph.Add({5, 0, 0}, {});
  const TaskId b = graph.Add({1, 0, 0}, {a});
  const TaskId c = graph.Add({0, 1, 0}, {a, b});
  std::vector<TaskId> order;
  ASSERT_TRUE(graph
                  .Run(
                      1,
                      [&](std::size_t, TaskId id) -> Result<TaskOutcome> {
                        order.push_back(id);
                        return TaskOutcome::kSucceeded;
                      },
                      [](std::size_t, TaskId, TaskId) { return OkStatus(); })
                  .ok());
  // a first; then b (priority 1) before late (5); c becomes ready only after b, and its
  // priority (0, 1) beats late's.
  EXPECT_EQ(order, (std::vector<TaskId>{a, b, c, late}));
}

TEST(TaskGraphTest, FailureSkipsExactlyItsTransitiveDependentsWithTheRootCause) {
  TaskGraph graph;
  const TaskId root = graph.Add({}, {});
  const TaskId failing = graph.Add({}, {root});
  const TaskId child = graph.Add({}, {failing});
  const TaskId grandchild = graph.Add({}, {child, root});
  const TaskId sibling = graph.Add({}, {root});
  std::map<TaskId, std::string> seen;
  std::mutex mutex;
  Status status = graph.Run(
      3,
      [&](std::size_t, TaskId id) -> Result<TaskOutcome> {
        std::lock_guard<std::mutex> lock(mutex);
        seen[id] = "ran";
        return id == failing ? TaskOutcome::kFailed : TaskOutcome::kSucceeded;
      },
      [&](std::size_t, TaskId id, TaskId cause) {
        std::lock_guard<std::mutex> lock(mutex);
        seen[id] = "skipped by " + std::to_string(cause);
        return OkStatus();
      });
  ASSERT_TRUE(status.ok());
  const std::string by_failing = "skipped by " + std::to_string(failing);
  EXPECT_EQ(seen, (std::map<TaskId, std::string>{{root, "ran"},
                                                 {failing, "ran"},
                                                 {child, by_failing},
                                                 {grandchild, by_failing},
                                                 {sibling, "ran"}}));
}

TEST(TaskGraphTest, IndependentTasksRunConcurrently) {
  TaskGraph graph;
  for (int i = 0; i < 4; ++i) graph.Add({}, {});
  std::atomic<int> in_flight{0}, peak{0};
  Status status = graph.Run(
      4,
      [&](std::size_t, TaskId) -> Result<TaskOutcome> {
        const int now = ++in_flight;
        int expected = peak.load();
        while (now > expected && !peak.compare_exchange_weak(expected, now)) {
        }
        // Wait (bounded) until another task is in flight too.
        for (int i = 0; i < 2000 && peak.load() < 2; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        --in_flight;
        return TaskOutcome::kSucceeded;
      },
      [](std::size_t, TaskId, TaskId) { return OkStatus(); });
  ASSERT_TRUE(status.ok());
  EXPECT_GE(peak.load(), 2);
}

TEST(TaskGraphTest, AnErrorStopsTheRunAndIsReturned) {
  TaskGraph graph;
  const TaskId first = graph.Add({0, 0, 0}, {});
  graph.Add({1, 0, 0}, {});
  graph.Add({2, 0, 0}, {first});
  int ran = 0;
  Status status = graph.Run(
      1,
      [&](std::size_t, TaskId) -> Result<TaskOutcome> {
        ++ran;
        return MakeError(ErrorCode::kStateStore, "disk full");
      },
      [](std::size_t, TaskId, TaskId) { return OkStatus(); });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kStateStore);
  EXPECT_EQ(ran, 1);
}

// A callback that throws on a worker thread must not std::terminate the process: the exception
// stops the run and reaches the caller, on the calling thread, after every worker returned.
TEST(TaskGraphTest, AnExceptionInAWorkerThreadReachesTheCaller) {
  for (int thrower = 0; thrower < 4; ++thrower) {
    TaskGraph graph;
    std::vector<TaskId> ids;
    ids.reserve(4);
    for (int i = 0; i < 4; ++i) ids.push_back(graph.Add({i, 0, 0}, {}));
    const TaskId after = graph.Add({9, 0, 0}, {ids[0], ids[1], ids[2], ids[3]});
    std::atomic<bool> ran_after{false};
    EXPECT_THROW((void)graph.Run(
                     4,
                     [&](std::size_t, TaskId id) -> Result<TaskOutcome> {
                       if (id == after) ran_after = true;
                       if (id == ids[static_cast<std::size_t>(thrower)])
                         throw std::logic_error("broken");
                       return TaskOutcome::kSucceeded;
                     },
                     [](std::size_t, TaskId, TaskId) { return OkStatus(); }),
                 std::logic_error)
        << "thrower " << thrower;
    EXPECT_FALSE(ran_after.load()) << "a task started after the exception";
  }
}

TEST(TaskGraphTest, AGroupTakesOnlyReadyTasksAndReleasesTheirDependentsByTheirOutcome) {
  TaskGraph graph;
  const TaskId first = graph.Add({0, 0, 0}, {});
  const TaskId second = graph.Add({1, 0, 0}, {});
  const TaskId blocked = graph.Add({2, 0, 0}, {second});  // not ready while second runs
  const TaskId after_second = graph.Add({3, 0, 0}, {second});
  const TaskId third = graph.Add({4, 0, 0}, {});
  const TaskId after_third = graph.Add({5, 0, 0}, {third});
  std::vector<TaskId> ran;
  std::map<TaskId, TaskId> skipped;
  Status status = graph.RunGrouped(
      1,
      [&](std::size_t, TaskId id, TaskGroup& group) -> Result<TaskOutcome> {
        ran.push_back(id);
        if (id == first) {
          EXPECT_TRUE(group.Take(second));
          EXPECT_FALSE(group.Take(second));   // already taken
          EXPECT_FALSE(group.Take(blocked));  // its dependency has not finished
          EXPECT_TRUE(group.Take(third));
          group.SetOutcome(second, TaskOutcome::kSucceeded);
          // third keeps the default: failed.
        }
        return TaskOutcome::kSucceeded;
      },
      [&](std::size_t, TaskId id, TaskId cause) {
        skipped[id] = cause;
        return OkStatus();
      });
  ASSERT_TRUE(status.ok());
  // Taken tasks never run on their own; second's dependents run, third's is skipped by it.
  EXPECT_EQ(ran, (std::vector<TaskId>{first, blocked, after_second}));
  EXPECT_EQ(skipped, (std::map<TaskId, TaskId>{{after_third, third}}));
}

TEST(TaskGraphTest, IdleRunsWhenAWorkerFindsNothingReadyAndLastOnEveryWorker) {
  TaskGraph graph;
  const TaskId first = graph.Add({0, 0, 0}, {});
  const TaskId second = graph.Add({1, 0, 0}, {first});
  const TaskId third = graph.Add({2, 0, 0}, {});
  std::vector<std::string> events;  // one worker: no lock needed
  Status status = graph.RunGrouped(
      1,
      [&](std::size_t, TaskId id, TaskGroup&) -> Result<TaskOutcome> {
        events.push_back("run " + std::to_string(id));
        return TaskOutcome::kSucceeded;
      },
      [&](std::size_t, TaskId, TaskId) { return OkStatus(); },
      [&](std::size_t worker) {
        events.push_back("idle " + std::to_string(worker));
        return OkStatus();
      });
  ASSERT_TRUE(status.ok());
  // A task was always ready until the end: idle once, after the last callback.
  EXPECT_EQ(events, (std::vector<std::string>{"run " + std::to_string(first),
                                              "run " + std::to_string(second),
                                              "run " + std::to_string(third), "idle 0"}));
}

TEST(TaskGraphTest, AnIdleErrorStopsTheRun) {
  TaskGraph graph;
  const TaskId first = graph.Add({0, 0, 0}, {});
  const TaskId second = graph.Add({1, 0, 0}, {first});
  std::mutex mutex;
  std::condition_variable idled;
  bool idle_failed = false;
  std::vector<TaskId> ran;
  std::vector<std::size_t> idle_workers;
  Status status = graph.RunGrouped(
      2,
      [&](std::size_t, TaskId id, TaskGroup&) -> Result<TaskOutcome> {
        std::unique_lock<std::mutex> lock(mutex);
        ran.push_back(id);
        // While the first task runs the other worker has nothing ready: it goes idle and fails.
        if (id == first) idled.wait(lock, [&] { return idle_failed; });
        return TaskOutcome::kSucceeded;
      },
      [&](std::size_t, TaskId, TaskId) { return OkStatus(); },
      [&](std::size_t worker) -> Status {
        std::lock_guard<std::mutex> lock(mutex);
        idle_workers.push_back(worker);
        if (idle_failed) return OkStatus();
        idle_failed = true;
        idled.notify_all();
        return MakeError(ErrorCode::kStateStore, "cannot write the deferred state");
      });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "cannot write the deferred state");
  // The run stopped: `second` started at most in the moment between the idle error and its
  // being recorded (no task starts after it, as after a callback's error), and never again.
  ASSERT_FALSE(ran.empty());
  EXPECT_EQ(ran.front(), first);
  EXPECT_LE(ran.size(), 2u);
  (void)second;
  // Both workers went idle before returning (the failing one, then each on its way out).
  EXPECT_GE(idle_workers.size(), 2u);
}

}  // namespace
}  // namespace strata::materialize
