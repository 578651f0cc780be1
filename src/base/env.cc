#include "base/env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace strata {
namespace {

// Enough for any lock holder's record (a run lock's records the whole command line).
constexpr std::size_t kMaxRecordBytes = 8192;

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

Result<std::string> ReadAll(int fd, const std::filesystem::path& path) {
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return IoError("read", path, errno);
    if (got == 0) return text;
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

class PosixEnv final : public Env {
 public:
  Result<std::optional<std::string>> ReadWholeFile(const std::filesystem::path& path,
                                                   struct stat* info) override {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>();
      return IoError("open", path, errno);
    }
    if (info != nullptr && fstat(fd, info) != 0) {
      const int error_number = errno;
      close(fd);
      return IoError("stat", path, error_number);
    }
    Result<std::string> text = ReadAll(fd, path);
    close(fd);
    if (!text.ok()) return std::move(text).error();
    return std::optional<std::string>(std::move(*text));
  }

  Result<bool> StatFile(const std::filesystem::path& path, struct stat* info) override {
    if (stat(path.c_str(), info) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return IoError("stat", path, errno);
  }

  Status WriteNewFile(const std::filesystem::path& path, std::string_view text) override {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return IoError("create", path, errno);
    if (!WriteAll(fd, text)) {
      const int error_number = errno;
      close(fd);
      unlink(path.c_str());
      return IoError("write", path, error_number);
    }
    if (close(fd) != 0) {
      const int error_number = errno;
      unlink(path.c_str());
      return IoError("close", path, error_number);
    }
    return OkStatus();
  }

  Status SyncPath(const std::filesystem::path& path) override {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IoError("open", path, errno);
    if (SyncRetrying(fd) != 0) {
      const int error_number = errno;
      close(fd);
      return IoError("fsync", path, error_number);
    }
    close(fd);
    return OkStatus();
  }

  Status RenameReplacing(const std::filesystem::path& from,
                         const std::filesystem::path& to) override {
    if (std::rename(from.c_str(), to.c_str()) != 0) return IoError("rename over", to, errno);
    return OkStatus();
  }

  Status RemoveFile(const std::filesystem::path& path) override {
    if (unlink(path.c_str()) != 0 && errno != ENOENT) return IoError("remove", path, errno);
    return OkStatus();
  }

  Result<std::vector<std::string>> ListFiles(const std::filesystem::path& folder) override {
    std::vector<std::string> names;
    std::error_code error;
    std::filesystem::directory_iterator it(folder, error);
    if (error) return IoError("list folder", folder, error.value());
    for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
      if (error) return IoError("list folder", folder, error.value());
      if (it->is_regular_file(error)) names.push_back(it->path().filename().string());
    }
    if (error) return IoError("list folder", folder, error.value());
    return names;
  }

  Status CreateFolders(const std::filesystem::path& folder) override {
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) return IoError("create folder", folder, error.value());
    return OkStatus();
  }

  Result<int> OpenLockFile(const std::filesystem::path& path) override {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && (errno == EROFS || errno == EACCES)) {
      fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) return IoError("open lock file", path, errno);
    return fd;
  }

  Result<bool> TryLock(int fd, LockMode mode, const std::filesystem::path& path) override {
    const int operation = (mode == LockMode::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB;
    int result;
    do {
      result = flock(fd, operation);
    } while (result != 0 && errno == EINTR);
    if (result == 0) return true;
    if (errno == EWOULDBLOCK) return false;
    return IoError("lock", path, errno);
  }

  bool RewriteRecord(int fd, std::string_view text) override {
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

  std::string ReadRecord(int fd) override {
    std::string text(kMaxRecordBytes, '\0');
    std::size_t size = 0;
    while (size < text.size()) {
      const ssize_t got =
          pread(fd, text.data() + size, text.size() - size, static_cast<off_t>(size));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      size += static_cast<std::size_t>(got);
    }
    text.resize(size);
    return text;
  }

  void CloseFd(int fd) override {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

Error IoError(std::string_view action, const std::filesystem::path& path, int error_number) {
  return MakeError(ErrorCode::kIo,
                   std::string("cannot ") + std::string(action) + " " + path.string() + ": " +
                       std::strerror(error_number),
                   "check that the folder exists, is writable and has free space (for the "
                   "rollup store: ENGINE_ROLLUP_STORE_DIR or [rollups] store_dir)");
}

Status WriteNewFileDurably(Env& env, const std::filesystem::path& path, std::string_view text) {
  STRATA_TRY(env.WriteNewFile(path, text));
  if (Status synced = env.SyncPath(path); !synced.ok()) {
    (void)env.RemoveFile(path);
    return synced;
  }
  return OkStatus();
}

Env& Env::Default() {
  static PosixEnv env;
  return env;
}

}  // namespace strata
