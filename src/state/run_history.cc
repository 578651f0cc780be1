// StateStore: the `runs`, `run_partitions` and `plans` tables.
#include <utility>

#include "state/internal/database.h"
#include "state/internal/records.h"
#include "state/state_store.h"

namespace strata::state {
namespace {

using internal::Statement;
using internal::Transaction;

constexpr const char* kInsertRun =
    "INSERT INTO runs (run_id, started_at, finished_at, status, command, pid)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
constexpr const char* kRunExists = "SELECT 1 FROM runs WHERE run_id = ?1";
constexpr const char* kFinishRun =
    "UPDATE runs SET status = ?2, finished_at = ?3 WHERE run_id = ?1";
constexpr const char* kListRuns =
    "SELECT run_id, started_at, finished_at, status, command, pid FROM runs"
    " ORDER BY started_at DESC, rowid DESC LIMIT ?1";

constexpr const char* kUpsertRunPartition = R"sql(
INSERT INTO run_partitions (run_id, model_name, partition_key, status, row_count, duration_ms,
                            error, attempts)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
ON CONFLICT (run_id, model_name, partition_key) DO UPDATE SET
  status = excluded.status, row_count = excluded.row_count, duration_ms = excluded.duration_ms,
  error = excluded.error, attempts = excluded.attempts
)sql";
constexpr const char* kListRunPartitions =
    "SELECT run_id, model_name, partition_key, status, row_count, duration_ms, error, attempts"
    " FROM run_partitions WHERE run_id = ?1 ORDER BY model_name, partition_key";

constexpr const char* kSavePlan = R"sql(
INSERT INTO plans (plan_id, created_at, body) VALUES (?1, ?2, ?3)
ON CONFLICT (plan_id) DO UPDATE SET created_at = excluded.created_at, body = excluded.body
)sql";
constexpr const char* kLoadPlan = "SELECT body FROM plans WHERE plan_id = ?1";

Error NotRunStatus(std::string_view status) {
  return MakeError(ErrorCode::kInternal, "\"" + std::string(status) + "\" is not a run status",
                   "use running, success, partial_failure, failure or interrupted");
}

}  // namespace

bool IsRunStatus(std::string_view status) {
  return status == "running" || status == "success" || status == "partial_failure" ||
         status == "failure" || status == "interrupted";
}

Status StateStore::BeginRun(const RunRecord& run) {
  if (!IsRunStatus(run.status)) return NotRunStatus(run.status);
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Transaction transaction, Transaction::Begin(*database_));
  {
    // Checked first so a duplicate gets a clear message rather than SQLite's constraint text.
    STRATA_ASSIGN_OR_RETURN(Statement exists, database_->Prepare(kRunExists));
    exists.BindText(1, run.run_id);
    STRATA_ASSIGN_OR_RETURN(const bool found, exists.Step());
    if (found) {
      return MakeError(ErrorCode::kStateStore,
                       "state store " + path_ + " already has a run " + run.run_id,
                       "run ids must be unique");
    }
  }
  {
    STRATA_ASSIGN_OR_RETURN(Statement insert, database_->Prepare(kInsertRun));
    insert.BindText(1, run.run_id);
    insert.BindInt64(2, run.started_at);
    insert.BindInt64(3, run.finished_at);
    insert.BindText(4, run.status);
    insert.BindText(5, run.command);
    insert.BindInt64(6, run.pid);
    STRATA_TRY(insert.Run());
  }
  return transaction.Commit();
}

Status StateStore::FinishRun(const std::string& run_id, std::string_view status,
                             UnixSeconds finished_at) {
  if (!IsRunStatus(status)) return NotRunStatus(status);
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement update, database_->Prepare(kFinishRun));
  update.BindText(1, run_id);
  update.BindText(2, status);
  update.BindInt64(3, finished_at);
  STRATA_TRY(update.Run());
  if (database_->Changes() == 0) {
    return MakeError(ErrorCode::kStateStore, "state store " + path_ + " has no run " + run_id,
                     "call BeginRun before FinishRun");
  }
  return OkStatus();
}

Status StateStore::RecordRunPartitions(const std::vector<RunPartitionRecord>& records) {
  if (records.empty()) return OkStatus();
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Transaction transaction, Transaction::Begin(*database_));
  STRATA_TRY(WriteRunPartitions(records));
  return transaction.Commit();
}

Status StateStore::WriteRunPartitions(const std::vector<RunPartitionRecord>& records) {
  for (const RunPartitionRecord& record : records) {
    STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kUpsertRunPartition));
    statement.BindText(1, record.run_id);
    statement.BindText(2, record.model_name);
    statement.BindText(3, record.partition_key);
    statement.BindText(4, PartitionStatusName(record.status));
    statement.BindInt64(5, record.row_count);
    statement.BindInt64(6, record.duration_ms);
    statement.BindText(7, record.error);
    statement.BindInt64(8, record.attempts);
    STRATA_TRY(statement.Run());
  }
  return OkStatus();
}

Result<std::vector<RunRecord>> StateStore::ListRuns(int limit) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kListRuns));
  statement.BindInt64(1, limit > 0 ? limit : -1);  // a negative LIMIT means none in SQLite
  std::vector<RunRecord> runs;
  while (true) {
    STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
    if (!has_row) return runs;
    RunRecord run;
    run.run_id = statement.ColumnText(0);
    run.started_at = statement.ColumnInt64(1);
    run.finished_at = statement.ColumnInt64(2);
    run.status = statement.ColumnText(3);
    run.command = statement.ColumnText(4);
    run.pid = statement.ColumnInt64(5);
    runs.push_back(std::move(run));
  }
}

Result<std::vector<RunPartitionRecord>> StateStore::ListRunPartitions(const std::string& run_id) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kListRunPartitions));
  statement.BindText(1, run_id);
  std::vector<RunPartitionRecord> records;
  while (true) {
    STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
    if (!has_row) return records;
    RunPartitionRecord record;
    record.run_id = statement.ColumnText(0);
    record.model_name = statement.ColumnText(1);
    record.partition_key = statement.ColumnText(2);
    STRATA_ASSIGN_OR_RETURN(record.status, internal::ReadStatus(statement, 3, path_));
    record.row_count = statement.ColumnInt64(4);
    record.duration_ms = statement.ColumnInt64(5);
    record.error = statement.ColumnText(6);
    record.attempts = static_cast<int>(statement.ColumnInt64(7));
    records.push_back(std::move(record));
  }
}

Status StateStore::SavePlan(const std::string& plan_id, UnixSeconds created_at,
                            const std::string& body_json) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kSavePlan));
  statement.BindText(1, plan_id);
  statement.BindInt64(2, created_at);
  statement.BindText(3, body_json);
  return statement.Run();
}

Result<std::optional<std::string>> StateStore::LoadPlan(const std::string& plan_id) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kLoadPlan));
  statement.BindText(1, plan_id);
  STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
  if (!has_row) return std::optional<std::string>();
  return std::optional<std::string>(statement.ColumnText(0));
}

}  // namespace strata::state
