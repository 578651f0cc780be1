#include "rollup/internal/period_plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "rollup/periods.h"
#include "semantic/rollup_sql.h"

namespace strata::rollup {
namespace {

using semantic::TimeGrain;
constexpr UnixSeconds kDay = 86400;

PeriodOutcome Outcome(std::string label, std::optional<UnixSeconds> start,
                      std::optional<UnixSeconds> end, bool null_time) {
  PeriodOutcome outcome;
  outcome.label = std::move(label);
  outcome.start = start;
  outcome.end = end;
  outcome.null_time = null_time;
  outcome.status = "built";
  return outcome;
}

std::optional<TimeGrain> PartitionGrain(const semantic::Rollup& rollup) {
  if (!rollup.partition) return std::nullopt;
  return semantic::ParseTimeGrain(rollup.partition->by);
}

// The source rows' time bounds (nullopt when no row has a time) and how many rows have none.
struct SourceTimes {
  std::optional<std::pair<UnixSeconds, UnixSeconds>> bounds;
  std::int64_t nulls = 0;
};

Result<SourceTimes> ReadSourceTimes(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup,
                                    warehouse::Warehouse& warehouse) {
  STRATA_ASSIGN_OR_RETURN(const std::string sql,
                          semantic::PlanRollupTimeBounds(model, rollup, warehouse.dialect()));
  STRATA_ASSIGN_OR_RETURN(auto connection, warehouse.Connect());
  STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult result, connection->Execute(sql));
  if (result.row_count() != 1 || result.columns.size() != 3) {
    return MakeError(ErrorCode::kInternal, "the time bounds query returned no row");
  }
  const auto seconds = [](const warehouse::Value& value) -> std::optional<UnixSeconds> {
    if (std::holds_alternative<std::monostate>(value)) return std::nullopt;
    return ParseSqlTimeValue(warehouse::ValueToString(value));
  };
  SourceTimes times;
  const auto lo = seconds(result.columns[0].values[0]);
  const auto hi = seconds(result.columns[1].values[0]);
  if (lo && hi) times.bounds = std::make_pair(*lo, *hi);
  const warehouse::Value& nulls = result.columns[2].values[0];
  if (!std::holds_alternative<std::monostate>(nulls)) {
    times.nulls = std::stoll(warehouse::ValueToString(nulls));
  }
  return times;
}

// A period file written while its period was still open (the current month at the time) holds
// only the rows up to then: it is never kept, so the next build re-reads that period whether or
// not refresh_last covers it. A file without a readable built_at is rebuilt too.
bool BuiltAfterItEnded(const ManifestFile& file) {
  const std::optional<UnixSeconds> built = ParseIso8601(file.built_at);
  return built && file.end && *file.end <= *built;
}

}  // namespace

TimeGrain RangeUnit(const semantic::Rollup& rollup) {
  if (const auto by = PartitionGrain(rollup)) return *by;
  if (const auto time = semantic::RollupTimeDimension(rollup)) {
    if (const auto grain = semantic::RollupDimensionGrain(rollup, *time)) return *grain;
  }
  return TimeGrain::kDay;
}

Result<RollupPlan> PlanPeriods(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                               warehouse::Warehouse& warehouse,
                               const std::optional<Manifest>& previous, bool full,
                               UnixSeconds now) {
  RollupPlan plan;
  const std::optional<TimeGrain> by = PartitionGrain(rollup);
  const bool windowed = by || rollup.build_range || rollup.live_tail;
  if (!windowed) {
    plan.periods.push_back({Outcome("all", std::nullopt, std::nullopt, false), std::nullopt});
    return plan;
  }
  const TimeGrain unit = RangeUnit(rollup);
  const TimeZone& zone = rollup.timezone;
  UnixSeconds from = 0, to = 0;
  bool null_file = false;
  if (rollup.build_range) {
    from = PeriodStart(now - static_cast<UnixSeconds>(rollup.build_range->days) * kDay, unit, zone);
    to = NextPeriodStart(PeriodStart(now, unit, zone), unit, zone);
  } else {
    // Through the period of the newest row: later periods are missing (the router answers them
    // live) until rows arrive, rather than stored empty.
    STRATA_ASSIGN_OR_RETURN(const SourceTimes times, ReadSourceTimes(model, rollup, warehouse));
    if (times.bounds) {
      from = PeriodStart(times.bounds->first, unit, zone);
      to = NextPeriodStart(PeriodStart(times.bounds->second, unit, zone), unit, zone);
    } else {
      from = to = PeriodStart(now, unit, zone);  // nothing to store (a live tail: not since 1970)
    }
    // A file for the rows without a time only when there are some (or nothing else is built).
    null_file = times.nulls > 0 || !times.bounds;
  }
  if (rollup.live_tail) to = std::max(from, PeriodStart(now, unit, zone));
  if (from < to) {
    plan.range_start = from;
    plan.range_end = to;
  }
  std::vector<Period> periods =
      by ? PeriodsCovering(from, to, *by, zone)
         : (from < to ? std::vector<Period>{{from, to}} : std::vector<Period>{});
  const std::size_t refresh_last = rollup.partition ? rollup.partition->refresh_last : 0;
  // A compacted file (compaction.h) is kept whole or not at all: when it lies inside the
  // periods that are kept.
  const UnixSeconds keep_until =
      refresh_last == 0 || periods.empty()
          ? to
          : periods[periods.size() - std::min(refresh_last, periods.size())].first;
  for (std::size_t i = 0; i < periods.size(); ++i) {
    const auto [start, end] = periods[i];
    PlannedPeriod planned{Outcome(PeriodLabel(start, zone), start, end, false), std::nullopt};
    const bool newest = i + refresh_last >= periods.size();
    if (by && previous && !full && !newest) {
      for (const ManifestFile& file : previous->files) {
        if (!file.start) continue;
        const bool exact = *file.start == start && *file.end == end;
        const bool compacted = *file.start <= start && end <= *file.end && *file.start >= from &&
                               *file.end <= keep_until;
        if ((exact || compacted) && BuiltAfterItEnded(file)) planned.kept = file;
      }
    }
    if (planned.kept) {
      planned.outcome.status = "kept";
      planned.outcome.rows = planned.kept->rows;
      planned.outcome.bytes = planned.kept->bytes;
    }
    plan.periods.push_back(std::move(planned));
  }
  if (by && null_file && !rollup.live_tail) {
    plan.periods.push_back({Outcome("null", std::nullopt, std::nullopt, true), std::nullopt});
  }
  return plan;
}

}  // namespace strata::rollup
