// Partition grains, canonical partition keys and their half-open UTC windows.
//
// Key formats (exactly the seed's): hour "%Y-%m-%dT%H", day "%Y-%m-%d", month "%Y-%m",
// year "%Y". Parsing is strict: a key is accepted only if formatting the parsed value gives back
// the same bytes, so "2026-04-7", "2025-02-29" and "2026-04-07T24" are errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"

namespace strata {

enum class Grain { kHour, kDay, kMonth, kYear };

std::string_view GrainName(Grain grain);  // "hour" | "day" | "month" | "year"
std::optional<Grain> ParseGrain(std::string_view name);
std::string_view GrainFormat(Grain grain);   // "%Y-%m-%dT%H" ...
std::string_view GrainExample(Grain grain);  // "2026-04-07T13" ...

// A half-open UTC window [start, end).
struct Window {
  UnixSeconds start = 0;
  UnixSeconds end = 0;
  bool Contains(UnixSeconds t) const { return start <= t && t < end; }
  friend bool operator==(const Window&, const Window&) = default;
};

// One partition: a grain and the start of its window (always aligned to the grain).
class PartitionKey {
 public:
  // Strict canonical parse. Errors (kInvalidPartitionKey) name the text, the expected format and
  // an example.
  static Result<PartitionKey> Parse(std::string_view text, Grain grain);
  // The partition containing `t` (the --latest truncation).
  static PartitionKey Containing(Grain grain, UnixSeconds t);

  Grain grain() const { return grain_; }
  UnixSeconds start() const { return start_; }
  Window window() const { return {start_, Next().start_}; }
  std::string ToString() const;

  PartitionKey Next() const;
  PartitionKey Prev() const;
  // Partitions from this one to `later`, inclusive; empty when later < this.
  // REQUIRES: later.grain() == grain()
  std::vector<PartitionKey> RangeTo(const PartitionKey& later) const;

  friend bool operator==(const PartitionKey&, const PartitionKey&) = default;
  friend auto operator<=>(const PartitionKey&, const PartitionKey&) = default;

 private:
  PartitionKey(Grain grain, UnixSeconds start) : grain_(grain), start_(start) {}
  Grain grain_;
  UnixSeconds start_;
};

// Groups sorted, de-duplicated keys into batches of at most `batch_size` consecutive keys; a gap
// (a key that is not the Next() of the previous one) always starts a new batch.
// REQUIRES: batch_size >= 1; keys sorted ascending without duplicates.
std::vector<std::vector<PartitionKey>> GroupIntoBatches(const std::vector<PartitionKey>& keys,
                                                        std::uint32_t batch_size);

}  // namespace strata
