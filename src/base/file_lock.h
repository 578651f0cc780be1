// An exclusive lock on a lock file that records who holds it: flock(2) LOCK_EX | LOCK_NB taken
// through an Env (base/env.h), and a short text record of the holder written into the file. The
// run lock of a state store (state/run_lock.h) and the build lock of a rollup (rollup/store.h)
// are this lock with their own records and refusal errors.
//
// The kernel releases the lock when the holding process exits for any reason (SIGKILL
// included), so a lock is never stale and there is nothing to clean up by hand. The lock file is
// never deleted (deleting it would let two processes lock two different files). Each
// AcquireFileLock opens its own file description, so a second acquire in the same process is
// refused like one in another process. The descriptor is O_CLOEXEC: programs exec'ed by the
// holder do not inherit the lock; a child made by fork() without exec shares it until it exits.
//
// Thread safety: FileLock is a move-only value with one owner at a time.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/env.h"
#include "base/result.h"

namespace strata {

// A held lock. Released by the destructor or Release(). Independent of whatever made it; the
// Env it was taken through must outlive it.
class FileLock {
 public:
  FileLock() = default;  // holds nothing
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  bool held() const { return fd_ >= 0; }
  // The lock file's path; empty when nothing is held.
  const std::filesystem::path& path() const { return path_; }
  // The file system the lock was taken through.
  Env& env() const { return *env_; }

  // Empties the holder record (best effort: only a contender's message depends on it) and
  // releases the lock. Does nothing if nothing is held.
  void Release();

 private:
  friend Result<FileLock> AcquireFileLock(
      Env& env, const std::filesystem::path& path, std::string_view record,
      const std::function<Error(const std::string& holder_record)>& refused);
  FileLock(int fd, Env& env, std::filesystem::path path)
      : fd_(fd), env_(&env), path_(std::move(path)) {}

  int fd_ = -1;
  Env* env_ = &Env::Default();
  std::filesystem::path path_;
};

// Takes the lock on `path` without waiting (the file is created when missing; its folder is the
// caller's), then replaces the file's content with `record` (FormatLockRecord's text). When another
// holder has the lock, returns refused(<that holder's record>): up to Env::ReadRecord's bytes,
// perhaps empty or with an unfinished last line (the holder may be writing it). Errors: refused's
// when held elsewhere; kIo (from the Env, naming the path and the OS's reason) when the file cannot
// be opened, locked or written; nothing stays open or locked on any error.
Result<FileLock> AcquireFileLock(
    Env& env, const std::filesystem::path& path, std::string_view record,
    const std::function<Error(const std::string& holder_record)>& refused);

// A holder record: "key=value" lines, each ended by a newline, in order.
using LockRecord = std::vector<std::pair<std::string, std::string>>;

// The record's text; newlines in a value are written as spaces.
std::string FormatLockRecord(const LockRecord& record);
// The complete lines of `text` that have a '=' (an unfinished last line is being written and is
// left out), split at the first '='. Pure.
LockRecord ParseLockRecord(std::string_view text);

}  // namespace strata
