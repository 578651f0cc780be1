// Partition grains, canonical partition keys and their half-open windows of instants.
//
// A key names one period of the wall clock of its zone (UTC by default). Key formats (the
// seed's): hour "%Y-%m-%dT%H", day "%Y-%m-%d", month "%Y-%m", year "%Y". In any zone but UTC an
// hour key also carries the UTC offset of its hour, "%Y-%m-%dT%H%:z" ("2026-11-01T01-04:00" and
// "2026-11-01T01-05:00" are the two 1 a.m. hours of New York's fall-back day), so the repeated
// hour has two keys and a skipped hour none. Parsing is strict: a key is accepted only if
// formatting the parsed value gives back the same bytes, so "2026-04-7", "2025-02-29",
// "2026-04-07T24" and an hour with an offset its zone never had there are errors.
//
// A period's window is [the first instant its wall clock reads the period's start, the same for
// the next period): a local day lasts 23 or 25 hours across a daylight-saving change (23.5/24.5
// on Lord Howe), and a day the zone skipped (Pacific/Apia's 2011-12-30) has an empty window and
// so no key. Consecutive keys' windows tile the timeline. UTC keys use plain arithmetic; only a
// zoned key consults the tz database (base/time.h).
#pragma once

#include <compare>
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

// `instants` as the wall-clock times `zone`'s clocks read at its bounds, written as UTC values
// (what a naive TIMESTAMP holding that zone's wall clock compares with).
Window WallClockWindow(const Window& instants, const TimeZone& zone);

// One partition: a grain and the start of its window (always aligned to the grain).
class PartitionKey {
 public:
  // Strict canonical parse. Errors (kInvalidPartitionKey) name the text, the expected format and
  // an example.
  static Result<PartitionKey> Parse(std::string_view text, Grain grain,
                                    const TimeZone& zone = TimeZone::Utc());
  // The partition containing `t` (the --latest truncation).
  static PartitionKey Containing(Grain grain, UnixSeconds t,
                                 const TimeZone& zone = TimeZone::Utc());

  Grain grain() const { return grain_; }
  const TimeZone& zone() const { return zone_; }
  UnixSeconds start() const { return start_; }
  Window window() const { return {start_, Next().start_}; }
  // The wall-clock time the period starts at, in its zone ("2026-03-08 00:00" for a local day
  // even when that zone's midnight never happened).
  CivilTime LocalStart() const;
  std::string ToString() const;

  PartitionKey Next() const;
  PartitionKey Prev() const;
  // Partitions from this one to `later`, inclusive; empty when later < this.
  // REQUIRES: later.grain() == grain()
  std::vector<PartitionKey> RangeTo(const PartitionKey& later) const;

  friend bool operator==(const PartitionKey&, const PartitionKey&) = default;
  // Keys order by grain, then by start instant (keys of one model share its zone).
  friend std::strong_ordering operator<=>(const PartitionKey& a, const PartitionKey& b) {
    if (const auto by_grain = a.grain_ <=> b.grain_; by_grain != 0) return by_grain;
    return a.start_ <=> b.start_;
  }

 private:
  PartitionKey(Grain grain, UnixSeconds start, const TimeZone& zone)
      : grain_(grain), start_(start), zone_(zone) {}
  static PartitionKey ContainingInZone(Grain grain, UnixSeconds t, const TimeZone& zone);
  Grain grain_;
  UnixSeconds start_;
  TimeZone zone_;
};

// Groups sorted, de-duplicated keys into batches of at most `batch_size` consecutive keys; a gap
// (a key that is not the Next() of the previous one) always starts a new batch.
// REQUIRES: batch_size >= 1; keys sorted ascending without duplicates.
std::vector<std::vector<PartitionKey>> GroupIntoBatches(const std::vector<PartitionKey>& keys,
                                                        std::uint32_t batch_size);

}  // namespace strata
