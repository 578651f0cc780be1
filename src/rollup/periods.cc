#include "rollup/periods.h"

namespace strata::rollup {
namespace {

constexpr UnixSeconds kDay = 86400;

UnixSeconds FloorDiv(UnixSeconds value, UnixSeconds divisor) {
  const UnixSeconds quotient = value / divisor;
  return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient;
}

UnixSeconds MonthStart(int year, int month) { return ToUnixSeconds({year, month, 1, 0, 0, 0}); }

UnixSeconds UtcPeriodStart(UnixSeconds t, semantic::TimeGrain grain) {
  using semantic::TimeGrain;
  const CivilTime civil = ToCivil(t);
  switch (grain) {
    case TimeGrain::kHour:
      return FloorDiv(t, 3600) * 3600;
    case TimeGrain::kDay:
      return FloorDiv(t, kDay) * kDay;
    case TimeGrain::kWeek: {
      // Day 0 (1970-01-01) was a Thursday: Monday is day 4 of that week.
      const UnixSeconds day = FloorDiv(t, kDay);
      return (day - ((day - 4) % 7 + 7) % 7) * kDay;
    }
    case TimeGrain::kMonth:
      return MonthStart(civil.year, civil.month);
    case TimeGrain::kQuarter:
    case TimeGrain::kFiscalQuarter:
      return MonthStart(civil.year, (civil.month - 1) / 3 * 3 + 1);
    case TimeGrain::kYear:
    case TimeGrain::kFiscalYear:
      return MonthStart(civil.year, 1);
  }
  return t;
}

UnixSeconds UtcNextPeriodStart(UnixSeconds start, semantic::TimeGrain grain) {
  using semantic::TimeGrain;
  const CivilTime civil = ToCivil(start);
  const auto months_later = [&](int months) {
    const int index = civil.year * 12 + (civil.month - 1) + months;
    return MonthStart(index / 12, index % 12 + 1);
  };
  switch (grain) {
    case TimeGrain::kHour:
      return start + 3600;
    case TimeGrain::kDay:
      return start + kDay;
    case TimeGrain::kWeek:
      return start + 7 * kDay;
    case TimeGrain::kMonth:
      return months_later(1);
    case TimeGrain::kQuarter:
    case TimeGrain::kFiscalQuarter:
      return months_later(3);
    case TimeGrain::kYear:
    case TimeGrain::kFiscalYear:
      return months_later(12);
  }
  return start + kDay;
}

// The wall-clock time of `t` in `zone`, as seconds of a UTC clock reading the same.
UnixSeconds Wall(UnixSeconds t, const TimeZone& zone) { return ToUnixSeconds(zone.ToLocal(t)); }

}  // namespace

// In a zone the arithmetic is done on wall-clock times, and a local period start is read back
// as the first instant showing it (midnight exists once in nearly every zone; where a transition
// skips it, the transition starts the day).
UnixSeconds PeriodStart(UnixSeconds t, semantic::TimeGrain grain, const TimeZone& zone) {
  if (zone.is_utc()) return UtcPeriodStart(t, grain);
  return zone.FirstInstantAtOrAfter(ToCivil(UtcPeriodStart(Wall(t, zone), grain)));
}

UnixSeconds NextPeriodStart(UnixSeconds start, semantic::TimeGrain grain, const TimeZone& zone) {
  if (zone.is_utc()) return UtcNextPeriodStart(start, grain);
  const UnixSeconds wall = UtcPeriodStart(Wall(start, zone), grain);
  return zone.FirstInstantAtOrAfter(ToCivil(UtcNextPeriodStart(wall, grain)));
}

std::vector<Period> PeriodsCovering(UnixSeconds from, UnixSeconds to, semantic::TimeGrain grain,
                                    const TimeZone& zone) {
  std::vector<Period> periods;
  if (from >= to) return periods;
  for (UnixSeconds start = PeriodStart(from, grain, zone); start < to;) {
    const UnixSeconds end = NextPeriodStart(start, grain, zone);
    periods.emplace_back(start, end);
    start = end;
  }
  return periods;
}

std::string PeriodLabel(UnixSeconds start, const TimeZone& zone) {
  return FormatTimeText({zone.ToLocal(start), TimePrecision::kDay});
}

}  // namespace strata::rollup
