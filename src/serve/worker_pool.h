// The connections the query API answers on. query::Answer uses only the connections of its
// context (query_engine.h, thread safety), so each query in flight holds one Worker: a rollup
// engine connection and, opened on its first live query, a warehouse connection. The pool has
// `workers` of them, which caps the queries in flight; at most `queue` more requests wait for
// one, and any beyond that are refused at once (kOverloaded, 503), as is a wait that outlasts
// its deadline.
//
// Thread safety: Acquire and the Lease destructor are thread-safe; a Lease and its Worker
// belong to the thread that acquired it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::serve {

struct Worker {
  std::unique_ptr<warehouse::Connection> engine;     // null when the engine could not connect
  std::unique_ptr<warehouse::Connection> warehouse;  // null until the first live query
  // Set when a connection was interrupted (a timeout, the shutdown): both connections are
  // dropped when the lease ends, so an interrupt never reaches the next query.
  bool interrupted = false;
};

class WorkerPool {
 public:
  // `connect_engine` makes a worker's engine connection (called for each worker up front and
  // again after an interrupt); an error leaves that worker without one (its queries go live).
  // REQUIRES: workers >= 1.
  WorkerPool(std::size_t workers, std::size_t queue,
             std::function<Result<std::unique_ptr<warehouse::Connection>>()> connect_engine);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    Worker& worker() { return *worker_; }

   private:
    friend class WorkerPool;
    Lease(WorkerPool* pool, Worker* worker) : pool_(pool), worker_(worker) {}
    WorkerPool* pool_;
    Worker* worker_;
  };

  // A free worker, waiting until `deadline_millis` (MonotonicMillis) when none is free and fewer
  // than `queue` requests already wait. kOverloaded when the queue is full or the deadline passed.
  Result<Lease> Acquire(std::int64_t deadline_millis);

  std::size_t size() const { return workers_.size(); }

 private:
  void Release(Worker* worker);

  std::function<Result<std::unique_ptr<warehouse::Connection>>()> connect_engine_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::size_t queue_;
  std::mutex mutex_;
  std::condition_variable released_;
  std::vector<Worker*> free_;
  std::size_t waiting_ = 0;
};

}  // namespace strata::serve
