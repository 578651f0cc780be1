#include "base/file_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "base/testing/fault_env.h"

namespace strata {
namespace {

class FileLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("strata_file_lock_test_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
    path_ = folder_ / "held.lock";
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  static std::string Contents(const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // The refusal the callers make: a coded error carrying the holder's record.
  static Error Refused(const std::string& record) {
    return MakeError(ErrorCode::kStateLocked, "held by: " + record);
  }

  static int OpenDescriptors() {
    return static_cast<int>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                          std::filesystem::directory_iterator()));
  }

  std::filesystem::path folder_;
  std::filesystem::path path_;
};

TEST_F(FileLockTest, ASecondAcquireIsRefusedWithTheHoldersRecordUntilRelease) {
  const std::string record = FormatLockRecord({{"pid", "7"}, {"started_at", "now"}});
  Result<FileLock> first = AcquireFileLock(Env::Default(), path_, record, Refused);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_TRUE(first->held());
  EXPECT_EQ(first->path(), path_);
  EXPECT_EQ(Contents(path_), "pid=7\nstarted_at=now\n");

  Result<FileLock> second = AcquireFileLock(Env::Default(), path_, "pid=8\n", Refused);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kStateLocked);
  EXPECT_EQ(second.error().message, "held by: " + record);

  FileLock moved = std::move(first).value();
  EXPECT_TRUE(moved.held());
  moved.Release();
  EXPECT_FALSE(moved.held());
  EXPECT_TRUE(moved.path().empty());
  EXPECT_EQ(Contents(path_), "");  // the record is emptied on release
  EXPECT_TRUE(AcquireFileLock(Env::Default(), path_, "pid=8\n", Refused).ok());
}

TEST_F(FileLockTest, RecordsFlattenNewlinesAndParseOnlyFinishedLines) {
  EXPECT_EQ(FormatLockRecord({{"command", "a\nb\rc"}, {"pid", "1"}}), "command=a b c\npid=1\n");
  EXPECT_EQ(ParseLockRecord("pid=1\nnoise\nk=v=w\nunfinished=2"),
            (LockRecord{{"pid", "1"}, {"k", "v=w"}}));
  EXPECT_TRUE(ParseLockRecord("").empty());
}

// Every file-system call of an acquire fails in turn: the acquire fails with kIo naming the
// lock file, nothing stays open or locked, and the next acquire succeeds.
TEST_F(FileLockTest, EachFailedCallOfAnAcquireIsAnIoErrorThatLeavesNothingHeld) {
  testing::FaultEnv env;
  for (int call = 1;; ++call) {
    const int descriptors = OpenDescriptors();
    env.FailAt(call, call % 2 == 0 ? ENOSPC : EIO);
    Result<FileLock> lock = AcquireFileLock(env, path_, "pid=1\n", Refused);
    const bool failed = env.failed();
    env.FailAt(0);
    if (!failed) {
      ASSERT_TRUE(lock.ok()) << lock.error().ToString();
      EXPECT_EQ(call, 4) << "open, lock, write the record: three calls";
      break;
    }
    ASSERT_FALSE(lock.ok()) << "call " << call;
    EXPECT_EQ(lock.error().code, ErrorCode::kIo) << lock.error().ToString();
    EXPECT_NE(lock.error().message.find(path_.string()), std::string::npos) << lock.error().message;
    EXPECT_EQ(OpenDescriptors(), descriptors) << "call " << call;
    Result<FileLock> again = AcquireFileLock(Env::Default(), path_, "pid=2\n", Refused);
    EXPECT_TRUE(again.ok()) << "call " << call << ": " << again.error().ToString();
    ASSERT_LT(call, 10);
  }
}

}  // namespace
}  // namespace strata
