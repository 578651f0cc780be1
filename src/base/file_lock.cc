#include "base/file_lock.h"

#include <cerrno>
#include <utility>

namespace strata {

FileLock::FileLock(FileLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), env_(other.env_), path_(std::move(other.path_)) {
  other.path_.clear();
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    env_ = other.env_;
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

FileLock::~FileLock() { Release(); }

void FileLock::Release() {
  if (fd_ < 0) return;
  (void)env_->RewriteRecord(fd_, "");
  env_->CloseFd(fd_);  // releases the flock: this description is the lock's only holder
  fd_ = -1;
  path_.clear();
}

Result<FileLock> AcquireFileLock(
    Env& env, const std::filesystem::path& path, std::string_view record,
    const std::function<Error(const std::string& holder_record)>& refused) {
  STRATA_ASSIGN_OR_RETURN(const int fd, env.OpenLockFile(path));
  Result<bool> taken = env.TryLock(fd, Env::LockMode::kExclusive, path);
  if (!taken.ok() || !*taken) {
    Error failure = taken.ok() ? refused(env.ReadRecord(fd)) : std::move(taken).error();
    env.CloseFd(fd);
    return failure;
  }
  FileLock lock(fd, env, path);  // from here on, every way out releases it
  if (!env.RewriteRecord(fd, record)) return IoError("write lock file", path, errno);
  return lock;
}

std::string FormatLockRecord(const LockRecord& record) {
  std::string text;
  for (const auto& [key, value] : record) {
    std::string line = key + "=" + value;
    for (char& c : line) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    text += line + "\n";
  }
  return text;
}

LockRecord ParseLockRecord(std::string_view text) {
  LockRecord record;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) break;
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline + 1);
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) continue;
    record.emplace_back(std::string(line.substr(0, equals)), std::string(line.substr(equals + 1)));
  }
  return record;
}

}  // namespace strata
