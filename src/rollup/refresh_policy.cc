#include "rollup/internal/refresh_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "rollup/periods.h"
#include "semantic/rollup_sql.h"

namespace strata::rollup {
namespace {

using semantic::TimeGrain;
constexpr UnixSeconds kDay = 86400;

std::string MarkerUnmoved(const Manifest& previous) {
  return "the freshness marker did not move since the build of " + previous.built_at;
}

}  // namespace

RefreshStart RefreshPolicy::Start(const std::optional<Manifest>& previous, const std::string& hash,
                                  const RollupStore& store) const {
  RefreshStart start;
  const bool changed = !previous || previous->definition_hash != hash;
  const bool append = rollup_.partition && rollup_.partition->append;
  // An append rollup whose files hold no append marker (or no slice: an older manifest) yet
  // is rebuilt whole.
  start.full = options_.full || changed ||
               (append && (!previous->append_marker || !previous->append_slice_rows));
  // A published file that is gone or has another size (deleted, truncated, a full disk's
  // copy) sends every query around the rollup: it is rebuilt whole, due or not.
  bool damaged = false;
  if (!changed) {
    if (Status intact = store.VerifyFiles(*previous, false); !intact.ok()) {
      damaged = start.full = true;
      start.reason = "rebuilt whole, a file of version " + std::to_string(previous->version) +
                     " is damaged: " + intact.error().message;
    }
  }
  if (options_.due_only && !changed && !damaged) start.skip = NotDue(*previous);
  start.append = append && !start.full;
  return start;
}

Status RefreshPolicy::DecideAppend(const Manifest& previous, AppendDecision& decision) const {
  using Kind = AppendDecision::Kind;
  const bool own_marker = rollup_.refresh && rollup_.refresh->when_changed_sql;
  if (own_marker) {
    STRATA_ASSIGN_OR_RETURN(decision.marker, ReadMarker());
    decision.marker_read = true;
    if (decision.marker && previous.freshness_marker == decision.marker && !WindowMoved(previous)) {
      decision.kind = Kind::kSkip;
      decision.skip = MarkerUnmoved(previous);
      return OkStatus();
    }
  }
  STRATA_ASSIGN_OR_RETURN(const AppendMarker read, ReadAppendMarker(&previous));
  if (read.behind || !read.value) {
    decision.kind = Kind::kRebuild;  // the append column went back below the stored marker
    return OkStatus();
  }
  const bool column_marker = rollup_.refresh && rollup_.refresh->when_changed && !own_marker;
  if (column_marker) {
    decision.marker = read.value;  // the freshness marker is the append column's maximum
    decision.marker_read = true;
  }
  // The slice is as it was read when no row arrived in it since (a tie with the marker, a
  // late row of the marker's bucket): then a marker that did not move reads nothing.
  const bool slice_intact = read.in_slice == previous.append_slice_rows;
  if (read.value == previous.append_marker && slice_intact && !WindowMoved(previous)) {
    decision.kind = Kind::kSkip;
    decision.skip =
        column_marker ? MarkerUnmoved(previous) : "no row past the append marker " + *read.value;
    return OkStatus();
  }
  decision.kind = Kind::kAppend;
  decision.append_to = *read.value;
  decision.slice_from = AppendSliceFrom(rollup_, decision.append_to);
  decision.request =
      RefreshRequest(previous, slice_intact, decision.append_to, decision.slice_from);
  return OkStatus();
}

Status RefreshPolicy::DecideBuild(const std::optional<Manifest>& previous, bool full,
                                  BuildDecision& decision) const {
  STRATA_ASSIGN_OR_RETURN(decision.marker, ReadMarker());
  decision.marker_read = true;
  if (rollup_.partition && rollup_.partition->append) {
    STRATA_ASSIGN_OR_RETURN(const AppendMarker read, ReadAppendMarker(nullptr));
    decision.append_to = read.value;
    if (decision.append_to) {
      // The marker's slice of a full build and how many rows it holds, counted before the
      // files are read: a row that lands in the slice later makes the next refresh read it
      // again.
      decision.slice_from = AppendSliceFrom(rollup_, *decision.append_to);
      Manifest counted;
      counted.append_marker = decision.append_to;
      counted.append_slice_from = decision.slice_from;
      STRATA_ASSIGN_OR_RETURN(const AppendMarker slice, ReadAppendMarker(&counted));
      decision.slice_rows = slice.in_slice.value_or(0);
    }
  }
  STRATA_ASSIGN_OR_RETURN(decision.plan,
                          PlanPeriods(model_, rollup_, warehouse_, previous, full, now_));
  if (!full && decision.marker && previous->freshness_marker == decision.marker &&
      SamePeriods(decision.plan, *previous)) {
    decision.skip = MarkerUnmoved(*previous);
  }
  return OkStatus();
}

// The build_range window of now differs from the one `previous` covers.
bool RefreshPolicy::WindowMoved(const Manifest& previous) const {
  if (!rollup_.build_range) return false;
  const TimeGrain unit = RangeUnit(rollup_);
  const UnixSeconds days = static_cast<UnixSeconds>(rollup_.build_range->days);
  const TimeZone& zone = rollup_.timezone;
  return previous.range_start != PeriodStart(now_ - days * kDay, unit, zone) ||
         previous.range_end != NextPeriodStart(PeriodStart(now_, unit, zone), unit, zone);
}

// What a refresh reads (append.h): the rows between what the files hold and the new slice,
// then the slice. The files are the start when the stored slice is intact and the new one
// starts past the stored marker; otherwise the periods restart from their bases and the
// stored slice is read again.
AppendRequest RefreshPolicy::RefreshRequest(const Manifest& previous, bool slice_intact,
                                            const std::string& append_to,
                                            const std::string& slice_from) const {
  AppendRequest request;
  request.slice.from = slice_from;
  request.slice.through = append_to;
  if (slice_intact && AppendSliceIsPast(rollup_, slice_from, *previous.append_marker)) {
    request.settled = semantic::AppendBounds{};
    request.settled->after = previous.append_marker;
    request.settled->before = slice_from;
    return request;
  }
  request.from_bases = true;
  if (previous.append_slice_from != slice_from) {
    request.settled = semantic::AppendBounds{};
    request.settled->from = previous.append_slice_from;
    request.settled->before = slice_from;
  }
  return request;
}

// Why a refresh does not build the rollup now (nullopt: it is due).
std::optional<std::string> RefreshPolicy::NotDue(const Manifest& previous) const {
  const bool named = std::find(options_.rollups.begin(), options_.rollups.end(), rollup_.name) !=
                     options_.rollups.end();
  if (!rollup_.refresh || named) return std::nullopt;
  if (rollup_.refresh->manual) {
    return std::string("refresh is manual: name it (--rollup ") + rollup_.name + ")";
  }
  if (!rollup_.refresh->every) return std::nullopt;
  const std::optional<UnixSeconds> every = ParseDurationSeconds(*rollup_.refresh->every);
  const std::optional<UnixSeconds> built = ParseIso8601(previous.built_at);
  if (!every || !built) return std::nullopt;
  const UnixSeconds due = *built + *every;
  if (now_ >= due) return std::nullopt;
  return fmt::format("not due until {} (every {} since the build of {})", FormatIso8601(due),
                     *rollup_.refresh->every, previous.built_at);
}

// Whether the plan covers exactly the periods of `previous`.
bool RefreshPolicy::SamePeriods(const RollupPlan& plan, const Manifest& previous) const {
  if (plan.range_start != previous.range_start || plan.range_end != previous.range_end) {
    return false;
  }
  if (!rollup_.partition) return previous.files.size() == 1;  // the whole rollup's one file
  std::vector<std::tuple<std::optional<UnixSeconds>, std::optional<UnixSeconds>, bool>> planned,
      stored;
  for (const PlannedPeriod& period : plan.periods) {
    if (period.kept) {  // a compacted file keeps several periods: its own span, once
      planned.emplace_back(period.kept->start, period.kept->end, period.kept->null_time);
    } else {
      planned.emplace_back(period.outcome.start, period.outcome.end, period.outcome.null_time);
    }
  }
  for (const ManifestFile& file : previous.files) {
    stored.emplace_back(file.start, file.end, file.null_time);
  }
  std::sort(planned.begin(), planned.end());
  planned.erase(std::unique(planned.begin(), planned.end()), planned.end());
  std::sort(stored.begin(), stored.end());
  return planned == stored;
}

// The freshness marker's value as text (before the periods are read, so rows that land during
// the build move it again); nullopt without when_changed / when_changed_sql.
Result<std::optional<std::string>> RefreshPolicy::ReadMarker() const {
  STRATA_ASSIGN_OR_RETURN(const std::optional<std::string> sql,
                          semantic::PlanRollupMarker(model_, rollup_, warehouse_.dialect()));
  if (!sql) return std::optional<std::string>();
  STRATA_ASSIGN_OR_RETURN(auto connection, warehouse_.Connect());
  Result<warehouse::QueryResult> result = connection->Execute(*sql);
  if (!result.ok()) {
    return std::move(
        result.error().Note("while reading the freshness marker of rollup " + rollup_.name));
  }
  if (result->row_count() == 0 || result->columns.empty()) return std::optional<std::string>();
  const warehouse::Value& value = result->columns[0].values[0];
  if (std::holds_alternative<std::monostate>(value)) return std::optional<std::string>();
  return std::optional<std::string>(warehouse::ValueToString(value));
}

// The append column's maximum; with `previous`, whether it went below its marker and how many
// rows its slice holds now.
Result<RefreshPolicy::AppendMarker> RefreshPolicy::ReadAppendMarker(
    const Manifest* previous) const {
  std::optional<std::string> stored, slice_from;
  if (previous != nullptr) {
    stored = previous->append_marker;
    slice_from = previous->append_slice_from;
  }
  STRATA_ASSIGN_OR_RETURN(
      const std::string sql,
      semantic::PlanRollupAppendMarker(model_, rollup_, warehouse_.dialect(), stored, slice_from));
  STRATA_ASSIGN_OR_RETURN(auto connection, warehouse_.Connect());
  Result<warehouse::QueryResult> result = connection->Execute(sql);
  if (!result.ok()) {
    return std::move(
        result.error().Note("while reading the append marker of rollup " + rollup_.name));
  }
  AppendMarker marker;
  if (result->row_count() == 0 || result->columns.empty()) return marker;
  const warehouse::Value& value = result->columns[0].values[0];
  if (!std::holds_alternative<std::monostate>(value)) {
    marker.value = warehouse::ValueToString(value);
  }
  if (result->columns.size() > 1) {
    const warehouse::Value& behind = result->columns[1].values[0];
    marker.behind = !std::holds_alternative<std::monostate>(behind) &&
                    warehouse::ValueToString(behind) == "true";
  }
  if (result->columns.size() > 2) {
    const warehouse::Value& in_slice = result->columns[2].values[0];
    marker.in_slice = std::holds_alternative<std::monostate>(in_slice)
                          ? 0
                          : std::stoll(warehouse::ValueToString(in_slice));
  }
  return marker;
}

}  // namespace strata::rollup
