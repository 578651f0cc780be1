// StateStore: opening, the run lock and the `partitions` table. Runs and plans are in
// run_history.cc.
#include "state/state_store.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <utility>

#include "base/ascii.h"
#include "state/internal/database.h"
#include "state/internal/records.h"
#include "state/internal/schema.h"

namespace strata::state {
namespace {

using internal::Statement;
using internal::Transaction;

constexpr const char* kPartitionColumns =
    "model_name, partition_key, status, computed_at, row_count, duration_ms, run_id, checksum, "
    "start, \"end\", error";

constexpr const char* kUpsertPartition = R"sql(
INSERT INTO partitions (model_name, partition_key, status, computed_at, row_count, duration_ms,
                        run_id, checksum, start, "end", error)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
ON CONFLICT (model_name, partition_key) DO UPDATE SET
  status = excluded.status, computed_at = excluded.computed_at, row_count = excluded.row_count,
  duration_ms = excluded.duration_ms, run_id = excluded.run_id, checksum = excluded.checksum,
  start = excluded.start, "end" = excluded."end", error = excluded.error
)sql";

// The SELECT texts are built once from kPartitionColumns (static storage: the statement cache
// keys on the text).
const std::string& SelectPartitionsSql(bool by_model) {
  static const std::string kAll = std::string("SELECT ") + kPartitionColumns +
                                  " FROM partitions WHERE (?1 IS NULL OR status = ?1)"
                                  " ORDER BY model_name, partition_key";
  static const std::string kOneModel = std::string("SELECT ") + kPartitionColumns +
                                       " FROM partitions WHERE model_name = ?2"
                                       " AND (?1 IS NULL OR status = ?1) ORDER BY partition_key";
  return by_model ? kOneModel : kAll;
}

const std::string& SelectOnePartitionSql() {
  static const std::string kSql = std::string("SELECT ") + kPartitionColumns +
                                  " FROM partitions WHERE model_name = ?1 AND partition_key = ?2";
  return kSql;
}

const std::string& SelectFirstComputedSql() {
  static const std::string kSql = std::string("SELECT ") + kPartitionColumns +
                                  " FROM partitions WHERE model_name = ?1 AND status = 'Computed'"
                                  " ORDER BY partition_key LIMIT 1";
  return kSql;
}

constexpr const char* kComputedKeys =
    "SELECT partition_key FROM partitions WHERE model_name = ?1 AND status = 'Computed'"
    " ORDER BY partition_key";

constexpr const char* kComputedTotals =
    "SELECT model_name, count(*), COALESCE(sum(duration_ms), 0), COALESCE(sum(row_count), 0)"
    " FROM partitions WHERE status = 'Computed' GROUP BY model_name";

constexpr const char* kInterruptPartitions = R"sql(
UPDATE partitions SET status = 'Interrupted', computed_at = ?1,
  error = 'interrupted: run ' || run_id || ' ended without finishing this partition'
WHERE status = 'InProgress'
)sql";

constexpr const char* kInterruptRunPartitions = R"sql(
UPDATE run_partitions SET status = 'Interrupted',
  error = 'interrupted: run ' || run_id || ' ended without finishing this partition'
WHERE status = 'InProgress'
)sql";

constexpr const char* kInterruptRuns =
    "UPDATE runs SET status = 'interrupted' WHERE status = 'running'";

Result<PartitionRecord> ReadPartition(const Statement& statement, const std::string& path) {
  PartitionRecord record;
  record.model_name = statement.ColumnText(0);
  record.partition_key = statement.ColumnText(1);
  STRATA_ASSIGN_OR_RETURN(record.status, internal::ReadStatus(statement, 2, path));
  record.computed_at = statement.ColumnInt64(3);
  record.row_count = statement.ColumnInt64(4);
  record.duration_ms = statement.ColumnInt64(5);
  record.run_id = statement.ColumnText(6);
  if (!statement.ColumnIsNull(7)) {
    record.checksum = std::bit_cast<std::uint64_t>(statement.ColumnInt64(7));
  }
  record.start = statement.ColumnInt64(8);
  record.end = statement.ColumnInt64(9);
  record.error = statement.ColumnText(10);
  return record;
}

Result<std::vector<PartitionRecord>> ReadPartitions(Statement& statement, const std::string& path) {
  std::vector<PartitionRecord> records;
  while (true) {
    STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
    if (!has_row) return records;
    STRATA_ASSIGN_OR_RETURN(PartitionRecord record, ReadPartition(statement, path));
    records.push_back(std::move(record));
  }
}

}  // namespace

std::string_view PartitionStatusName(PartitionStatus status) {
  switch (status) {
    case PartitionStatus::kComputed:
      return "Computed";
    case PartitionStatus::kFailed:
      return "Failed";
    case PartitionStatus::kInProgress:
      return "InProgress";
    case PartitionStatus::kInterrupted:
      return "Interrupted";
    case PartitionStatus::kSkipped:
      return "Skipped";
  }
  throw InvariantViolation("PartitionStatusName: not a PartitionStatus");
}

std::optional<PartitionStatus> ParsePartitionStatus(std::string_view name) {
  for (PartitionStatus status :
       {PartitionStatus::kComputed, PartitionStatus::kFailed, PartitionStatus::kInProgress,
        PartitionStatus::kInterrupted, PartitionStatus::kSkipped}) {
    const std::string_view candidate = PartitionStatusName(status);
    if (EqualsIgnoreAsciiCase(name, candidate)) {
      return status;
    }
  }
  return std::nullopt;
}

StateStore::StateStore(std::unique_ptr<internal::Database> database, std::string path,
                       const Clock& clock, Env& env)
    : path_(std::move(path)), clock_(clock), env_(env), database_(std::move(database)) {}

StateStore::~StateStore() = default;

Result<std::unique_ptr<StateStore>> StateStore::Open(const std::string& path, const Clock& clock,
                                                     Env& env) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<internal::Database> database,
                          internal::Database::Open(path));
  STRATA_TRY(internal::Migrate(*database));
  return std::unique_ptr<StateStore>(new StateStore(std::move(database), path, clock, env));
}

Result<std::unique_ptr<StateStore>> StateStore::OpenForReading(const std::string& path,
                                                               const Clock& clock, Env& env) {
  Result<std::unique_ptr<StateStore>> writable = Open(path, clock, env);
  std::error_code missing;
  if (writable.ok() || writable.error().code != ErrorCode::kIo ||
      !std::filesystem::exists(path, missing)) {
    return writable;
  }
  Result<std::unique_ptr<internal::Database>> database = internal::Database::OpenReadOnly(path);
  if (!database.ok()) {
    Error error = std::move(writable).error();
    error.Note("read-only too: " + database.error().message);
    return error;
  }
  // Migrate writes nothing when the schema is the newest; an older one cannot be migrated here.
  STRATA_TRY(internal::Migrate(**database));
  return std::unique_ptr<StateStore>(new StateStore(std::move(database).value(), path, clock, env));
}

Result<RunLock> StateStore::AcquireRunLock(const std::string& run_id, const std::string& command) {
  RunLockHolder holder;
  holder.pid = static_cast<std::int64_t>(getpid());
  holder.run_id = run_id;
  holder.command = command;
  holder.started_at = clock_.Now();
  return state::AcquireRunLock(lock_path(), holder, env_);
}

Status StateStore::UpsertPartitions(const std::vector<PartitionRecord>& records) {
  if (records.empty()) return OkStatus();
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Transaction transaction, Transaction::Begin(*database_));
  STRATA_TRY(WritePartitions(records));
  return transaction.Commit();
}

Result<int> StateStore::DeletePartitions(std::string_view model) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(
      Statement count, database_->Prepare("SELECT count(*) FROM partitions WHERE model_name = ?1"));
  count.BindText(1, model);
  STRATA_ASSIGN_OR_RETURN(bool row, count.Step());
  const int deleted = row ? static_cast<int>(count.ColumnInt64(0)) : 0;
  STRATA_ASSIGN_OR_RETURN(Statement remove,
                          database_->Prepare("DELETE FROM partitions WHERE model_name = ?1"));
  remove.BindText(1, model);
  STRATA_TRY(remove.Run());
  return deleted;
}

Status StateStore::RecordPartitionResults(const std::vector<PartitionRecord>& partitions,
                                          const std::vector<RunPartitionRecord>& history) {
  if (partitions.empty() && history.empty()) return OkStatus();
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Transaction transaction, Transaction::Begin(*database_));
  STRATA_TRY(WritePartitions(partitions));
  STRATA_TRY(WriteRunPartitions(history));
  return transaction.Commit();
}

Status StateStore::WritePartitions(const std::vector<PartitionRecord>& records) {
  for (const PartitionRecord& record : records) {
    STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kUpsertPartition));
    statement.BindText(1, record.model_name);
    statement.BindText(2, record.partition_key);
    statement.BindText(3, PartitionStatusName(record.status));
    statement.BindInt64(4, record.computed_at);
    statement.BindInt64(5, record.row_count);
    statement.BindInt64(6, record.duration_ms);
    statement.BindText(7, record.run_id);
    if (record.checksum) {
      statement.BindInt64(8, std::bit_cast<std::int64_t>(*record.checksum));
    } else {
      statement.BindNull(8);
    }
    statement.BindInt64(9, record.start);
    statement.BindInt64(10, record.end);
    statement.BindText(11, record.error);
    STRATA_TRY(statement.Run());
  }
  return OkStatus();
}

Result<std::vector<PartitionRecord>> StateStore::ListPartitions(
    std::optional<std::string_view> model, std::optional<PartitionStatus> status) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement,
                          database_->Prepare(SelectPartitionsSql(model.has_value()).c_str()));
  if (status) {
    statement.BindText(1, PartitionStatusName(*status));
  } else {
    statement.BindNull(1);
  }
  if (model) statement.BindText(2, *model);
  return ReadPartitions(statement, path_);
}

Result<std::optional<PartitionRecord>> StateStore::GetPartition(std::string_view model,
                                                                std::string_view partition_key) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(SelectOnePartitionSql().c_str()));
  statement.BindText(1, model);
  statement.BindText(2, partition_key);
  STRATA_ASSIGN_OR_RETURN(std::vector<PartitionRecord> records, ReadPartitions(statement, path_));
  if (records.empty()) return std::optional<PartitionRecord>();
  return std::optional<PartitionRecord>(std::move(records.front()));
}

Result<std::optional<PartitionRecord>> StateStore::FirstComputedPartition(std::string_view model) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement,
                          database_->Prepare(SelectFirstComputedSql().c_str()));
  statement.BindText(1, model);
  STRATA_ASSIGN_OR_RETURN(std::vector<PartitionRecord> records, ReadPartitions(statement, path_));
  if (records.empty()) return std::optional<PartitionRecord>();
  return std::optional<PartitionRecord>(std::move(records.front()));
}

Result<std::vector<std::string>> StateStore::ComputedKeys(std::string_view model) {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kComputedKeys));
  statement.BindText(1, model);
  std::vector<std::string> keys;
  while (true) {
    STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
    if (!has_row) return keys;
    keys.push_back(statement.ColumnText(0));
  }
}

Result<std::vector<StateStore::ComputedTotals>> StateStore::ComputedTotalsByModel() {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kComputedTotals));
  std::vector<ComputedTotals> totals;
  while (true) {
    STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
    if (!has_row) return totals;
    totals.push_back({statement.ColumnText(0), statement.ColumnInt64(1), statement.ColumnInt64(2),
                      statement.ColumnInt64(3)});
  }
}

Result<int> StateStore::RecoverInterrupted() {
  std::lock_guard<std::mutex> guard(mutex_);
  STRATA_ASSIGN_OR_RETURN(Transaction transaction, Transaction::Begin(*database_));
  int interrupted = 0;
  {
    STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kInterruptPartitions));
    statement.BindInt64(1, clock_.Now());
    STRATA_TRY(statement.Run());
    interrupted = static_cast<int>(database_->Changes());
  }
  {
    STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kInterruptRunPartitions));
    STRATA_TRY(statement.Run());
  }
  {
    STRATA_ASSIGN_OR_RETURN(Statement statement, database_->Prepare(kInterruptRuns));
    STRATA_TRY(statement.Run());
  }
  STRATA_TRY(transaction.Commit());
  return interrupted;
}

}  // namespace strata::state
