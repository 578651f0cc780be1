#include "rollup/periods.h"

namespace strata::rollup {
namespace {

constexpr UnixSeconds kDay = 86400;

UnixSeconds FloorDiv(UnixSeconds value, UnixSeconds divisor) {
  const UnixSeconds quotient = value / divisor;
  return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient;
}

UnixSeconds MonthStart(int year, int month) { return ToUnixSeconds({year, month, 1, 0, 0, 0}); }

}  // namespace

UnixSeconds PeriodStart(UnixSeconds t, semantic::TimeGrain grain) {
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

UnixSeconds NextPeriodStart(UnixSeconds start, semantic::TimeGrain grain) {
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

std::vector<Period> PeriodsCovering(UnixSeconds from, UnixSeconds to, semantic::TimeGrain grain) {
  std::vector<Period> periods;
  if (from >= to) return periods;
  for (UnixSeconds start = PeriodStart(from, grain); start < to;) {
    const UnixSeconds end = NextPeriodStart(start, grain);
    periods.emplace_back(start, end);
    start = end;
  }
  return periods;
}

std::string PeriodLabel(UnixSeconds start) {
  return FormatTimeText({ToCivil(start), TimePrecision::kDay});
}

}  // namespace strata::rollup
