// Transactions of several batches and their bisection (internal/range_writer.h).
#include "materialize/internal/range_writer.h"

#include <mutex>

#include "materialize/internal/retries.h"
#include "materialize/model_sql.h"

namespace strata::materialize {

int PartitionsOf(const std::vector<const PlannedBatch*>& batches, std::size_t first,
                 std::size_t end) {
  int count = 0;
  for (std::size_t b = first; b < end; ++b) count += static_cast<int>(batches[b]->keys.size());
  return count;
}

namespace {

// Writes batches[first, end) of one model in one transaction (with retries), and splits a
// transaction that failed for good until each failing batch is alone (docs/batching.md).
class RangeWriter {
 public:
  // `before_commit`: see WriteTransaction.
  RangeWriter(RunContext& run, std::size_t worker, ModelRun& model_run,
              const std::vector<const PlannedBatch*>& batches,
              std::function<Status()> before_commit)
      : run_(run),
        before_commit_(std::move(before_commit)),
        worker_(worker),
        model_run_(model_run),
        model_(*model_run.planned->model),
        batches_(batches),
        target_(ToTableName(model_.target)),
        emitter_(run.emitter.WithRowHash(model_run.row_hash).WithRowColumns(model_run.row_columns)),
        results_(batches.size()) {
    for (std::size_t b = 0; b < batches.size(); ++b) {
      results_[b].batch = batches[b];
      results_[b].outcome.attempts = 0;
    }
  }

  // The insert of the model's SELECT for `range` (PlannedModel::fused_select), as the plan makes
  // a batch's.
  Result<std::string> FusedSql(const std::string& fused_select, const Window& range) const {
    STRATA_ASSIGN_OR_RETURN(std::string select, WindowSql(fused_select, emitter_, range));
    STRATA_ASSIGN_OR_RETURN(
        warehouse::PartitionOverwrite statements,
        emitter_.Overwrite(target_, model_.time_interval->time_column, range, select));
    return std::move(statements.insert);
  }

  // Every batch's result, in order, once Write returned.
  std::vector<BatchResult>& results() { return results_; }

  // The model's measured mean rows per partition (state and this run's commits); nullopt
  // before anything is measured.
  std::optional<double> MeanRowsPerPartition() {
    std::lock_guard<std::mutex> lock(run_.mutex);
    const PartitionCost& cost = model_run_.cost;
    if (cost.partitions == 0) return std::nullopt;
    return static_cast<double>(cost.rows) / static_cast<double>(cost.partitions);
  }

  void Write(std::size_t first, std::size_t end) {
    // After an error that stops the run (here or on another worker) or an interrupt, no part
    // of a split starts: as under batching = "off", no transaction begins after it.
    if (stop_ || run_.stopped.load() || run_.watcher.cancelled()) return NotStarted(first, end);
    BatchOutcome outcome;
    int attempts = 0;
    int tried = 0;  // attempts that reached the warehouse (the others could not connect)
    std::vector<RetriedAttempt> retries;
    const std::vector<const PlannedBatch*> part(
        batches_.begin() + static_cast<std::ptrdiff_t>(first),
        batches_.begin() + static_cast<std::ptrdiff_t>(end));
    const std::optional<double> rows_per_key = MeanRowsPerPartition();
    FusedInsert fused;
    if (const std::optional<std::string>& select = model_run_.planned->fused_select) {
      fused = [this, &select](const Window& range) { return FusedSql(*select, range); };
    }
    std::optional<Error> error = WithRetries(
        run_, worker_,
        [&](warehouse::Connection& connection) -> std::optional<Error> {
          ++tried;
          outcome = WriteTransaction(connection, emitter_, part, target_,
                                     model_.time_interval->time_column, rows_per_key,
                                     run_.watcher.flag(), before_commit_, fused);
          if (outcome.status == BatchStatus::kFailed) return outcome.error;
          return std::nullopt;
        },
        attempts, retries);
    if (error && tried < attempts) {
      // The last attempt could not connect: its error is the outcome, not an earlier attempt's.
      outcome = BatchOutcome{};
      outcome.status = run_.watcher.cancelled() ? BatchStatus::kInterrupted : BatchStatus::kFailed;
      outcome.error = error;
    }
    const int partitions = PartitionsOf(batches_, first, end);
    for (std::size_t b = first; b < end; ++b) {
      BatchResult& result = results_[b];
      result.outcome.attempts += attempts;
      result.outcome.retries.insert(result.outcome.retries.end(), retries.begin(), retries.end());
      result.transaction_partitions = partitions;
    }
    if (outcome.status == BatchStatus::kCommitted) return Committed(first, end, outcome);
    if (outcome.status == BatchStatus::kFailed && StopsRun(*outcome.error)) {
      return Stopped(first, end, outcome);
    }
    // A transient error still failing after its retries is split too: under "off" it would fail
    // only its own batch.
    const bool split =
        end - first > 1 && outcome.status == BatchStatus::kFailed && !run_.watcher.cancelled();
    if (!split) return Finished(first, end, outcome);
    {
      std::lock_guard<std::mutex> lock(run_.mutex);
      run_.report.bisection.push_back({model_.name, batches_[first]->keys.front().ToString(),
                                       batches_[end - 1]->keys.back().ToString(), partitions,
                                       std::string(outcome.error->reported_code()),
                                       outcome.error->ToString()});
    }
    // Around the batch whose statement failed, when known; else in halves.
    std::vector<std::size_t> cuts{first};
    if (outcome.failed_batch) {
      const std::size_t failing = first + *outcome.failed_batch;
      if (failing > first) cuts.push_back(failing);
      if (failing + 1 < end) cuts.push_back(failing + 1);
    } else {
      cuts.push_back(first + (end - first) / 2);
    }
    cuts.push_back(end);
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) Write(cuts[c], cuts[c + 1]);
  }

 private:
  // The transaction committed: each batch gets its keys' statistics and a share of the duration
  // by rows (evenly when none were written).
  void Committed(std::size_t first, std::size_t end, BatchOutcome& outcome) {
    std::int64_t total_rows = 0;
    for (const KeyStats& stats : outcome.stats) total_rows += stats.row_count;
    const int partitions = PartitionsOf(batches_, first, end);
    std::size_t key = 0;
    for (std::size_t b = first; b < end; ++b) {
      BatchOutcome& mine = results_[b].outcome;
      const std::size_t keys = batches_[b]->keys.size();
      mine.status = BatchStatus::kCommitted;
      mine.stats.assign(outcome.stats.begin() + static_cast<std::ptrdiff_t>(key),
                        outcome.stats.begin() + static_cast<std::ptrdiff_t>(key + keys));
      std::int64_t rows = 0;
      for (const KeyStats& stats : mine.stats) rows += stats.row_count;
      mine.duration_ms = total_rows > 0
                             ? outcome.duration_ms * rows / total_rows
                             : outcome.duration_ms * static_cast<std::int64_t>(keys) / partitions;
      key += keys;
    }
    std::lock_guard<std::mutex> lock(run_.mutex);
    model_run_.cost.Add(partitions, outcome.duration_ms, total_rows);
  }

  // An error that stops the run (StopsRun): the batch it belongs to (the first when unknown) is
  // Failed with it, reported once; the others were rolled back with it and end Interrupted, for
  // --missing to write again; nothing more starts.
  void Stopped(std::size_t first, std::size_t end, const BatchOutcome& outcome) {
    stop_ = true;
    const std::size_t failing = first + outcome.failed_batch.value_or(0);
    Finished(failing, failing + 1, outcome);
    BatchOutcome rolled_back = outcome;
    rolled_back.status = BatchStatus::kInterrupted;
    rolled_back.error = MakeError(outcome.error->code,
                                  "rolled back: the run stopped after this error in the same "
                                  "transaction: " +
                                      outcome.error->message,
                                  outcome.error->hint);
    for (std::size_t b = first; b < end; ++b) {
      if (b != failing) Finished(b, b + 1, rolled_back);
    }
  }

  // Never started: the run stopped or was interrupted before this part's transaction began.
  void NotStarted(std::size_t first, std::size_t end) {
    BatchOutcome outcome;
    outcome.status = BatchStatus::kInterrupted;
    outcome.error =
        MakeError(ErrorCode::kInterrupted,
                  run_.watcher.cancelled() ? "interrupted before its transaction began"
                                           : "not started: the run stopped after an earlier error");
    for (std::size_t b = first; b < end; ++b) {
      BatchResult& result = results_[b];
      result.outcome.status = outcome.status;
      result.outcome.error = outcome.error;
    }
  }

  // The transaction failed or was interrupted and is not split: every batch in it ends so.
  void Finished(std::size_t first, std::size_t end, const BatchOutcome& outcome) {
    for (std::size_t b = first; b < end; ++b) {
      BatchOutcome& mine = results_[b].outcome;
      mine.status = outcome.status;
      mine.error = outcome.error;
      mine.duration_ms = outcome.duration_ms;
      // A failed state write is reported once, by RunBatch, with what it did not record.
      // One error per partition: each of a batch's partitions ends Failed (batch_size > 1
      // runs them in one statement, and an orchestrator maps errors to partitions).
      if (outcome.status == BatchStatus::kFailed && !outcome.before_commit_failed) {
        for (const PartitionKey& key : batches_[b]->keys) {
          run_.AddError(model_.name, key.ToString(), *outcome.error);
        }
      }
    }
  }

  RunContext& run_;
  std::function<Status()> before_commit_;
  std::size_t worker_;
  ModelRun& model_run_;
  const project::Model& model_;
  const std::vector<const PlannedBatch*>& batches_;
  warehouse::TableName target_;
  warehouse::Emitter emitter_;  // run_.emitter with the model's row hash
  std::vector<BatchResult> results_;
  bool stop_ = false;  // a part failed with an error that stops the run
};

// `task`'s batch and the following batches of its model that one transaction takes: their
// windows touch, they are ready (TaskGroup::Take), and together they stay within the model's
}  // namespace

std::vector<BatchResult> WriteBatches(RunContext& run, std::size_t worker, ModelRun& model_run,
                                      const std::vector<const PlannedBatch*>& batches,
                                      std::function<Status()> before_commit) {
  RangeWriter writer(run, worker, model_run, batches, std::move(before_commit));
  writer.Write(0, batches.size());
  return std::move(writer.results());
}

}  // namespace strata::materialize
