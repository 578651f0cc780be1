// The query port's result cache: repeated dashboard queries answered without DuckDB (issue 12).
//
// Key: the token's role and the query body in canonical form (parsed as query::Answer parses
// it and printed again, so key order and whitespace do not split one query into two keys).
//
// Validity: an entry records the stamps (rollup::ManifestStamp) of every rollup manifest of the
// model, taken *before* its query ran, and answers only while every stamp is still the same.
// Any publish (a rebuild, an append, a compaction; by this server or another process) changes
// one, so the entry is a miss from then on and is dropped. A publish during the query leaves
// the entry with the older stamps: a miss next time, never a stale hit.
//
// Only answers read wholly from rollup files are stored (the caller's rule, see
// query_api.cc): live answers and answers with a live tail read the warehouse, whose data can
// change without any stamp moving.
//
// Bounded: the bytes of the keys and bodies, plus kEntryOverhead per entry, stay within the
// capacity; the least recently used entries are evicted first. An answer larger than the
// capacity is not stored. Capacity 0 disables the cache.
//
// The stored body is the response without its final meta.duration_ms value: a hit is answered
// with the duration of the lookup (WithDuration).
//
// Thread-safe: every member may be called from any HTTP thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rollup/store.h"

namespace strata::serve {

// The stamp of each of the model's rollups, in declaration order (nullopt: never built).
using StoreStamps = std::vector<std::optional<rollup::ManifestStamp>>;

// The key of `body` asked with `role`; nullopt when the body is not JSON (query::Answer refuses
// it, and refusals are not cached).
std::optional<std::string> ResultCacheKey(std::string_view role, std::string_view body);

// A response body of query::QueryResponse::ToJson split before its duration: the text up to and
// including `"duration_ms":`; nullopt when the body does not end with that member.
std::optional<std::string> WithoutDuration(std::string_view body);
// `prefix` (WithoutDuration) completed with `duration_ms`.
std::string WithDuration(std::string_view prefix, double duration_ms);

class ResultCache {
 public:
  // Bookkeeping bytes charged per entry on top of its key and body.
  static constexpr std::size_t kEntryOverhead = 256;

  struct Entry {
    std::string body_prefix;  // WithoutDuration of the response body
    std::string rollup;       // the rollups that answered, as the access log names them
    std::shared_ptr<const std::string> shape;  // the query's, for the access log (JSON text)
  };
  struct Stats {
    std::uint64_t hits = 0, misses = 0, stale = 0, evictions = 0, inserts = 0;
    std::size_t entries = 0, bytes = 0;
  };

  explicit ResultCache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}
  ResultCache(const ResultCache&) = delete;
  ResultCache& operator=(const ResultCache&) = delete;

  bool enabled() const { return capacity_ > 0; }
  std::size_t capacity() const { return capacity_; }

  // The entry of `key` when it was stored under exactly `stamps`; an entry stored under other
  // stamps is removed (stale). Counts a hit or a miss.
  std::optional<Entry> Find(const std::string& key, const StoreStamps& stamps);
  // Stores (or replaces) the entry of `key`, evicting the least recently used as needed.
  void Insert(const std::string& key, StoreStamps stamps, Entry entry);
  void Clear();
  Stats stats() const;

 private:
  struct Slot {
    std::string key;
    StoreStamps stamps;
    Entry entry;
    std::size_t bytes = 0;
  };
  using Lru = std::list<Slot>;  // most recently used first

  void EraseLocked(Lru::iterator slot);

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  Lru lru_;
  std::unordered_map<std::string_view, Lru::iterator> index_;  // views into the slots' keys
  Stats stats_;
};

}  // namespace strata::serve
