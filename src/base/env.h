// The file system as an interface (LevelDB's Env): the rollup store's own files (manifests,
// locks, renames, fsync, garbage collection) and the state store's run lock go through one, so
// that a test can record the calls or fail any one of them (base/testing/fault_env.h). Lock files
// with a holder record are base/file_lock.h. Data files written by DuckDB (`COPY`) and
// SQLite's files do their own I/O.
//
// Every failure is kIo naming the action, the path and the OS's reason, with a hint. Env::Default
// is the POSIX one: stateless and thread-safe. An Env must outlive everything made with it
// (stores, locks, leases).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata {

// kIo: "cannot <action> <path>: <strerror>", with a hint about the folder.
Error IoError(std::string_view action, const std::filesystem::path& path, int error_number);

class Env {
 public:
  enum class LockMode { kShared, kExclusive };

  virtual ~Env() = default;

  // The process's POSIX file system.
  static Env& Default();

  // The file's bytes; nullopt when it does not exist (ENOENT, or a missing folder: ENOTDIR).
  // With `info`, also the fstat(2) of the file read (the version whose bytes these are).
  virtual Result<std::optional<std::string>> ReadWholeFile(const std::filesystem::path& path,
                                                           struct stat* info) = 0;
  // stat(2); false when the file does not exist (ENOENT, ENOTDIR).
  virtual Result<bool> StatFile(const std::filesystem::path& path, struct stat* info) = 0;
  // Creates `path` (which must not exist: O_EXCL), writes `text` and closes it; not synced
  // (WriteNewFileDurably). On failure the partial file is removed (best effort).
  virtual Status WriteNewFile(const std::filesystem::path& path, std::string_view text) = 0;
  // fsync(2) of an existing file or folder (opened read-only).
  virtual Status SyncPath(const std::filesystem::path& path) = 0;
  // rename(2), replacing `to` atomically.
  virtual Status RenameReplacing(const std::filesystem::path& from,
                                 const std::filesystem::path& to) = 0;
  // unlink(2); a file that is already gone is not an error.
  virtual Status RemoveFile(const std::filesystem::path& path) = 0;
  // The names of the folder's regular files (not `.`/`..`), in no particular order.
  virtual Result<std::vector<std::string>> ListFiles(const std::filesystem::path& folder) = 0;
  // Creates the folder and its missing parents.
  virtual Status CreateFolders(const std::filesystem::path& folder) = 0;

  // Opens (creating it when it can) a lock file for flock: O_RDWR, or O_RDONLY when the file
  // system is read-only and the file exists. O_CLOEXEC. The caller closes it with CloseFd.
  virtual Result<int> OpenLockFile(const std::filesystem::path& path) = 0;
  // flock without waiting: true when taken, false when another description holds a conflicting
  // lock. EINTR is retried.
  virtual Result<bool> TryLock(int fd, LockMode mode, const std::filesystem::path& path) = 0;
  // Replaces the whole content of the open file `fd` with `text` (best effort, for records that
  // only improve messages: false on failure, errno set).
  virtual bool RewriteRecord(int fd, std::string_view text) = 0;
  // Up to 8 KiB of the open file `fd` from its start.
  virtual std::string ReadRecord(int fd) = 0;
  // close(2); a negative fd is ignored.
  virtual void CloseFd(int fd) = 0;
};

// WriteNewFile, then SyncPath of the file: the bytes are durable before it returns. On a failed
// fsync the file is removed (best effort).
Status WriteNewFileDurably(Env& env, const std::filesystem::path& path, std::string_view text);

}  // namespace strata
