// The tasks of a run: model setup, one batch, a whole-model build, a model that cannot compile,
// and a skipped task. See internal/run_context.h.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <random>

#include "base/ascii.h"
#include "materialize/internal/batch_writer.h"
#include "materialize/internal/run_context.h"
#include "materialize/model_sql.h"

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

// The report entry of a whole-model task (full_refresh, view, incremental), status unset.
Materialization WholeModelMaterialization(const project::Model& model) {
  Materialization m;
  m.model = model.name;
  m.asset_key = AssetKey(model.target);
  m.strategy = std::string(project::StrategyName(model.strategy));
  return m;
}

// "2026-04-07" or "2026-04-07..2026-04-09" for the keys from `first`'s to `last`'s.
std::string DescribeKeys(const PlannedBatch& first, const PlannedBatch& last) {
  if (&first == &last && first.keys.size() == 1) return first.keys.front().ToString();
  return first.keys.front().ToString() + ".." + last.keys.back().ToString();
}
std::string DescribeKeys(const PlannedBatch& batch) { return DescribeKeys(batch, batch); }

// A task the run never started because it was interrupted: its partitions (or its whole model)
// are reported Skipped with attempts 0, so the report lists every planned partition. Nothing was
// written; the state store keeps what they had (`--missing` picks them up).
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

// Reports `error` (once, here) and stops the run: the error returned goes to the task graph,
// which starts no task after it.
Error StopRun(RunContext& run, const std::string& model, std::optional<std::string> partition,
              Error error) {
  run.AddError(model, std::move(partition), error);
  run.stopped = true;
  return error;
}

// One batch and what happened to it.
struct BatchResult {
  const PlannedBatch* batch = nullptr;
  BatchOutcome outcome;
  int transaction_partitions = 0;  // partitions of the last transaction that wrote or tried it
};

PartitionStatus StatusOf(BatchStatus status) {
  return status == BatchStatus::kCommitted     ? PartitionStatus::kComputed
         : status == BatchStatus::kInterrupted ? PartitionStatus::kInterrupted
                                               : PartitionStatus::kFailed;
}

// What an error says of partitions whose outcome could not be recorded.
constexpr const char* kOutcomeNotRecorded =
    "the warehouse has the outcome, the state store does not: the next run marks them "
    "Interrupted and --missing runs them again";

// How the state-store rows of RecordBatches are written.
enum class StateWrite {
  kDeferred,  // held in the worker's DeferredState for its next MarkInProgress (or flush)
  kNone,      // not at all: a model that never reached the warehouse (it cannot compile) leaves
              // the state store as it was, and so does a batch whose InProgress write failed
};

// Records finished batches of one model: materializations and summary in the report, then, with
// StateWrite::kDeferred, their state-store rows and run history in the worker's DeferredState.
void RecordBatches(RunContext& run, ModelRun& model_run, const std::vector<BatchResult>& results,
                   StateWrite write, std::size_t worker = 0) {
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

// Submits `batches`' InProgress rows, with the worker's deferred rows, to the state writer: they
// are written while the batches' transaction runs, which waits for them before it commits.
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

// The write of MarkInProgress failed: stops the run, saying what was not recorded and that the
// batches did not commit (their transaction waited for the write, and rolled back).
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

}  // namespace

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

namespace {

// A bootstrap that failed because a table it reads does not exist: when that table belongs to
// a model this one depends on that was never built (typically `--model` without it on a fresh
// warehouse), the hint says to build it first. A failure to check leaves the error as it was.
void HintUnbuiltUpstream(warehouse::Connection& connection, const project::Project& project,
                         const PlannedModel& planned, Error& error) {
  if (error.code != ErrorCode::kWarehouseCatalog) return;
  std::vector<std::string> unbuilt;
  for (const std::string& name : planned.model->depends_on) {
    const project::Model* upstream = project.Find(name);
    if (upstream == nullptr) continue;
    Result<bool> exists = connection.TableExists(ToTableName(upstream->target));
    if (exists.ok() && !*exists) unbuilt.push_back(upstream->name);
  }
  if (unbuilt.empty()) return;
  std::string models, selection;
  for (const std::string& name : unbuilt) {
    models += (models.empty() ? "" : ", ") + name;
    selection += " --model " + name;
  }
  error.hint = fmt::format(
      "{} depends on {}, whose table does not exist yet: build it first (strata run{}) or "
      "select it in the same run (add{})",
      planned.model->name, models, selection, selection);
}

// Creates the target from the model over an empty window when it does not exist yet; true when
// it did exist.
Result<bool> EnsureTarget(warehouse::Connection& connection, const project::Project& project,
                          const PlannedModel& planned) {
  const warehouse::TableName target = ToTableName(planned.model->target);
  Result<bool> exists = connection.TableExists(target);
  if (!exists.ok()) {
    Error error = std::move(exists).error();
    // A storage failure keeps its code: it stops the run (StopsRun).
    if (!error.retryable() && error.code != ErrorCode::kWarehouseStorage) {
      error.code = ErrorCode::kTargetExistence;
    }
    error.Note("while checking whether " + target.ToString() + " exists; nothing was written");
    return error;
  }
  if (*exists) return true;
  for (const std::string& statement : planned.bootstrap) {
    Result<warehouse::QueryResult> result = connection.Execute(statement);
    if (!result.ok()) {
      Error error = std::move(result).error();
      HintUnbuiltUpstream(connection, project, planned, error);
      return std::move(error.Note("while creating " + target.ToString() + " (bootstrap)"));
    }
  }
  return false;
}

// A model changed after its table was created: a column the model now returns and the table
// lacks would fail every partition with the warehouse's binder error. Found here, once per
// model and run (the bootstrap's SELECT under LIMIT 0 and the table's columns), and refused
// with the statement that adds it. A column the table has and the model no longer returns is
// left alone (new partitions hold NULL there), as a dbt incremental model does.
Status CheckTargetColumns(warehouse::Connection& connection, const warehouse::Emitter& emitter,
                          const PlannedModel& planned) {
  if (planned.bootstrap.empty()) return OkStatus();
  const warehouse::TableName target = ToTableName(planned.model->target);
  STRATA_ASSIGN_OR_RETURN(std::string probe,
                          emitter.BootstrapProbe(target, planned.bootstrap.back()));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult output, connection.Execute(probe));
  STRATA_ASSIGN_OR_RETURN(std::vector<warehouse::Column> columns, connection.DescribeTable(target));
  std::vector<const warehouse::ResultColumn*> missing;
  for (const warehouse::ResultColumn& column : output.columns) {
    const bool present =
        std::any_of(columns.begin(), columns.end(), [&](const warehouse::Column& existing) {
          return EqualsIgnoreAsciiCase(existing.name, column.column.name);
        });
    if (!present) missing.push_back(&column);
  }
  if (missing.empty()) return OkStatus();
  // The hint's types: DuckDB describes a query's columns; elsewhere the user fills them in.
  std::map<std::string, std::string> types;
  if (emitter.dialect() == sql::Dialect::kDuckDb) {
    Result<warehouse::QueryResult> described = connection.Execute("DESCRIBE " + probe);
    if (described.ok() && described->columns.size() >= 2) {
      for (std::size_t row = 0; row < described->row_count(); ++row) {
        types[warehouse::ValueToString(described->columns[0].values[row])] =
            warehouse::ValueToString(described->columns[1].values[row]);
      }
    }
  }
  std::string names, statements;
  for (const warehouse::ResultColumn* column : missing) {
    const auto type = types.find(column->column.name);
    names += (names.empty() ? "" : ", ") + column->column.name;
    statements +=
        fmt::format("{}ALTER TABLE {} ADD COLUMN {} {};", statements.empty() ? "" : " ",
                    emitter.QualifiedName(target), emitter.QuoteIdentifier(column->column.name),
                    type == types.end() ? "<type>" : type->second);
  }
  return MakeError(
      ErrorCode::kTargetColumns,
      fmt::format("model {} returns {} that table {} does not have (the model changed after the "
                  "table was created); no partition was run",
                  planned.model->name, (missing.size() == 1 ? "column " : "columns ") + names,
                  target.ToString()),
      fmt::format("add them ({}) and the partitions built before read NULL there until you "
                  "rebuild them (strata run --from ... --to ...); or drop the table and rebuild "
                  "every partition",
                  statements));
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
  STRATA_ASSIGN_OR_RETURN(std::string probe, emitter.InsertColumnsProbe(
                                                 target, bound.batches.front().statements.insert));
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

// PostgreSQL: the row hash of the target's checksums, from the server's version, the target's
// column types and their collations (warehouse::PostgresRowHash). A version it cannot read (a
// server that only speaks PostgreSQL's protocol) keeps the text hash.
Result<warehouse::RowHash> ChooseRowHash(warehouse::Connection& connection,
                                         const warehouse::Emitter& emitter,
                                         const warehouse::TableName& target) {
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult shown,
                          connection.Execute("SHOW server_version_num"));
  int version = 0;
  const std::string text = shown.row_count() == 1 && shown.columns.size() == 1
                               ? warehouse::ValueToString(shown.columns[0].values[0])
                               : std::string();
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return warehouse::RowHash::kText;
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<warehouse::Column> columns, connection.DescribeTable(target));
  if (warehouse::PostgresRowHash(version, columns) == warehouse::RowHash::kText) {
    return warehouse::RowHash::kText;
  }
  STRATA_ASSIGN_OR_RETURN(std::string sql, emitter.NondeterministicCollations(target));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult counted, connection.Execute(sql));
  const bool deterministic = counted.row_count() == 1 && counted.columns.size() == 1 &&
                             warehouse::ValueToString(counted.columns[0].values[0]) == "0";
  return warehouse::PostgresRowHash(version, columns, deterministic);
}

}  // namespace

std::int64_t BackoffMillis(const project::RunConfig& config, int attempt) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const std::int64_t ceiling = std::min<std::int64_t>(
      static_cast<std::int64_t>(config.retry_base_ms) << std::clamp(attempt - 1, 0, 16),
      kMaxBackoffMillis);
  if (ceiling <= 1) return ceiling;
  return std::uniform_int_distribution<std::int64_t>(ceiling / 2, ceiling)(random);
}

namespace {

// Runs `attempt_once` (which returns the error of a failed attempt, or nullopt) until it
// succeeds, fails with a non-retryable error, runs out of retries or the run is cancelled.
// A lost connection is dropped so the next attempt reconnects. Returns the last error and fills
// `retries`/`attempts`.
template <typename Attempt>
std::optional<Error> WithRetries(RunContext& run, std::size_t worker, Attempt attempt_once,
                                 int& attempts, std::vector<RetriedAttempt>& retries) {
  const project::RunConfig& config = run.project.config.run;
  for (int attempt = 1;; ++attempt) {
    attempts = attempt;
    std::optional<Error> error;
    Result<warehouse::Connection*> connection = run.ConnectionFor(worker);
    if (!connection.ok()) {
      error = std::move(connection).error();
    } else {
      run.watcher.Register(*connection);
      error = attempt_once(**connection);
      run.watcher.Unregister(*connection);
    }
    if (!error) return std::nullopt;
    if (error->code == ErrorCode::kWarehouseConnection) run.DropConnection(worker);
    const bool retry = error->retryable() && attempt <= static_cast<int>(config.max_retries) &&
                       !run.watcher.cancelled();
    if (!retry) return error;
    const std::int64_t backoff = BackoffMillis(config, attempt);
    retries.push_back({attempt, std::string(error->reported_code()), error->ToString(), backoff});
    // Through the run's clock, so SIGINT cuts the wait short and tests need not sleep.
    if (!run.options.clock->Wait(backoff, run.watcher.flag())) return error;
  }
}

// Runs `statements` (an Emitter script) in order. After a failure the session's transaction, if
// the script opened one, is ended with the emitter's Rollback() (PostgreSQL refuses everything
// else until then); no statement text is inspected to know whether one is open, since a
// ROLLBACK with no transaction is harmless.
std::optional<Error> ExecuteAll(RunContext& run, warehouse::Connection& connection,
                                const std::vector<std::string>& statements) {
  const auto fail = [&](Error error) -> std::optional<Error> {
    if (const std::string rollback = run.emitter.Rollback(); !rollback.empty()) {
      (void)connection.Execute(rollback);
    }
    return error;
  };
  for (const std::string& statement : statements) {
    if (statement.empty()) continue;
    if (run.watcher.cancelled()) return fail(MakeError(ErrorCode::kInterrupted, "interrupted"));
    Result<warehouse::QueryResult> result = connection.Execute(statement);
    if (!result.ok()) return fail(std::move(result).error());
  }
  return std::nullopt;
}

// One incremental load (Emitter::Incremental) in one transaction; the rows it inserted.
Result<std::int64_t> LoadIncrement(RunContext& run, warehouse::Connection& connection,
                                   const warehouse::Emitter::IncrementalLoad& load,
                                   const warehouse::TableName& target) {
  const auto step = [&](const std::string& sql) -> Result<warehouse::QueryResult> {
    if (run.watcher.cancelled()) return MakeError(ErrorCode::kInterrupted, "interrupted");
    if (sql.empty()) return warehouse::QueryResult{};
    return connection.Execute(sql);
  };
  STRATA_TRY(step(load.begin));
  const auto inside = [&]() -> Result<std::int64_t> {
    STRATA_TRY(step(load.stage));
    STRATA_TRY(step(load.delete_matching));
    std::string insert = load.insert;
    if (run.emitter.InsertNeedsColumns()) {
      STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult probe,
                              step(warehouse::Emitter::StageColumnsProbe()));
      std::vector<std::string> columns;
      for (const warehouse::ResultColumn& column : probe.columns)
        columns.push_back(column.column.name);
      STRATA_ASSIGN_OR_RETURN(insert, run.emitter.BindStagedInsert(target, columns));
    }
    STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult inserted, step(insert));
    STRATA_TRY(step(load.drop_stage));
    STRATA_TRY(step(load.commit));
    return inserted.rows_changed;
  };
  Result<std::int64_t> rows = inside();
  if (!rows.ok()) (void)connection.Execute(load.rollback);
  return rows;
}

// Records a whole-model task's outcome (full_refresh, view, incremental): status, error, summary,
// the materialization.
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

}  // namespace

bool StopsRun(const Error& error) {
  return error.code == ErrorCode::kWarehouseStorage || error.code == ErrorCode::kIo ||
         error.code == ErrorCode::kStateStore;
}

Result<TaskOutcome> RunIncremental(RunContext& run, std::size_t worker, const Task& task) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  const project::Model& model = *planned.model;
  if (run.watcher.cancelled()) {
    ReportNotStartedByInterrupt(run, model_run, task);
    return TaskOutcome::kFailed;
  }
  Materialization m = WholeModelMaterialization(model);
  const warehouse::TableName target = ToTableName(model.target);
  const std::int64_t started = MonotonicMillis();
  std::optional<Error> error = WithRetries(
      run, worker,
      [&](warehouse::Connection& connection) -> std::optional<Error> {
        Result<bool> exists = connection.TableExists(target);
        if (!exists.ok()) return std::move(exists).error();
        if (*exists && planned.incremental) {
          m.load = "incremental";
          Result<std::int64_t> rows = LoadIncrement(run, connection, *planned.incremental, target);
          if (!rows.ok()) return std::move(rows).error();
          m.row_count = *rows;
        } else {
          m.load = "full";
          if (std::optional<Error> failed = ExecuteAll(run, connection, planned.statements)) {
            return failed;
          }
          auto count = connection.Execute(run.emitter.RowCountQuery(target));
          if (!count.ok()) return std::move(count).error();
          m.row_count = std::get<std::int64_t>(count->columns[0].values[0]);
        }
        Result<std::string> query =
            run.emitter.WatermarkQuery(target, model.incremental->watermark);
        if (!query.ok()) return std::move(query).error();
        Result<warehouse::QueryResult> watermark = connection.Execute(*query);
        if (!watermark.ok()) return std::move(watermark).error();
        const warehouse::Value& value = watermark->columns[0].values[0];
        m.watermark = std::holds_alternative<std::monostate>(value)
                          ? std::nullopt
                          : std::optional<std::string>(warehouse::ValueToString(value));
        return std::nullopt;
      },
      m.attempts, m.retries);
  m.duration_ms = MonotonicMillis() - started;
  return FinishWholeModel(run, model_run, std::move(m), error);
}

Result<TaskOutcome> RunSetup(RunContext& run, std::size_t worker, const Task& task) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  if (run.watcher.cancelled()) return TaskOutcome::kFailed;
  int attempts = 0;
  std::vector<RetriedAttempt> retries;
  std::optional<Error> error = WithRetries(
      run, worker,
      [&](warehouse::Connection& connection) -> std::optional<Error> {
        Result<bool> existed = EnsureTarget(connection, run.project, planned);
        if (!existed.ok()) return std::move(existed).error();
        if (*existed) {
          if (Status same = CheckTargetColumns(connection, run.emitter, planned); !same.ok()) {
            return std::move(same).error();
          }
        }
        if (run.emitter.ChoosesRowHash()) {
          Result<warehouse::RowHash> row_hash =
              ChooseRowHash(connection, run.emitter, ToTableName(planned.model->target));
          if (!row_hash.ok()) {
            Error error = std::move(row_hash).error();
            error.Note("while choosing how " + planned.model->name +
                       "'s checksums hash a row; nothing was written");
            return error;
          }
          model_run.row_hash = *row_hash;
        }
        if (!run.emitter.InsertNeedsColumns()) return std::nullopt;
        Result<PlannedModel> binding = BindInsertColumns(connection, run.emitter, planned);
        if (!binding.ok()) {
          return std::move(binding.error().Note("while reading the output columns of " +
                                                planned.model->name + "; nothing was written"));
        }
        model_run.bound = std::move(binding).value();
        return std::nullopt;
      },
      attempts, retries);
  if (!error) return TaskOutcome::kSucceeded;
  if (run.watcher.cancelled()) return TaskOutcome::kFailed;
  run.AddError(planned.model->name, std::nullopt, *error);
  // Each selected partition is reported Failed with the error, as for a model that cannot
  // compile: nothing of them was written, so the state store is left as it was.
  BatchOutcome outcome;
  outcome.status = BatchStatus::kFailed;
  outcome.error = *error;
  outcome.attempts = 0;  // their statements never ran
  std::vector<BatchResult> results;
  for (const PlannedBatch& batch : planned.batches) results.push_back({&batch, outcome, 0});
  RecordBatches(run, model_run, results, StateWrite::kNone);
  {
    std::lock_guard<std::mutex> lock(run.mutex);
    model_run.setup_failed = true;
    model_run.summary.partitions_failed = model_run.summary.partitions_planned;
  }
  if (StopsRun(*error)) {
    run.stopped = true;
    return *error;  // reported above
  }
  return TaskOutcome::kFailed;
}

namespace {

int PartitionsOf(const std::vector<const PlannedBatch*>& batches, std::size_t first,
                 std::size_t end) {
  int count = 0;
  for (std::size_t b = first; b < end; ++b) count += static_cast<int>(batches[b]->keys.size());
  return count;
}

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
        emitter_(run.emitter.WithRowHash(model_run.row_hash)),
        results_(batches.size()) {
    for (std::size_t b = 0; b < batches.size(); ++b) {
      results_[b].batch = batches[b];
      results_[b].outcome.attempts = 0;
    }
  }

  // The insert of the model's SELECT compiled for `range`, as the plan makes a batch's.
  Result<std::string> FusedSql(const Window& range) const {
    STRATA_ASSIGN_OR_RETURN(std::string select,
                            CompileModelSql(run_.project, model_, emitter_, range));
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
    if (model_run_.window_separable)
      fused = [this](const Window& range) { return FusedSql(range); };
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
                             run.options.parallel, GroupLimitsFor(run.emitter.dialect()));
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
  RangeWriter writer(run, worker, model_run, batches, [&] { return marked->Wait(); });
  writer.Write(0, batches.size());
  std::vector<BatchResult>& results = writer.results();
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

Result<TaskOutcome> RunWholeModel(RunContext& run, std::size_t worker, const Task& task) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  const project::Model& model = *planned.model;
  if (run.watcher.cancelled()) {
    ReportNotStartedByInterrupt(run, model_run, task);
    return TaskOutcome::kFailed;
  }
  Materialization m = WholeModelMaterialization(model);
  const std::int64_t started = MonotonicMillis();
  std::optional<std::int64_t> row_count;
  std::optional<Error> error = WithRetries(
      run, worker,
      [&](warehouse::Connection& connection) -> std::optional<Error> {
        if (std::optional<Error> failed = ExecuteAll(run, connection, planned.statements)) {
          return failed;
        }
        if (model.strategy == project::StrategyKind::kFullRefresh) {
          auto count = connection.Execute(run.emitter.RowCountQuery(ToTableName(model.target)));
          if (count.ok()) {
            row_count = std::get<std::int64_t>(count->columns[0].values[0]);
          } else if (StopsRun(count.error())) {
            // The build committed, but the warehouse can no longer be used (a poisoned DuckDB):
            // report it and stop, rather than call the run a success. The rebuild is idempotent.
            return std::move(count).error();
          }
        }
        return std::nullopt;
      },
      m.attempts, m.retries);
  m.duration_ms = MonotonicMillis() - started;
  m.row_count = row_count;
  return FinishWholeModel(run, model_run, std::move(m), error);
}

// A model that could not be compiled: each selected partition is reported Failed with the error
// in the run's document. Nothing reached the warehouse, so the state store is left as it was: a
// Computed partition stays Computed (its rows are still there), and --missing still finds every
// partition that is not.
Result<TaskOutcome> RunUnrunnable(RunContext& run, const Task& task) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  run.AddError(planned.model->name, std::nullopt, *planned.error);
  BatchOutcome outcome;
  outcome.status = BatchStatus::kFailed;
  outcome.error = planned.error;
  outcome.attempts = 0;  // never sent to the warehouse
  std::vector<BatchResult> results;
  for (const PlannedBatch& batch : planned.batches) results.push_back({&batch, outcome, 0});
  RecordBatches(run, model_run, results, StateWrite::kNone);
  std::lock_guard<std::mutex> lock(run.mutex);
  model_run.setup_failed = true;
  model_run.summary.partitions_failed = model_run.summary.partitions_planned;
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
                         PartitionStatus::kSkipped, 0, 0, reason, 0});
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
