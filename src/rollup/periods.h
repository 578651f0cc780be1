// The periods of a rollup's partition.by (day, week, month, quarter, year; weeks start on
// Monday), half-open [start, end) in UTC seconds. Pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "semantic/query.h"

namespace strata::rollup {

using Period = std::pair<UnixSeconds, UnixSeconds>;

// The start of the period of `grain` containing `t`.
UnixSeconds PeriodStart(UnixSeconds t, semantic::TimeGrain grain);
// The start of the next period. REQUIRES: `start` is a PeriodStart.
UnixSeconds NextPeriodStart(UnixSeconds start, semantic::TimeGrain grain);
// Every period from the one containing `from` to the one containing `to - 1`, in order; empty
// when from >= to.
std::vector<Period> PeriodsCovering(UnixSeconds from, UnixSeconds to, semantic::TimeGrain grain);
// "2026-04-07": the period's first day, a label for file names and output.
std::string PeriodLabel(UnixSeconds start);

}  // namespace strata::rollup
