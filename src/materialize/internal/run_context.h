// What the threads of one run share, and the work each kind of task does. Private to the runner:
// runner.cc builds the task graph (internal/task_graph.h); the tasks are one file per job
// (target_setup.cc, batch_task.cc, whole_model_tasks.cc, skip_tasks.cc).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "materialize/internal/state_writer.h"
#include "materialize/internal/task_graph.h"
#include "materialize/runner.h"
#include "materialize/transaction_groups.h"
#include "state/state_store.h"
#include "warehouse/cancellation.h"
#include "warehouse/emitter.h"

namespace strata::materialize {

enum class TaskKind {
  kUnrunnable,  // a model that cannot compile: records its partitions Failed
  kSetup,       // time_interval: create the target if missing (partitioned where the target
                //   says how); bind insert columns (PostgreSQL, Trino: its MERGE too) and
                //   choose the row hash (PostgreSQL); Trino's Hive: check the partitioning
  kBatch,       // time_interval: one batch, in a transaction with the next ready ones ("auto")
  kWholeModel,  // full_refresh, view and incremental
};

struct Task {
  TaskKind kind = TaskKind::kBatch;
  std::size_t model = 0;  // index into Plan::models
  std::size_t batch = 0;  // kBatch only
};

// One planned model's progress. Guarded by RunContext::mutex, except `bound`, `row_hash` and
// `row_columns`,
// which its setup task writes before any of the model's batches (its dependents) can read them.
struct ModelRun {
  const PlannedModel* planned = nullptr;
  std::optional<PlannedModel> bound;  // the batches with bound insert columns (PostgreSQL)
  PartitionSummary summary;
  bool setup_failed = false;
  bool replaced = false;  // PlannedModel::replace done: the table dropped, its state forgotten
  std::set<std::string> skip_causes;  // "model m" / "partition k of model m", for the error
  std::vector<TaskId> batch_tasks;    // the kBatch task of each batch, by batch index
  PartitionCost cost;                 // from Computed state, then from this run's commits
  // How the batches' checksums hash a row (PostgreSQL: chosen by the setup for the target).
  warehouse::RowHash row_hash = warehouse::RowHash::kText;
  // The model's output columns as the setup bound them (where inserts name them): what Trino's
  // checksums hash (Emitter::WithRowColumns).
  std::vector<std::string> row_columns;
};

// A worker's state-store writes held back until its next transaction starts: the rows of the
// batches it just finished, written in one state transaction with the next batch's InProgress
// rows (MarkInProgress, through the StateWriter) rather than in one of their own. Crash safety
// is that of writing them at once: until they are written the partitions read InProgress, so a
// crash in between makes them Interrupted, and --missing runs them again.
struct DeferredState {
  std::vector<state::PartitionRecord> records;
  std::vector<state::RunPartitionRecord> history;
  // For the error when the write fails: the first model and partition, and what was recorded.
  std::string model;
  std::string partition;
  std::string note;
  bool empty() const { return records.empty() && history.empty(); }
};

struct RunContext {
  const project::Project& project;
  warehouse::Warehouse& warehouse;
  state::StateStore& store;
  const RunOptions& options;
  warehouse::Emitter emitter;
  warehouse::CancellationWatcher watcher;
  std::string run_id;
  std::vector<Task> tasks;       // by TaskId
  std::vector<ModelRun> models;  // by model index
  // One connection per worker thread, opened on first use and reopened after a lost connection.
  std::vector<std::unique_ptr<warehouse::Connection>> connections;
  // By worker; each used only on its worker's thread (no lock).
  std::vector<DeferredState> deferred;
  // Writes the batches' rows while their transactions run (state_writer.h).
  std::unique_ptr<StateWriter> state_writer;
  RunReport report;
  std::mutex mutex;
  int done = 0;
  int total = 0;

  // The target's capabilities as its registration discovered them (warehouse/registry.h), once
  // a run: the first setup that needs them asks. Guarded by `mutex`.
  std::optional<warehouse::Capabilities> discovered;

  // Set when a task stopped the run: the warehouse or the state store cannot write (see
  // StopsRun). No task starts after it; the tasks not started count as skipped.
  std::atomic<bool> stopped{false};

  void Progress(int finished);
  void AddError(const std::string& model, std::optional<std::string> partition, const Error& error);
  // The worker's connection, opened if needed.
  Result<warehouse::Connection*> ConnectionFor(std::size_t worker);
  // The target's discovered capabilities, discovering them on `connection` the first time (a
  // failure is returned and tried again by the next caller).
  Result<warehouse::Capabilities> TargetCapabilities(warehouse::Connection& connection);
  // Drops the worker's connection (after a lost connection) so the next use reconnects.
  void DropConnection(std::size_t worker) { connections[worker].reset(); }
};

int PlannedPartitions(const PlannedModel& planned);

// Retry backoff: the wait before attempt `attempt + 1` is random in [d/2, d], with
// d = min(retry_base_ms * 2^(attempt-1), kMaxBackoffMillis). The cap keeps the largest settings
// (retry_base_ms 60000, max_retries 20) from waiting days; the wait goes through
// RunOptions::clock and ends early when the run is cancelled.
inline constexpr std::int64_t kMaxBackoffMillis = 30'000;
std::int64_t BackoffMillis(const project::RunConfig& config, int attempt);

// Whether `error` ends the whole run rather than one task: the warehouse cannot write its files
// (kWarehouseStorage), or the state store cannot record what happened (kIo, kStateStore). Every
// further task would fail the same way, or its outcome could not be recorded.
bool StopsRun(const Error& error);

// Writes the worker's DeferredState on its own (before the worker waits, ends, or runs a task
// other than a batch). A failure stops the run (StopsRun), reported like the failed write of a
// batch's outcome.
Status FlushDeferredState(RunContext& run, std::size_t worker);

// The tasks. Each returns kFailed for work that did not succeed (recorded in the
// report and the state store); an error only when the run must stop (StopsRun), after adding it
// to the report itself and setting RunContext::stopped.
Result<TaskOutcome> RunUnrunnable(RunContext& run, const Task& task);
Result<TaskOutcome> RunSetup(RunContext& run, std::size_t worker, const Task& task);
// A batch, with the next ready batches of its model it takes into `group` (transaction_groups.h)
// in one transaction; a failing transaction is split until the failing batches are alone.
Result<TaskOutcome> RunBatch(RunContext& run, std::size_t worker, const Task& task,
                             TaskGroup& group);
Result<TaskOutcome> RunWholeModel(RunContext& run, std::size_t worker, const Task& task);
Result<TaskOutcome> RunIncremental(RunContext& run, std::size_t worker, const Task& task);
// A task not run because `root_cause` (a task upstream of it) did not succeed, or because the
// run was cancelled.
Status SkipTask(RunContext& run, const Task& task, const Task& root_cause);

}  // namespace strata::materialize
