// What the store holds for each rollup of a model: `strata rollups status`, `strata meta` and
// (later) GET /v1/rollups. Reads manifests only; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rollup/store.h"
#include "semantic/model.h"

namespace strata::rollup {

struct RollupStatus {
  std::string rollup;
  std::string entity;
  // "built"; "not_built" (never built); "definition_changed" (built from another definition:
  // not served until rebuilt); "store_error" (the manifest cannot be read: `error`).
  std::string state;
  std::string error;
  std::optional<Manifest> manifest;
  std::int64_t rows = 0;
  std::uint64_t bytes = 0;

  // {"rollup","entity","state","version","built_at","freshness_marker","built_through",
  //  "range":[start,end],"files","rows","bytes","periods":[{"period":[start,end]|null,
  //  "null_time","rows","bytes","file"}]} (built fields null when not built), plus "error".
  nlohmann::ordered_json ToJson() const;
};

std::vector<RollupStatus> StatusOf(const semantic::SemanticModel& model, const RollupStore& store);

}  // namespace strata::rollup
