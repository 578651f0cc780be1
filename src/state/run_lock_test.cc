#include "state/run_lock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "state/internal/test_support.h"
#include "state/state_store.h"

namespace strata::state {
namespace {

constexpr UnixSeconds kNoon = 1775563200;  // 2026-04-07T12:00:00Z

// Kills and reaps a forked child on every way out of a test, so a failing assertion never leaves
// it running (holding the lock and the test's output pipe).
struct ChildReaper {
  pid_t pid = -1;
  ~ChildReaper() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

class RunLockTest : public internal::TempDirTest {
 protected:
  std::unique_ptr<StateStore> OpenStore() {
    auto store = StateStore::Open(PathTo("state.db"), clock_);
    EXPECT_TRUE(store.ok()) << store.error().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  internal::FixedClock clock_{kNoon};
};

TEST_F(RunLockTest, SecondAcquireFailsAtOnceNamingTheHolder) {
  auto first_store = OpenStore();
  auto second_store = OpenStore();
  ASSERT_NE(first_store, nullptr);
  ASSERT_NE(second_store, nullptr);
  auto first = first_store->AcquireRunLock("run-first", "strata run --models orders");
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_TRUE(first->held());
  EXPECT_EQ(first->path(), PathTo("state.db") + ".lock");

  const auto before = std::chrono::steady_clock::now();
  auto second = second_store->AcquireRunLock("run-second", "strata run");
  const auto waited = std::chrono::steady_clock::now() - before;
  ASSERT_FALSE(second.ok());
  EXPECT_LT(waited, std::chrono::seconds(2));  // never waits (loose bound for slow machines)
  const Error& error = second.error();
  EXPECT_EQ(error.code, ErrorCode::kStateLocked);
  EXPECT_NE(error.message.find("run-first"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find(std::to_string(getpid())), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("strata run --models orders"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("2026-04-07T12:00:00Z"), std::string::npos) << error.message;
  EXPECT_FALSE(error.hint.empty());

  // The same store cannot take it twice either.
  auto again = first_store->AcquireRunLock("run-again", "strata run");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kStateLocked);

  first = RunLock();  // destroys the held lock
  auto third = second_store->AcquireRunLock("run-third", "strata run");
  ASSERT_TRUE(third.ok()) << third.error().ToString();
}

TEST_F(RunLockTest, MovedLockStaysHeldUntilReleased) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto acquired = store->AcquireRunLock("run-1", "strata run");
  ASSERT_TRUE(acquired.ok());
  RunLock moved = std::move(acquired).value();
  EXPECT_TRUE(moved.held());
  EXPECT_FALSE(store->AcquireRunLock("run-2", "strata run").ok());
  moved.Release();
  EXPECT_FALSE(moved.held());
  EXPECT_TRUE(store->AcquireRunLock("run-3", "strata run").ok());
}

TEST_F(RunLockTest, HolderThatHasNotWrittenItsRecordIsStillReported) {
  const std::string lock_path = PathTo("bare.lock");
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  auto refused = AcquireRunLock(lock_path, {1, "run-x", "strata run", kNoon});
  close(fd);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kStateLocked);
  EXPECT_TRUE(AcquireRunLock(lock_path, {1, "run-x", "strata run", kNoon}).ok());
}

TEST_F(RunLockTest, KilledHolderLeavesNoStaleLock) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t parent = getpid();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child: take the lock with its own store, tell the parent, then wait to be killed.
    // It also dies with the parent, and after a minute whatever happens.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(5);  // the parent died before prctl
    alarm(60);
    close(ready[0]);
    auto child_store = StateStore::Open(PathTo("state.db"), clock_);
    if (!child_store.ok()) _exit(2);
    auto lock = (*child_store)->AcquireRunLock("run-child", "strata run (child)");
    if (!lock.ok()) _exit(3);
    const char byte = 'x';
    if (write(ready[1], &byte, 1) != 1) _exit(4);
    while (true) pause();
  }
  ChildReaper reaper{child};
  close(ready[1]);
  char byte = 0;
  const ssize_t got = read(ready[0], &byte, 1);
  close(ready[0]);
  if (got != 1) {
    int status = 0;
    waitpid(child, &status, 0);
    reaper.pid = -1;
    FAIL() << "child did not take the lock; exit status " << WEXITSTATUS(status);
  }

  auto refused = store->AcquireRunLock("run-parent", "strata run");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kStateLocked);
  EXPECT_NE(refused.error().message.find("run-child"), std::string::npos);
  EXPECT_NE(refused.error().message.find("pid " + std::to_string(child)), std::string::npos)
      << refused.error().message;

  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  reaper.pid = -1;
  EXPECT_TRUE(WIFSIGNALED(status));

  auto acquired = store->AcquireRunLock("run-parent", "strata run");
  ASSERT_TRUE(acquired.ok()) << acquired.error().ToString();
}

TEST(RunLockHolderTest, RecordRoundTripsAndFlattensNewlines) {
  const RunLockHolder holder{4242, "run-9", "strata run\n--models a", kNoon};
  const std::string text = FormatRunLockHolder(holder);
  EXPECT_EQ(text,
            "pid=4242\nrun_id=run-9\ncommand=strata run --models a\n"
            "started_at=2026-04-07T12:00:00Z\n");
  const std::optional<RunLockHolder> parsed = ParseRunLockHolder(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->pid, 4242);
  EXPECT_EQ(parsed->run_id, "run-9");
  EXPECT_EQ(parsed->command, "strata run --models a");
  EXPECT_EQ(parsed->started_at, kNoon);

  EXPECT_FALSE(ParseRunLockHolder("").has_value());
  EXPECT_FALSE(ParseRunLockHolder("pid=12").has_value());  // unfinished line
  EXPECT_FALSE(ParseRunLockHolder("pid=abc\n").has_value());
  EXPECT_EQ(ParseRunLockHolder("pid=7\nstarted_at=bad\n")->started_at, 0);
}

}  // namespace
}  // namespace strata::state
