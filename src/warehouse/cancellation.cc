#include "warehouse/cancellation.h"

#include <chrono>

namespace strata::warehouse {

CancellationWatcher::CancellationWatcher(const std::atomic<bool>* cancel) : cancel_(cancel) {
  if (cancel_ != nullptr) thread_ = std::thread([this] { Watch(); });
}

CancellationWatcher::~CancellationWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CancellationWatcher::Register(Connection* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  connections_.insert(connection);
}

void CancellationWatcher::Unregister(Connection* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  connections_.erase(connection);
  interrupted_.erase(connection);
}

void CancellationWatcher::Watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  // A signal handler can only set the flag, so poll it; 20 ms keeps Ctrl-C feeling immediate.
  while (!stopping_) {
    if (cancel_->load()) {
      // Once per connection: a repeated interrupt could land on the ROLLBACK that follows.
      for (Connection* connection : connections_) {
        if (interrupted_.insert(connection).second) connection->Interrupt();
      }
    }
    stop_signal_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

}  // namespace strata::warehouse
