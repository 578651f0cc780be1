#include "serve/worker_pool.h"

#include <fmt/format.h>

#include <chrono>

#include "base/time.h"

namespace strata::serve {

WorkerPool::WorkerPool(
    std::size_t workers, std::size_t queue,
    std::function<Result<std::unique_ptr<warehouse::Connection>>()> connect_engine)
    : connect_engine_(std::move(connect_engine)), queue_(queue) {
  STRATA_CHECK(workers >= 1);
  for (std::size_t i = 0; i < workers; ++i) {
    auto worker = std::make_unique<Worker>();
    if (auto connected = connect_engine_(); connected.ok()) worker->engine = std::move(*connected);
    free_.push_back(worker.get());
    workers_.push_back(std::move(worker));
  }
}

WorkerPool::Lease::Lease(Lease&& other) noexcept : pool_(other.pool_), worker_(other.worker_) {
  other.pool_ = nullptr;
  other.worker_ = nullptr;
}

WorkerPool::Lease::~Lease() {
  if (pool_ != nullptr) pool_->Release(worker_);
}

Result<WorkerPool::Lease> WorkerPool::Acquire(std::int64_t deadline_millis) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (free_.empty()) {
    if (waiting_ >= queue_) {
      return MakeError(ErrorCode::kOverloaded,
                       fmt::format("all {} query slots are busy and {} requests already wait",
                                   workers_.size(), waiting_),
                       "retry with backoff; [serve] max_concurrent_queries and "
                       "max_queued_queries set the limits");
    }
    ++waiting_;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(deadline_millis - MonotonicMillis());
    const bool got = released_.wait_until(lock, deadline, [&] { return !free_.empty(); });
    --waiting_;
    if (!got) {
      return MakeError(ErrorCode::kOverloaded,
                       "no query slot became free within the request timeout",
                       "retry with backoff; [serve] max_concurrent_queries sets the slots");
    }
  }
  Worker* worker = free_.back();
  free_.pop_back();
  return Lease(this, worker);
}

void WorkerPool::Release(Worker* worker) {
  if (worker->interrupted) {
    // Outside the lock: connecting can take a while, and no other thread sees this worker yet.
    worker->warehouse.reset();
    worker->engine.reset();
    if (auto connected = connect_engine_(); connected.ok()) worker->engine = std::move(*connected);
    worker->interrupted = false;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(worker);
  }
  released_.notify_one();
}

}  // namespace strata::serve
