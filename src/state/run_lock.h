// The exclusive run lock: at most one strata run per state store at a time.
//
// The lock is a base/file_lock.h lock (flock(2) LOCK_EX through an Env) on
// "<state db path>.lock". The kernel releases it when the holding process exits for any reason
// (including SIGKILL), so a lock is never stale and there is nothing to clean up by hand. The
// lock file itself is never deleted (deleting it would let two processes lock two different
// files); after taking the lock the holder writes a small text record of itself into it, which a
// refused contender reads to say who holds the lock:
//
//   pid=12345
//   run_id=20260407T130000Z-1a2b
//   command=strata run --models fct_daily_orders
//   started_at=2026-04-07T13:00:00Z
//
// The file descriptor is opened O_CLOEXEC: programs exec'ed by a run do not inherit the lock. A
// child created by fork() without exec shares it until it exits (flock semantics).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/env.h"
#include "base/file_lock.h"
#include "base/result.h"
#include "base/time.h"

namespace strata::state {

// Who holds (or wants) the run lock.
struct RunLockHolder {
  std::int64_t pid = 0;
  std::string run_id;
  std::string command;  // newlines are written as spaces
  UnixSeconds started_at = 0;
};

// A held run lock. Move-only; released by the destructor or Release(). Independent of the
// StateStore that created it (it may outlive it). Not thread-safe: one owner at a time.
class RunLock {
 public:
  RunLock() = default;  // holds nothing
  RunLock(RunLock&& other) noexcept = default;
  RunLock& operator=(RunLock&& other) noexcept = default;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock() = default;

  bool held() const { return lock_.held(); }
  // The lock file's path; empty when nothing is held.
  const std::string& path() const { return lock_.path().native(); }

  // Empties the holder record and releases the lock. Does nothing if nothing is held.
  void Release() { lock_.Release(); }

 private:
  friend Result<RunLock> AcquireRunLock(const std::string& lock_path, const RunLockHolder& holder,
                                        Env& env);
  explicit RunLock(FileLock lock) : lock_(std::move(lock)) {}

  FileLock lock_;
};

// Takes the lock on `lock_path` (creating the file and its directory's missing parents is the
// caller's job; the file itself is created) through `env` without waiting, then records
// `holder` in it. Errors: kStateLocked at once when another holder has it — including another
// RunLock in this same process — with a message naming that holder (pid, run id, command, since
// when) and a hint; kIo when the file cannot be opened, locked or written (with a note naming the
// run lock).
Result<RunLock> AcquireRunLock(const std::string& lock_path, const RunLockHolder& holder,
                               Env& env = Env::Default());

// Parses a holder record as written by AcquireRunLock; nullopt if `text` has no pid line (an
// empty file, or one being written). Unknown lines are ignored.
std::optional<RunLockHolder> ParseRunLockHolder(std::string_view text);
std::string FormatRunLockHolder(const RunLockHolder& holder);

}  // namespace strata::state
