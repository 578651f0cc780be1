#include "base/partition.h"

#include <cstdio>

namespace strata {
namespace {

// Reads exactly `width` ASCII digits at text[pos]; nullopt otherwise.
std::optional<int> ReadDigits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool ReadSeparator(std::string_view text, std::size_t pos, char separator) {
  return pos < text.size() && text[pos] == separator;
}

// Parses the fields of `grain`'s format, range-checking each; nullopt on any mismatch.
std::optional<CivilTime> ParseFields(std::string_view text, Grain grain) {
  CivilTime civil;
  auto year = ReadDigits(text, 0, 4);
  if (!year || *year < 1) return std::nullopt;
  civil.year = *year;
  if (grain == Grain::kYear) return civil;
  if (!ReadSeparator(text, 4, '-')) return std::nullopt;
  auto month = ReadDigits(text, 5, 2);
  if (!month || *month < 1 || *month > 12) return std::nullopt;
  civil.month = *month;
  if (grain == Grain::kMonth) return civil;
  if (!ReadSeparator(text, 7, '-')) return std::nullopt;
  auto day = ReadDigits(text, 8, 2);
  if (!day || *day < 1 || *day > DaysInMonth(civil.year, civil.month)) return std::nullopt;
  civil.day = *day;
  if (grain == Grain::kDay) return civil;
  if (!ReadSeparator(text, 10, 'T')) return std::nullopt;
  auto hour = ReadDigits(text, 11, 2);
  if (!hour || *hour > 23) return std::nullopt;
  civil.hour = *hour;
  return civil;
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
  std::optional<CivilTime> civil = ParseFields(text, grain);
  if (civil) {
    PartitionKey key(grain, ToUnixSeconds(*civil));
    if (key.ToString() == text) return key;
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
  const CivilTime c = ToCivil(start_);
  char buffer[32];
  switch (grain_) {
    case Grain::kHour:
      std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d", c.year, c.month, c.day, c.hour);
      break;
    case Grain::kDay:
      std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d", c.year, c.month, c.day);
      break;
    case Grain::kMonth:
      std::snprintf(buffer, sizeof buffer, "%04d-%02d", c.year, c.month);
      break;
    case Grain::kYear:
      std::snprintf(buffer, sizeof buffer, "%04d", c.year);
      break;
  }
  return buffer;
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
