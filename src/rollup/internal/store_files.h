// POSIX file operations of the rollup store: durable writes, fsync of files and folders, flock.
// Every failure is kIo with the action, the path and the OS's reason. Thread-safe (no state).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace strata::rollup::internal {

Error OsError(std::string_view action, const std::filesystem::path& path, int error_number);

// The file's bytes; nullopt when it does not exist (ENOENT, or a missing folder: ENOTDIR). With
// `info`, also the fstat(2) of the file read (the version whose bytes these are).
Result<std::optional<std::string>> ReadWholeFile(const std::filesystem::path& path,
                                                 struct stat* info = nullptr);

// stat(2); false when the file does not exist (ENOENT, ENOTDIR).
Result<bool> StatFile(const std::filesystem::path& path, struct stat* info);

// Creates `path` (which must not exist: O_EXCL), writes `text`, fsyncs and closes it. On failure
// the partial file is removed (best effort).
Status WriteNewFileDurably(const std::filesystem::path& path, std::string_view text);

// fsync(2) of an existing file or folder (opened read-only).
Status SyncPath(const std::filesystem::path& path);

// rename(2), replacing `to` atomically.
Status RenameReplacing(const std::filesystem::path& from, const std::filesystem::path& to);

// Opens (creating it when `create`) a lock file for flock: O_RDWR, or O_RDONLY when the store is
// read-only and the file exists. O_CLOEXEC.
Result<int> OpenLockFile(const std::filesystem::path& path);

enum class LockMode { kShared, kExclusive };
// flock without waiting: true when taken, false when another description holds a conflicting
// lock. EINTR is retried.
Result<bool> TryLock(int fd, LockMode mode, const std::filesystem::path& path);

// Replaces the whole content of the open file `fd` with `text` (best effort for records that only
// improve messages: false on failure).
bool RewriteRecord(int fd, std::string_view text);
// Up to 4 KiB of the open file `fd` from its start.
std::string ReadRecord(int fd);

void CloseFd(int fd);

}  // namespace strata::rollup::internal
