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

namespace {

// The mutable side of one Run(): what is pending, ready, doomed. Guarded by `mutex`.
struct Schedule {
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
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  std::size_t unfinished = 0;
  std::optional<Error> error;
  std::exception_ptr exception;  // the first exception a callback threw (a broken invariant)
  bool stopped() const { return error.has_value() || exception != nullptr; }
};

}  // namespace

Status TaskGraph::Run(int workers, const RunFunction& run, const SkipFunction& skip) const {
  Schedule schedule;
  schedule.pending.resize(nodes_.size());
  schedule.doomed.resize(nodes_.size());
  schedule.unfinished = nodes_.size();
  for (TaskId id = 0; id < nodes_.size(); ++id) {
    schedule.pending[id] = static_cast<int>(nodes_[id].dependencies.size());
    if (schedule.pending[id] == 0) schedule.ready.push({nodes_[id].priority, id});
  }
  const auto work = [&](std::size_t worker) {
    std::unique_lock<std::mutex> lock(schedule.mutex);
    while (true) {
      schedule.changed.wait(lock, [&] {
        return schedule.stopped() || schedule.unfinished == 0 || !schedule.ready.empty();
      });
      if (schedule.stopped() || schedule.unfinished == 0) return;
      const TaskId id = schedule.ready.top().id;
      schedule.ready.pop();
      const std::optional<TaskId> root_cause = schedule.doomed[id];
      lock.unlock();
      bool succeeded = false;
      std::optional<Error> error;
      std::exception_ptr exception;
      try {
        if (root_cause) {
          Status skipped = skip(worker, id, *root_cause);
          if (!skipped.ok()) error = std::move(skipped).error();
        } else {
          Result<TaskOutcome> outcome = run(worker, id);
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
      lock.lock();
      if (exception && !schedule.exception) schedule.exception = exception;
      if (error && !schedule.error) schedule.error = std::move(error);
      for (TaskId dependent : nodes_[id].dependents) {
        if (!succeeded && !schedule.doomed[dependent]) {
          schedule.doomed[dependent] = root_cause ? *root_cause : id;
        }
        if (--schedule.pending[dependent] == 0) {
          schedule.ready.push({nodes_[dependent].priority, dependent});
        }
      }
      --schedule.unfinished;
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
