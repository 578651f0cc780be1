// The batch task of a time_interval model: the batches one transaction takes, their InProgress
// rows, the write, and their outcomes (internal/run_context.h).
#include <mutex>

#include "materialize/internal/range_writer.h"

namespace strata::materialize {
namespace {

// `task`'s batch and the following batches of its model that one transaction takes: their
// windows touch, they are ready (TaskGroup::Take), and together they stay within the model's
// cap (transaction_groups.h). Returns the batch indexes.
std::vector<std::size_t> TakeGroup(RunContext& run, const Task& task, TaskGroup& group,
                                   const PlannedModel& work) {
  ModelRun& model_run = run.models[task.model];
  std::vector<std::size_t> taken{task.batch};
  const PlannedBatch& first = work.batches[task.batch];
  int cap = 1;
  {
    std::lock_guard<std::mutex> lock(run.mutex);
    cap = MaxGroupPartitions(run.project.config.run.batching, !first.statements.begin.empty(),
                             model_run.cost, model_run.summary.partitions_planned,
                             run.options.parallel, GroupLimitsFor(run.emitter.capabilities()));
  }
  int partitions = static_cast<int>(first.keys.size());
  for (std::size_t b = task.batch + 1; b < work.batches.size(); ++b) {
    const PlannedBatch& next = work.batches[b];
    if (next.window.start != work.batches[b - 1].window.end) break;
    if (partitions + static_cast<int>(next.keys.size()) > cap) break;
    if (!group.Take(model_run.batch_tasks[b])) break;
    taken.push_back(b);
    partitions += static_cast<int>(next.keys.size());
  }
  return taken;
}

}  // namespace

Result<TaskOutcome> RunBatch(RunContext& run, std::size_t worker, const Task& task,
                             TaskGroup& group) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& work = model_run.bound ? *model_run.bound : *model_run.planned;
  const project::Model& model = *work.model;
  if (run.watcher.cancelled()) {
    ReportNotStartedByInterrupt(run, model_run, task);
    return TaskOutcome::kFailed;
  }
  const std::vector<std::size_t> indexes = TakeGroup(run, task, group, work);
  std::vector<const PlannedBatch*> batches;
  batches.reserve(indexes.size());
  for (std::size_t b : indexes) batches.push_back(&work.batches[b]);
  DeferredState held;
  const std::shared_ptr<StateWriter::Write> marked =
      MarkInProgress(run, worker, model, batches, held);
  // Without a session transaction (an empty BEGIN) each statement commits on its own: nothing
  // may run before the InProgress rows are written.
  if (batches.front()->statements.begin.empty()) {
    if (Status written = marked->Wait(); !written.ok()) {
      return MarkFailed(run, model, batches, held, std::move(written).error());
    }
  }
  const std::vector<BatchResult> results =
      WriteBatches(run, worker, model_run, batches, [&] { return marked->Wait(); });
  if (Status written = marked->Wait(); !written.ok()) {
    // Nothing of the batches committed (each COMMIT waited for this write): the report says how
    // each ended, and the state store, which just failed, is not written again.
    RecordBatches(run, model_run, results, StateWrite::kNone);
    return MarkFailed(run, model, batches, held, std::move(written).error());
  }
  RecordBatches(run, model_run, results, StateWrite::kDeferred, worker);
  run.Progress(PartitionsOf(batches, 0, batches.size()));
  std::optional<Error> stop;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const BatchOutcome& outcome = results[i].outcome;
    if (outcome.status == BatchStatus::kFailed && StopsRun(*outcome.error) && !stop) {
      stop = outcome.error;
    }
    if (i > 0) {
      group.SetOutcome(model_run.batch_tasks[indexes[i]], outcome.status == BatchStatus::kCommitted
                                                              ? TaskOutcome::kSucceeded
                                                              : TaskOutcome::kFailed);
    }
  }
  if (stop) {
    run.stopped = true;
    return *stop;  // reported above
  }
  return results.front().outcome.status == BatchStatus::kCommitted ? TaskOutcome::kSucceeded
                                                                   : TaskOutcome::kFailed;
}

}  // namespace strata::materialize
