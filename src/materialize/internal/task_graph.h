// A DAG of tasks run by a fixed pool of worker threads. Private to the runner: it schedules
// partition batches, model setups and whole-model builds so that each starts as soon as the work
// it reads is done, and not later.
//
// A task runs once every dependency succeeded. A task with a dependency that did not succeed (it
// failed, or was itself skipped) is not run: it is *skipped*, and told the root cause — the first
// failed task found upstream of it — so a message can name the partition that really failed.
//
// Among ready tasks a worker takes the one with the smallest priority (ties: the smaller id).
//
// A task may run *together with* other ready tasks (one warehouse transaction for several
// partition batches): RunGrouped passes the callback a TaskGroup through which it takes more
// tasks that are ready and not yet started. A taken task never runs on its own; the callback sets
// its outcome, and its dependents are released when the callback returns, exactly as if it had
// run then.
//
// Thread safety: Add() only before Run(); Run() calls the callbacks from its worker threads, at
// most `workers` at once, never two for the same task.
#pragma once

#include <cstdint>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#include "base/result.h"

namespace strata::materialize {

using TaskId = std::size_t;

// Lexicographic: the runner uses (window start, model index, batch index).
struct TaskPriority {
  std::int64_t first = 0;
  std::int64_t second = 0;
  std::int64_t third = 0;
  bool operator<(const TaskPriority& other) const {
    return std::tie(first, second, third) < std::tie(other.first, other.second, other.third);
  }
};

enum class TaskOutcome { kSucceeded, kFailed };

// The tasks one callback runs together (see the top of this file). Used only on the callback's
// thread, during the callback.
class TaskGroup {
 public:
  // Takes `id` into the group: true if it was ready (every dependency finished and succeeded)
  // and no worker had started or taken it. Its outcome is kFailed until SetOutcome.
  bool Take(TaskId id);
  // The outcome of a task taken into the group. REQUIRES: Take(id) returned true.
  void SetOutcome(TaskId id, TaskOutcome outcome);

 private:
  friend class TaskGraph;
  struct GraphSchedule* schedule_ = nullptr;
  std::vector<std::pair<TaskId, TaskOutcome>> taken_;
};

class TaskGraph {
 public:
  // Adds a task. REQUIRES: every dependency was added before (so the graph is acyclic).
  TaskId Add(TaskPriority priority, std::vector<TaskId> dependencies);
  std::size_t size() const { return nodes_.size(); }

  // Runs every task on `workers` threads (the calling thread is one of them):
  //  - `run(worker, task)` for a task whose dependencies all succeeded;
  //  - `skip(worker, task, root_cause)` for the others; a skipped task counts as not succeeded.
  // `worker` is in [0, workers): a callback may keep per-worker resources (a connection) in a
  // vector indexed by it. An error from a callback stops the run: no task starts after it, tasks
  // in flight finish, and the first error is returned. An exception from a callback (a broken
  // invariant) stops the run the same way and is rethrown here, on the calling thread, after every
  // worker returned. At most min(workers, size()) threads run.
  using RunFunction = std::function<Result<TaskOutcome>(std::size_t worker, TaskId task)>;
  using SkipFunction = std::function<Status(std::size_t worker, TaskId task, TaskId root_cause)>;
  Status Run(int workers, const RunFunction& run, const SkipFunction& skip) const;
  // Run, with a callback that may take more ready tasks into its task's group (TaskGroup). An
  // error from it stops the run as in Run; the taken tasks then count as not succeeded.
  using GroupRunFunction =
      std::function<Result<TaskOutcome>(std::size_t worker, TaskId task, TaskGroup& group)>;
  // `idle(worker)`, when given, runs on the worker's thread, outside the graph's lock, whenever
  // the worker finds no ready task: before it waits for one and before it returns (so it runs
  // last on every worker, after the worker's last callback). The runner writes there what it
  // deferred to the worker's next task. An error from it stops the run like a callback's.
  using IdleFunction = std::function<Status(std::size_t worker)>;
  Status RunGrouped(int workers, const GroupRunFunction& run, const SkipFunction& skip,
                    const IdleFunction& idle = nullptr) const;

 private:
  struct Node {
    TaskPriority priority;
    std::vector<TaskId> dependencies;
    std::vector<TaskId> dependents;
  };
  std::vector<Node> nodes_;
};

}  // namespace strata::materialize
