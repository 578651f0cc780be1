// The threads an HTTP port runs its connections on (server.cc hands them to cpp-httplib).
//
// A fixed set of threads that run submitted tasks. A task goes to the thread that became idle
// last (LIFO), so under a load that keeps k threads busy the same k threads take every task,
// and the memory a thread keeps for itself once it has run — its touched stack pages, malloc's
// per-thread cache and the arena it is bound to — is that of those k threads, not of the whole
// pool. (cpp-httplib's own pool wakes its threads through one condition variable, which walks
// through every thread in turn: a server sized for a few hundred slow clients grew by each
// thread's share while 16 clients queried it — issue 12's soak.) Tasks submitted while no
// thread is idle wait, and run in submission order.
//
// Thread safety: Submit, Shutdown and the accessors may be called from any thread; a task must
// not call Shutdown.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::serve {

class LifoThreadPool {
 public:
  // Starts `threads` threads. REQUIRES: threads >= 1.
  explicit LifoThreadPool(std::size_t threads);
  LifoThreadPool(const LifoThreadPool&) = delete;
  LifoThreadPool& operator=(const LifoThreadPool&) = delete;
  ~LifoThreadPool();  // Shutdown()

  // Runs `task` on the most recently idle thread, or queues it when none is idle. A task
  // submitted after Shutdown began is dropped.
  void Submit(std::function<void()> task);
  // Runs every task already submitted, then joins the threads. Idempotent.
  void Shutdown();

  std::size_t size() const { return slots_.size(); }
  // Threads waiting for a task right now.
  std::size_t idle() const;

 private:
  struct Slot {
    std::condition_variable wake;
    std::function<void()> task;  // set by Submit for this idle thread
    std::thread thread;
  };
  void Run(Slot& slot);

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> idle_;  // the back went idle last
  std::deque<std::function<void()>> waiting_;
  bool shutdown_ = false;
  std::once_flag joined_;
};

}  // namespace strata::serve
