#include "serve/result_cache.h"

#include <nlohmann/json.hpp>

#include "semantic/query.h"

namespace strata::serve {

namespace {
constexpr std::string_view kDurationMember = "\"duration_ms\":";
}  // namespace

std::optional<std::string> ResultCacheKey(std::string_view role, std::string_view body) {
  // What semantic::ParseQueryJson refuses before parsing is not parsed here either (a deep
  // document would overflow the stack of the printer below).
  if (body.find('\0') != std::string_view::npos ||
      semantic::JsonNestedDeeperThan(body, semantic::kMaxQueryJsonDepth)) {
    return std::nullopt;
  }
  // The same parse as semantic::ParseQueryJson: one parsed document is one query.
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  std::string key(role);
  key += '\n';
  key += parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return key;
}

std::optional<std::string> WithoutDuration(std::string_view body) {
  const std::size_t member = body.rfind(kDurationMember);
  if (member == std::string_view::npos) return std::nullopt;
  const std::string_view value = body.substr(member + kDurationMember.size());
  // The value is the last one of meta, the last member of the document: "<number>}}".
  if (value.size() < 3 || value.substr(value.size() - 2) != "}}") return std::nullopt;
  for (const char c : value.substr(0, value.size() - 2)) {
    const bool numeric =
        (c >= '0' && c <= '9') || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+';
    if (!numeric) return std::nullopt;
  }
  return std::string(body.substr(0, member + kDurationMember.size()));
}

std::string WithDuration(std::string_view prefix, double duration_ms) {
  std::string body(prefix);
  body += nlohmann::json(duration_ms).dump();
  body += "}}";
  return body;
}

std::optional<ResultCache::Entry> ResultCache::Find(const std::string& key,
                                                    const StoreStamps& stamps) {
  if (!enabled()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = index_.find(key);
  if (found == index_.end()) {
    ++stats_.misses;
    return std::nullopt;
  }
  if (found->second->stamps != stamps) {
    ++stats_.stale;
    ++stats_.misses;
    EraseLocked(found->second);
    return std::nullopt;
  }
  lru_.splice(lru_.begin(), lru_, found->second);
  ++stats_.hits;
  return found->second->entry;
}

void ResultCache::Insert(const std::string& key, StoreStamps stamps, Entry entry) {
  const std::size_t bytes = key.size() + entry.body_prefix.size() + entry.rollup.size() +
                            stamps.size() * sizeof(rollup::ManifestStamp) + kEntryOverhead;
  if (!enabled() || bytes > capacity_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto found = index_.find(key); found != index_.end()) EraseLocked(found->second);
  while (!lru_.empty() && stats_.bytes + bytes > capacity_) {
    EraseLocked(std::prev(lru_.end()));
    ++stats_.evictions;
  }
  lru_.push_front(Slot{key, std::move(stamps), std::move(entry), bytes});
  index_.emplace(lru_.front().key, lru_.begin());
  stats_.bytes += bytes;
  ++stats_.entries;
  ++stats_.inserts;
}

void ResultCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  index_.clear();
  lru_.clear();
  stats_.bytes = 0;
  stats_.entries = 0;
}

ResultCache::Stats ResultCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void ResultCache::EraseLocked(Lru::iterator slot) {
  stats_.bytes -= slot->bytes;
  --stats_.entries;
  index_.erase(slot->key);
  lru_.erase(slot);
}

}  // namespace strata::serve
