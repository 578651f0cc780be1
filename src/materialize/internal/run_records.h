// The run's bookkeeping, shared by the task files: what each task reports (the run document's
// materializations and summaries, errors) and records (the state store's partition rows and run
// history, through the worker's DeferredState and the StateWriter). Private to the runner.
//
// Every function takes RunContext::mutex itself where it touches shared state; none talks to the
// warehouse.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "materialize/internal/batch_writer.h"
#include "materialize/internal/run_context.h"

namespace strata::materialize {

// One batch and what happened to it.
struct BatchResult {
  const PlannedBatch* batch = nullptr;
  BatchOutcome outcome;
  int transaction_partitions = 0;  // partitions of the last transaction that wrote or tried it
};

// The report entry of partition `index` of `batch`, with `status`.
Materialization PartitionMaterialization(const project::Model& model, const PlannedBatch& batch,
                                         std::size_t index, std::string status);
// The report entry of a whole-model task (full_refresh, view, incremental), status unset.
Materialization WholeModelMaterialization(const project::Model& model);

// "2026-04-07" or "2026-04-07..2026-04-09" for the keys from `first`'s to `last`'s.
std::string DescribeKeys(const PlannedBatch& first, const PlannedBatch& last);
std::string DescribeKeys(const PlannedBatch& batch);

// A task the run never started because it was interrupted: its partitions (or its whole model)
// are reported Skipped with attempts 0, so the report lists every planned partition. Nothing was
// written; the state store keeps what they had (`--missing` picks them up).
void ReportNotStartedByInterrupt(RunContext& run, ModelRun& model_run, const Task& task);

// Reports `error` (once, here) and stops the run: the error returned goes to the task graph,
// which starts no task after it.
Error StopRun(RunContext& run, const std::string& model, std::optional<std::string> partition,
              Error error);

// How the state-store rows of RecordBatches are written.
enum class StateWrite {
  kDeferred,  // held in the worker's DeferredState for its next MarkInProgress (or flush)
  kNone,      // not at all: a model that never reached the warehouse (it cannot compile) leaves
              // the state store as it was, and so does a batch whose InProgress write failed
};

// Records finished batches of one model: materializations and summary in the report, then, with
// StateWrite::kDeferred, their state-store rows and run history in the worker's DeferredState.
void RecordBatches(RunContext& run, ModelRun& model_run, const std::vector<BatchResult>& results,
                   StateWrite write, std::size_t worker = 0);

// A model none of whose partitions ran (it cannot compile, or its setup failed with `error`):
// each selected partition is reported Failed with the error, attempts 0; the state store is left
// as it was, and the model counts as failed whole.
void RecordModelNotRun(RunContext& run, ModelRun& model_run, const Error& error);

// Submits `batches`' InProgress rows, with the worker's deferred rows (moved into `held`), to the
// state writer: they are written while the batches' transaction runs, which waits for them
// before it commits.
std::shared_ptr<StateWriter::Write> MarkInProgress(RunContext& run, std::size_t worker,
                                                   const project::Model& model,
                                                   const std::vector<const PlannedBatch*>& batches,
                                                   DeferredState& held);

// The write of MarkInProgress failed: stops the run, saying what was not recorded and that the
// batches did not commit (their transaction waited for the write, and rolled back).
Error MarkFailed(RunContext& run, const project::Model& model,
                 const std::vector<const PlannedBatch*>& batches, const DeferredState& held,
                 Error error);

// Records a whole-model task's outcome (full_refresh, view, incremental): status, error, summary,
// the materialization. Returns the task's outcome, or `error` when it stops the run.
Result<TaskOutcome> FinishWholeModel(RunContext& run, ModelRun& model_run, Materialization m,
                                     const std::optional<Error>& error);

}  // namespace strata::materialize
