#include "base/partition.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

PartitionKey Key(std::string_view text, Grain grain) {
  Result<PartitionKey> key = PartitionKey::Parse(text, grain);
  EXPECT_TRUE(key.ok()) << text;
  return *key;
}

TEST(PartitionKeyTest, AcceptsCanonicalKeys) {
  EXPECT_EQ(Key("2026-04-07T13", Grain::kHour).ToString(), "2026-04-07T13");
  EXPECT_EQ(Key("2026-04-07", Grain::kDay).ToString(), "2026-04-07");
  EXPECT_EQ(Key("2026-04", Grain::kMonth).ToString(), "2026-04");
  EXPECT_EQ(Key("2026", Grain::kYear).ToString(), "2026");
  EXPECT_EQ(Key("2024-02-29", Grain::kDay).ToString(), "2024-02-29");
}

TEST(PartitionKeyTest, RejectsNonCanonicalKeys) {
  const std::pair<const char*, Grain> bad[] = {
      {"2026-04-7", Grain::kDay},
      {"2025-02-29", Grain::kDay},
      {"2026-04-07T24", Grain::kHour},
      {"2026-4", Grain::kMonth},
      {"2026-13", Grain::kMonth},
      {"2026-04-07 ", Grain::kDay},
      {"2026-04-07", Grain::kHour},
      {"2026-04-07T13", Grain::kDay},
      {"26", Grain::kYear},
      {"", Grain::kDay},
      {"2026-04-00", Grain::kDay},
      {"2026/04/07", Grain::kDay},
      {"+026-04-07", Grain::kDay},
      {"2026-04-07t13", Grain::kHour},
      {"0000", Grain::kYear},
      {"2026-04-31", Grain::kDay},
  };
  for (const auto& [text, grain] : bad) {
    Result<PartitionKey> key = PartitionKey::Parse(text, grain);
    ASSERT_FALSE(key.ok()) << text;
    EXPECT_EQ(key.error().code, ErrorCode::kInvalidPartitionKey);
    EXPECT_NE(key.error().message.find(GrainFormat(grain)), std::string::npos);
  }
}

TEST(PartitionKeyTest, RejectsTheLastPeriodOf9999WhoseWindowEndsInTheYear10000) {
  EXPECT_EQ(Key("9999-12-31T22", Grain::kHour).Next().ToString(), "9999-12-31T23");
  EXPECT_EQ(Key("9998", Grain::kYear).Next().ToString(), "9999");
  const std::pair<const char*, Grain> last[] = {{"9999-12-31T23", Grain::kHour},
                                                {"9999-12-31", Grain::kDay},
                                                {"9999-12", Grain::kMonth},
                                                {"9999", Grain::kYear}};
  for (const auto& [text, grain] : last) {
    Result<PartitionKey> key = PartitionKey::Parse(text, grain);
    ASSERT_FALSE(key.ok()) << text;
    EXPECT_EQ(key.error().code, ErrorCode::kInvalidPartitionKey);
    EXPECT_NE(key.error().message.find("10000"), std::string::npos) << key.error().message;
  }
}

TEST(PartitionKeyTest, WindowsAreHalfOpenAndCalendarCorrect) {
  const Window day = Key("2026-04-07", Grain::kDay).window();
  EXPECT_EQ(FormatSqlTimestamp(day.start), "2026-04-07 00:00:00");
  EXPECT_EQ(FormatSqlTimestamp(day.end), "2026-04-08 00:00:00");
  EXPECT_TRUE(day.Contains(day.start));
  EXPECT_FALSE(day.Contains(day.end));

  const Window hour = Key("2026-04-07T13", Grain::kHour).window();
  EXPECT_EQ(FormatSqlTimestamp(hour.start), "2026-04-07 13:00:00");
  EXPECT_EQ(FormatSqlTimestamp(hour.end), "2026-04-07 14:00:00");

  const Window february = Key("2024-02", Grain::kMonth).window();
  EXPECT_EQ(FormatSqlTimestamp(february.end), "2024-03-01 00:00:00");
  EXPECT_EQ((february.end - february.start) / 86400, 29);

  const Window december = Key("2025-12", Grain::kMonth).window();
  EXPECT_EQ(FormatSqlTimestamp(december.end), "2026-01-01 00:00:00");

  const Window leap_year = Key("2024", Grain::kYear).window();
  EXPECT_EQ((leap_year.end - leap_year.start) / 86400, 366);
  EXPECT_EQ(Key("2023-12-31T23", Grain::kHour).Next().ToString(), "2024-01-01T00");
  EXPECT_EQ(Key("2024-03-01", Grain::kDay).Prev().ToString(), "2024-02-29");
  EXPECT_EQ(Key("2024-01", Grain::kMonth).Prev().ToString(), "2023-12");
}

TEST(PartitionKeyTest, ContainingTruncatesToTheGrain) {
  const UnixSeconds t = ToUnixSeconds({2026, 4, 7, 13, 45, 12});
  EXPECT_EQ(PartitionKey::Containing(Grain::kHour, t).ToString(), "2026-04-07T13");
  EXPECT_EQ(PartitionKey::Containing(Grain::kDay, t).ToString(), "2026-04-07");
  EXPECT_EQ(PartitionKey::Containing(Grain::kMonth, t).ToString(), "2026-04");
  EXPECT_EQ(PartitionKey::Containing(Grain::kYear, t).ToString(), "2026");
}

TEST(PartitionKeyTest, RangesAreInclusive) {
  const auto keys = Key("2024-02-27", Grain::kDay).RangeTo(Key("2024-03-02", Grain::kDay));
  ASSERT_EQ(keys.size(), 5u);
  EXPECT_EQ(keys[2].ToString(), "2024-02-29");
  EXPECT_EQ(keys.back().ToString(), "2024-03-02");
  EXPECT_TRUE(Key("2024-03-02", Grain::kDay).RangeTo(Key("2024-03-01", Grain::kDay)).empty());
  EXPECT_EQ(Key("2023-11", Grain::kMonth).RangeTo(Key("2024-02", Grain::kMonth)).size(), 4u);
}

TEST(PartitionKeyTest, BatchesSplitOnSizeAndGaps) {
  std::vector<PartitionKey> keys =
      Key("2026-01-01", Grain::kDay).RangeTo(Key("2026-01-05", Grain::kDay));
  keys.push_back(Key("2026-01-07", Grain::kDay));
  keys.push_back(Key("2026-01-08", Grain::kDay));
  const auto batches = GroupIntoBatches(keys, 3);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].size(), 3u);
  EXPECT_EQ(batches[1].size(), 2u);  // 04, 05 — then the gap at 06
  EXPECT_EQ(batches[1][1].ToString(), "2026-01-05");
  EXPECT_EQ(batches[2].size(), 2u);
  EXPECT_EQ(batches[2][0].ToString(), "2026-01-07");
  EXPECT_EQ(GroupIntoBatches(keys, 1).size(), keys.size());
}

}  // namespace
}  // namespace strata
