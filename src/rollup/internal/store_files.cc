#include "rollup/internal/store_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace strata::rollup::internal {
namespace {

constexpr std::size_t kMaxRecordBytes = 4096;

bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t put = write(fd, text.data(), text.size());
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(put));
  }
  return true;
}

int SyncRetrying(int fd) {
  int result;
  do {
    result = fsync(fd);
  } while (result != 0 && errno == EINTR);
  return result;
}

}  // namespace

Error OsError(std::string_view action, const std::filesystem::path& path, int error_number) {
  return MakeError(ErrorCode::kIo,
                   std::string("cannot ") + std::string(action) + " " + path.string() + ": " +
                       std::strerror(error_number),
                   "check that the rollup store folder exists, is writable and has free space "
                   "(ENGINE_ROLLUP_STORE_DIR or [rollups] store_dir)");
}

Result<std::optional<std::string>> ReadWholeFile(const std::filesystem::path& path,
                                                 struct stat* info) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
    return OsError("open", path, errno);
  }
  if (info != nullptr && fstat(fd, info) != 0) {
    const int error_number = errno;
    close(fd);
    return OsError("stat", path, error_number);
  }
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error_number = errno;
      close(fd);
      return OsError("read", path, error_number);
    }
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  close(fd);
  return std::optional<std::string>(std::move(text));
}

Result<bool> StatFile(const std::filesystem::path& path, struct stat* info) {
  if (stat(path.c_str(), info) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return OsError("stat", path, errno);
}

Status WriteNewFileDurably(const std::filesystem::path& path, std::string_view text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return OsError("create", path, errno);
  const bool written = WriteAll(fd, text);
  const int write_error = errno;
  if (!written || SyncRetrying(fd) != 0) {
    const int error_number = written ? errno : write_error;
    close(fd);
    unlink(path.c_str());
    return OsError(written ? "fsync" : "write", path, error_number);
  }
  if (close(fd) != 0) {
    const int error_number = errno;
    unlink(path.c_str());
    return OsError("close", path, error_number);
  }
  return OkStatus();
}

Status SyncPath(const std::filesystem::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OsError("open", path, errno);
  if (SyncRetrying(fd) != 0) {
    const int error_number = errno;
    close(fd);
    return OsError("fsync", path, error_number);
  }
  close(fd);
  return OkStatus();
}

Status RenameReplacing(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) return OsError("rename over", to, errno);
  return OkStatus();
}

Result<int> OpenLockFile(const std::filesystem::path& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && (errno == EROFS || errno == EACCES)) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OsError("open lock file", path, errno);
  return fd;
}

Result<bool> TryLock(int fd, LockMode mode, const std::filesystem::path& path) {
  const int operation = (mode == LockMode::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB;
  int result;
  do {
    result = flock(fd, operation);
  } while (result != 0 && errno == EINTR);
  if (result == 0) return true;
  if (errno == EWOULDBLOCK) return false;
  return OsError("lock", path, errno);
}

bool RewriteRecord(int fd, std::string_view text) {
  if (ftruncate(fd, 0) != 0) return false;
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t put =
        pwrite(fd, text.data() + written, text.size() - written, static_cast<off_t>(written));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    written += static_cast<std::size_t>(put);
  }
  return true;
}

std::string ReadRecord(int fd) {
  std::string text(kMaxRecordBytes, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t got = pread(fd, text.data() + size, text.size() - size, static_cast<off_t>(size));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    size += static_cast<std::size_t>(got);
  }
  text.resize(size);
  return text;
}

void CloseFd(int fd) {
  if (fd >= 0) close(fd);
}

}  // namespace strata::rollup::internal
