#include "rollup/status.h"

#include "rollup/definition.h"

namespace strata::rollup {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson TimeOrNull(const std::optional<UnixSeconds>& seconds) {
  return seconds ? OrderedJson(FormatIso8601(*seconds)) : OrderedJson(nullptr);
}

}  // namespace

OrderedJson RollupStatus::ToJson() const {
  OrderedJson out = {{"rollup", rollup}, {"entity", entity}, {"state", state}};
  if (!error.empty()) out["error"] = error;
  if (!manifest) {
    for (const char* key : {"version", "built_at", "freshness_marker", "built_through", "range"}) {
      out[key] = nullptr;
    }
    out["files"] = 0;
    out["rows"] = 0;
    out["bytes"] = 0;
    out["periods"] = OrderedJson::array();
    return out;
  }
  out["version"] = manifest->version;
  out["built_at"] = manifest->built_at;
  out["freshness_marker"] =
      manifest->freshness_marker ? OrderedJson(*manifest->freshness_marker) : OrderedJson(nullptr);
  out["built_through"] = TimeOrNull(manifest->built_through);
  out["range"] =
      manifest->range_start
          ? OrderedJson::array({TimeOrNull(manifest->range_start), TimeOrNull(manifest->range_end)})
          : OrderedJson(nullptr);
  out["files"] = manifest->files.size();
  out["rows"] = rows;
  out["bytes"] = bytes;
  OrderedJson periods = OrderedJson::array();
  for (const ManifestFile& file : manifest->files) {
    periods.push_back(
        {{"period", file.start ? OrderedJson::array({TimeOrNull(file.start), TimeOrNull(file.end)})
                               : OrderedJson(nullptr)},
         {"null_time", file.null_time},
         {"rows", file.rows},
         {"bytes", file.bytes},
         {"file", file.path}});
  }
  out["periods"] = periods;
  return out;
}

std::vector<RollupStatus> StatusOf(const semantic::SemanticModel& model, const RollupStore& store) {
  std::vector<RollupStatus> statuses;
  for (const semantic::Rollup& rollup : model.rollups) {
    RollupStatus status;
    status.rollup = rollup.name;
    status.entity = rollup.entity;
    Result<std::optional<Manifest>> loaded = store.Load(rollup.name);
    if (!loaded.ok()) {
      status.state = "store_error";
      status.error = loaded.error().message;
    } else if (!loaded->has_value()) {
      status.state = "not_built";
    } else {
      status.manifest = std::move(**loaded);
      status.state = status.manifest->definition_hash == DefinitionHash(model, rollup)
                         ? "built"
                         : "definition_changed";
      for (const ManifestFile& file : status.manifest->files) {
        status.rows += file.rows;
        status.bytes += file.bytes;
      }
    }
    statuses.push_back(std::move(status));
  }
  return statuses;
}

}  // namespace strata::rollup
