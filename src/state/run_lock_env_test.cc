// The run lock through an Env (base/env.h) that fails one call at a time.
#include <gtest/gtest.h>

#include <cerrno>

#include "base/testing/fault_env.h"
#include "state/internal/test_support.h"
#include "state/run_lock.h"
#include "state/state_store.h"

namespace strata::state {
namespace {

constexpr UnixSeconds kNoon = 1775563200;  // 2026-04-07T12:00:00Z

class RunLockEnvTest : public internal::TempDirTest {};

// Each file-system call of taking the run lock fails in turn: a kIo error naming the run lock,
// no crash, the lock not held, and the next run takes it.
TEST_F(RunLockEnvTest, AFailedCallOfTheRunLockIsACodedErrorAndLeavesItFree) {
  strata::testing::FaultEnv env;
  internal::FixedClock clock{kNoon};
  auto store = StateStore::Open(PathTo("state.db"), clock, env);
  ASSERT_TRUE(store.ok()) << store.error().ToString();
  for (int call = 1;; ++call) {
    env.FailAt(call, call % 2 == 0 ? ENOSPC : EIO);
    Result<RunLock> lock = (*store)->AcquireRunLock("run-" + std::to_string(call), "strata run");
    const bool failed = env.failed();
    env.FailAt(0);
    if (!failed) {
      ASSERT_TRUE(lock.ok()) << lock.error().ToString();
      EXPECT_TRUE(lock->held());
      EXPECT_GT(call, 3) << "open, lock and record: every one was failed once";
      break;
    }
    ASSERT_FALSE(lock.ok()) << "call " << call;
    EXPECT_EQ(lock.error().code, ErrorCode::kIo) << lock.error().ToString();
    EXPECT_NE(lock.error().ToString().find((*store)->lock_path()), std::string::npos)
        << lock.error().ToString();
    EXPECT_FALSE(lock.error().hint.empty());
    Result<RunLock> next = AcquireRunLock((*store)->lock_path(), {1, "run-next", "strata", kNoon});
    EXPECT_TRUE(next.ok()) << "call " << call << ": " << next.error().ToString();
    ASSERT_LT(call, 10);
  }
}

}  // namespace
}  // namespace strata::state
