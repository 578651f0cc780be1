#include "base/time.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace strata {
namespace {
namespace chr = std::chrono;

class SystemClockImpl final : public Clock {
 public:
  UnixSeconds Now() const override {
    return chr::duration_cast<chr::seconds>(chr::system_clock::now().time_since_epoch()).count();
  }
};

}  // namespace

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && IsLeapYear(year)) return 29;
  return kDays[month - 1];
}

UnixSeconds ToUnixSeconds(const CivilTime& civil) {
  const chr::year_month_day date{chr::year(civil.year),
                                 chr::month(static_cast<unsigned>(civil.month)),
                                 chr::day(static_cast<unsigned>(civil.day))};
  const std::int64_t days = chr::sys_days(date).time_since_epoch().count();
  return days * 86400 + std::int64_t{civil.hour} * 3600 + std::int64_t{civil.minute} * 60 +
         civil.second;
}

CivilTime ToCivil(UnixSeconds seconds) {
  std::int64_t days = seconds / 86400;
  std::int64_t rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    days -= 1;
  }
  const chr::year_month_day date{chr::sys_days(chr::days(days))};
  CivilTime civil;
  civil.year = static_cast<int>(date.year());
  civil.month = static_cast<int>(static_cast<unsigned>(date.month()));
  civil.day = static_cast<int>(static_cast<unsigned>(date.day()));
  civil.hour = static_cast<int>(rest / 3600);
  civil.minute = static_cast<int>(rest % 3600 / 60);
  civil.second = static_cast<int>(rest % 60);
  return civil;
}

std::optional<TimeText> ParseTimeText(std::string_view text) {
  TimeText time;
  CivilTime& c = time.civil;
  std::size_t at = 0;
  // Reads `width` digits at `at` into `field` when they are within [low, high].
  const auto field = [&](std::size_t width, int low, int high, int& out) {
    if (at + width > text.size()) return false;
    int value = 0;
    for (std::size_t i = at; i < at + width; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      value = value * 10 + (text[i] - '0');
    }
    if (value < low || value > high) return false;
    out = value;
    at += width;
    return true;
  };
  // Consumes `separator` when it is next; false at the end of the text or on another byte.
  const auto separator = [&](char expected) {
    if (at >= text.size() || text[at] != expected) return false;
    ++at;
    return true;
  };
  const auto done = [&](TimePrecision precision) -> std::optional<TimeText> {
    time.precision = precision;
    return time;
  };
  if (!field(4, 1, 9999, c.year)) return std::nullopt;
  if (at == text.size()) return done(TimePrecision::kYear);
  if (!separator('-') || !field(2, 1, 12, c.month)) return std::nullopt;
  if (at == text.size()) return done(TimePrecision::kMonth);
  if (!separator('-') || !field(2, 1, DaysInMonth(c.year, c.month), c.day)) return std::nullopt;
  if (at == text.size()) return done(TimePrecision::kDay);
  if (!separator('T') && !separator(' ')) return std::nullopt;
  time.separator = text[at - 1];
  if (!field(2, 0, 23, c.hour)) return std::nullopt;
  if (at == text.size()) return done(TimePrecision::kHour);
  if (!separator(':') || !field(2, 0, 59, c.minute) || !separator(':') ||
      !field(2, 0, 59, c.second)) {
    return std::nullopt;
  }
  if (at == text.size()) return done(TimePrecision::kSecond);
  if (!separator('Z') || at != text.size()) return std::nullopt;
  time.zulu = true;
  return done(TimePrecision::kSecond);
}

std::string FormatTimeText(const TimeText& time) {
  const CivilTime& c = time.civil;
  char buffer[48];
  int size = 0;
  switch (time.precision) {
    case TimePrecision::kYear:
      size = std::snprintf(buffer, sizeof buffer, "%04d", c.year);
      break;
    case TimePrecision::kMonth:
      size = std::snprintf(buffer, sizeof buffer, "%04d-%02d", c.year, c.month);
      break;
    case TimePrecision::kDay:
      size = std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d", c.year, c.month, c.day);
      break;
    case TimePrecision::kHour:
      size = std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d%c%02d", c.year, c.month, c.day,
                           time.separator, c.hour);
      break;
    case TimePrecision::kSecond:
      size =
          std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d%c%02d:%02d:%02d%s", c.year, c.month,
                        c.day, time.separator, c.hour, c.minute, c.second, time.zulu ? "Z" : "");
      break;
  }
  return std::string(buffer, static_cast<std::size_t>(std::max(size, 0)));
}

std::string FormatSqlTimestamp(UnixSeconds seconds) {
  return FormatTimeText({ToCivil(seconds), TimePrecision::kSecond, ' ', false});
}

std::string FormatIso8601(UnixSeconds seconds) {
  return FormatTimeText({ToCivil(seconds), TimePrecision::kSecond, 'T', true});
}

std::optional<UnixSeconds> ParseIso8601(std::string_view text) {
  const std::optional<TimeText> time = ParseTimeText(text);
  if (!time || time->precision != TimePrecision::kSecond || time->separator != 'T' || !time->zulu) {
    return std::nullopt;
  }
  return ToUnixSeconds(time->civil);
}

std::optional<UnixSeconds> ParseSqlTimeValue(std::string_view text) {
  constexpr std::size_t kSecondsEnd = 19;  // "YYYY-MM-DD HH:MM:SS"
  constexpr std::string_view kUtc = "+00";
  const bool offset = text.size() > kSecondsEnd && text.ends_with(kUtc);
  if (offset) text.remove_suffix(kUtc.size());
  if (text.size() > kSecondsEnd && text[kSecondsEnd] == '.') {
    const std::string_view fraction = text.substr(kSecondsEnd + 1);
    if (fraction.empty() || fraction.size() > 9) return std::nullopt;
    for (const char c : fraction) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    text = text.substr(0, kSecondsEnd);
  }
  const std::optional<TimeText> time = ParseTimeText(text);
  if (!time ||
      (time->precision != TimePrecision::kDay && time->precision != TimePrecision::kSecond)) {
    return std::nullopt;
  }
  if (offset && time->zulu) return std::nullopt;  // "Z+00": two zones
  return ToUnixSeconds(time->civil);
}

bool Clock::Wait(std::int64_t millis, const std::atomic<bool>& cancel) const {
  const auto deadline =
      chr::steady_clock::now() + chr::milliseconds(std::max<std::int64_t>(0, millis));
  while (!cancel.load()) {
    const auto now = chr::steady_clock::now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(
        std::min<chr::steady_clock::duration>(deadline - now, chr::milliseconds(10)));
  }
  return false;
}

const Clock& SystemClock() {
  static const SystemClockImpl kClock;
  return kClock;
}

std::int64_t MonotonicMillis() {
  return chr::duration_cast<chr::milliseconds>(chr::steady_clock::now().time_since_epoch()).count();
}

std::optional<std::int64_t> ParseDurationSeconds(std::string_view text) {
  constexpr std::int64_t kMaxSeconds = std::int64_t{36500} * 86400;
  if (text.size() < 2 || text.size() > 12 || text.front() == '0') return std::nullopt;
  std::int64_t count = 0;
  for (const char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    count = count * 10 + (c - '0');
  }
  std::int64_t unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    default:
      return std::nullopt;
  }
  if (count > kMaxSeconds / unit) return std::nullopt;
  return count * unit;
}

}  // namespace strata
