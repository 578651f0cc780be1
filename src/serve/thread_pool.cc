#include "serve/thread_pool.h"

#include <utility>

#include "base/result.h"

namespace strata::serve {

LifoThreadPool::LifoThreadPool(std::size_t threads) {
  STRATA_CHECK(threads >= 1);
  slots_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) slots_.push_back(std::make_unique<Slot>());
  // The slots exist before any thread starts, so Run never sees slots_ change.
  for (const std::unique_ptr<Slot>& slot : slots_) {
    slot->thread = std::thread([this, raw = slot.get()] { Run(*raw); });
  }
}

LifoThreadPool::~LifoThreadPool() { Shutdown(); }

void LifoThreadPool::Submit(std::function<void()> task) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (shutdown_) return;
  if (idle_.empty()) {
    waiting_.push_back(std::move(task));
    return;
  }
  Slot* slot = idle_.back();
  idle_.pop_back();
  slot->task = std::move(task);
  lock.unlock();
  slot->wake.notify_one();
}

void LifoThreadPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    // Idle threads wake, run what still waits, and return.
    for (Slot* slot : idle_) slot->wake.notify_one();
    idle_.clear();
  }
  std::call_once(joined_, [this] {
    for (const std::unique_ptr<Slot>& slot : slots_) {
      if (slot->thread.joinable()) slot->thread.join();
    }
  });
}

std::size_t LifoThreadPool::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_.size();
}

void LifoThreadPool::Run(Slot& slot) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    std::function<void()> task;
    if (!waiting_.empty()) {
      task = std::move(waiting_.front());
      waiting_.pop_front();
    } else if (shutdown_) {
      return;
    } else {
      idle_.push_back(&slot);
      slot.wake.wait(lock, [&] { return slot.task != nullptr || shutdown_; });
      if (slot.task == nullptr) continue;  // shut down while idle (Shutdown cleared idle_)
      task = std::move(slot.task);
      slot.task = nullptr;
    }
    lock.unlock();
    task();
    task = nullptr;  // the task's captures are released outside the lock
    lock.lock();
  }
}

}  // namespace strata::serve
