#include "base/partition.h"

#include <algorithm>
#include <optional>

namespace strata {
namespace {

// The precision of `grain`'s key format.
TimePrecision PrecisionOf(Grain grain) {
  switch (grain) {
    case Grain::kHour:
      return TimePrecision::kHour;
    case Grain::kDay:
      return TimePrecision::kDay;
    case Grain::kMonth:
      return TimePrecision::kMonth;
    case Grain::kYear:
      return TimePrecision::kYear;
  }
  return TimePrecision::kDay;
}

CivilTime Truncate(Grain grain, CivilTime civil) {
  civil.minute = 0;
  civil.second = 0;
  switch (grain) {
    case Grain::kYear:
      civil.month = 1;
      [[fallthrough]];
    case Grain::kMonth:
      civil.day = 1;
      [[fallthrough]];
    case Grain::kDay:
      civil.hour = 0;
      [[fallthrough]];
    case Grain::kHour:
      break;
  }
  return civil;
}

// `civil` (truncated to `grain`) moved by `steps` (-1 or 1) periods of `grain`.
CivilTime StepCivil(Grain grain, CivilTime civil, int steps) {
  switch (grain) {
    case Grain::kHour:
      return ToCivil(ToUnixSeconds(civil) + std::int64_t{3600} * steps);
    case Grain::kDay:
      return ToCivil(ToUnixSeconds(civil) + std::int64_t{86400} * steps);
    case Grain::kMonth:
      civil.month += steps;
      if (civil.month > 12) {
        civil.month = 1;
        ++civil.year;
      } else if (civil.month < 1) {
        civil.month = 12;
        --civil.year;
      }
      return civil;
    case Grain::kYear:
      civil.year += steps;
      return civil;
  }
  return civil;
}

// "+05:30" / "-04:00" at the end of a zoned hour key.
constexpr std::size_t kOffsetLength = 6;

std::optional<int> ParseOffsetSuffix(std::string_view text) {
  if (text.size() < kOffsetLength) return std::nullopt;
  const std::string_view suffix = text.substr(text.size() - kOffsetLength);
  const auto digit = [&](std::size_t i) { return suffix[i] >= '0' && suffix[i] <= '9'; };
  if ((suffix[0] != '+' && suffix[0] != '-') || !digit(1) || !digit(2) || suffix[3] != ':' ||
      !digit(4) || !digit(5)) {
    return std::nullopt;
  }
  const int hours = (suffix[1] - '0') * 10 + (suffix[2] - '0');
  const int minutes = (suffix[4] - '0') * 10 + (suffix[5] - '0');
  if (hours > 23 || minutes > 59) return std::nullopt;
  const int offset = hours * 3600 + minutes * 60;
  return suffix[0] == '-' ? -offset : offset;
}

// The key of `grain` whose wall-clock period starts at `local` (and, for a zoned hour, whose
// offset is `offset`), or nullopt when the zone has no such period.
std::optional<PartitionKey> Find(Grain grain, const CivilTime& local, std::optional<int> offset,
                                 const TimeZone& zone) {
  if (zone.is_utc()) return PartitionKey::Containing(grain, ToUnixSeconds(local), zone);
  const UnixSeconds begin = zone.FirstInstantAtOrAfter(local);
  if (begin >= zone.FirstInstantAtOrAfter(StepCivil(grain, local, 1))) return std::nullopt;
  if (grain != Grain::kHour) {
    const PartitionKey key = PartitionKey::Containing(grain, begin, zone);
    if (ToUnixSeconds(key.LocalStart()) != ToUnixSeconds(local)) return std::nullopt;
    return key;
  }
  // The wall-clock hour may have up to two keys (the repeated hour): walk its instants.
  PartitionKey key = PartitionKey::Containing(grain, begin, zone);
  for (int i = 0; i < 4; ++i, key = key.Next()) {
    const UnixSeconds wall = ToUnixSeconds(key.LocalStart());
    if (wall > ToUnixSeconds(local)) break;
    if (wall == ToUnixSeconds(local) && zone.OffsetAt(key.start()) == *offset) return key;
  }
  return std::nullopt;
}

}  // namespace

Window WallClockWindow(const Window& instants, const TimeZone& zone) {
  return {ToUnixSeconds(zone.ToLocal(instants.start)), ToUnixSeconds(zone.ToLocal(instants.end))};
}

std::string_view GrainName(Grain grain) {
  switch (grain) {
    case Grain::kHour:
      return "hour";
    case Grain::kDay:
      return "day";
    case Grain::kMonth:
      return "month";
    case Grain::kYear:
      return "year";
  }
  return "day";
}

std::optional<Grain> ParseGrain(std::string_view name) {
  if (name == "hour") return Grain::kHour;
  if (name == "day") return Grain::kDay;
  if (name == "month") return Grain::kMonth;
  if (name == "year") return Grain::kYear;
  return std::nullopt;
}

std::string_view GrainFormat(Grain grain) {
  switch (grain) {
    case Grain::kHour:
      return "%Y-%m-%dT%H";
    case Grain::kDay:
      return "%Y-%m-%d";
    case Grain::kMonth:
      return "%Y-%m";
    case Grain::kYear:
      return "%Y";
  }
  return "%Y-%m-%d";
}

std::string_view GrainExample(Grain grain) {
  switch (grain) {
    case Grain::kHour:
      return "2026-04-07T13";
    case Grain::kDay:
      return "2026-04-07";
    case Grain::kMonth:
      return "2026-04";
    case Grain::kYear:
      return "2026";
  }
  return "2026-04-07";
}

Result<PartitionKey> PartitionKey::Parse(std::string_view text, Grain grain, const TimeZone& zone) {
  // The key's shape is exactly its grain's format: that precision, a 'T' before the hour, no
  // zone (a zoned hour's offset is split off first). Then the canonical check the header
  // promises: formatting the key gives back the text.
  std::string_view local = text;
  std::optional<int> offset;
  if (grain == Grain::kHour && !zone.is_utc()) {
    offset = ParseOffsetSuffix(text);
    if (offset) local.remove_suffix(kOffsetLength);
  }
  const std::optional<TimeText> time = ParseTimeText(local);
  const bool shaped = time && time->precision == PrecisionOf(grain) && time->separator == 'T' &&
                      !time->zulu && (offset.has_value() || grain != Grain::kHour || zone.is_utc());
  if (shaped) {
    std::optional<PartitionKey> key = Find(grain, time->civil, offset, zone);
    if (!key) {
      return MakeError(
          ErrorCode::kInvalidPartitionKey,
          "partition key \"" + std::string(text) + "\" names no " + std::string(GrainName(grain)) +
              " of time zone " + std::string(zone.name()),
          "the zone skipped that time or never had that offset then; list keys "
          "with `strata partitions`, e.g. \"" +
              PartitionKey::Containing(grain, ToUnixSeconds(time->civil), zone).ToString() + "\"");
    }
    if (key->ToString() == text) {
      // The window's end must be a timestamp too: the last period of 9999 ends in year 10000,
      // which ISO 8601 text (and the warehouses' TIMESTAMP) cannot hold.
      if (ToCivil(key->Next().start()).year <= 9999) return *key;
      return MakeError(ErrorCode::kInvalidPartitionKey,
                       "partition key \"" + std::string(text) + "\" is out of range: its " +
                           std::string(GrainName(grain)) + " ends in the year 10000",
                       "use a key whose window ends by 9999-12-31T23:59:59");
    }
  }
  const bool zoned_hour = grain == Grain::kHour && !zone.is_utc();
  return MakeError(ErrorCode::kInvalidPartitionKey,
                   "invalid " + std::string(GrainName(grain)) + " partition key \"" +
                       std::string(text) + "\": expected format " +
                       std::string(GrainFormat(grain)) + (zoned_hour ? "%:z" : "") +
                       (zone.is_utc() ? "" : " in time zone " + std::string(zone.name())),
                   "use a real calendar value with zero padding, e.g. \"" +
                       std::string(GrainExample(grain)) + (zoned_hour ? "-04:00" : "") + "\"");
}

PartitionKey PartitionKey::Containing(Grain grain, UnixSeconds t, const TimeZone& zone) {
  if (!zone.is_utc()) return ContainingInZone(grain, t, zone);
  return PartitionKey(grain, ToUnixSeconds(Truncate(grain, ToCivil(t))), zone);
}

PartitionKey PartitionKey::ContainingInZone(Grain grain, UnixSeconds t, const TimeZone& zone) {
  if (grain == Grain::kHour) {
    // An hour of the wall clock under one offset: [the hour's start, its end), cut by the span
    // of that offset (a transition inside the hour starts a new key).
    const int offset = zone.OffsetAt(t);
    const UnixSeconds hour = ToUnixSeconds(Truncate(grain, ToCivil(t + offset))) - offset;
    return PartitionKey(grain, std::max(hour, zone.OffsetSpan(t).first), zone);
  }
  // The period whose window holds t: start from t's wall-clock period and step back while its
  // first instant is after t (a wall clock turned back over the period's start).
  CivilTime period = Truncate(grain, zone.ToLocal(t));
  UnixSeconds start = zone.FirstInstantAtOrAfter(period);
  for (int i = 0; i < 4 && start > t; ++i) {
    period = StepCivil(grain, period, -1);
    start = zone.FirstInstantAtOrAfter(period);
  }
  // And forward while the next period has already begun (a wall clock turned forward past the
  // next period's start, which then begins at the transition).
  for (int i = 0; i < 4; ++i) {
    const UnixSeconds next = zone.FirstInstantAtOrAfter(StepCivil(grain, period, 1));
    if (next > t) break;
    period = StepCivil(grain, period, 1);
    start = next;
  }
  return PartitionKey(grain, start, zone);
}

CivilTime PartitionKey::LocalStart() const {
  if (zone_.is_utc()) return ToCivil(start_);
  // A period that begins at a transition (its midnight skipped) still starts at its midnight on
  // the wall clock: the first instant's wall time is in the period, at or after that midnight.
  return Truncate(grain_, zone_.ToLocal(start_));
}

std::string PartitionKey::ToString() const {
  std::string local = FormatTimeText({LocalStart(), PrecisionOf(grain_), 'T', false});
  if (grain_ != Grain::kHour || zone_.is_utc()) return local;
  return local + FormatUtcOffset(zone_.OffsetAt(start_));
}

PartitionKey PartitionKey::Next() const {
  if (!zone_.is_utc()) {
    if (grain_ == Grain::kHour) {
      const int offset = zone_.OffsetAt(start_);
      const UnixSeconds hour_end = ToUnixSeconds(LocalStart()) + 3600 - offset;
      return ContainingInZone(grain_, std::min(hour_end, zone_.OffsetSpan(start_).second), zone_);
    }
    // The next period with a window: a skipped day (start == next start) is passed over.
    CivilTime period = LocalStart();
    for (int i = 0; i < 4; ++i) {
      period = StepCivil(grain_, period, 1);
      const UnixSeconds start = zone_.FirstInstantAtOrAfter(period);
      if (start > start_) return ContainingInZone(grain_, start, zone_);
    }
    return ContainingInZone(grain_, zone_.FirstInstantAtOrAfter(period), zone_);
  }
  switch (grain_) {
    case Grain::kHour:
      return PartitionKey(grain_, start_ + 3600, zone_);
    case Grain::kDay:
      return PartitionKey(grain_, start_ + 86400, zone_);
    case Grain::kMonth:
    case Grain::kYear:
      break;
  }
  return PartitionKey(grain_, ToUnixSeconds(StepCivil(grain_, ToCivil(start_), 1)), zone_);
}

PartitionKey PartitionKey::Prev() const {
  if (!zone_.is_utc()) return ContainingInZone(grain_, start_ - 1, zone_);
  switch (grain_) {
    case Grain::kHour:
      return PartitionKey(grain_, start_ - 3600, zone_);
    case Grain::kDay:
      return PartitionKey(grain_, start_ - 86400, zone_);
    case Grain::kMonth:
    case Grain::kYear:
      break;
  }
  return PartitionKey(grain_, ToUnixSeconds(StepCivil(grain_, ToCivil(start_), -1)), zone_);
}

std::vector<PartitionKey> PartitionKey::RangeTo(const PartitionKey& later) const {
  STRATA_CHECK(later.grain_ == grain_);
  std::vector<PartitionKey> keys;
  for (PartitionKey key = *this; key.start_ <= later.start_; key = key.Next()) keys.push_back(key);
  return keys;
}

std::vector<std::vector<PartitionKey>> GroupIntoBatches(const std::vector<PartitionKey>& keys,
                                                        std::uint32_t batch_size) {
  STRATA_CHECK(batch_size >= 1);
  std::vector<std::vector<PartitionKey>> batches;
  for (const PartitionKey& key : keys) {
    const bool extends = !batches.empty() && batches.back().size() < batch_size &&
                         batches.back().back().Next() == key;
    if (!extends) batches.emplace_back();
    batches.back().push_back(key);
  }
  return batches;
}

}  // namespace strata
