#include "rollup/status.h"

#include "rollup/definition.h"
#include "rollup/periods.h"

namespace strata::rollup {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson TimeOrNull(const std::optional<UnixSeconds>& seconds) {
  return seconds ? OrderedJson(FormatIso8601(*seconds)) : OrderedJson(nullptr);
}

// The grain of each file (RollupStatus::files_by_grain).
std::vector<std::pair<std::string, std::size_t>> FilesByGrain(const semantic::Rollup& rollup,
                                                              const Manifest& manifest) {
  const std::string by = rollup.partition ? rollup.partition->by : "";
  const std::string compact =
      rollup.partition && rollup.partition->compact ? *rollup.partition->compact : "";
  const std::optional<semantic::TimeGrain> grain = semantic::ParseTimeGrain(by);
  std::vector<std::pair<std::string, std::size_t>> counts = {
      {by, 0}, {compact, 0}, {"null_time", 0}, {"all", 0}};
  for (const ManifestFile& file : manifest.files) {
    if (file.null_time) {
      ++counts[2].second;
    } else if (!file.start || !grain) {
      ++counts[3].second;
    } else if (NextPeriodStart(PeriodStart(*file.start, *grain, rollup.timezone), *grain,
                               rollup.timezone) == *file.end ||
               compact.empty()) {
      ++counts[0].second;
    } else {
      ++counts[1].second;
    }
  }
  std::vector<std::pair<std::string, std::size_t>> present;
  for (auto& entry : counts) {
    if (entry.second > 0 && !entry.first.empty()) present.push_back(std::move(entry));
  }
  return present;
}

}  // namespace

OrderedJson RollupStatus::ToJson() const {
  OrderedJson out = {
      {"rollup", rollup}, {"entity", entity}, {"state", state}, {"live_tail", live_tail}};
  if (!error.empty()) out["error"] = error;
  out["last_refresh"] = last_refresh ? last_refresh->ToJson() : OrderedJson(nullptr);
  if (!manifest) {
    for (const char* key : {"version", "built_at", "freshness_marker", "append_marker",
                            "built_through", "watermark", "range"}) {
      out[key] = nullptr;
    }
    out["files"] = 0;
    out["files_by_grain"] = OrderedJson::object();
    out["rows"] = 0;
    out["bytes"] = 0;
    out["periods"] = OrderedJson::array();
    return out;
  }
  out["version"] = manifest->version;
  out["built_at"] = manifest->built_at;
  out["freshness_marker"] =
      manifest->freshness_marker ? OrderedJson(*manifest->freshness_marker) : OrderedJson(nullptr);
  out["append_marker"] =
      manifest->append_marker ? OrderedJson(*manifest->append_marker) : OrderedJson(nullptr);
  out["built_through"] = TimeOrNull(manifest->built_through);
  out["watermark"] = TimeOrNull(manifest->built_through);
  out["range"] =
      manifest->range_start
          ? OrderedJson::array({TimeOrNull(manifest->range_start), TimeOrNull(manifest->range_end)})
          : OrderedJson(nullptr);
  out["files"] = manifest->files.size();
  OrderedJson grains = OrderedJson::object();
  for (const auto& [grain, count] : files_by_grain) grains[grain] = count;
  out["files_by_grain"] = grains;
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
    status.live_tail = rollup.live_tail;
    if (Result<std::optional<RefreshRecord>> record = ReadRefreshRecord(store, rollup.name);
        record.ok()) {
      status.last_refresh = std::move(*record);
    }
    // Under a reader lease, as a query reads: a build's garbage collection cannot delete the
    // files of the manifest read while they are checked, so "damaged" is never a race.
    Result<std::optional<ReaderLease>> leased = store.OpenForRead(rollup.name);
    if (!leased.ok()) {
      status.state = "store_error";
      status.error = leased.error().message;
    } else if (!leased->has_value()) {
      status.state = "not_built";
    } else {
      status.manifest = (*leased)->manifest();
      status.files_by_grain = FilesByGrain(rollup, *status.manifest);
      status.state = status.manifest->definition_hash == DefinitionHash(model, rollup)
                         ? "built"
                         : "definition_changed";
      for (const ManifestFile& file : status.manifest->files) {
        status.rows += file.rows;
        status.bytes += file.bytes;
      }
      if (Status intact = store.VerifyFiles(*status.manifest, false); !intact.ok()) {
        status.state = "damaged";
        status.error = intact.error().message;
      }
    }
    statuses.push_back(std::move(status));
  }
  return statuses;
}

}  // namespace strata::rollup
