// The tasks that write nothing: a model that cannot compile, and a task skipped because its
// upstream did not succeed or the run was interrupted (internal/run_context.h).
#include <fmt/format.h>

#include <mutex>

#include "materialize/internal/run_records.h"

namespace strata::materialize {

// A model that could not be compiled: each selected partition is reported Failed with the error
// in the run's document. Nothing reached the warehouse, so the state store is left as it was: a
// Computed partition stays Computed (its rows are still there), and --missing still finds every
// partition that is not.
Result<TaskOutcome> RunUnrunnable(RunContext& run, const Task& task) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  run.AddError(planned.model->name, std::nullopt, *planned.error);
  RecordModelNotRun(run, model_run, *planned.error);
  return TaskOutcome::kFailed;
}

namespace {

std::string DescribeCause(const RunContext& run, const Task& cause) {
  const PlannedModel& planned = *run.models[cause.model].planned;
  if (cause.kind != TaskKind::kBatch) return "model " + planned.model->name;
  const PlannedBatch& batch = planned.batches[cause.batch];
  return fmt::format("partition {} of model {}", batch.keys.front().ToString(),
                     planned.model->name);
}

}  // namespace

Status SkipTask(RunContext& run, const Task& task, const Task& root_cause) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  const project::Model& model = *planned.model;
  const int count = task.kind == TaskKind::kBatch
                        ? static_cast<int>(planned.batches[task.batch].keys.size())
                    : task.kind == TaskKind::kWholeModel ? 1
                                                         : 0;
  if (run.watcher.cancelled()) {
    ReportNotStartedByInterrupt(run, model_run, task);
    return OkStatus();
  }
  // The model's own setup failed: its partitions already count as failed.
  if (root_cause.model == task.model) return OkStatus();
  const std::string cause = DescribeCause(run, root_cause);
  const std::string reason = "skipped: upstream " + cause + " did not succeed";
  std::vector<Materialization> materializations;
  if (task.kind == TaskKind::kBatch) {
    const PlannedBatch& batch = planned.batches[task.batch];
    std::vector<state::RunPartitionRecord> history;
    for (std::size_t i = 0; i < batch.keys.size(); ++i) {
      history.push_back({run.run_id, model.name, batch.keys[i].ToString(),
                         state::PartitionStatus::kSkipped, 0, 0, reason, 0});
      Materialization m = PartitionMaterialization(model, batch, i, "Skipped");
      m.attempts = 0;
      m.error = reason;
      materializations.push_back(std::move(m));
    }
    if (Status recorded = run.store.RecordRunPartitions(history); !recorded.ok()) {
      Error error = std::move(recorded).error();
      error.Note("while recording skipped partition(s) " + DescribeKeys(batch) + " of " +
                 model.name);
      return StopRun(run, model.name, batch.keys.front().ToString(), std::move(error));
    }
  } else if (task.kind == TaskKind::kWholeModel) {
    Materialization m = WholeModelMaterialization(model);
    m.status = "Skipped";
    m.attempts = 0;
    m.error = reason;
    materializations.push_back(std::move(m));
  }
  if (count > 0) run.Progress(count);
  std::lock_guard<std::mutex> lock(run.mutex);
  model_run.summary.partitions_skipped += count;
  model_run.skip_causes.insert(cause);
  for (Materialization& m : materializations) run.report.materializations.push_back(std::move(m));
  return OkStatus();
}

}  // namespace strata::materialize
