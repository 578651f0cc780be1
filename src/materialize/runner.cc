#include "materialize/runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "materialize/internal/batch_writer.h"
#include "materialize/internal/connection_registry.h"
#include "materialize/model_sql.h"

namespace strata::materialize {
namespace {

using state::PartitionStatus;

std::string NewRunId(UnixSeconds now) {
  std::random_device device;
  std::string stamp = FormatIso8601(now);  // 2026-04-07T13:00:00Z
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return fmt::format("run_{}_{:06x}", stamp, device() & 0xffffff);
}

std::vector<std::string> AssetKey(const project::ObjectName& target) {
  std::vector<std::string> key;
  for (const std::string* part : {&target.catalog, &target.schema, &target.table}) {
    if (!part->empty()) key.push_back(*part);
  }
  return key;
}

// Everything the threads of one run share. Methods that touch the report lock `mutex`.
struct RunContext {
  const project::Project& project;
  warehouse::Warehouse& warehouse;
  state::StateStore& store;
  const RunOptions& options;
  warehouse::Emitter emitter;
  CancellationWatcher watcher;
  std::string run_id;
  RunReport report;
  std::mutex mutex;
  int done = 0;
  int total = 0;

  void Progress(int finished) {
    std::lock_guard<std::mutex> lock(mutex);
    done += finished;
    if (options.progress != nullptr) options.progress->OnProgress(done, total);
  }
  void AddError(const std::string& model, std::optional<std::string> partition, const Error& error) {
    std::lock_guard<std::mutex> lock(mutex);
    report.errors.push_back({model, std::move(partition), std::string(error.reported_code()),
                             error.ToString()});
  }
};

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

// Records a finished batch: state store rows, run history, materializations.
Status RecordBatch(RunContext& run, const project::Model& model, const PlannedBatch& batch,
                   const BatchOutcome& outcome, PartitionSummary& summary) {
  const PartitionStatus status = outcome.status == BatchStatus::kCommitted ? PartitionStatus::kComputed
                                 : outcome.status == BatchStatus::kInterrupted ? PartitionStatus::kInterrupted
                                                                               : PartitionStatus::kFailed;
  const std::string error_text = outcome.error ? outcome.error->ToString() : "";
  std::vector<state::PartitionRecord> records;
  std::vector<state::RunPartitionRecord> history;
  std::vector<Materialization> materializations;
  for (std::size_t i = 0; i < batch.keys.size(); ++i) {
    state::PartitionRecord record = Record(run, model, batch.keys[i], status);
    record.duration_ms = outcome.duration_ms;
    record.error = error_text;
    if (status == PartitionStatus::kComputed) {
      record.row_count = outcome.stats[i].row_count;
      record.checksum = outcome.stats[i].checksum;
    }
    history.push_back({run.run_id, model.name, record.partition_key, status, record.row_count,
                       record.duration_ms, error_text, outcome.attempts});
    Materialization m;
    m.model = model.name;
    m.asset_key = AssetKey(model.target);
    m.strategy = "time_interval";
    m.status = std::string(state::PartitionStatusName(status));
    m.duration_ms = outcome.duration_ms;
    if (status == PartitionStatus::kComputed) {
      m.row_count = record.row_count;
      m.checksum = record.checksum;
    }
    m.partition_key = record.partition_key;
    m.start = record.start;
    m.end = record.end;
    for (const PartitionKey& other : batch.keys) {
      if (!(other == batch.keys[i])) m.batched_with.push_back(other.ToString());
    }
    m.error = error_text;
    materializations.push_back(std::move(m));
    records.push_back(std::move(record));
  }
  STRATA_TRY(run.store.RecordPartitionResults(records, history));
  std::lock_guard<std::mutex> lock(run.mutex);
  for (Materialization& m : materializations) run.report.materializations.push_back(std::move(m));
  const int count = static_cast<int>(batch.keys.size());
  if (status == PartitionStatus::kComputed) summary.partitions_succeeded += count;
  else if (status == PartitionStatus::kFailed) summary.partitions_failed += count;
  else summary.partitions_skipped += count;
  return OkStatus();
}

Status MarkInProgress(RunContext& run, const project::Model& model, const PlannedBatch& batch) {
  std::vector<state::PartitionRecord> records;
  std::vector<state::RunPartitionRecord> history;
  for (const PartitionKey& key : batch.keys) {
    records.push_back(Record(run, model, key, PartitionStatus::kInProgress));
    history.push_back({run.run_id, model.name, key.ToString(), PartitionStatus::kInProgress, 0, 0, "", 1});
  }
  return run.store.RecordPartitionResults(records, history);
}

// Creates the target from the model over an empty window when it does not exist yet.
Status EnsureTarget(warehouse::Connection& connection, const PlannedModel& planned) {
  const warehouse::TableName target = ToTableName(planned.model->target);
  Result<bool> exists = connection.TableExists(target);
  if (!exists.ok()) {
    Error error = std::move(exists).error();
    error.code = ErrorCode::kTargetExistence;
    error.Note("while checking whether " + target.ToString() + " exists; nothing was written");
    return error;
  }
  if (*exists) return OkStatus();
  for (const std::string& statement : planned.bootstrap) {
    Result<warehouse::QueryResult> result = connection.Execute(statement);
    if (!result.ok()) {
      return std::move(result.error().Note("while creating " + target.ToString() + " (bootstrap)"));
    }
  }
  return OkStatus();
}

// PostgreSQL has no INSERT ... BY NAME, so its planned inserts are unbound (warehouse/emitter.h):
// reads the model's output columns once, with the first batch's SELECT, and names them in every
// batch's insert. The probe is that SELECT under LIMIT 0: the server plans it but reads no rows.
Result<PlannedModel> BindInsertColumns(warehouse::Connection& connection,
                                       const warehouse::Emitter& emitter,
                                       const PlannedModel& planned) {
  PlannedModel bound = planned;
  if (bound.batches.empty()) return bound;
  const warehouse::TableName target = ToTableName(planned.model->target);
  STRATA_ASSIGN_OR_RETURN(
      std::string probe,
      emitter.InsertColumnsProbe(target, bound.batches.front().statements.insert));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult result, connection.Execute(probe));
  std::vector<std::string> columns;
  for (const warehouse::ResultColumn& column : result.columns) {
    columns.push_back(column.column.name);
  }
  for (PlannedBatch& batch : bound.batches) {
    STRATA_ASSIGN_OR_RETURN(batch.statements.insert,
                            emitter.BindInsertColumns(target, batch.statements.insert, columns));
  }
  return bound;
}

// Transient failures (conflicts between parallel writers, dropped connections) are retried a few
// times with exponential backoff; every attempt is a fresh transaction.
BatchOutcome WriteWithRetries(RunContext& run, warehouse::Connection& connection,
                              const PlannedBatch& batch, const warehouse::TableName& target,
                              const project::Model& model) {
  constexpr int kMaxAttempts = 4;
  BatchOutcome outcome;
  for (int attempt = 1;; ++attempt) {
    outcome = WriteBatch(connection, run.emitter, batch, target, model.time_interval->time_column,
                         run.watcher.flag());
    outcome.attempts = attempt;
    const bool transient = outcome.status == BatchStatus::kFailed && outcome.error &&
                           outcome.error->retryable();
    if (!transient || attempt == kMaxAttempts || run.watcher.cancelled()) return outcome;
    std::this_thread::sleep_for(std::chrono::milliseconds(25 << attempt));
  }
}

// Runs batches from a shared cursor on its own connection until none are left or the run is
// cancelled. Returns a state-store error, which aborts the run.
Status BatchWorker(RunContext& run, const PlannedModel& planned, std::atomic<std::size_t>& cursor,
                   PartitionSummary& summary) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, run.warehouse.Connect());
  const project::Model& model = *planned.model;
  const warehouse::TableName target = ToTableName(model.target);
  for (std::size_t index = cursor++; index < planned.batches.size(); index = cursor++) {
    const PlannedBatch& batch = planned.batches[index];
    if (run.watcher.cancelled()) {
      std::lock_guard<std::mutex> lock(run.mutex);
      summary.partitions_skipped += static_cast<int>(batch.keys.size());
      continue;
    }
    STRATA_TRY(MarkInProgress(run, model, batch));
    run.watcher.Register(connection.get());
    BatchOutcome outcome = WriteWithRetries(run, *connection, batch, target, model);
    run.watcher.Unregister(connection.get());
    STRATA_TRY(RecordBatch(run, model, batch, outcome, summary));
    if (outcome.status == BatchStatus::kFailed) {
      run.AddError(model.name, batch.keys.front().ToString(), *outcome.error);
    }
    run.Progress(static_cast<int>(batch.keys.size()));
  }
  return OkStatus();
}

Status RunTimeInterval(RunContext& run, const PlannedModel& planned, PartitionSummary& summary) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, run.warehouse.Connect());
  Status ensured = EnsureTarget(*connection, planned);
  std::optional<PlannedModel> bound;
  if (ensured.ok() && run.emitter.InsertNeedsColumns()) {
    Result<PlannedModel> binding = BindInsertColumns(*connection, run.emitter, planned);
    if (binding.ok()) {
      bound = std::move(binding).value();
    } else {
      ensured = std::move(binding.error().Note("while reading the output columns of " +
                                               planned.model->name + "; nothing was written"));
    }
  }
  if (!ensured.ok()) {
    run.AddError(planned.model->name, std::nullopt, ensured.error());
    summary.partitions_failed = summary.partitions_planned;
    return OkStatus();
  }
  connection.reset();
  const PlannedModel& work = bound ? *bound : planned;
  const std::size_t workers =
      std::min<std::size_t>(std::max(1, run.options.parallel), work.batches.size());
  std::atomic<std::size_t> cursor{0};
  std::vector<Status> results(workers, OkStatus());
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < workers; ++i) {
    threads.emplace_back([&, i] { results[i] = BatchWorker(run, work, cursor, summary); });
  }
  if (workers > 0) results[0] = BatchWorker(run, work, cursor, summary);
  for (std::thread& thread : threads) thread.join();
  for (Status& result : results) STRATA_TRY(result);
  return OkStatus();
}

Status RunWholeModel(RunContext& run, const PlannedModel& planned, PartitionSummary& summary) {
  const project::Model& model = *planned.model;
  Materialization m;
  m.model = model.name;
  m.asset_key = AssetKey(model.target);
  m.strategy = std::string(project::StrategyName(model.strategy));
  const std::int64_t started = MonotonicMillis();
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, run.warehouse.Connect());
  run.watcher.Register(connection.get());
  Status status = OkStatus();
  for (const std::string& statement : planned.statements) {
    if (run.watcher.cancelled()) {
      status = MakeError(ErrorCode::kInterrupted, "interrupted");
      break;
    }
    Result<warehouse::QueryResult> result = connection->Execute(statement);
    if (!result.ok()) {
      status = std::move(result).error();
      break;
    }
  }
  run.watcher.Unregister(connection.get());
  m.duration_ms = MonotonicMillis() - started;
  if (status.ok() && model.strategy == project::StrategyKind::kFullRefresh) {
    auto count = connection->Execute("SELECT count(*) FROM " +
                                     run.emitter.QualifiedName(ToTableName(model.target)));
    if (count.ok()) m.row_count = std::get<std::int64_t>(count->columns[0].values[0]);
  }
  const bool interrupted = !status.ok() && run.watcher.cancelled();
  m.status = status.ok() ? "Computed" : interrupted ? "Interrupted" : "Failed";
  if (!status.ok()) {
    m.error = status.error().ToString();
    if (!interrupted) run.AddError(model.name, std::nullopt, status.error());
  }
  std::lock_guard<std::mutex> lock(run.mutex);
  (status.ok() ? summary.partitions_succeeded : interrupted ? summary.partitions_skipped
                                                            : summary.partitions_failed) += 1;
  run.report.materializations.push_back(std::move(m));
  return OkStatus();
}

// A model that could not be compiled: each selected partition is recorded Failed with the error,
// so `strata partitions --status Failed` and --missing see it.
Status RecordUnrunnable(RunContext& run, const PlannedModel& planned, PartitionSummary& summary) {
  BatchOutcome outcome;
  outcome.status = BatchStatus::kFailed;
  outcome.error = planned.error;
  for (const PlannedBatch& batch : planned.batches) {
    STRATA_TRY(RecordBatch(run, *planned.model, batch, outcome, summary));
  }
  if (planned.model->strategy != project::StrategyKind::kTimeInterval) summary.partitions_failed = 1;
  return OkStatus();
}

int PlannedPartitions(const PlannedModel& planned) {
  if (planned.model->strategy != project::StrategyKind::kTimeInterval) return 1;
  int count = 0;
  for (const PlannedBatch& batch : planned.batches) count += static_cast<int>(batch.keys.size());
  return count;
}

// The first model this one depends on that failed earlier in the run, if any.
std::optional<std::string> FailedUpstream(const project::Model& model,
                                          const std::set<std::string>& failed) {
  for (const std::string& dependency : model.depends_on) {
    if (failed.count(dependency) != 0) return dependency;
  }
  return std::nullopt;
}

Status RunModel(RunContext& run, const PlannedModel& planned, std::set<std::string>& failed) {
  PartitionSummary summary;
  summary.model = planned.model->name;
  summary.partitions_planned = PlannedPartitions(planned);
  if (planned.error) {
    run.AddError(summary.model, std::nullopt, *planned.error);
    STRATA_TRY(RecordUnrunnable(run, planned, summary));
  } else if (std::optional<std::string> upstream = FailedUpstream(*planned.model, failed)) {
    run.AddError(summary.model, std::nullopt,
                 MakeError(ErrorCode::kUpstreamFailed,
                           fmt::format("skipped: upstream model {} did not finish", *upstream),
                           "fix the upstream model and run again"));
    summary.partitions_skipped = summary.partitions_planned;
  } else if (run.watcher.cancelled()) {
    summary.partitions_skipped = summary.partitions_planned;
  } else if (planned.model->strategy == project::StrategyKind::kTimeInterval) {
    STRATA_TRY(RunTimeInterval(run, planned, summary));
  } else {
    STRATA_TRY(RunWholeModel(run, planned, summary));
  }
  if (summary.partitions_succeeded != summary.partitions_planned) failed.insert(summary.model);
  run.Progress(0);
  std::lock_guard<std::mutex> lock(run.mutex);
  run.report.partition_summaries.push_back(summary);
  return OkStatus();
}

RunStatus FinalStatus(const RunReport& report, bool cancelled) {
  if (cancelled) return RunStatus::kInterrupted;
  int succeeded = 0, failed = 0;
  for (const PartitionSummary& s : report.partition_summaries) {
    succeeded += s.partitions_succeeded;
    failed += s.partitions_failed + s.partitions_skipped;
  }
  if (failed == 0) return RunStatus::kSuccess;
  return succeeded > 0 ? RunStatus::kPartialFailure : RunStatus::kFailure;
}

}  // namespace

Result<RunReport> ExecutePlan(const project::Project& project, const Plan& plan,
                              const WarehouseOpener& open_warehouse, state::StateStore& store,
                              const RunOptions& options) {
  const std::int64_t started = MonotonicMillis();
  const std::string run_id = NewRunId(options.clock->Now());
  STRATA_ASSIGN_OR_RETURN(state::RunLock lock, store.AcquireRunLock(run_id, options.command));
  STRATA_TRY(store.RecoverInterrupted());
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Warehouse> warehouse, open_warehouse());
  RunContext run{project, *warehouse, store, options, warehouse::Emitter(warehouse->dialect()),
                 CancellationWatcher(options.cancel), run_id, {}, {}, 0, 0};
  state::RunRecord record;
  record.run_id = run.run_id;
  record.started_at = options.clock->Now();
  record.status = "running";
  record.command = options.command;
  record.pid = static_cast<std::int64_t>(::getpid());
  STRATA_TRY(store.BeginRun(record));

  run.report.run_id = run.run_id;
  run.report.plan_id = plan.plan_id;
  for (const PlannedModel& planned : plan.models) run.total += PlannedPartitions(planned);
  std::set<std::string> failed;
  for (const PlannedModel& planned : plan.models) STRATA_TRY(RunModel(run, planned, failed));

  // Parallel batches finish in any order; report in plan order, then by partition.
  std::map<std::string, std::size_t> model_order;
  for (std::size_t i = 0; i < plan.models.size(); ++i) model_order[plan.models[i].model->name] = i;
  std::stable_sort(run.report.materializations.begin(), run.report.materializations.end(),
                   [&](const Materialization& a, const Materialization& b) {
                     return std::tie(model_order[a.model], a.partition_key) <
                            std::tie(model_order[b.model], b.partition_key);
                   });
  run.report.status = FinalStatus(run.report, run.watcher.cancelled());
  run.report.duration_ms = MonotonicMillis() - started;
  STRATA_TRY(store.FinishRun(run.run_id, RunStatusName(run.report.status), options.clock->Now()));
  return std::move(run.report);
}

}  // namespace strata::materialize
