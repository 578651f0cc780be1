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
  return days * 86400 + civil.hour * 3600 + civil.minute * 60 + civil.second;
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

std::string FormatSqlTimestamp(UnixSeconds seconds) {
  const CivilTime c = ToCivil(seconds);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d %02d:%02d:%02d", c.year, c.month, c.day,
                c.hour, c.minute, c.second);
  return buffer;
}

std::string FormatIso8601(UnixSeconds seconds) {
  std::string text = FormatSqlTimestamp(seconds);
  text[10] = 'T';
  return text + "Z";
}

std::optional<UnixSeconds> ParseIso8601(std::string_view text) {
  CivilTime c;
  char tail = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%c", &c.year, &c.month, &c.day, &c.hour,
                  &c.minute, &c.second, &tail) != 6) {
    return std::nullopt;
  }
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > DaysInMonth(c.year, c.month) ||
      c.hour > 23 || c.minute > 59 || c.second > 59) {
    return std::nullopt;
  }
  const UnixSeconds seconds = ToUnixSeconds(c);
  if (FormatIso8601(seconds) != text) return std::nullopt;
  return seconds;
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
  static const SystemClockImpl clock;
  return clock;
}

std::int64_t MonotonicMillis() {
  return chr::duration_cast<chr::milliseconds>(chr::steady_clock::now().time_since_epoch()).count();
}

}  // namespace strata
