#include "state/internal/schema.h"

#include <string>

namespace strata::state::internal {
namespace {

// Index i holds the SQL that takes the schema from version i to i + 1. Never edit a step that has
// shipped; append a new one and raise kSchemaVersion.
//
// Times are INTEGER Unix seconds (UTC); checksum is the uint64 bit pattern stored as a signed
// 64-bit INTEGER; status is the PartitionStatusName spelling.
constexpr const char* kMigrations[] = {
    // 0 -> 1
    R"sql(
CREATE TABLE partitions (
  model_name    TEXT NOT NULL,
  partition_key TEXT NOT NULL,
  status        TEXT NOT NULL
                CHECK (status IN ('Computed', 'Failed', 'InProgress', 'Interrupted')),
  computed_at   INTEGER NOT NULL,
  row_count     INTEGER NOT NULL DEFAULT 0,
  duration_ms   INTEGER NOT NULL DEFAULT 0,
  run_id        TEXT NOT NULL DEFAULT '',
  checksum      INTEGER,
  start         INTEGER NOT NULL,
  "end"         INTEGER NOT NULL,
  error         TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (model_name, partition_key)
) WITHOUT ROWID;
CREATE INDEX partitions_by_status ON partitions (model_name, status, partition_key);
CREATE INDEX partitions_in_progress ON partitions (status) WHERE status = 'InProgress';

CREATE TABLE runs (
  run_id      TEXT NOT NULL PRIMARY KEY,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER NOT NULL DEFAULT 0,
  status      TEXT NOT NULL,
  command     TEXT NOT NULL DEFAULT '',
  pid         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_started_at ON runs (started_at);

CREATE TABLE run_partitions (
  run_id        TEXT NOT NULL,
  model_name    TEXT NOT NULL,
  partition_key TEXT NOT NULL,
  status        TEXT NOT NULL
                CHECK (status IN ('Computed', 'Failed', 'InProgress', 'Interrupted')),
  row_count     INTEGER NOT NULL DEFAULT 0,
  duration_ms   INTEGER NOT NULL DEFAULT 0,
  error         TEXT NOT NULL DEFAULT '',
  attempts      INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (run_id, model_name, partition_key)
) WITHOUT ROWID;

CREATE TABLE plans (
  plan_id    TEXT NOT NULL PRIMARY KEY,
  created_at INTEGER NOT NULL,
  body       TEXT NOT NULL
);
)sql",
    // 1 -> 2: run_partitions also records Skipped (not attempted: an upstream partition failed).
    // SQLite cannot alter a CHECK constraint: rebuild the table.
    R"sql(
CREATE TABLE run_partitions_v2 (
  run_id        TEXT NOT NULL,
  model_name    TEXT NOT NULL,
  partition_key TEXT NOT NULL,
  status        TEXT NOT NULL
                CHECK (status IN ('Computed', 'Failed', 'InProgress', 'Interrupted', 'Skipped')),
  row_count     INTEGER NOT NULL DEFAULT 0,
  duration_ms   INTEGER NOT NULL DEFAULT 0,
  error         TEXT NOT NULL DEFAULT '',
  attempts      INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (run_id, model_name, partition_key)
) WITHOUT ROWID;
INSERT INTO run_partitions_v2 SELECT * FROM run_partitions;
DROP TABLE run_partitions;
ALTER TABLE run_partitions_v2 RENAME TO run_partitions;
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

Result<int> ReadVersion(Database& database) {
  STRATA_ASSIGN_OR_RETURN(Statement statement, database.Prepare("PRAGMA user_version"));
  STRATA_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
  return has_row ? static_cast<int>(statement.ColumnInt64(0)) : 0;
}

Error NewerSchemaError(const Database& database, int version) {
  return MakeError(ErrorCode::kStateSchema,
                   "state store " + database.path() + " has schema version " +
                       std::to_string(version) + ", but this strata knows only versions up to " +
                       std::to_string(kSchemaVersion),
                   "it was written by a newer strata; upgrade strata to use this project");
}

}  // namespace

Status Migrate(Database& database) {
  STRATA_ASSIGN_OR_RETURN(int version, ReadVersion(database));
  if (version > kSchemaVersion) return NewerSchemaError(database, version);
  while (version < kSchemaVersion) {
    STRATA_ASSIGN_OR_RETURN(Transaction transaction, Transaction::Begin(database));
    // Another process may have migrated between our read and our write lock.
    STRATA_ASSIGN_OR_RETURN(version, ReadVersion(database));
    if (version > kSchemaVersion) return NewerSchemaError(database, version);
    if (version == kSchemaVersion) break;
    STRATA_TRY(database.Exec(kMigrations[version]));
    // PRAGMA takes no bound parameters; the value is our own integer, not user input.
    const std::string set_version = "PRAGMA user_version = " + std::to_string(version + 1);
    STRATA_TRY(database.Exec(set_version.c_str()));
    STRATA_TRY(transaction.Commit());
    ++version;
  }
  return OkStatus();
}

}  // namespace strata::state::internal
