// The state store: per-partition state, run history and saved plans in one SQLite file
// (models/.strata-state.db by default), plus the exclusive run lock beside it.
//
// On-disk format (schema version 2, kept in PRAGMA user_version):
//   partitions     (model_name, partition_key) PRIMARY KEY, status, computed_at, row_count,
//                  duration_ms, run_id, checksum, start, "end", error
//   runs           run_id PRIMARY KEY, started_at, finished_at, status, command, pid
//   run_partitions (run_id, model_name, partition_key) PRIMARY KEY, status, row_count,
//                  duration_ms, error, attempts
//   plans          plan_id PRIMARY KEY, created_at, body
// Every time (computed_at, start, "end", started_at, finished_at, created_at) is INTEGER Unix
// seconds, UTC; 0 means "not set". Statuses are stored as PartitionStatusName() spells them.
// checksum is the uint64 bit pattern stored as a signed 64-bit INTEGER (values >= 2^63 read back
// negative in the sqlite3 shell), NULL when absent.
//
// The file is in WAL mode with synchronous=NORMAL: a committed write survives a process crash; a
// power loss may lose the last transactions but never corrupts the file. Several processes may
// open the same file; writers wait up to 10 s for each other before failing with kStateStore.
//
// Thread safety: every public method of StateStore is thread-safe (one mutex serializes use of the
// SQLite connection), so the runner's threads may share one StateStore.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/env.h"
#include "base/result.h"
#include "base/time.h"
#include "state/run_lock.h"

namespace strata::state {

namespace internal {
class Database;
}

// kSkipped appears only in the run history (`run_partitions`): the run did not attempt the
// partition because an upstream partition it reads failed. The `partitions` row keeps the state
// (and the warehouse keeps the rows) the partition had before.
enum class PartitionStatus { kComputed, kFailed, kInProgress, kInterrupted, kSkipped };

// "Computed" | "Failed" | "InProgress" | "Interrupted" | "Skipped".
std::string_view PartitionStatusName(PartitionStatus status);
// The inverse of PartitionStatusName, ignoring ASCII case; nullopt for anything else.
std::optional<PartitionStatus> ParsePartitionStatus(std::string_view name);

// One row of `partitions`: the latest known state of one partition of one model.
struct PartitionRecord {
  std::string model_name;
  std::string partition_key;  // canonical key, e.g. "2026-04-07"
  PartitionStatus status = PartitionStatus::kInProgress;
  UnixSeconds computed_at = 0;  // when this status was written
  std::int64_t row_count = 0;
  std::int64_t duration_ms = 0;
  std::string run_id;                     // the run that wrote this status
  std::optional<std::uint64_t> checksum;  // order-independent hash of the rows; lossless
  UnixSeconds start = 0;                  // the window [start, end)
  UnixSeconds end = 0;
  std::string error;  // empty unless Failed/Interrupted
};

// Run statuses: "running" | "success" | "partial_failure" | "failure" | "interrupted".
bool IsRunStatus(std::string_view status);

// One row of `runs`.
struct RunRecord {
  std::string run_id;
  UnixSeconds started_at = 0;
  UnixSeconds finished_at = 0;  // 0 while running, and for runs found dead
  std::string status;           // see IsRunStatus
  std::string command;          // the command line, for humans
  std::int64_t pid = 0;
};

// One row of `run_partitions`: what one run did to one partition.
struct RunPartitionRecord {
  std::string run_id;
  std::string model_name;
  std::string partition_key;
  PartitionStatus status = PartitionStatus::kInProgress;
  std::int64_t row_count = 0;
  std::int64_t duration_ms = 0;
  std::string error;
  int attempts = 1;
};

class StateStore {
 public:
  // Opens or creates the SQLite file at `path` (creating parent directories), sets WAL mode,
  // busy_timeout and synchronous=NORMAL, and migrates the schema to the newest version.
  // `clock` stamps lock records and recovered partitions; the run lock goes through `env`
  // (SQLite does its own I/O); both must outlive the store and its locks.
  // Errors: kStateSchema when the file was written by a newer strata (hint: upgrade);
  // kIo when the file or its directory cannot be created, opened or read; kStateStore for
  // anything else SQLite refuses (e.g. the file is not a database). Messages name the path.
  static Result<std::unique_ptr<StateStore>> Open(const std::string& path,
                                                  const Clock& clock = SystemClock(),
                                                  Env& env = Env::Default());
  // For commands that only read (`strata partitions`): Open, or, when that fails with kIo on an
  // existing file (a read-only checkout, another user's project, a read-only mount), the file
  // opened read-only (internal::Database::OpenReadOnly), whose schema must then be the newest.
  // Writes through a read-only store fail with kIo.
  static Result<std::unique_ptr<StateStore>> OpenForReading(const std::string& path,
                                                            const Clock& clock = SystemClock(),
                                                            Env& env = Env::Default());

  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;
  ~StateStore();

  const std::string& path() const { return path_; }
  // "<path>.lock", the run lock's file.
  std::string lock_path() const { return path_ + ".lock"; }

  // Takes the exclusive run lock (see run_lock.h) for the calling process, recording its pid,
  // `run_id`, `command` and the current time. Never waits. Errors: kStateLocked at once when
  // another run — in any process, including this one — holds it; the message names the holder's
  // pid, run id, command and start time. kIo when the lock file cannot be used.
  Result<RunLock> AcquireRunLock(const std::string& run_id, const std::string& command);

  // ---- partitions ----

  // Inserts or replaces (by model_name, partition_key) every record, in one transaction: either
  // all are written or none is. An empty vector does nothing.
  Status UpsertPartitions(const std::vector<PartitionRecord>& records);
  // Forgets every partition record of `model` (not its run history): a model rebuilt from
  // nothing (a time_interval model under --full-refresh). Returns how many records went.
  Result<int> DeletePartitions(std::string_view model);
  // The partitions of `model` (all models when nullopt) with `status` (any when nullopt), ordered
  // by model_name, then partition_key (byte order).
  Result<std::vector<PartitionRecord>> ListPartitions(std::optional<std::string_view> model,
                                                      std::optional<PartitionStatus> status);
  // The record of one partition; nullopt when the store has none.
  Result<std::optional<PartitionRecord>> GetPartition(std::string_view model,
                                                      std::string_view partition_key);
  // `model`'s Computed partition with the smallest key (byte order); nullopt when it has none.
  // One index seek, whatever the number of partitions.
  Result<std::optional<PartitionRecord>> FirstComputedPartition(std::string_view model);
  // The keys of `model`'s Computed partitions, sorted (byte order). Reads an index only: tens of
  // thousands of keys take milliseconds.
  Result<std::vector<std::string>> ComputedKeys(std::string_view model);
  // Per model with Computed partitions: their count and their summed duration and row count
  // (one grouped query; the runner sizes transactions from it, materialize/transaction_groups.h).
  struct ComputedTotals {
    std::string model;
    std::int64_t partitions = 0;
    std::int64_t duration_ms = 0;
    std::int64_t rows = 0;
  };
  Result<std::vector<ComputedTotals>> ComputedTotalsByModel();

  // Recovery after a run died: every InProgress partition (in `partitions` and `run_partitions`)
  // becomes Interrupted with error "interrupted: run <its run_id> ended without finishing this
  // partition" and computed_at = now; every run with status "running" becomes "interrupted"
  // (finished_at stays 0: unknown). One transaction. Returns how many `partitions` rows changed.
  // REQUIRES: the caller holds the RunLock, so no live run's partitions are InProgress.
  Result<int> RecoverInterrupted();

  // ---- runs ----

  // Inserts a new run. Errors: kStateStore if `run.run_id` already exists; kInternal if
  // run.status is not a run status (see IsRunStatus).
  Status BeginRun(const RunRecord& run);
  // Sets the run's final status and finish time. Errors: kStateStore if the run does not exist;
  // kInternal for a status that is not a run status.
  Status FinishRun(const std::string& run_id, std::string_view status, UnixSeconds finished_at);
  // Inserts or replaces (by run_id, model_name, partition_key) every record, in one transaction.
  Status RecordRunPartitions(const std::vector<RunPartitionRecord>& records);
  // UpsertPartitions(partitions) and RecordRunPartitions(history) in one transaction: the
  // runner's per-batch write (half the SQLite commits of calling both).
  Status RecordPartitionResults(const std::vector<PartitionRecord>& partitions,
                                const std::vector<RunPartitionRecord>& history);
  // The newest `limit` runs (all if limit <= 0), newest first (by started_at, then insertion).
  Result<std::vector<RunRecord>> ListRuns(int limit);
  // What run `run_id` did, ordered by model_name, partition_key. Empty for an unknown run.
  Result<std::vector<RunPartitionRecord>> ListRunPartitions(const std::string& run_id);

  // ---- plans ----

  // Saves (or replaces) a plan's JSON body under `plan_id`.
  Status SavePlan(const std::string& plan_id, UnixSeconds created_at, const std::string& body_json);
  // The saved body of `plan_id`; nullopt when there is no such plan.
  Result<std::optional<std::string>> LoadPlan(const std::string& plan_id);

 private:
  StateStore(std::unique_ptr<internal::Database> database, std::string path, const Clock& clock,
             Env& env);
  // The row writes of UpsertPartitions / RecordRunPartitions. REQUIRES: mutex_ held, inside a
  // transaction.
  Status WritePartitions(const std::vector<PartitionRecord>& records);
  Status WriteRunPartitions(const std::vector<RunPartitionRecord>& records);

  const std::string path_;
  const Clock& clock_;
  Env& env_;          // the run lock's file system
  std::mutex mutex_;  // guards database_
  std::unique_ptr<internal::Database> database_;
};

}  // namespace strata::state
