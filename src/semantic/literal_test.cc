#include "semantic/literal.h"

#include <gtest/gtest.h>

namespace strata::semantic {
namespace {

// The shapes a time filter value may take (base/time.h's parser decides what is a valid time).
TEST(LiteralTest, TimeTextIsADateOrATimestampToTheSecond) {
  const UnixSeconds day = ToUnixSeconds({2026, 1, 1, 0, 0, 0});
  const UnixSeconds ten = ToUnixSeconds({2026, 1, 1, 10, 0, 0});
  EXPECT_EQ(ParseTimeText("2026-01-01"), day);
  EXPECT_EQ(ParseTimeText("2026-01-01T10:00:00"), ten);
  EXPECT_EQ(ParseTimeText("2026-01-01T10:00:00Z"), ten);
  EXPECT_EQ(ParseTimeText("2026-01-01 10:00:00"), ten);
  EXPECT_EQ(ParseTimeText("2026-01-01 10:00:00Z"), ten);
  for (const char* text : {"2026", "2026-01", "2026-01-01T10", "2026-01-01 10", "2026-02-30",
                           "2026-01-01Z", "2026-01-01T10:00", "0000-01-01", "2026-1-01",
                           "2026-01-01T10:00:00+01", "2026-01-01T10:00:00.000"}) {
    EXPECT_FALSE(ParseTimeText(text).has_value()) << text;
  }
}

TEST(LiteralTest, TimeLiteralsAreTypedTimestamps) {
  const FilterValue value{FilterValue::Kind::kString, "2026-01-01"};
  const Result<std::string> literal =
      RenderLiteral(value, DimensionType::kTime, sql::Dialect::kDuckDb, ErrorCode::kQueryInvalid);
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(*literal, "TIMESTAMP '2026-01-01 00:00:00'");
  const FilterValue hour{FilterValue::Kind::kString, "2026-01-01T10"};
  const Result<std::string> refused =
      RenderLiteral(hour, DimensionType::kTime, sql::Dialect::kDuckDb, ErrorCode::kQueryInvalid);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kQueryInvalid);
}

// In a zone, a text without Z is the zone's wall-clock time; with Z it stays UTC.
TEST(LiteralTest, TimeTextInAZoneIsWallClockUnlessZulu) {
  const Result<TimeZone> berlin = TimeZone::Find("Europe/Berlin");
  ASSERT_TRUE(berlin.ok());
  EXPECT_EQ(ParseTimeText("2026-01-01", *berlin), ToUnixSeconds({2025, 12, 31, 23, 0, 0}));
  EXPECT_EQ(ParseTimeText("2026-07-01T10:00:00", *berlin), ToUnixSeconds({2026, 7, 1, 8, 0, 0}));
  EXPECT_EQ(ParseTimeText("2026-07-01T10:00:00Z", *berlin), ToUnixSeconds({2026, 7, 1, 10, 0, 0}));
  // 02:30 on 2026-03-29 never happens in Berlin: the spring-forward transition (01:00 UTC).
  EXPECT_EQ(ParseTimeText("2026-03-29 02:30:00", *berlin), ToUnixSeconds({2026, 3, 29, 1, 0, 0}));
  EXPECT_FALSE(ParseTimeText("2026-01-01T10", *berlin).has_value());
  EXPECT_EQ(ParseTimeText("2026-01-01", TimeZone::Utc()), ParseTimeText("2026-01-01"));
  const FilterValue value{FilterValue::Kind::kString, "2026-01-01"};
  const Result<std::string> literal = RenderLiteral(
      value, DimensionType::kTime, sql::Dialect::kDuckDb, ErrorCode::kQueryInvalid, *berlin);
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(*literal, "TIMESTAMP '2025-12-31 23:00:00'");
}

}  // namespace
}  // namespace strata::semantic
