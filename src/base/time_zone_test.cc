// Time zones and zoned partition keys: property tests over the zones of issue 42, every grain.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/partition.h"
#include "base/time.h"

namespace strata {
namespace {

TimeZone Zone(const char* name) {
  Result<TimeZone> zone = TimeZone::Find(name);
  EXPECT_TRUE(zone.ok()) << name;
  return zone.ok() ? *zone : TimeZone::Utc();
}

UnixSeconds At(const char* iso) { return *ParseIso8601(iso); }

const char* const kZones[] = {"America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
                              "Asia/Kolkata",     "Pacific/Apia",  "UTC"};
const Grain kGrains[] = {Grain::kHour, Grain::kDay, Grain::kMonth, Grain::kYear};

TEST(TimeZoneTest, UnknownNamesAreRefusedWithAHint) {
  Result<TimeZone> zone = TimeZone::Find("Europe/Berln", "[strategy] timezone");
  ASSERT_FALSE(zone.ok());
  EXPECT_EQ(zone.error().code, ErrorCode::kInvalidTimeZone);
  EXPECT_NE(zone.error().message.find("[strategy] timezone \"Europe/Berln\""), std::string::npos);
  EXPECT_NE(zone.error().hint.find("Europe/Berlin"), std::string::npos);
  EXPECT_FALSE(TimeZone::Find("").ok());
  EXPECT_FALSE(TimeZone::Find("europe/berlin").ok());
  EXPECT_TRUE(TimeZone::Find("UTC")->is_utc());
}

TEST(TimeZoneTest, OffsetsAndLocalTimes) {
  const TimeZone ny = Zone("America/New_York");
  EXPECT_EQ(ny.OffsetAt(At("2026-01-15T12:00:00Z")), -5 * 3600);
  EXPECT_EQ(ny.OffsetAt(At("2026-07-15T12:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny.FormatInstant(At("2026-03-08T07:00:00Z")), "2026-03-08T03:00:00-04:00");
  EXPECT_EQ(Zone("Asia/Kolkata").FormatInstant(0), "1970-01-01T05:30:00+05:30");
  EXPECT_EQ(TimeZone::Utc().FormatInstant(0), "1970-01-01T00:00:00Z");
  // 02:30 on the spring-forward day never happens: the first instant at or after it is 03:00 EDT.
  EXPECT_EQ(ny.FirstInstantAtOrAfter({2026, 3, 8, 2, 30, 0}), At("2026-03-08T07:00:00Z"));
  // 01:30 on the fall-back day happens twice: the first is EDT.
  EXPECT_EQ(ny.FirstInstantAtOrAfter({2026, 11, 1, 1, 30, 0}), At("2026-11-01T05:30:00Z"));
  EXPECT_TRUE(ny.WholeHourOffsets(At("2026-01-01T00:00:00Z"), At("2027-01-01T00:00:00Z")));
  EXPECT_FALSE(Zone("Asia/Kolkata").WholeHourOffsets(0, 86400));
  EXPECT_FALSE(ny.FixedOffset(At("2026-03-01T00:00:00Z"), At("2026-04-01T00:00:00Z")));
  EXPECT_TRUE(ny.FixedOffset(At("2026-04-01T00:00:00Z"), At("2026-05-01T00:00:00Z")));
}

// Keys from `first` on, `count` of them, in `zone` at `grain`.
std::vector<PartitionKey> Walk(Grain grain, const TimeZone& zone, UnixSeconds from, int count) {
  std::vector<PartitionKey> keys{PartitionKey::Containing(grain, from, zone)};
  while (static_cast<int>(keys.size()) < count) keys.push_back(keys.back().Next());
  return keys;
}

TEST(TimeZoneTest, ConsecutiveWindowsTileTheTimelineAndKeysRoundTrip) {
  for (const char* name : kZones) {
    const TimeZone zone = Zone(name);
    for (const Grain grain : kGrains) {
      const int count = grain == Grain::kHour ? 24 * 800 : grain == Grain::kDay ? 800 : 40;
      const std::vector<PartitionKey> keys = Walk(grain, zone, At("2010-06-01T00:00:00Z"), count);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const PartitionKey& key = keys[i];
        SCOPED_TRACE(std::string(name) + " " + key.ToString());
        const Window window = key.window();
        ASSERT_LT(window.start, window.end);
        if (i + 1 < keys.size()) {
          ASSERT_EQ(window.end, keys[i + 1].start()) << "gap or overlap";
          ASSERT_LT(key, keys[i + 1]);
          if (grain != Grain::kHour) {
            ASSERT_LT(key.ToString(), keys[i + 1].ToString());
          }
        }
        if (i > 0) {
          ASSERT_EQ(key.Prev(), keys[i - 1]);
        }
        // key -> text -> key, and every instant of the window maps back to the key.
        Result<PartitionKey> parsed = PartitionKey::Parse(key.ToString(), grain, zone);
        ASSERT_TRUE(parsed.ok()) << parsed.error().message;
        ASSERT_EQ(*parsed, key);
        ASSERT_EQ(PartitionKey::Containing(grain, window.start, zone), key);
        ASSERT_EQ(PartitionKey::Containing(grain, window.end - 1, zone), key);
        ASSERT_EQ(
            PartitionKey::Containing(grain, window.start + (window.end - window.start) / 2, zone),
            key);
      }
    }
  }
}

std::int64_t DayHours(const char* zone, const char* day) {
  const Window window = PartitionKey::Parse(day, Grain::kDay, Zone(zone))->window();
  return window.end - window.start;
}

TEST(TimeZoneTest, EachLocalDayLastsWhatItMust) {
  EXPECT_EQ(DayHours("America/New_York", "2026-03-08"), 23 * 3600);
  EXPECT_EQ(DayHours("America/New_York", "2026-11-01"), 25 * 3600);
  EXPECT_EQ(DayHours("America/New_York", "2026-11-02"), 24 * 3600);
  EXPECT_EQ(DayHours("Europe/Berlin", "2026-03-29"), 23 * 3600);
  EXPECT_EQ(DayHours("Europe/Berlin", "2026-10-25"), 25 * 3600);
  EXPECT_EQ(DayHours("Australia/Lord_Howe", "2026-10-04"), 23 * 3600 + 1800);
  EXPECT_EQ(DayHours("Australia/Lord_Howe", "2026-04-05"), 24 * 3600 + 1800);
  EXPECT_EQ(DayHours("Asia/Kolkata", "2026-03-08"), 24 * 3600);
  EXPECT_EQ(DayHours("Pacific/Apia", "2011-12-29"), 24 * 3600);
  EXPECT_EQ(DayHours("Pacific/Apia", "2011-12-31"), 24 * 3600);
  const Window ny_day =
      PartitionKey::Parse("2026-03-08", Grain::kDay, Zone("America/New_York"))->window();
  EXPECT_EQ(ny_day.start, At("2026-03-08T05:00:00Z"));
  EXPECT_EQ(ny_day.end, At("2026-03-09T04:00:00Z"));
}

TEST(TimeZoneTest, ApiaHasNoKeyForTheDayItSkipped) {
  const TimeZone apia = Zone("Pacific/Apia");
  Result<PartitionKey> skipped = PartitionKey::Parse("2011-12-30", Grain::kDay, apia);
  ASSERT_FALSE(skipped.ok());
  EXPECT_EQ(skipped.error().code, ErrorCode::kInvalidPartitionKey);
  EXPECT_NE(skipped.error().message.find("Pacific/Apia"), std::string::npos);
  const PartitionKey before = *PartitionKey::Parse("2011-12-29", Grain::kDay, apia);
  EXPECT_EQ(before.Next().ToString(), "2011-12-31");
  EXPECT_EQ(before.Next().Prev(), before);
  EXPECT_EQ(before.RangeTo(before.Next()).size(), 2u);
}

TEST(TimeZoneTest, ZonedHourKeysCarryTheirOffset) {
  const TimeZone ny = Zone("America/New_York");
  // Fall back: two 1 a.m. hours, each its own key.
  const PartitionKey first = *PartitionKey::Parse("2026-11-01T01-04:00", Grain::kHour, ny);
  EXPECT_EQ(first.Next().ToString(), "2026-11-01T01-05:00");
  EXPECT_EQ(first.Next().Next().ToString(), "2026-11-01T02-05:00");
  EXPECT_EQ(first.window().start, At("2026-11-01T05:00:00Z"));
  // Spring forward: there is no 2 a.m.
  const PartitionKey one = *PartitionKey::Parse("2026-03-08T01-05:00", Grain::kHour, ny);
  EXPECT_EQ(one.Next().ToString(), "2026-03-08T03-04:00");
  EXPECT_FALSE(PartitionKey::Parse("2026-03-08T02-05:00", Grain::kHour, ny).ok());
  EXPECT_FALSE(PartitionKey::Parse("2026-03-08T02-04:00", Grain::kHour, ny).ok());
  // The offset must be the one the zone had; none at all is refused in a zone.
  EXPECT_FALSE(PartitionKey::Parse("2026-07-01T12-05:00", Grain::kHour, ny).ok());
  EXPECT_FALSE(PartitionKey::Parse("2026-07-01T12", Grain::kHour, ny).ok());
  // Lord Howe's 30-minute shift makes half-hour keys at the changes.
  const TimeZone lord_howe = Zone("Australia/Lord_Howe");
  const PartitionKey half = *PartitionKey::Parse("2026-10-04T02+11:00", Grain::kHour, lord_howe);
  EXPECT_EQ(half.window().end - half.window().start, 1800);
  // UTC keys are the seed's, unchanged.
  EXPECT_EQ(PartitionKey::Containing(Grain::kHour, At("2026-04-07T13:20:00Z")).ToString(),
            "2026-04-07T13");
  EXPECT_FALSE(PartitionKey::Parse("2026-04-07T13+00:00", Grain::kHour).ok());
}

TEST(TimeZoneTest, MonthsAndYearsAreLocal) {
  const TimeZone berlin = Zone("Europe/Berlin");
  const Window march = PartitionKey::Parse("2026-03", Grain::kMonth, berlin)->window();
  EXPECT_EQ(march.start, At("2026-02-28T23:00:00Z"));
  EXPECT_EQ(march.end, At("2026-03-31T22:00:00Z"));
  const Window year = PartitionKey::Parse("2026", Grain::kYear, berlin)->window();
  EXPECT_EQ(year.start, At("2025-12-31T23:00:00Z"));
  EXPECT_EQ(PartitionKey::Containing(Grain::kMonth, At("2026-03-31T22:30:00Z"), berlin).ToString(),
            "2026-04");
}

}  // namespace
}  // namespace strata
