#include "base/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace strata {
namespace {

TEST(ParallelForTest, CallsEveryIndexExactlyOnce) {
  for (unsigned threads : {0u, 1u, 2u, 7u}) {
    std::vector<std::atomic<int>> calls(1000);
    ParallelFor(calls.size(), threads, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < calls.size(); ++i)
      ASSERT_EQ(calls[i].load(), 1) << i << " " << threads;
  }
}

TEST(ParallelForTest, RethrowsTheFirstExceptionOnTheCaller) {
  std::atomic<int> calls{0};
  EXPECT_THROW(ParallelFor(100, 4,
                           [&](std::size_t i) {
                             ++calls;
                             if (i == 10) throw std::runtime_error("boom");
                           }),
               std::runtime_error);
  EXPECT_LE(calls.load(), 100);
}

TEST(ParallelForTest, ZeroCountCallsNothing) {
  int calls = 0;
  ParallelFor(0, 4, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_GE(WorkerThreads(), 1u);
}

}  // namespace
}  // namespace strata
