#include "state/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace strata::state {
namespace {

// Enough for any record we write; a longer file is read only up to here.
constexpr std::size_t kMaxRecordBytes = 8192;

std::string OneLine(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

Error IoError(const std::string& action, const std::string& path, int error_number) {
  return MakeError(ErrorCode::kIo,
                   "cannot " + action + " run lock " + path + ": " + std::strerror(error_number),
                   "check the state directory's permissions");
}

std::string ReadAll(int fd) {
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

bool WriteAll(int fd, const std::string& text) {
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

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {
  other.path_.clear();
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

RunLock::~RunLock() { Release(); }

void RunLock::Release() {
  if (fd_ < 0) return;
  // Best effort: an unreadable record only makes a contender's message less specific.
  (void)ftruncate(fd_, 0);
  close(fd_);  // releases the flock: this descriptor is the lock's only holder
  fd_ = -1;
  path_.clear();
}

Result<RunLock> AcquireRunLock(const std::string& lock_path, const RunLockHolder& holder) {
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("open", lock_path, errno);
  int result;
  do {
    result = flock(fd, LOCK_EX | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    const int error_number = errno;
    if (error_number == EWOULDBLOCK) {
      Error error = LockedError(lock_path, ReadAll(fd));
      close(fd);
      return error;
    }
    close(fd);
    return IoError("lock", lock_path, error_number);
  }
  RunLock lock(fd, lock_path);
  const std::string record = FormatRunLockHolder(holder);
  if (ftruncate(fd, 0) != 0 || !WriteAll(fd, record)) return IoError("write", lock_path, errno);
  return lock;
}

std::string FormatRunLockHolder(const RunLockHolder& holder) {
  return "pid=" + std::to_string(holder.pid) + "\nrun_id=" + OneLine(holder.run_id) +
         "\ncommand=" + OneLine(holder.command) +
         "\nstarted_at=" + FormatIso8601(holder.started_at) + "\n";
}

std::optional<RunLockHolder> ParseRunLockHolder(std::string_view text) {
  RunLockHolder holder;
  bool has_pid = false;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) break;  // an unfinished last line is ignored
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, equals);
    const std::string value(line.substr(equals + 1));
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
