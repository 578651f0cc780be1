#include "serve/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "base/time.h"
#include "serve/deadline_watcher.h"

namespace strata::serve {
namespace {

class CountingConnection final : public warehouse::Connection {
 public:
  explicit CountingConnection(std::atomic<int>* interrupts) : interrupts_(interrupts) {}
  Result<warehouse::QueryResult> Execute(std::string_view) override {
    return warehouse::QueryResult{};
  }
  void Interrupt() override { interrupts_->fetch_add(1); }
  Result<bool> TableExists(const warehouse::TableName&) override { return false; }
  Result<std::vector<warehouse::Column>> DescribeTable(const warehouse::TableName&) override {
    return std::vector<warehouse::Column>{};
  }
  Result<std::vector<std::string>> UserFunctionNames() override {
    return std::vector<std::string>{};
  }

 private:
  std::atomic<int>* interrupts_;
};

struct Fixture {
  std::atomic<int> connects{0};
  std::atomic<int> interrupts{0};
  std::function<Result<std::unique_ptr<warehouse::Connection>>()> Connect() {
    return [this]() -> Result<std::unique_ptr<warehouse::Connection>> {
      connects.fetch_add(1);
      return std::unique_ptr<warehouse::Connection>(new CountingConnection(&interrupts));
    };
  }
};

TEST(WorkerPoolTest, EachWorkerHasItsOwnEngineConnection) {
  Fixture fixture;
  WorkerPool pool(3, 0, fixture.Connect());
  EXPECT_EQ(fixture.connects.load(), 3);
  auto a = pool.Acquire(MonotonicMillis() + 1000);
  auto b = pool.Acquire(MonotonicMillis() + 1000);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->worker().engine.get(), b->worker().engine.get());
}

TEST(WorkerPoolTest, RefusesAtOnceWhenTheQueueIsFull) {
  Fixture fixture;
  WorkerPool pool(1, 0, fixture.Connect());
  auto held = pool.Acquire(MonotonicMillis() + 1000);
  ASSERT_TRUE(held.ok());
  auto refused = pool.Acquire(MonotonicMillis() + 60'000);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kOverloaded);
}

TEST(WorkerPoolTest, AQueuedRequestGetsTheReleasedWorker) {
  Fixture fixture;
  WorkerPool pool(1, 1, fixture.Connect());
  std::optional<WorkerPool::Lease> held;
  auto acquired = pool.Acquire(MonotonicMillis() + 1000);
  ASSERT_TRUE(acquired.ok());
  held.emplace(std::move(*acquired));
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    auto lease = pool.Acquire(MonotonicMillis() + 60'000);
    got = lease.ok();
  });
  held.reset();
  waiter.join();
  EXPECT_TRUE(got.load());
}

TEST(WorkerPoolTest, AQueuedRequestGivesUpAtItsDeadline) {
  Fixture fixture;
  WorkerPool pool(1, 1, fixture.Connect());
  auto held = pool.Acquire(MonotonicMillis() + 1000);
  auto late = pool.Acquire(MonotonicMillis() + 20);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, ErrorCode::kOverloaded);
}

TEST(WorkerPoolTest, AnInterruptedWorkerReconnects) {
  Fixture fixture;
  WorkerPool pool(1, 0, fixture.Connect());
  {
    auto lease = pool.Acquire(MonotonicMillis() + 1000);
    lease->worker().interrupted = true;
  }
  EXPECT_EQ(fixture.connects.load(), 2);
  auto lease = pool.Acquire(MonotonicMillis() + 1000);
  EXPECT_FALSE(lease->worker().interrupted);
  EXPECT_NE(lease->worker().engine, nullptr);
}

TEST(DeadlineWatcherTest, InterruptsFromTheDeadlineUntilFinished) {
  std::atomic<int> interrupts{0};
  CountingConnection connection(&interrupts);
  DeadlineWatcher watcher;
  const std::uint64_t id = watcher.Start(MonotonicMillis() + 10);
  EXPECT_TRUE(watcher.Add(id, &connection));
  // Interrupted again while the entry lives (an interrupt before a statement starts is lost).
  while (interrupts.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(watcher.Finish(id));
  const int after_finish = interrupts.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(interrupts.load(), after_finish);
}

TEST(DeadlineWatcherTest, AFinishedEntryNeverFires) {
  std::atomic<int> interrupts{0};
  CountingConnection connection(&interrupts);
  DeadlineWatcher watcher;
  const std::uint64_t id = watcher.Start(MonotonicMillis() + 60'000);
  EXPECT_TRUE(watcher.Add(id, &connection));
  EXPECT_FALSE(watcher.Finish(id));
  EXPECT_EQ(interrupts.load(), 0);
}

TEST(DeadlineWatcherTest, FireAllInterruptsNowAndLater) {
  std::atomic<int> first_interrupts{0};
  std::atomic<int> second_interrupts{0};
  CountingConnection first(&first_interrupts);
  CountingConnection second(&second_interrupts);
  DeadlineWatcher watcher;
  const std::uint64_t running = watcher.Start(MonotonicMillis() + 60'000);
  EXPECT_TRUE(watcher.Add(running, &first));
  watcher.FireAll();
  EXPECT_GE(first_interrupts.load(), 1);
  const std::uint64_t later = watcher.Start(MonotonicMillis() + 60'000);
  EXPECT_FALSE(watcher.Add(later, &second));  // fired already: the caller must not start
  EXPECT_GE(second_interrupts.load(), 1);
  EXPECT_TRUE(watcher.Finish(running));
  EXPECT_TRUE(watcher.Finish(later));
}

}  // namespace
}  // namespace strata::serve
