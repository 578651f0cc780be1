// An Env for tests (base/env.h): it records every call it forwards to a real Env, and fails one
// of them when asked: the Nth fallible call (1-based) fails with `error_number` (EIO, ENOSPC)
// instead of running, or, for a WriteNewFile with `short_write`, writes the first half of the
// bytes and then fails. Counting goes on after the failure (a loop raises N until an operation
// completes without reaching it). Not thread-safe: one test thread at a time.
#pragma once

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "base/env.h"

namespace strata::testing {

class FaultEnv final : public Env {
 public:
  explicit FaultEnv(Env& base = Env::Default()) : base_(base) {}

  // Fails the `call`th fallible call from now on (0: none) with `error_number`.
  void FailAt(int call, int error_number = EIO, bool short_write = false) {
    fail_at_ = call;
    error_number_ = error_number;
    short_write_ = short_write;
    calls_ = 0;
    failed_ = false;
    log_.clear();
  }
  int calls() const { return calls_; }
  bool failed() const { return failed_; }
  // "WriteNewFile manifest.json.tmp-1-2-ab" ...: each fallible call, the operation and the
  // file name of its path, in order.
  const std::vector<std::string>& log() const { return log_; }

  Result<std::optional<std::string>> ReadWholeFile(const std::filesystem::path& path,
                                                   struct stat* info) override {
    if (Status fault = Enter("ReadWholeFile", path); !fault.ok()) return std::move(fault).error();
    return base_.ReadWholeFile(path, info);
  }
  Result<bool> StatFile(const std::filesystem::path& path, struct stat* info) override {
    if (Status fault = Enter("StatFile", path); !fault.ok()) return std::move(fault).error();
    return base_.StatFile(path, info);
  }
  Status WriteNewFile(const std::filesystem::path& path, std::string_view text) override {
    if (Status fault = Enter("WriteNewFile", path); !fault.ok()) {
      if (short_write_) (void)base_.WriteNewFile(path, text.substr(0, text.size() / 2));
      return fault;
    }
    return base_.WriteNewFile(path, text);
  }
  Status SyncPath(const std::filesystem::path& path) override {
    STRATA_TRY(Enter("SyncPath", path));
    return base_.SyncPath(path);
  }
  Status RenameReplacing(const std::filesystem::path& from,
                         const std::filesystem::path& to) override {
    STRATA_TRY(Enter("RenameReplacing", to));
    return base_.RenameReplacing(from, to);
  }
  Status RemoveFile(const std::filesystem::path& path) override {
    STRATA_TRY(Enter("RemoveFile", path));
    return base_.RemoveFile(path);
  }
  Result<std::vector<std::string>> ListFiles(const std::filesystem::path& folder) override {
    if (Status fault = Enter("ListFiles", folder); !fault.ok()) return std::move(fault).error();
    return base_.ListFiles(folder);
  }
  Status CreateFolders(const std::filesystem::path& folder) override {
    STRATA_TRY(Enter("CreateFolders", folder));
    return base_.CreateFolders(folder);
  }
  Result<int> OpenLockFile(const std::filesystem::path& path) override {
    if (Status fault = Enter("OpenLockFile", path); !fault.ok()) return std::move(fault).error();
    return base_.OpenLockFile(path);
  }
  Result<bool> TryLock(int fd, LockMode mode, const std::filesystem::path& path) override {
    if (Status fault = Enter("TryLock", path); !fault.ok()) return std::move(fault).error();
    return base_.TryLock(fd, mode, path);
  }
  bool RewriteRecord(int fd, std::string_view text) override {
    if (!Enter("RewriteRecord", "fd" + std::to_string(fd)).ok()) {  // it has no path
      errno = error_number_;
      return false;
    }
    return base_.RewriteRecord(fd, text);
  }
  std::string ReadRecord(int fd) override { return base_.ReadRecord(fd); }
  void CloseFd(int fd) override { base_.CloseFd(fd); }

 private:
  Status Enter(const char* operation, const std::filesystem::path& path) {
    log_.push_back(std::string(operation) + " " + path.filename().string());
    if (++calls_ != fail_at_) return OkStatus();
    failed_ = true;
    return IoError(std::string("(injected) ") + operation, path, error_number_);
  }

  Env& base_;
  int fail_at_ = 0;
  int error_number_ = EIO;
  bool short_write_ = false;
  int calls_ = 0;
  bool failed_ = false;
  std::vector<std::string> log_;
};

}  // namespace strata::testing
