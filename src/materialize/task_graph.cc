#include "materialize/internal/task_graph.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>

namespace strata::materialize {

TaskId TaskGraph::Add(TaskPriority priority, std::vector<TaskId> dependencies) {
  const TaskId id = nodes_.size();
  std::sort(dependencies.begin(), dependencies.end());
  dependencies.erase(std::unique(dependencies.begin(), dependencies.end()), dependencies.end());
  for (TaskId dependency : dependencies) {
    STRATA_CHECK(dependency < id);
    nodes_[dependency].dependents.push_back(id);
  }
  nodes_.push_back(Node{priority, std::move(dependencies), {}});
  return id;
}

// The mutable side of one Run(): what is pending, ready, doomed. Guarded by `mutex`.
struct GraphSchedule {
  struct Ready {
    TaskPriority priority;
    TaskId id;
    bool operator>(const Ready& other) const {
      if (other.priority < priority) return true;
      if (priority < other.priority) return false;
      return id > other.id;
    }
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<int> pending;                   // unfinished dependencies per task
  std::vector<std::optional<TaskId>> doomed;  // root cause, once a dependency did not succeed
  std::vector<bool> started;                  // run, skipped or taken into a group
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  std::size_t unfinished = 0;
  std::optional<Error> error;
  std::exception_ptr exception;  // the first exception a callback threw (a broken invariant)
  bool stopped() const { return error.has_value() || exception != nullptr; }
  // Drops the ready queue's entries of tasks already taken into a group.
  void DropStarted() {
    while (!ready.empty() && started[ready.top().id]) ready.pop();
  }
};

bool TaskGroup::Take(TaskId id) {
  std::lock_guard<std::mutex> lock(schedule_->mutex);
  if (id >= schedule_->pending.size() || schedule_->started[id] || schedule_->pending[id] != 0 ||
      schedule_->doomed[id] || schedule_->stopped()) {
    return false;
  }
  schedule_->started[id] = true;
  taken_.emplace_back(id, TaskOutcome::kFailed);
  return true;
}

void TaskGroup::SetOutcome(TaskId id, TaskOutcome outcome) {
  for (auto& [taken, taken_outcome] : taken_) {
    if (taken == id) {
      taken_outcome = outcome;
      return;
    }
  }
  STRATA_CHECK(false && "SetOutcome of a task not taken into the group");
}

Status TaskGraph::Run(int workers, const RunFunction& run, const SkipFunction& skip) const {
  return RunGrouped(
      workers, [&](std::size_t worker, TaskId id, TaskGroup&) { return run(worker, id); }, skip);
}

Status TaskGraph::RunGrouped(int workers, const GroupRunFunction& run, const SkipFunction& skip,
                             const IdleFunction& idle) const {
  GraphSchedule schedule;
  schedule.pending.resize(nodes_.size());
  schedule.doomed.resize(nodes_.size());
  schedule.started.resize(nodes_.size());
  schedule.unfinished = nodes_.size();
  for (TaskId id = 0; id < nodes_.size(); ++id) {
    schedule.pending[id] = static_cast<int>(nodes_[id].dependencies.size());
    if (schedule.pending[id] == 0) schedule.ready.push({nodes_[id].priority, id});
  }
  // Releases the dependents of finished task `id`. Called with the mutex held.
  const auto finish = [&](TaskId id, bool succeeded, std::optional<TaskId> root_cause) {
    for (TaskId dependent : nodes_[id].dependents) {
      if (!succeeded && !schedule.doomed[dependent]) {
        schedule.doomed[dependent] = root_cause ? *root_cause : id;
      }
      if (--schedule.pending[dependent] == 0) {
        schedule.ready.push({nodes_[dependent].priority, dependent});
      }
    }
    --schedule.unfinished;
  };
  const auto work = [&](std::size_t worker) {
    std::unique_lock<std::mutex> lock(schedule.mutex);
    while (true) {
      schedule.DropStarted();
      if (idle && (schedule.ready.empty() || schedule.stopped())) {
        // About to wait or to return.
        lock.unlock();
        Status idled = OkStatus();
        std::exception_ptr exception;
        try {
          idled = idle(worker);
        } catch (...) {
          exception = std::current_exception();  // as a callback's: rethrown by the caller
        }
        lock.lock();
        const bool failed = exception != nullptr || !idled.ok();
        if (exception && !schedule.exception) schedule.exception = exception;
        if (!idled.ok() && !schedule.error) schedule.error = std::move(idled).error();
        if (failed) schedule.changed.notify_all();
      }
      schedule.changed.wait(lock, [&] {
        schedule.DropStarted();
        return schedule.stopped() || schedule.unfinished == 0 || !schedule.ready.empty();
      });
      if (schedule.stopped() || schedule.unfinished == 0) return;
      const TaskId id = schedule.ready.top().id;
      schedule.ready.pop();
      schedule.started[id] = true;
      const std::optional<TaskId> root_cause = schedule.doomed[id];
      lock.unlock();
      bool succeeded = false;
      std::optional<Error> error;
      std::exception_ptr exception;
      TaskGroup group;
      group.schedule_ = &schedule;
      try {
        if (root_cause) {
          Status skipped = skip(worker, id, *root_cause);
          if (!skipped.ok()) error = std::move(skipped).error();
        } else {
          Result<TaskOutcome> outcome = run(worker, id, group);
          if (!outcome.ok())
            error = std::move(outcome).error();
          else
            succeeded = *outcome == TaskOutcome::kSucceeded;
        }
      } catch (...) {
        // An exception must not end a worker thread (std::terminate): it stops the run and is
        // rethrown on the calling thread once every worker has returned.
        exception = std::current_exception();
      }
      // A callback that stopped the run did not finish the tasks it took.
      const bool stopped_here = error.has_value() || exception != nullptr;
      lock.lock();
      if (exception && !schedule.exception) schedule.exception = exception;
      if (error && !schedule.error) schedule.error = std::move(error);
      finish(id, succeeded, root_cause);
      for (const auto& [taken, outcome] : group.taken_) {
        finish(taken, !stopped_here && outcome == TaskOutcome::kSucceeded, std::nullopt);
      }
      schedule.changed.notify_all();
    }
  };
  // No more threads than tasks: a thread with nothing to do only waits.
  const std::size_t count = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, workers)),
                                                    1, std::max<std::size_t>(1, nodes_.size()));
  std::vector<std::thread> threads;
  for (std::size_t worker = 1; worker < count; ++worker) threads.emplace_back(work, worker);
  work(0);
  for (std::thread& thread : threads) thread.join();
  if (schedule.exception) std::rethrow_exception(schedule.exception);
  if (schedule.error) return std::move(*schedule.error);
  return OkStatus();
}

}  // namespace strata::materialize
