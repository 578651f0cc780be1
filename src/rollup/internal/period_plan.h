// Which periods a build of a rollup covers and which of the current files it keeps (builder.h,
// "Which periods"; docs/rollup-store.md, "Which periods a plain build re-reads").
#pragma once

#include <optional>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/builder.h"
#include "rollup/manifest.h"
#include "semantic/model.h"
#include "semantic/query.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// One file the build writes (or keeps).
struct PlannedPeriod {
  PeriodOutcome outcome;             // status "built" until written, "kept" with `kept`
  std::optional<ManifestFile> kept;  // set when the previous file is kept
};

struct RollupPlan {
  std::vector<PlannedPeriod> periods;
  std::optional<UnixSeconds> range_start, range_end;
};

// The unit that bounds a build range: partition.by, else the time dimension's stored grain
// (day when it has none). Pure.
semantic::TimeGrain RangeUnit(const semantic::Rollup& rollup);

// The periods the build covers (at `now`; without a build_range, those of the source rows'
// times, read from `warehouse`), and which of `previous`'s files it keeps: a file of the same
// period (or a compacted one inside the kept periods) that was written after its period ended,
// unless it is among the newest `refresh_last` or `full`. Errors: the warehouse's.
Result<RollupPlan> PlanPeriods(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                               warehouse::Warehouse& warehouse,
                               const std::optional<Manifest>& previous, bool full, UnixSeconds now);

}  // namespace strata::rollup
