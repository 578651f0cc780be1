// Connections with work in flight, so that a cancellation (SIGINT/SIGTERM) interrupts them all:
// the transform runner's and the rollup builder's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "warehouse/warehouse.h"

namespace strata::warehouse {

// While alive, watches `cancel` (may be null) and interrupts every registered connection once it
// becomes true. Register/Unregister are thread-safe.
class CancellationWatcher {
 public:
  explicit CancellationWatcher(const std::atomic<bool>* cancel);
  ~CancellationWatcher();
  CancellationWatcher(const CancellationWatcher&) = delete;
  CancellationWatcher& operator=(const CancellationWatcher&) = delete;

  void Register(Connection* connection);
  void Unregister(Connection* connection);
  bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }
  const std::atomic<bool>& flag() const { return cancel_ != nullptr ? *cancel_ : never_; }

 private:
  void Watch();
  const std::atomic<bool>* cancel_;
  std::atomic<bool> never_{false};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::set<Connection*> connections_;
  std::set<Connection*> interrupted_;
  std::thread thread_;
};

}  // namespace strata::warehouse
