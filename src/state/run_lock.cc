#include "state/run_lock.h"

#include <cstdlib>
#include <string_view>
#include <utility>

namespace strata::state {
namespace {

Error LockedError(const std::string& lock_path, const std::string& record) {
  const std::optional<RunLockHolder> holder = ParseRunLockHolder(record);
  if (!holder) {
    return MakeError(ErrorCode::kStateLocked,
                     "the state store is locked by another strata run (lock " + lock_path +
                         "; the holder has not recorded its details yet)",
                     "wait for that run to finish; the lock is released automatically when its "
                     "process exits");
  }
  const std::string pid = std::to_string(holder->pid);
  return MakeError(ErrorCode::kStateLocked,
                   "the state store is locked by run " + holder->run_id + " (pid " + pid +
                       ", command \"" + holder->command + "\", since " +
                       FormatIso8601(holder->started_at) + "; lock " + lock_path + ")",
                   "wait for that run to finish, or stop it (kill " + pid +
                       "); the lock is released automatically when its process exits, so there "
                       "is no lock file to delete");
}

}  // namespace

Result<RunLock> AcquireRunLock(const std::string& lock_path, const RunLockHolder& holder,
                               Env& env) {
  Result<FileLock> lock =
      AcquireFileLock(env, lock_path, FormatRunLockHolder(holder),
                      [&](const std::string& record) { return LockedError(lock_path, record); });
  if (!lock.ok()) {
    Error error = std::move(lock).error();
    if (error.code == ErrorCode::kIo) {
      error.hint = "check the state directory's permissions";
      error.Note("while taking the run lock " + lock_path);
    }
    return error;
  }
  return RunLock(std::move(lock).value());
}

std::string FormatRunLockHolder(const RunLockHolder& holder) {
  return FormatLockRecord({{"pid", std::to_string(holder.pid)},
                           {"run_id", holder.run_id},
                           {"command", holder.command},
                           {"started_at", FormatIso8601(holder.started_at)}});
}

std::optional<RunLockHolder> ParseRunLockHolder(std::string_view text) {
  RunLockHolder holder;
  bool has_pid = false;
  for (const auto& [key, value] : ParseLockRecord(text)) {
    if (key == "pid") {
      char* end = nullptr;
      holder.pid = std::strtoll(value.c_str(), &end, 10);
      has_pid = end != value.c_str() && *end == '\0';
    } else if (key == "run_id") {
      holder.run_id = value;
    } else if (key == "command") {
      holder.command = value;
    } else if (key == "started_at") {
      holder.started_at = ParseIso8601(value).value_or(0);
    }
  }
  if (!has_pid) return std::nullopt;
  return holder;
}

}  // namespace strata::state
