// What the store holds for each rollup of a model: `strata rollups status`, `strata meta` and
// the control port's GET /v1/rollups. Reads manifests only; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rollup/refresh_record.h"
#include "rollup/store.h"
#include "semantic/model.h"

namespace strata::rollup {

struct RollupStatus {
  std::string rollup;
  std::string entity;
  // "built"; "not_built" (never built); "definition_changed" (built from another definition:
  // not served until rebuilt); "damaged" (a file of the manifest is missing or has another
  // size: `error`; queries go around it, and the next build or refresh rebuilds it whole);
  // "store_error" (the manifest cannot be read: `error`).
  std::string state;
  std::string error;
  std::optional<Manifest> manifest;
  std::int64_t rows = 0;
  std::uint64_t bytes = 0;
  std::optional<RefreshRecord> last_refresh;  // the last build attempt (refresh_record.h)
  bool live_tail = false;  // the definition's: rows at or after the watermark are read live
  // Files per grain: the partition.by grain's ("day"), the compacted ones' (partition.compact:
  // "month"), "null_time", "all" (unpartitioned); in that order, only the grains present.
  std::vector<std::pair<std::string, std::size_t>> files_by_grain;

  // {"rollup","entity","state","live_tail","version","built_at","freshness_marker",
  //  "append_marker","built_through","watermark","range":[start,end],"files","files_by_grain":{grain:
  //  n}, "rows","bytes","last_refresh":{at,status,reason,marker,version}|null,
  //  "periods":[{"period":[start,end]|null,"null_time","rows","bytes","file"}]}
  // (built fields null when not built), plus "error". `watermark` is built_through: for a
  // live_tail rollup where the live tail starts, otherwise the time of the build.
  nlohmann::ordered_json ToJson() const;
};

std::vector<RollupStatus> StatusOf(const semantic::SemanticModel& model, const RollupStore& store);

}  // namespace strata::rollup
