// Executes a plan against a warehouse, recording per-partition state.
//
// The plan becomes a graph of tasks run by `parallel` workers, each with its own connection:
//  - a time_interval model has a setup task (create the target over an empty window if it is
//    missing, never replacing one) and one task per batch, which writes the batch in its own
//    transaction (BEGIN; DELETE window; INSERT; check; COMMIT). Before COMMIT an output guard
//    checks that every inserted row lies inside the window; otherwise the batch rolls back.
//  - a full_refresh or view model is one task.
// Dependencies follow the models' depends_on, at partition level: a batch waits for its model's
// setup and, of each upstream time_interval model, only for the batches whose windows overlap its
// own (Schedule::kPartition); of an upstream full_refresh/view model, for the whole build. A
// model's setup waits for its upstream models' setup (their tables exist). A full_refresh/view
// model waits for everything of its upstream models. Among ready tasks, the earliest window goes
// first, then plan order: a backfill completes day by day across the DAG.
//
// A failed batch rolls back and is recorded Failed; everything else still runs except what reads
// it: exactly the downstream tasks that depend on it (transitively) are skipped — recorded
// `Skipped` in the run history and the report, with the upstream partition or model named — and
// their partitions keep the state and rows they had. Transient errors (retryable codes) are
// retried per the project's [run] config with jittered exponential backoff; every retried
// attempt is in the report. Cancellation (SIGINT/SIGTERM) interrupts in-flight statements, rolls
// their transactions back and records those partitions Interrupted; tasks not started are
// reported Skipped (attempts 0, state untouched), and each model that lost work gets one
// Interrupted error counting both.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/time.h"
#include "materialize/plan.h"
#include "materialize/run_report.h"
#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/warehouse.h"

namespace strata::materialize {

// Told how far a run is; called from runner threads, one call at a time.
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  virtual void OnProgress(int done, int total) = 0;
};

// kModelBarrier makes every batch wait for all of each upstream model's work (a whole-model
// barrier, as a model-at-a-time scheduler does); it exists to measure what partition-level
// scheduling gains (bench/dag_schedule).
enum class Schedule { kPartition, kModelBarrier };

struct RunOptions {
  int parallel = 4;  // tasks in flight in the whole run; 1 = serial
  Schedule schedule = Schedule::kPartition;
  const std::atomic<bool>* cancel = nullptr;  // becomes true on SIGINT/SIGTERM; may be null
  ProgressObserver* progress = nullptr;       // may be null
  std::string command;                        // recorded in the run history and the lock
  const Clock* clock = &SystemClock();
};

using WarehouseOpener = std::function<Result<std::unique_ptr<warehouse::Warehouse>>()>;

// Takes the state store's run lock for the whole run (kStateLocked at once if another run holds
// it), marks partitions left InProgress by a dead run Interrupted, opens the warehouse (only once
// the lock is held, so a concurrent run gets the lock's message), then executes `plan`.
// Partition and model failures are reported in the RunReport, not as an error; an error is
// returned only when the run could not start (nothing was written): among them kPlanStale when
// the plan was made for capabilities its target discovered (Plan::capabilities, a Trino
// catalog's connector) and the target now reports others.
//
// Storage failures stop the run but still return its report: when the warehouse cannot write its
// files (kWarehouseStorage: no space, I/O error, read-only) or the state store cannot record an
// outcome (kIo, kStateStore), no task starts after it, tasks in flight finish, the tasks never
// started count as skipped (one error per model names the cause) and the status is
// partial_failure or failure (exit 2). A partition is Computed in the state store only after its
// transaction committed; one whose outcome could not be recorded stays InProgress there, so the
// next run marks it Interrupted and --missing runs it again.
Result<RunReport> ExecutePlan(const project::Project& project, const Plan& plan,
                              const WarehouseOpener& open_warehouse, state::StateStore& store,
                              const RunOptions& options);

}  // namespace strata::materialize
