// Per-request deadlines for the query API: a request registers the connections its query runs
// on; when its deadline passes (or FireAll is called, at the end of a shutdown's drain) each of
// them is interrupted (warehouse::Connection::Interrupt), so the warehouse stops the query and
// query::Answer returns. A fired entry's connections are interrupted again every 20 ms until it
// finishes: an interrupt that lands just before a statement starts is lost (DuckDB clears it
// when a query begins), and the query's connections are discarded afterwards anyway
// (worker_pool.h), so a repeated interrupt can do no harm. The same idea as
// warehouse/cancellation.h, with one deadline per request instead of one flag per process.
//
// Thread safety: every member function is thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "warehouse/warehouse.h"

namespace strata::serve {

class DeadlineWatcher {
 public:
  DeadlineWatcher();
  ~DeadlineWatcher();
  DeadlineWatcher(const DeadlineWatcher&) = delete;
  DeadlineWatcher& operator=(const DeadlineWatcher&) = delete;

  // A new entry that fires at `deadline_millis` (MonotonicMillis). Returns its id.
  std::uint64_t Start(std::int64_t deadline_millis);
  // Adds a connection to the entry `id`; interrupted at once when the entry already fired.
  // Returns false when it had fired (the caller should not start work on it).
  // REQUIRES: `id` was started and not finished; the connection lives until Finish(id).
  bool Add(std::uint64_t id, warehouse::Connection* connection);
  // Removes the entry; true when it fired (its connections were interrupted).
  bool Finish(std::uint64_t id);
  // Fires every entry now (and every entry started later).
  void FireAll();
  // Fires the entry `id` now (a client's cancel); nothing when it has finished.
  void FireNow(std::uint64_t id);

 private:
  struct Entry {
    std::int64_t deadline_millis = 0;
    bool fired = false;
    std::vector<warehouse::Connection*> connections;
  };
  void Watch();
  static void Fire(Entry& entry);

  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool fire_all_ = false;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Entry> entries_;
  std::thread thread_;
};

}  // namespace strata::serve
