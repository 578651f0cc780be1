#include "rollup/refresh_record.h"

namespace strata::rollup {
namespace {

constexpr const char* kFile = "last_refresh.json";
constexpr const char* kTemporary = "last_refresh.json.tmp";

}  // namespace

nlohmann::ordered_json RefreshRecord::ToJson() const {
  return {{"at", at},
          {"status", status},
          {"reason", reason},
          {"marker", marker ? nlohmann::ordered_json(*marker) : nlohmann::ordered_json(nullptr)},
          {"version", version}};
}

Status WriteRefreshRecord(const BuildLock& lock, const RefreshRecord& record) {
  if (!lock.held()) return MakeError(ErrorCode::kInternal, "the build lock is not held");
  const std::filesystem::path temporary = lock.folder() / kTemporary;
  Env& env = lock.env();
  (void)env.RemoveFile(temporary);  // a crashed writer's; the lock is ours
  STRATA_TRY(WriteNewFileDurably(env, temporary, record.ToJson().dump(2) + "\n"));
  STRATA_TRY(env.RenameReplacing(temporary, lock.folder() / kFile));
  return env.SyncPath(lock.folder());
}

Result<std::optional<RefreshRecord>> ReadRefreshRecord(const RollupStore& store,
                                                       std::string_view rollup) {
  const std::filesystem::path path = store.FolderOf(rollup) / kFile;
  STRATA_ASSIGN_OR_RETURN(const std::optional<std::string> text,
                          store.env().ReadWholeFile(path, nullptr));
  if (!text) return std::optional<RefreshRecord>();
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&](const char* what) {
    return MakeError(ErrorCode::kRollupManifest, path.string() + ": " + what,
                     "it is rewritten by the next `strata rollups build`");
  };
  if (!json.is_object()) return bad("not a JSON object");
  RefreshRecord record;
  for (const char* key : {"at", "status", "reason"}) {
    if (!json.contains(key) || !json[key].is_string()) return bad("a text field is missing");
  }
  if (!json.contains("version") || !json["version"].is_number_integer()) {
    return bad("\"version\" is missing");
  }
  record.at = json["at"].get<std::string>();
  record.status = json["status"].get<std::string>();
  record.reason = json["reason"].get<std::string>();
  record.version = json["version"].get<std::int64_t>();
  if (json.contains("marker") && json["marker"].is_string()) {
    record.marker = json["marker"].get<std::string>();
  }
  return std::optional<RefreshRecord>(std::move(record));
}

}  // namespace strata::rollup
