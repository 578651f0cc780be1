// Executes a plan against a warehouse, recording per-partition state.
//
// For each time_interval model: create the target if it is missing (never replacing one), then
// write every batch in its own transaction (BEGIN; DELETE window; INSERT; check; COMMIT) on one
// connection, up to `parallel` batches at once on separate connections. Before COMMIT an output
// guard checks that every inserted row lies inside the window; otherwise the batch rolls back.
// A failed batch rolls back and is recorded Failed; the others still run. Models downstream of a
// model with failures are skipped. Cancellation (SIGINT/SIGTERM) interrupts in-flight statements,
// rolls their transactions back and records those partitions Interrupted.
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

struct RunOptions {
  int parallel = 4;                            // batches in flight per model; 1 = serial
  const std::atomic<bool>* cancel = nullptr;   // becomes true on SIGINT/SIGTERM; may be null
  ProgressObserver* progress = nullptr;        // may be null
  std::string command;                         // recorded in the run history and the lock
  const Clock* clock = &SystemClock();
};

using WarehouseOpener = std::function<Result<std::unique_ptr<warehouse::Warehouse>>()>;

// Takes the state store's run lock for the whole run (kStateLocked at once if another run holds
// it), marks partitions left InProgress by a dead run Interrupted, opens the warehouse (only once
// the lock is held, so a concurrent run gets the lock's message), then executes `plan`.
// Partition and model failures are reported in the RunReport, not as an error; an error is
// returned only when the run could not start or its state could not be recorded.
Result<RunReport> ExecutePlan(const project::Project& project, const Plan& plan,
                              const WarehouseOpener& open_warehouse, state::StateStore& store,
                              const RunOptions& options);

}  // namespace strata::materialize
