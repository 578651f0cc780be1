#include "base/partition.h"

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

}  // namespace

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

Result<PartitionKey> PartitionKey::Parse(std::string_view text, Grain grain) {
  // The key's shape is exactly its grain's format: that precision, a 'T' before the hour, no
  // zone. Then the canonical check the header promises: formatting the key gives back the text.
  const std::optional<TimeText> time = ParseTimeText(text);
  if (time && time->precision == PrecisionOf(grain) && time->separator == 'T' && !time->zulu) {
    PartitionKey key(grain, ToUnixSeconds(time->civil));
    if (key.ToString() == text) {
      // The window's end must be a timestamp too: the last period of 9999 ends in year 10000,
      // which ISO 8601 text (and the warehouses' TIMESTAMP) cannot hold.
      if (ToCivil(key.Next().start()).year <= 9999) return key;
      return MakeError(ErrorCode::kInvalidPartitionKey,
                       "partition key \"" + std::string(text) + "\" is out of range: its " +
                           std::string(GrainName(grain)) + " ends in the year 10000",
                       "use a key whose window ends by 9999-12-31T23:59:59");
    }
  }
  return MakeError(ErrorCode::kInvalidPartitionKey,
                   "invalid " + std::string(GrainName(grain)) + " partition key \"" +
                       std::string(text) + "\": expected format " + std::string(GrainFormat(grain)),
                   "use a real calendar value with zero padding, e.g. \"" +
                       std::string(GrainExample(grain)) + "\"");
}

PartitionKey PartitionKey::Containing(Grain grain, UnixSeconds t) {
  return PartitionKey(grain, ToUnixSeconds(Truncate(grain, ToCivil(t))));
}

std::string PartitionKey::ToString() const {
  return FormatTimeText({ToCivil(start_), PrecisionOf(grain_), 'T', false});
}

PartitionKey PartitionKey::Next() const {
  CivilTime c = ToCivil(start_);
  switch (grain_) {
    case Grain::kHour:
      return PartitionKey(grain_, start_ + 3600);
    case Grain::kDay:
      return PartitionKey(grain_, start_ + 86400);
    case Grain::kMonth:
      if (++c.month > 12) {
        c.month = 1;
        ++c.year;
      }
      break;
    case Grain::kYear:
      ++c.year;
      break;
  }
  return PartitionKey(grain_, ToUnixSeconds(c));
}

PartitionKey PartitionKey::Prev() const {
  CivilTime c = ToCivil(start_);
  switch (grain_) {
    case Grain::kHour:
      return PartitionKey(grain_, start_ - 3600);
    case Grain::kDay:
      return PartitionKey(grain_, start_ - 86400);
    case Grain::kMonth:
      if (--c.month < 1) {
        c.month = 12;
        --c.year;
      }
      break;
    case Grain::kYear:
      --c.year;
      break;
  }
  return PartitionKey(grain_, ToUnixSeconds(c));
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
