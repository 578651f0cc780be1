// The state store's schema and its migrations. The on-disk version is PRAGMA user_version:
// 0 = empty file, 1 = the first tables, 2 = run_partitions also accepts 'Skipped' (the tables
// documented in state/state_store.h).
#pragma once

#include "base/result.h"
#include "state/internal/database.h"

namespace strata::state::internal {

// The newest schema version this binary knows.
inline constexpr int kSchemaVersion = 2;

// Brings `database` up to kSchemaVersion, each step in one immediate transaction (so concurrent
// openers migrate once). Errors: kStateSchema when the file is newer than kSchemaVersion (the hint
// says to upgrade strata); kStateStore/kIo from SQLite.
Status Migrate(Database& database);

}  // namespace strata::state::internal
