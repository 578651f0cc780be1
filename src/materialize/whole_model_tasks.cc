// The whole-model tasks: full_refresh and view models (their script), and incremental models (an
// incremental load when the target exists, else the full build). See internal/run_context.h.
#include <fmt/format.h>

#include "materialize/internal/retries.h"
#include "materialize/internal/run_records.h"
#include "materialize/model_sql.h"

namespace strata::materialize {
namespace {

// The error of a failed one-statement load: the upsert's NULL-key guard as what it means.
Error LoadError(Error error, const warehouse::TableName& target,
                const project::IncrementalConfig& config) {
  if (error.message.find(warehouse::Emitter::kNullKeyMessage) == std::string::npos) return error;
  std::string keys;
  for (const std::string& column : config.unique_key) keys += (keys.empty() ? "" : ", ") + column;
  return MakeError(ErrorCode::kWarehouseUnsupported,
                   fmt::format("a new row for {} has a NULL unique_key column ({}); a MERGE "
                               "matches keys by =, so it could never replace its old row",
                               target.ToString(), keys),
                   "filter out or COALESCE the NULL unique_key values in the model's SELECT");
}

// One incremental load (Emitter::Incremental) in one transaction; the rows it inserted.
Result<std::int64_t> LoadIncrement(RunContext& run, warehouse::Connection& connection,
                                   const warehouse::Emitter::IncrementalLoad& load,
                                   const warehouse::TableName& target,
                                   const project::IncrementalConfig& config) {
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
    if (run.emitter.IncrementalNeedsColumns()) {
      const bool upsert = !config.unique_key.empty();
      STRATA_ASSIGN_OR_RETURN(std::string probe_sql,
                              run.emitter.IncrementalColumnsProbe(target, load.insert, upsert));
      STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult probe, step(probe_sql));
      std::vector<std::string> columns;
      for (const warehouse::ResultColumn& column : probe.columns)
        columns.push_back(column.column.name);
      STRATA_ASSIGN_OR_RETURN(insert,
                              run.emitter.BindIncremental(target, load.insert, config.watermark,
                                                          config.unique_key, columns));
      Result<warehouse::QueryResult> written = step(insert);
      if (!written.ok()) return LoadError(std::move(written).error(), target, config);
      return written->rows_changed;
    }
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
  if (!rows.ok() && !load.rollback.empty()) (void)connection.Execute(load.rollback);
  return rows;
}

// The frame of a whole-model task: reported not started after an interrupt; else `attempt`
// (which fills the materialization and returns the error of a failed attempt) with retries,
// timed, and its outcome recorded.
template <typename Attempt>
Result<TaskOutcome> RunWholeModelTask(RunContext& run, std::size_t worker, const Task& task,
                                      Attempt attempt) {
  ModelRun& model_run = run.models[task.model];
  if (run.watcher.cancelled()) {
    ReportNotStartedByInterrupt(run, model_run, task);
    return TaskOutcome::kFailed;
  }
  Materialization m = WholeModelMaterialization(*model_run.planned->model);
  const std::int64_t started = MonotonicMillis();
  std::optional<Error> error = WithRetries(
      run, worker,
      [&](warehouse::Connection& connection) -> std::optional<Error> {
        return attempt(connection, m);
      },
      m.attempts, m.retries);
  m.duration_ms = MonotonicMillis() - started;
  return FinishWholeModel(run, model_run, std::move(m), error);
}

}  // namespace

Result<TaskOutcome> RunIncremental(RunContext& run, std::size_t worker, const Task& task) {
  const PlannedModel& planned = *run.models[task.model].planned;
  const project::Model& model = *planned.model;
  const warehouse::TableName target = ToTableName(model.target);
  return RunWholeModelTask(
      run, worker, task,
      [&](warehouse::Connection& connection, Materialization& m) -> std::optional<Error> {
        Result<bool> exists = connection.TableExists(target);
        if (!exists.ok()) return std::move(exists).error();
        if (*exists && planned.incremental) {
          m.load = "incremental";
          Result<std::int64_t> rows =
              LoadIncrement(run, connection, *planned.incremental, target, *model.incremental);
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
      });
}

Result<TaskOutcome> RunWholeModel(RunContext& run, std::size_t worker, const Task& task) {
  const PlannedModel& planned = *run.models[task.model].planned;
  const project::Model& model = *planned.model;
  return RunWholeModelTask(
      run, worker, task,
      [&](warehouse::Connection& connection, Materialization& m) -> std::optional<Error> {
        if (std::optional<Error> failed = ExecuteAll(run, connection, planned.statements)) {
          return failed;
        }
        if (model.strategy == project::StrategyKind::kFullRefresh) {
          auto count = connection.Execute(run.emitter.RowCountQuery(ToTableName(model.target)));
          if (count.ok()) {
            m.row_count = std::get<std::int64_t>(count->columns[0].values[0]);
          } else if (StopsRun(count.error())) {
            // The build committed, but the warehouse can no longer be used (a poisoned DuckDB):
            // report it and stop, rather than call the run a success. The rebuild is idempotent.
            return std::move(count).error();
          }
        }
        return std::nullopt;
      });
}

}  // namespace strata::materialize
