#include "serve/deadline_watcher.h"

#include <algorithm>
#include <chrono>

#include "base/result.h"
#include "base/time.h"

namespace strata::serve {

DeadlineWatcher::DeadlineWatcher() : thread_([this] { Watch(); }) {}

DeadlineWatcher::~DeadlineWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::uint64_t DeadlineWatcher::Start(std::int64_t deadline_millis) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t id = next_id_++;
  Entry& entry = entries_[id];
  entry.deadline_millis = deadline_millis;
  entry.fired = fire_all_;
  changed_.notify_all();
  return id;
}

bool DeadlineWatcher::Add(std::uint64_t id, warehouse::Connection* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(id);
  STRATA_CHECK(found != entries_.end());
  found->second.connections.push_back(connection);
  if (found->second.fired) connection->Interrupt();
  return !found->second.fired;
}

bool DeadlineWatcher::Finish(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(id);
  STRATA_CHECK(found != entries_.end());
  const bool fired = found->second.fired;
  entries_.erase(found);
  return fired;
}

void DeadlineWatcher::FireAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  fire_all_ = true;
  for (auto& [id, entry] : entries_) Fire(entry);
}

void DeadlineWatcher::FireNow(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(id);
  if (found == entries_.end()) return;
  Fire(found->second);
  changed_.notify_all();
}

void DeadlineWatcher::Fire(Entry& entry) {
  entry.fired = true;
  for (warehouse::Connection* connection : entry.connections) connection->Interrupt();
}

void DeadlineWatcher::Watch() {
  constexpr std::int64_t kRepeatMillis = 20;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const std::int64_t now = MonotonicMillis();
    std::int64_t next = now + 1000;
    for (auto& [id, entry] : entries_) {
      if (entry.fired || entry.deadline_millis <= now) {
        Fire(entry);  // again while it runs: see the header
        next = std::min(next, now + kRepeatMillis);
      } else if (entry.deadline_millis < next) {
        next = entry.deadline_millis;
      }
    }
    changed_.wait_for(lock, std::chrono::milliseconds(next - now));
  }
}

}  // namespace strata::serve
