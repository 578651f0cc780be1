// The run's bookkeeping: report entries, summaries, and the state-store rows of finished and
// started batches (internal/run_records.h).
#include "materialize/internal/run_records.h"

#include <fmt/format.h>

#include <iterator>
#include <utility>

namespace strata::materialize {
namespace {

using state::PartitionStatus;

std::vector<std::string> AssetKey(const project::ObjectName& target) {
  std::vector<std::string> key;
  for (const std::string* part : {&target.catalog, &target.schema, &target.table}) {
    if (!part->empty()) key.push_back(*part);
  }
  return key;
}

state::PartitionRecord Record(const RunContext& run, const project::Model& model,
                              const PartitionKey& key, PartitionStatus status) {
  state::PartitionRecord record;
  record.model_name = model.name;
  record.partition_key = key.ToString();
  record.status = status;
  record.computed_at = run.options.clock->Now();
  record.run_id = run.run_id;
  record.start = key.window().start;
  record.end = key.window().end;
  return record;
}

PartitionStatus StatusOf(BatchStatus status) {
  return status == BatchStatus::kCommitted     ? PartitionStatus::kComputed
         : status == BatchStatus::kInterrupted ? PartitionStatus::kInterrupted
                                               : PartitionStatus::kFailed;
}

// What an error says of partitions whose outcome could not be recorded.
constexpr const char* kOutcomeNotRecorded =
    "the warehouse has the outcome, the state store does not: the next run marks them "
    "Interrupted and --missing runs them again";

}  // namespace

Materialization PartitionMaterialization(const project::Model& model, const PlannedBatch& batch,
                                         std::size_t index, std::string status) {
  Materialization m;
  m.model = model.name;
  m.asset_key = AssetKey(model.target);
  m.strategy = "time_interval";
  m.status = std::move(status);
  m.partition_key = batch.keys[index].ToString();
  m.start = batch.keys[index].window().start;
  m.end = batch.keys[index].window().end;
  for (const PartitionKey& other : batch.keys) {
    if (!(other == batch.keys[index])) m.batched_with.push_back(other.ToString());
  }
  return m;
}

Materialization WholeModelMaterialization(const project::Model& model) {
  Materialization m;
  m.model = model.name;
  m.asset_key = AssetKey(model.target);
  m.strategy = std::string(project::StrategyName(model.strategy));
  return m;
}

std::string DescribeKeys(const PlannedBatch& first, const PlannedBatch& last) {
  if (&first == &last && first.keys.size() == 1) return first.keys.front().ToString();
  return first.keys.front().ToString() + ".." + last.keys.back().ToString();
}
std::string DescribeKeys(const PlannedBatch& batch) { return DescribeKeys(batch, batch); }

void ReportNotStartedByInterrupt(RunContext& run, ModelRun& model_run, const Task& task) {
  constexpr const char* kReason = "not started: the run was interrupted";
  const project::Model& model = *model_run.planned->model;
  std::vector<Materialization> materializations;
  if (task.kind == TaskKind::kBatch) {
    const PlannedBatch& batch = model_run.planned->batches[task.batch];
    for (std::size_t i = 0; i < batch.keys.size(); ++i) {
      materializations.push_back(PartitionMaterialization(model, batch, i, "Skipped"));
    }
  } else if (task.kind == TaskKind::kWholeModel) {
    materializations.push_back(WholeModelMaterialization(model));
    materializations.back().status = "Skipped";
  }
  std::lock_guard<std::mutex> lock(run.mutex);
  for (Materialization& m : materializations) {
    m.attempts = 0;
    m.error = kReason;
    run.report.materializations.push_back(std::move(m));
  }
  model_run.summary.partitions_skipped += static_cast<int>(materializations.size());
}

Error StopRun(RunContext& run, const std::string& model, std::optional<std::string> partition,
              Error error) {
  run.AddError(model, std::move(partition), error);
  run.stopped = true;
  return error;
}

void RecordBatches(RunContext& run, ModelRun& model_run, const std::vector<BatchResult>& results,
                   StateWrite write, std::size_t worker) {
  const project::Model& model = *model_run.planned->model;
  std::vector<state::PartitionRecord> records;
  std::vector<state::RunPartitionRecord> history;
  std::vector<Materialization> materializations;
  int succeeded = 0, failed = 0, skipped = 0;
  for (const BatchResult& result : results) {
    const PlannedBatch& batch = *result.batch;
    const BatchOutcome& outcome = result.outcome;
    const PartitionStatus status = StatusOf(outcome.status);
    const std::string error_text = outcome.error ? outcome.error->ToString() : "";
    // The batch's duration, shared among its keys by rows (evenly when it wrote none).
    std::int64_t batch_rows = 0;
    if (status == PartitionStatus::kComputed) {
      for (const KeyStats& stats : outcome.stats) batch_rows += stats.row_count;
    }
    for (std::size_t i = 0; i < batch.keys.size(); ++i) {
      state::PartitionRecord record = Record(run, model, batch.keys[i], status);
      record.duration_ms = outcome.duration_ms;
      record.error = error_text;
      if (status == PartitionStatus::kComputed) {
        record.row_count = outcome.stats[i].row_count;
        record.checksum = outcome.stats[i].checksum;
        record.duration_ms =
            batch_rows > 0 ? outcome.duration_ms * record.row_count / batch_rows
                           : outcome.duration_ms / static_cast<std::int64_t>(batch.keys.size());
      }
      history.push_back({run.run_id, model.name, record.partition_key, status, record.row_count,
                         record.duration_ms, error_text, outcome.attempts});
      Materialization m = PartitionMaterialization(model, batch, i,
                                                   std::string(state::PartitionStatusName(status)));
      m.duration_ms = record.duration_ms;
      m.attempts = outcome.attempts;
      m.retries = outcome.retries;
      m.transaction_partitions = result.transaction_partitions;
      if (status == PartitionStatus::kComputed) {
        m.row_count = record.row_count;
        m.checksum = record.checksum;
      }
      m.error = error_text;
      materializations.push_back(std::move(m));
      records.push_back(std::move(record));
    }
    const int count = static_cast<int>(batch.keys.size());
    (status == PartitionStatus::kComputed ? succeeded
     : status == PartitionStatus::kFailed ? failed
                                          : skipped) += count;
  }
  {
    // The report first: it must say what the warehouse holds even when the state store fails.
    std::lock_guard<std::mutex> lock(run.mutex);
    for (Materialization& m : materializations) run.report.materializations.push_back(std::move(m));
    model_run.summary.partitions_succeeded += succeeded;
    model_run.summary.partitions_failed += failed;
    model_run.summary.partitions_skipped += skipped;
  }
  if (write == StateWrite::kNone || results.empty()) return;
  const PlannedBatch& first = *results.front().batch;
  const PlannedBatch& last = *results.back().batch;
  std::string statuses;
  for (const BatchResult& result : results) {
    const std::string_view name = state::PartitionStatusName(StatusOf(result.outcome.status));
    if (statuses.find(name) == std::string::npos) {
      statuses += (statuses.empty() ? "" : "/") + std::string(name);
    }
  }
  const std::string note = fmt::format("recording partition(s) {} of {} as {}",
                                       DescribeKeys(first, last), model.name, statuses);
  DeferredState& deferred = run.deferred[worker];
  if (deferred.empty()) {
    deferred.model = model.name;
    deferred.partition = first.keys.front().ToString();
    deferred.note = note;
  } else {
    deferred.note += ", " + note;
  }
  std::move(records.begin(), records.end(), std::back_inserter(deferred.records));
  std::move(history.begin(), history.end(), std::back_inserter(deferred.history));
}

std::shared_ptr<StateWriter::Write> MarkInProgress(RunContext& run, std::size_t worker,
                                                   const project::Model& model,
                                                   const std::vector<const PlannedBatch*>& batches,
                                                   DeferredState& held) {
  held = std::exchange(run.deferred[worker], {});
  std::vector<state::PartitionRecord> records = std::move(held.records);
  std::vector<state::RunPartitionRecord> history = std::move(held.history);
  for (const PlannedBatch* batch : batches) {
    for (const PartitionKey& key : batch->keys) {
      records.push_back(Record(run, model, key, PartitionStatus::kInProgress));
      history.push_back(
          {run.run_id, model.name, key.ToString(), PartitionStatus::kInProgress, 0, 0, "", 1});
    }
  }
  return run.state_writer->Submit(std::move(records), std::move(history));
}

Error MarkFailed(RunContext& run, const project::Model& model,
                 const std::vector<const PlannedBatch*>& batches, const DeferredState& held,
                 Error error) {
  const std::string marking =
      fmt::format("marking partition(s) {} of {} InProgress",
                  DescribeKeys(*batches.front(), *batches.back()), model.name);
  if (held.note.empty()) {
    error.Note(fmt::format("while {}; nothing of them was committed", marking));
    return StopRun(run, model.name, batches.front()->keys.front().ToString(), std::move(error));
  }
  error.Note(
      fmt::format("while {} and {}; {}; nothing of the partition(s) being marked was "
                  "committed",
                  held.note, marking, kOutcomeNotRecorded));
  return StopRun(run, held.model, held.partition, std::move(error));
}

Status FlushDeferredState(RunContext& run, std::size_t worker) {
  if (run.deferred[worker].empty()) return OkStatus();
  DeferredState held = std::exchange(run.deferred[worker], {});
  Status recorded =
      run.state_writer->Submit(std::move(held.records), std::move(held.history))->Wait();
  if (recorded.ok()) return OkStatus();
  Error error = std::move(recorded).error();
  error.Note(fmt::format("while {}; {}", held.note, kOutcomeNotRecorded));
  return StopRun(run, held.model, held.partition, std::move(error));
}

void RecordModelNotRun(RunContext& run, ModelRun& model_run, const Error& error) {
  BatchOutcome outcome;
  outcome.status = BatchStatus::kFailed;
  outcome.error = error;
  outcome.attempts = 0;  // never sent to the warehouse
  std::vector<BatchResult> results;
  for (const PlannedBatch& batch : model_run.planned->batches) {
    results.push_back({&batch, outcome, 0});
  }
  RecordBatches(run, model_run, results, StateWrite::kNone);
  std::lock_guard<std::mutex> lock(run.mutex);
  model_run.setup_failed = true;
  model_run.summary.partitions_failed = model_run.summary.partitions_planned;
}

Result<TaskOutcome> FinishWholeModel(RunContext& run, ModelRun& model_run, Materialization m,
                                     const std::optional<Error>& error) {
  const bool interrupted = error && run.watcher.cancelled();
  m.status = !error ? "Computed" : interrupted ? "Interrupted" : "Failed";
  if (error) {
    m.row_count.reset();
    m.error = error->ToString();
    if (!interrupted) run.AddError(m.model, std::nullopt, *error);
  }
  run.Progress(1);
  std::lock_guard<std::mutex> lock(run.mutex);
  (!error        ? model_run.summary.partitions_succeeded
   : interrupted ? model_run.summary.partitions_skipped
                 : model_run.summary.partitions_failed) += 1;
  run.report.materializations.push_back(std::move(m));
  if (error && !interrupted && StopsRun(*error)) {
    run.stopped = true;
    return *error;  // reported above
  }
  return error ? TaskOutcome::kFailed : TaskOutcome::kSucceeded;
}

}  // namespace strata::materialize
