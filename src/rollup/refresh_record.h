// The record of a rollup's last build attempt, `<store>/<rollup>/last_refresh.json`: when it
// ran, whether it built, was skipped (and why) or failed, and the freshness marker it read. A
// skipped build publishes no manifest, so this is what `strata rollups status` (and a server's
// GET /v1/rollups) show as the last refresh. Written under the build lock by write + fsync +
// rename, so a reader sees the old record or the new one, never half of one.
//
// Thread safety: as the store; writers hold the rollup's build lock.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "rollup/store.h"

namespace strata::rollup {

struct RefreshRecord {
  std::string at;                     // ISO 8601 UTC: when the attempt started
  std::string status;                 // "built" | "skipped" | "failed"
  std::string reason;                 // why it was skipped; the error's message when it failed
  std::optional<std::string> marker;  // the freshness marker read (when_changed / _sql)
  std::int64_t version = 0;           // the manifest version in force afterwards (0: none)

  // {"at","status","reason","marker","version"}.
  nlohmann::ordered_json ToJson() const;
};

// Replaces the record of `lock.rollup()`. Errors: kIo (the previous record stays).
// REQUIRES: `lock` is held.
Status WriteRefreshRecord(const BuildLock& lock, const RefreshRecord& record);

// The record of `rollup` in `store`; nullopt when none was written. A record that is not JSON or
// lacks a field is kRollupManifest, naming the file.
Result<std::optional<RefreshRecord>> ReadRefreshRecord(const RollupStore& store,
                                                       std::string_view rollup);

}  // namespace strata::rollup
