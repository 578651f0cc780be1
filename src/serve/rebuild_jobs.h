// The rollup builds of `strata serve` (issue 12, "Scheduler" and "Control plane"): the control
// port's rebuild hook and the refresh schedule both submit jobs here, and one worker thread runs
// them in order, so at most one build runs at a time (and so at most one per rollup).
//
// Coalescing: a job submitted while another one of the same source waits to start joins that
// waiting job (its rollups added; a job of every rollup absorbs any other) and gets its id, so a
// burst of hook calls during a build becomes exactly one more build after it. Hook and schedule
// jobs never join each other: a hook builds what it names even when not due, a scheduled
// refresh builds what is due.
//
// The schedule: every `interval`, a `due_only` build of every rollup (rollup/builder.h:
// refresh.every since the last build, the freshness markers, `manual` rollups never), unless a
// job already waits. Queries never wait for a build: the router reads the manifest in force and
// switches when the next one is published (rollup/store.h).
//
// Jobs are kept in memory: the newest kKeptJobs, older ones are forgotten (404 afterwards).
//
// Thread safety: every method is thread-safe. The destructor stops the schedule, lets the
// running job finish (its builds are interrupted through `cancel`) and joins the threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/builder.h"

namespace strata::serve {

struct RebuildJob {
  std::string id;                    // "job-<n>", unique for the server's life
  std::string source;                // "hook" | "schedule"
  std::vector<std::string> rollups;  // empty: every rollup of the model
  std::string state;                 // "queued" | "running" | "succeeded" | "failed"
  std::int64_t requests = 1;         // submissions coalesced into it
  std::string submitted_at, started_at, finished_at;  // ISO 8601 UTC; empty until then
  std::optional<rollup::BuildReport> report;          // when finished
  std::optional<Error> error;                         // a build that could not start

  // {"id","source","state","rollups":[...]|null,"requests","submitted_at","started_at",
  //  "finished_at","rollup_outcomes":[{"rollup","status","version","reason","error"}],"error"}
  nlohmann::ordered_json ToJson() const;
};

class RebuildJobs {
 public:
  // Runs one build: `options.rollups` empty means every rollup. Called on the worker thread.
  using Build = std::function<Result<rollup::BuildReport>(const rollup::BuildOptions& options)>;

  static constexpr std::size_t kKeptJobs = 200;

  // `schedule_every_ms` 0: no schedule. `clock` stamps the jobs.
  RebuildJobs(Build build, std::int64_t schedule_every_ms, const Clock* clock);
  ~RebuildJobs();
  RebuildJobs(const RebuildJobs&) = delete;
  RebuildJobs& operator=(const RebuildJobs&) = delete;

  // Queues (or coalesces, see above) a build of `rollups` (empty: every rollup, manual ones
  // included: the hook builds what it is asked for); returns the job's id.
  std::string Submit(std::vector<std::string> rollups, const std::string& source);
  std::optional<RebuildJob> Find(const std::string& id) const;
  // The running job and the waiting ones, oldest first.
  std::vector<RebuildJob> Active() const;

 private:
  void Work();
  void Schedule();
  RebuildJob* WaitingLocked(const std::string& source);

  Build build_;
  const std::int64_t schedule_every_ms_;
  const Clock& clock_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;           // the worker: a job was queued, or stop
  std::condition_variable schedule_wake_;  // the schedule: stop
  std::deque<RebuildJob> jobs_;            // every kept job, oldest first
  std::int64_t next_id_ = 1;
  bool stopping_ = false;
  std::atomic<bool> cancel_{false};
  std::thread worker_, scheduler_;
};

}  // namespace strata::serve
