#include "serve/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <set>
#include <thread>
#include <vector>

namespace strata::serve {
namespace {

// Waits until every thread of `pool` waits for a task again.
void WaitAllIdle(const LifoThreadPool& pool) {
  while (pool.idle() != pool.size()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(LifoThreadPoolTest, OneTaskAtATimeAlwaysRunsOnTheSameThread) {
  LifoThreadPool pool(8);
  WaitAllIdle(pool);
  std::set<std::thread::id> ran_on;
  for (int i = 0; i < 50; ++i) {
    std::promise<std::thread::id> done;
    pool.Submit([&done] { done.set_value(std::this_thread::get_id()); });
    ran_on.insert(done.get_future().get());
    WaitAllIdle(pool);
  }
  EXPECT_EQ(ran_on.size(), 1u);
}

TEST(LifoThreadPoolTest, KTasksAtATimeRunOnTheSameKThreads) {
  constexpr int kAtATime = 3;
  LifoThreadPool pool(16);
  WaitAllIdle(pool);
  std::mutex mutex;
  std::set<std::thread::id> ran_on;
  for (int round = 0; round < 20; ++round) {
    std::latch all_started(kAtATime);
    std::latch finished(kAtATime);
    for (int i = 0; i < kAtATime; ++i) {
      pool.Submit([&] {
        {
          std::lock_guard<std::mutex> lock(mutex);
          ran_on.insert(std::this_thread::get_id());
        }
        all_started.arrive_and_wait();  // the k tasks overlap: k threads, not one
        finished.count_down();
      });
    }
    finished.wait();
    WaitAllIdle(pool);
  }
  EXPECT_EQ(ran_on.size(), static_cast<std::size_t>(kAtATime));
}

TEST(LifoThreadPoolTest, TasksBeyondTheIdleThreadsWaitAndRunInOrder) {
  LifoThreadPool pool(1);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  pool.Submit([open] { open.wait(); });
  std::vector<int> order;  // written by the pool's one thread only
  for (int i = 0; i < 5; ++i) pool.Submit([&order, i] { order.push_back(i); });
  gate.set_value();
  pool.Shutdown();  // runs what waits before it returns
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(LifoThreadPoolTest, ShutdownIsIdempotentAndLaterTasksAreDropped) {
  std::atomic<int> ran{0};
  LifoThreadPool pool(2);
  pool.Submit([&ran] { ran.fetch_add(1); });
  pool.Shutdown();
  EXPECT_EQ(ran.load(), 1);
  pool.Submit([&ran] { ran.fetch_add(1); });
  pool.Shutdown();
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(pool.idle(), 0u);
}

}  // namespace
}  // namespace strata::serve
