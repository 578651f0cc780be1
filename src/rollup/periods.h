// The periods of a rollup's partition.by (day, week, month, quarter, year; weeks start on
// Monday), half-open [start, end) in UTC seconds, local to the rollup's zone: a Berlin day is
// [its local midnight, the next local midnight), 23 or 25 hours around a daylight-saving change.
// UTC uses plain arithmetic. Pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "semantic/query.h"

namespace strata::rollup {

using Period = std::pair<UnixSeconds, UnixSeconds>;

// The start of the period of `grain` in `zone` containing `t`.
UnixSeconds PeriodStart(UnixSeconds t, semantic::TimeGrain grain, const TimeZone& zone);
// The start of the next period. REQUIRES: `start` is a PeriodStart in `zone`.
UnixSeconds NextPeriodStart(UnixSeconds start, semantic::TimeGrain grain, const TimeZone& zone);
// Every period from the one containing `from` to the one containing `to - 1`, in order; empty
// when from >= to.
std::vector<Period> PeriodsCovering(UnixSeconds from, UnixSeconds to, semantic::TimeGrain grain,
                                    const TimeZone& zone);
// "2026-04-07": the period's first (local) day, a label for file names and output.
std::string PeriodLabel(UnixSeconds start, const TimeZone& zone);

}  // namespace strata::rollup
