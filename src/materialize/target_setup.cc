// The setup task of a time_interval model: the target created when missing, its columns checked
// against the model's, and what its batches need from the target (bound insert columns, the row
// hash of its checksums). See internal/run_context.h.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "base/ascii.h"
#include "materialize/internal/retries.h"
#include "materialize/internal/run_records.h"
#include "materialize/model_sql.h"
#include "warehouse/target_probes.h"

namespace strata::materialize {
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

// The output column names of a statement that returns no rows.
Result<std::vector<std::string>> ColumnNames(warehouse::Connection& connection,
                                             const std::string& probe) {
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult result, connection.Execute(probe));
  std::vector<std::string> names;
  for (const warehouse::ResultColumn& column : result.columns) names.push_back(column.column.name);
  return names;
}

// The planned bootstrap, its CREATE TABLE bound to the model's columns where the target wants
// its partition column last (Emitter::BindBootstrap, Trino's Hive).
Result<std::vector<std::string>> BootstrapStatements(warehouse::Connection& connection,
                                                     const warehouse::Emitter& emitter,
                                                     const PlannedModel& planned) {
  std::vector<std::string> statements = planned.bootstrap;
  if (!emitter.BootstrapNeedsColumns() || statements.empty()) return statements;
  const warehouse::TableName target = ToTableName(planned.model->target);
  STRATA_ASSIGN_OR_RETURN(std::string probe, emitter.BootstrapProbe(target, statements.back()));
  STRATA_ASSIGN_OR_RETURN(std::vector<std::string> columns, ColumnNames(connection, probe));
  STRATA_ASSIGN_OR_RETURN(
      statements.back(), emitter.BindBootstrap(target, statements.back(),
                                               planned.model->time_interval->time_column, columns));
  return statements;
}

// Where the target deletes only whole partitions (Trino's Hive), an existing table must be
// partitioned by the model's time column: a window's DELETE then removes exactly the partitions
// whose values fall inside it. A table without partitions has no "$partitions" table to read.
Status CheckPartitionedByTimeColumn(warehouse::Connection& connection,
                                    const warehouse::Emitter& emitter,
                                    const PlannedModel& planned) {
  if (!emitter.BootstrapNeedsColumns()) return OkStatus();
  const warehouse::TableName target = ToTableName(planned.model->target);
  const std::string& time_column = planned.model->time_interval->time_column;
  STRATA_ASSIGN_OR_RETURN(std::string probe, emitter.PartitionColumnsProbe(target));
  Result<std::vector<std::string>> partition_columns = ColumnNames(connection, probe);
  if (!partition_columns.ok() && partition_columns.error().code != ErrorCode::kWarehouseCatalog) {
    return std::move(partition_columns).error();
  }
  std::string names;
  if (partition_columns.ok()) {
    for (const std::string& name : *partition_columns) {
      if (EqualsIgnoreAsciiCase(name, time_column)) return OkStatus();
      names += (names.empty() ? "" : ", ") + name;
    }
  }
  return MakeError(
      ErrorCode::kWarehouseUnsupported,
      fmt::format("table {} of model {} is {}, not by its time_column {}: {} deletes only whole "
                  "partitions, so a window of it cannot be replaced; no partition was run",
                  target.ToString(), planned.model->name,
                  names.empty() ? "not partitioned" : "partitioned by " + names, time_column,
                  emitter.capabilities().display_name),
      fmt::format("drop the table and let strata create it (partitioned_by = ARRAY['{}'], the "
                  "column last), or write the model to an Iceberg catalog; the time_column's "
                  "values must be no finer than the model's granularity",
                  AsciiLowered(time_column)));
}

// Creates the target from the model over an empty window when it does not exist yet; true when
// it did exist.
Result<bool> EnsureTarget(warehouse::Connection& connection, const project::Project& project,
                          const warehouse::Emitter& emitter, const PlannedModel& planned) {
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
  Result<std::vector<std::string>> statements = BootstrapStatements(connection, emitter, planned);
  if (!statements.ok()) {
    Error error = std::move(statements).error();
    HintUnbuiltUpstream(connection, project, planned, error);
    return std::move(error.Note("while reading the columns of " + target.ToString() +
                                " to create it (bootstrap)"));
  }
  for (const std::string& statement : *statements) {
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
  // The hint's types, where the warehouse describes a query's columns (DuckDB); elsewhere the
  // user fills them in.
  std::map<std::string, std::string> types;
  Result<std::vector<warehouse::Column>> described =
      warehouse::DescribeQueryColumns(connection, emitter, probe);
  if (described.ok()) {
    for (const warehouse::Column& column : *described) types[column.name] = column.type_name;
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
// Trino's as well, and its MERGE (Emitter::BindOverwrite); `columns` are the names bound, which
// its checksums hash (Emitter::WithRowColumns).
Result<PlannedModel> BindInsertColumns(warehouse::Connection& connection,
                                       const warehouse::Emitter& emitter,
                                       const PlannedModel& planned,
                                       std::vector<std::string>& columns) {
  PlannedModel bound = planned;
  if (bound.batches.empty()) return bound;
  const warehouse::TableName target = ToTableName(planned.model->target);
  STRATA_ASSIGN_OR_RETURN(std::string probe, emitter.InsertColumnsProbe(
                                                 target, bound.batches.front().statements.insert));
  STRATA_ASSIGN_OR_RETURN(columns, ColumnNames(connection, probe));
  const std::string& time_column = planned.model->time_interval->time_column;
  for (PlannedBatch& batch : bound.batches) {
    STRATA_ASSIGN_OR_RETURN(batch.statements.insert,
                            emitter.BindOverwrite(target, time_column, batch.ColumnWindow(),
                                                  batch.statements.insert, columns));
  }
  return bound;
}

// How the target's checksums hash a row, by what the target can do (its discovered
// capabilities) and its columns.
Result<warehouse::RowHash> ChooseRowHash(RunContext& run, warehouse::Connection& connection,
                                         const PlannedModel& planned) {
  STRATA_ASSIGN_OR_RETURN(warehouse::Capabilities capabilities, run.TargetCapabilities(connection));
  return warehouse::ChooseRowHash(connection, warehouse::Emitter(capabilities),
                                  ToTableName(planned.model->target));
}

// PlannedModel::replace: drops the target and forgets the model's partition state, once per run
// (a retried setup does not repeat it). The table goes first: a failure between the two leaves
// state the next plan refuses again (kTimeZoneChanged), never partitions marked built that are
// gone or built in the old zone and taken as new.
Status ReplaceTarget(RunContext& run, warehouse::Connection& connection, ModelRun& model_run) {
  if (!model_run.planned->replace || model_run.replaced) return OkStatus();
  const project::Model& model = *model_run.planned->model;
  STRATA_ASSIGN_OR_RETURN(std::string drop, run.emitter.DropTable(ToTableName(model.target)));
  STRATA_TRY(connection.Execute(drop));
  STRATA_TRY(run.store.DeletePartitions(model.name));
  model_run.replaced = true;
  return OkStatus();
}

}  // namespace

Result<TaskOutcome> RunSetup(RunContext& run, std::size_t worker, const Task& task) {
  ModelRun& model_run = run.models[task.model];
  const PlannedModel& planned = *model_run.planned;
  if (run.watcher.cancelled()) return TaskOutcome::kFailed;
  int attempts = 0;
  std::vector<RetriedAttempt> retries;
  std::optional<Error> error = WithRetries(
      run, worker,
      [&](warehouse::Connection& connection) -> std::optional<Error> {
        if (Status replaced = ReplaceTarget(run, connection, model_run); !replaced.ok()) {
          return std::move(replaced.error().Note("while dropping " + planned.model->name +
                                                 " to rebuild it in its new time zone"));
        }
        Result<bool> existed = EnsureTarget(connection, run.project, run.emitter, planned);
        if (!existed.ok()) return std::move(existed).error();
        if (*existed) {
          if (Status same = CheckTargetColumns(connection, run.emitter, planned); !same.ok()) {
            return std::move(same).error();
          }
          Status partitioned = CheckPartitionedByTimeColumn(connection, run.emitter, planned);
          if (!partitioned.ok()) return std::move(partitioned).error();
        }
        if (run.emitter.ChoosesRowHash()) {
          Result<warehouse::RowHash> row_hash = ChooseRowHash(run, connection, planned);
          if (!row_hash.ok()) {
            Error error = std::move(row_hash).error();
            error.Note("while choosing how " + planned.model->name +
                       "'s checksums hash a row; nothing was written");
            return error;
          }
          model_run.row_hash = *row_hash;
        }
        if (!run.emitter.InsertNeedsColumns()) return std::nullopt;
        Result<PlannedModel> binding =
            BindInsertColumns(connection, run.emitter, planned, model_run.row_columns);
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
  RecordModelNotRun(run, model_run, *error);
  if (StopsRun(*error)) {
    run.stopped = true;
    return *error;  // reported above
  }
  return TaskOutcome::kFailed;
}

}  // namespace strata::materialize
