// Connections with work in flight, so a cancellation can interrupt them all. Private to the runner.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "warehouse/warehouse.h"

namespace strata::materialize {

// While alive, watches `cancel` (may be null) and interrupts every registered connection once it
// becomes true. Register/Unregister are thread-safe.
class CancellationWatcher {
 public:
  explicit CancellationWatcher(const std::atomic<bool>* cancel);
  ~CancellationWatcher();
  CancellationWatcher(const CancellationWatcher&) = delete;
  CancellationWatcher& operator=(const CancellationWatcher&) = delete;

  void Register(warehouse::Connection* connection);
  void Unregister(warehouse::Connection* connection);
  bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }
  const std::atomic<bool>& flag() const { return cancel_ != nullptr ? *cancel_ : never_; }

 private:
  void Watch();
  const std::atomic<bool>* cancel_;
  std::atomic<bool> never_{false};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::set<warehouse::Connection*> connections_;
  std::set<warehouse::Connection*> interrupted_;
  std::thread thread_;
};

}  // namespace strata::materialize
