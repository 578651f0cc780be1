#include "base/time.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace strata {
namespace {

TEST(TimeTest, RoundTripsCivilTime) {
  const CivilTime civil{2024, 2, 29, 23, 59, 58};
  const UnixSeconds seconds = ToUnixSeconds(civil);
  EXPECT_EQ(seconds, 1709251198);
  const CivilTime back = ToCivil(seconds);
  EXPECT_EQ(back.year, 2024);
  EXPECT_EQ(back.month, 2);
  EXPECT_EQ(back.day, 29);
  EXPECT_EQ(back.hour, 23);
  EXPECT_EQ(back.second, 58);
}

TEST(TimeTest, HandlesTimesBeforeEpoch) {
  const CivilTime back = ToCivil(-1);
  EXPECT_EQ(back.year, 1969);
  EXPECT_EQ(back.month, 12);
  EXPECT_EQ(back.day, 31);
  EXPECT_EQ(back.hour, 23);
}

TEST(TimeTest, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2025));
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(2100, 2), 28);
}

TEST(TimeTest, Formats) {
  const UnixSeconds t = ToUnixSeconds({2026, 4, 7, 13, 0, 0});
  EXPECT_EQ(FormatSqlTimestamp(t), "2026-04-07 13:00:00");
  EXPECT_EQ(FormatIso8601(t), "2026-04-07T13:00:00Z");
}

TEST(TimeTest, ParsesItsOwnIsoForm) {
  const UnixSeconds t = ToUnixSeconds({2024, 2, 29, 23, 5, 9});
  EXPECT_EQ(ParseIso8601(FormatIso8601(t)), t);
  EXPECT_FALSE(ParseIso8601("2024-02-30T00:00:00Z").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29T00:00:00").has_value());
  EXPECT_FALSE(ParseIso8601("2024-2-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29T00:00:00Zx").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29 00:00:00Z").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29T00").has_value());
}

// The one date/time parser: every shape of its grammar, and each refused near miss.
TEST(TimeTextTest, AcceptsEveryShapeOfTheGrammar) {
  struct Case {
    const char* text;
    TimePrecision precision;
    char separator;
    bool zulu;
    CivilTime civil;
  };
  const Case cases[] = {
      {"2026", TimePrecision::kYear, 'T', false, {2026, 1, 1, 0, 0, 0}},
      {"2026-04", TimePrecision::kMonth, 'T', false, {2026, 4, 1, 0, 0, 0}},
      {"2026-04-07", TimePrecision::kDay, 'T', false, {2026, 4, 7, 0, 0, 0}},
      {"2026-04-07T13", TimePrecision::kHour, 'T', false, {2026, 4, 7, 13, 0, 0}},
      {"2026-04-07 13", TimePrecision::kHour, ' ', false, {2026, 4, 7, 13, 0, 0}},
      {"2026-04-07T13:05:09", TimePrecision::kSecond, 'T', false, {2026, 4, 7, 13, 5, 9}},
      {"2026-04-07 13:05:09", TimePrecision::kSecond, ' ', false, {2026, 4, 7, 13, 5, 9}},
      {"2026-04-07T13:05:09Z", TimePrecision::kSecond, 'T', true, {2026, 4, 7, 13, 5, 9}},
      {"2026-04-07 13:05:09Z", TimePrecision::kSecond, ' ', true, {2026, 4, 7, 13, 5, 9}},
      {"2024-02-29T23:59:59Z", TimePrecision::kSecond, 'T', true, {2024, 2, 29, 23, 59, 59}},
      {"0001-01-01", TimePrecision::kDay, 'T', false, {1, 1, 1, 0, 0, 0}},
      {"9999-12-31T23:59:59Z", TimePrecision::kSecond, 'T', true, {9999, 12, 31, 23, 59, 59}},
      {"2000-02-29", TimePrecision::kDay, 'T', false, {2000, 2, 29, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    const std::optional<TimeText> time = ParseTimeText(c.text);
    ASSERT_TRUE(time.has_value()) << c.text;
    EXPECT_EQ(time->precision, c.precision) << c.text;
    EXPECT_EQ(time->separator, c.separator) << c.text;
    EXPECT_EQ(time->zulu, c.zulu) << c.text;
    EXPECT_EQ(ToUnixSeconds(time->civil), ToUnixSeconds(c.civil)) << c.text;
    // Strictness: formatting what was read gives back the same bytes.
    EXPECT_EQ(FormatTimeText(*time), c.text);
  }
}

TEST(TimeTextTest, RefusesEverythingElse) {
  const char* refused[] = {
      "",                        // nothing
      "26",                      // short year
      "02026",                   // long year
      "0000",                    // year zero
      "+026",                    // sign
      "-2026",                   // sign
      " 2026-04-07",             // leading space
      "2026-04-07 ",             // trailing space
      "2026-4",                  // unpadded month
      "2026-04-7",               // unpadded day
      "2026-00",                 // month zero
      "2026-13",                 // month 13
      "2026-04-00",              // day zero
      "2026-04-31",              // April has 30 days
      "2025-02-29",              // not a leap year
      "1900-02-29",              // not a leap year (century)
      "2026/04/07",              // other separator
      "20260407",                // no separators
      "2026-04-07t13",           // lower-case t
      "2026-04-07T",             // separator without an hour
      "2026-04-07T24",           // hour 24
      "2026-04-07T1",            // unpadded hour
      "2026-04-07T13:00",        // minutes without seconds
      "2026-04-07T13:60:00",     // minute 60
      "2026-04-07T13:00:60",     // leap second
      "2026-04-07T13:00:0",      // unpadded second
      "2026-04-07T13:00:00z",    // lower-case z
      "2026-04-07T13:00:00ZZ",   // two zones
      "2026-04-07T13:00:00Zx",   // trailing byte
      "2026-04-07T13:00:00+00",  // offsets are not UTC text
      "2026-04-07T13:00:00.5",   // fractions
      "2026-04-07Z",             // zone without a time
      "2026-04-07T13Z",          // zone without seconds
  };
  for (const char* text : refused) {
    EXPECT_FALSE(ParseTimeText(text).has_value()) << '"' << text << '"';
  }
  // A NUL byte is a byte like any other: refused, never the end of the text.
  EXPECT_FALSE(ParseTimeText(std::string_view("2026\0", 5)).has_value());
  EXPECT_FALSE(ParseTimeText(std::string_view("2026-04-07T13:00:00Z\0", 21)).has_value());
}

TEST(TimeTextTest, FormatsTheFormsStrataWrites) {
  const UnixSeconds t = ToUnixSeconds({2026, 4, 7, 13, 5, 9});
  EXPECT_EQ(FormatSqlTimestamp(t), "2026-04-07 13:05:09");
  EXPECT_EQ(FormatIso8601(t), "2026-04-07T13:05:09Z");
  EXPECT_EQ(FormatTimeText({ToCivil(t), TimePrecision::kHour, 'T', false}), "2026-04-07T13");
  EXPECT_EQ(FormatTimeText({ToCivil(t), TimePrecision::kMonth, 'T', false}), "2026-04");
}

TEST(TimeTextTest, ReadsWarehouseTimeValues) {
  const UnixSeconds day = ToUnixSeconds({2026, 4, 7, 0, 0, 0});
  const UnixSeconds t = ToUnixSeconds({2026, 4, 7, 13, 5, 9});
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07"), day);
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07 13:05:09"), t);
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07T13:05:09Z"), t);
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07 13:05:09.5"), t);
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07 13:05:09.123456789"), t);
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07 13:05:09+00"), t);  // TIMESTAMPTZ, UTC
  EXPECT_EQ(ParseSqlTimeValue("2026-04-07 13:05:09.25+00"), t);
  const char* refused[] = {
      "2026",                            // a year is not a value
      "2026-04-07 13",                   // nor an hour
      "2026-04-07 13:05:09.",            // a point without digits
      "2026-04-07 13:05:09.1234567890",  // more than nanoseconds
      "2026-04-07 13:05:09+01",          // an offset other than UTC
      "2026-04-07 13:05:09.5-03",        // an offset other than UTC
      "2026-04-07 13:05:09+00:00",       // not how the warehouses print UTC
      "2026-04-07+00",                   // an offset without a time
      "2026-04-07 13:05:09Z+00",         // two zones
      "2026-04-07 13:05:09.5Z",          // a zone after a fraction
      "2026-04-31",                      // impossible dates stay refused
      "NULL",                            // ValueToString of a NULL
  };
  for (const char* text : refused) {
    EXPECT_FALSE(ParseSqlTimeValue(text).has_value()) << '"' << text << '"';
  }
}

// A run's retry backoff waits through Clock::Wait: SIGINT (the cancel flag) must cut even an
// hour-long wait short. Without that, this test hangs until ctest's timeout fails it.
TEST(ClockTest, WaitEndsWhenCancelled) {
  std::atomic<bool> cancel{false};
  std::atomic<bool> waiting{false};
  std::thread canceller([&] {
    while (!waiting.load()) std::this_thread::yield();
    cancel = true;
  });
  waiting = true;
  EXPECT_FALSE(SystemClock().Wait(3'600'000, cancel));
  canceller.join();
  std::atomic<bool> never{false};
  EXPECT_TRUE(SystemClock().Wait(0, never));
  EXPECT_TRUE(SystemClock().Wait(5, never));
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// refresh.every's one parser: a positive whole number of s, m, h or d, at most 100 years.
TEST(TimeTest, ParsesDurations) {
  EXPECT_EQ(ParseDurationSeconds("30s"), std::optional<std::int64_t>(30));
  EXPECT_EQ(ParseDurationSeconds("30m"), std::optional<std::int64_t>(1800));
  EXPECT_EQ(ParseDurationSeconds("1h"), std::optional<std::int64_t>(3600));
  EXPECT_EQ(ParseDurationSeconds("2d"), std::optional<std::int64_t>(172800));
  EXPECT_EQ(ParseDurationSeconds("36500d"), std::optional<std::int64_t>(36500LL * 86400));
  for (const char* bad : {"", "h", "0s", "00m", "36501d", "99999999999999999999d", "1.5h", "-1h",
                          " 1h", "1h ", "1w", "1H", "1hh"}) {
    EXPECT_EQ(ParseDurationSeconds(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace strata
