// Time as whole seconds since the Unix epoch, the civil-calendar arithmetic Strata needs, and
// time zones (TimeZone). Every instant is UTC; a zone only maps instants to local wall-clock
// times and back. This component is the only place Strata does zone arithmetic: it reads the
// system tz database through Howard Hinnant's date/tz (time_zone.cc), and nothing else includes it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"

namespace date {
class time_zone;  // date/tz.h; only time_zone.cc sees its definition
}  // namespace date

namespace strata {

using UnixSeconds = std::int64_t;

struct CivilTime {
  int year = 1970;  // 1..9999 for everything Strata formats
  int month = 1;    // 1..12
  int day = 1;      // 1..days in month
  int hour = 0;     // 0..23
  int minute = 0;
  int second = 0;
};

bool IsLeapYear(int year);
int DaysInMonth(int year, int month);  // REQUIRES: 1 <= month <= 12

// REQUIRES: the fields are in range (see CivilTime).
UnixSeconds ToUnixSeconds(const CivilTime& civil);
CivilTime ToCivil(UnixSeconds seconds);

// The last field a date/time text spells out.
enum class TimePrecision { kYear, kMonth, kDay, kHour, kSecond };

// A date/time text as ParseTimeText read it: its value and its shape.
struct TimeText {
  CivilTime civil;  // the fields after `precision` are at their minimum (month 1, day 1, 0 h...)
  TimePrecision precision = TimePrecision::kSecond;
  char separator = 'T';  // between date and time ('T' or ' '); 'T' when precision < kHour
  bool zulu = false;     // a trailing 'Z' (only after seconds)
};

// The one parser of date/time text in Strata: partition keys (base/partition.h), timestamps
// Strata wrote (ParseIso8601), dates and timestamps in semantic queries (semantic/literal.h) and
// time values read back from a warehouse (ParseSqlTimeValue) all read text through it and then
// accept only the shapes they allow. Grammar (ASCII digits, every field zero-padded to exactly its
// width):
//   YYYY [ -MM [ -DD [ (T|' ')HH [ :MM:SS [Z] ] ] ] ]
// Strict: year 0001..9999, month 01..12, day within the month (leap years counted), hour
// 00..23, minute and second 00..59, nothing before or after; nullopt for anything else. So
// FormatTimeText of an accepted value gives back exactly the text's bytes. Thread-safe.
std::optional<TimeText> ParseTimeText(std::string_view text);
// The text of `time` in its shape (the inverse of ParseTimeText for every value it accepts).
// REQUIRES: separator is 'T' or ' '; zulu only with kSecond.
std::string FormatTimeText(const TimeText& time);

// "2026-04-07 13:00:00" — the form substituted for @start_date/@end_date.
std::string FormatSqlTimestamp(UnixSeconds seconds);
// "2026-04-07T13:00:00Z" — the form in JSON output.
std::string FormatIso8601(UnixSeconds seconds);

// Parses exactly the FormatIso8601 form (ParseTimeText, seconds, 'T', 'Z'); nullopt for anything
// else.
std::optional<UnixSeconds> ParseIso8601(std::string_view text);

// A duration as a rollup's refresh.every writes it: a whole number without sign or leading zero
// and one unit, s, m, h or d ("30m", "1h", "2d"), from 1 s to 36500 d; nullopt for anything
// else. The one parser of these texts (the loader validates with it, the builder schedules).
std::optional<std::int64_t> ParseDurationSeconds(std::string_view text);

// A DATE, TIMESTAMP or TIMESTAMPTZ cell as a warehouse returns its text (warehouse::Value): a
// date ("2026-04-07") or a timestamp to the second ("2026-04-07 13:05:09"; 'T' and a trailing 'Z'
// are read too), read by ParseTimeText. After the seconds, sub-second digits ('.' and 1 to 9
// digits: "13:05:09.250") are dropped, Strata's times being whole seconds, and then a UTC offset
// "+00" (DuckDB's and PostgreSQL's TIMESTAMPTZ in a UTC session) is allowed. nullopt for anything
// else, any other offset included.
std::optional<UnixSeconds> ParseSqlTimeValue(std::string_view text);

// A UTC offset in seconds east of UTC as ISO 8601 writes it: "+05:30", "-04:00", "+00:00".
std::string FormatUtcOffset(int offset_seconds);

// UTC, or one IANA zone of the system tz database (Debian's tzdata). A value: a pointer into the
// database, cheap to copy, compared by identity (a link such as "US/Eastern" and its target
// "America/New_York" are equal). Every member is thread-safe. UTC never touches the database, so
// a UTC model's arithmetic is exactly what it was before zones existed.
class TimeZone {
 public:
  TimeZone() = default;  // UTC
  static TimeZone Utc() { return TimeZone(); }
  // "UTC" or a name the tz database knows, spelled exactly (case matters, as in IANA). An unknown
  // name is kInvalidTimeZone, whose hint gives examples; `where` ("[strategy] timezone", ...)
  // starts the message.
  static Result<TimeZone> Find(std::string_view name, std::string_view where = "time zone");

  bool is_utc() const { return zone_ == nullptr; }
  // "UTC" or the database's name of the zone (a link's target: "America/New_York").
  std::string_view name() const;

  // The offset from UTC at instant `t`, in seconds east of UTC (Berlin in winter: 3600).
  int OffsetAt(UnixSeconds t) const;
  // The wall-clock time at instant `t`.
  CivilTime ToLocal(UnixSeconds t) const;
  // The first instant whose wall-clock time reads `local` or later. For a time that happens once,
  // that instant; for a repeated one (the fall-back hour), its first occurrence; for one that
  // never happens (the spring-forward gap, Apia's 2011-12-30), the transition that skips it.
  UnixSeconds FirstInstantAtOrAfter(const CivilTime& local) const;
  // The longest half-open span [first, second) of instants around `t` during which the offset is
  // OffsetAt(t) (transitions that keep the offset, such as a change of name, do not end it).
  // Bounded by +-400 years around `t` when the offset never changes.
  std::pair<UnixSeconds, UnixSeconds> OffsetSpan(UnixSeconds t) const;
  // Whether the offset is a whole number of hours at every instant of [from, to).
  bool WholeHourOffsets(UnixSeconds from, UnixSeconds to) const;
  // Whether the offset is the same at every instant of [from, to).
  bool FixedOffset(UnixSeconds from, UnixSeconds to) const;

  // "2026-03-08T01:00:00-05:00" ("...Z" for UTC, as FormatIso8601).
  std::string FormatInstant(UnixSeconds t) const;

  friend bool operator==(const TimeZone&, const TimeZone&) = default;

 private:
  explicit TimeZone(const date::time_zone* zone) : zone_(zone) {}
  const date::time_zone* zone_ = nullptr;
};

// The current time. Tests and benchmarks inject a fixed clock through Clock.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual UnixSeconds Now() const = 0;
  // Waits `millis` milliseconds, or less when `cancel` becomes true (checked at least every
  // 10 ms); returns false when cancelled. The default sleeps for real; a test clock may only
  // record the wait. Thread-safe.
  virtual bool Wait(std::int64_t millis, const std::atomic<bool>& cancel) const;
};
// A clock that answers the time it was given (tests, benchmarks, builds "as of" a time); Wait
// sleeps for real. Not thread-safe while Set runs.
class FixedClock final : public Clock {
 public:
  explicit FixedClock(UnixSeconds now) : now_(now) {}
  UnixSeconds Now() const override { return now_; }
  void Set(UnixSeconds now) { now_ = now; }

 private:
  UnixSeconds now_;
};

// The system clock (UTC). Thread-safe; never null.
const Clock& SystemClock();

// Milliseconds on a monotonic clock, for durations.
std::int64_t MonotonicMillis();

}  // namespace strata
