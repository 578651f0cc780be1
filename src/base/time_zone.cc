// TimeZone over Howard Hinnant's date/tz and the system tz database. The only file of Strata that
// includes date/tz.h (base/time.h says why).
#include <date/tz.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "base/time.h"

namespace strata {
namespace {

namespace chr = std::chrono;

using SysSeconds = date::sys_seconds;

constexpr UnixSeconds kSpanLimit = std::int64_t{400} * 366 * 86400;
// Transitions a walk over the database may pass before it gives up (a zone has a few hundred).
constexpr int kMaxTransitions = 4000;

date::sys_info InfoAt(const date::time_zone& zone, UnixSeconds t) {
  return zone.get_info(SysSeconds{chr::seconds{t}});
}

UnixSeconds Seconds(SysSeconds t) { return t.time_since_epoch().count(); }

}  // namespace

std::string FormatUtcOffset(int offset_seconds) {
  const char sign = offset_seconds < 0 ? '-' : '+';
  const int magnitude = offset_seconds < 0 ? -offset_seconds : offset_seconds;
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%c%02d:%02d", sign, magnitude / 3600,
                (magnitude % 3600) / 60);
  return buffer;
}

Result<TimeZone> TimeZone::Find(std::string_view name, std::string_view where) {
  if (name == "UTC") return TimeZone();
  try {
    if (!name.empty()) return TimeZone(date::locate_zone(name));
  } catch (const std::exception&) {
    // Unknown to the database: reported below.
  }
  return MakeError(ErrorCode::kInvalidTimeZone,
                   std::string(where) + " \"" + std::string(name) +
                       "\" is not UTC or a time zone of the IANA database",
                   "use an IANA name, spelled with its capitals: \"UTC\", \"America/New_York\", "
                   "\"Europe/Berlin\", \"Asia/Kolkata\"");
}

std::string_view TimeZone::name() const {
  if (zone_ == nullptr) return "UTC";
  return zone_->name();
}

int TimeZone::OffsetAt(UnixSeconds t) const {
  if (zone_ == nullptr) return 0;
  return static_cast<int>(InfoAt(*zone_, t).offset.count());
}

CivilTime TimeZone::ToLocal(UnixSeconds t) const { return ToCivil(t + OffsetAt(t)); }

UnixSeconds TimeZone::FirstInstantAtOrAfter(const CivilTime& local) const {
  const UnixSeconds wall = ToUnixSeconds(local);
  if (zone_ == nullptr) return wall;
  const date::local_info info = zone_->get_info(date::local_seconds{chr::seconds{wall}});
  switch (info.result) {
    case date::local_info::unique:
    case date::local_info::ambiguous:
      // The first of two occurrences is the one under the offset before the transition.
      return wall - info.first.offset.count();
    case date::local_info::nonexistent:
      return Seconds(info.first.end);
  }
  return wall - info.first.offset.count();
}

std::pair<UnixSeconds, UnixSeconds> TimeZone::OffsetSpan(UnixSeconds t) const {
  if (zone_ == nullptr) return {t - kSpanLimit, t + kSpanLimit};
  const date::sys_info here = InfoAt(*zone_, t);
  UnixSeconds begin = Seconds(here.begin);
  UnixSeconds end = Seconds(here.end);
  for (int i = 0; i < kMaxTransitions && begin > t - kSpanLimit; ++i) {
    const date::sys_info before = InfoAt(*zone_, begin - 1);
    if (before.offset != here.offset) break;
    begin = Seconds(before.begin);
  }
  for (int i = 0; i < kMaxTransitions && end < t + kSpanLimit; ++i) {
    const date::sys_info after = InfoAt(*zone_, end);
    if (after.offset != here.offset) break;
    end = Seconds(after.end);
  }
  return {std::max(begin, t - kSpanLimit), std::min(end, t + kSpanLimit)};
}

bool TimeZone::WholeHourOffsets(UnixSeconds from, UnixSeconds to) const {
  if (zone_ == nullptr) return true;
  for (UnixSeconds t = from; t < to;) {
    const date::sys_info info = InfoAt(*zone_, t);
    if (info.offset.count() % 3600 != 0) return false;
    t = Seconds(info.end);
  }
  return true;
}

bool TimeZone::FixedOffset(UnixSeconds from, UnixSeconds to) const {
  if (zone_ == nullptr || from >= to) return true;
  return OffsetSpan(from).second >= to;
}

std::string TimeZone::FormatInstant(UnixSeconds t) const {
  if (zone_ == nullptr) return FormatIso8601(t);
  const int offset = OffsetAt(t);
  return FormatTimeText({ToCivil(t + offset), TimePrecision::kSecond, 'T', false}) +
         FormatUtcOffset(offset);
}

}  // namespace strata
