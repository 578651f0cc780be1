#include "rollup/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "project/did_you_mean.h"
#include "rollup/append.h"
#include "rollup/compaction.h"
#include "rollup/definition.h"
#include "rollup/internal/period_writer.h"
#include "rollup/periods.h"
#include "rollup/refresh_record.h"
#include "semantic/query.h"
#include "semantic/rollup_sql.h"
#include "warehouse/cancellation.h"

namespace strata::rollup {
namespace {

using semantic::TimeGrain;
constexpr UnixSeconds kDay = 86400;

Error Interrupted() {
  return MakeError(ErrorCode::kInterrupted, "the build was interrupted (SIGINT/SIGTERM)",
                   "nothing was published for this rollup; the previous version stays in force");
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// One file the build writes (or keeps).
struct PlannedPeriod {
  PeriodOutcome outcome;
  std::optional<ManifestFile> kept;  // set when the previous file is kept
};

struct RollupPlan {
  std::vector<PlannedPeriod> periods;
  std::optional<UnixSeconds> range_start, range_end;
};

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

// The unit that bounds a build range: partition.by, else the time dimension's stored grain.
TimeGrain RangeUnit(const semantic::Rollup& rollup) {
  if (const auto by = PartitionGrain(rollup)) return *by;
  if (const auto time = semantic::RollupTimeDimension(rollup)) {
    if (const auto grain = semantic::RollupDimensionGrain(rollup, *time)) return *grain;
  }
  return TimeGrain::kDay;
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

// The periods the build covers, and which of the previous manifest's files it keeps: a file of
// the same period (or a compacted one inside the kept periods) that was written after its period
// ended, unless it is among the newest `refresh_last`.
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
  UnixSeconds from = 0, to = 0;
  bool null_file = false;
  if (rollup.build_range) {
    from = PeriodStart(now - static_cast<UnixSeconds>(rollup.build_range->days) * kDay, unit);
    to = NextPeriodStart(PeriodStart(now, unit), unit);
  } else {
    // Through the period of the newest row: later periods are missing (the router answers them
    // live) until rows arrive, rather than stored empty.
    STRATA_ASSIGN_OR_RETURN(const SourceTimes times, ReadSourceTimes(model, rollup, warehouse));
    if (times.bounds) {
      from = PeriodStart(times.bounds->first, unit);
      to = NextPeriodStart(PeriodStart(times.bounds->second, unit), unit);
    } else {
      from = to = PeriodStart(now, unit);  // nothing to store (a live tail: not since 1970)
    }
    // A file for the rows without a time only when there are some (or nothing else is built).
    null_file = times.nulls > 0 || !times.bounds;
  }
  if (rollup.live_tail) to = std::max(from, PeriodStart(now, unit));
  if (from < to) {
    plan.range_start = from;
    plan.range_end = to;
  }
  std::vector<Period> periods =
      by ? PeriodsCovering(from, to, *by)
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
    PlannedPeriod planned{Outcome(PeriodLabel(start), start, end, false), std::nullopt};
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

class RollupBuild {
 public:
  RollupBuild(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
              warehouse::Warehouse& warehouse, warehouse::Warehouse& engine,
              const RollupStore& store, const BuildOptions& options, UnixSeconds now,
              warehouse::CancellationWatcher& watcher)
      : watcher_(watcher),
        model_(model),
        rollup_(rollup),
        warehouse_(warehouse),
        engine_(engine),
        store_(store),
        options_(options),
        now_(now) {}

  RollupOutcome Run() {
    const auto started = std::chrono::steady_clock::now();
    outcome_.rollup = rollup_.name;
    Status built = Build();
    outcome_.duration_ms = MillisSince(started);
    if (!built.ok() && !outcome_.error) outcome_.error = std::move(built).error();
    outcome_.status = outcome_.error ? "failed" : skipped_ ? "skipped" : "built";
    Record();
    return std::move(outcome_);
  }

 private:
  Status Build() {
    STRATA_ASSIGN_OR_RETURN(lock_, store_.LockForBuild(rollup_.name));
    Result<std::optional<Manifest>> loaded = store_.Load(rollup_.name);
    std::optional<Manifest> previous = loaded.ok() ? std::move(*loaded) : std::nullopt;
    const std::string hash = DefinitionHash(model_, rollup_);
    const bool changed = !previous || previous->definition_hash != hash;
    const bool append = rollup_.partition && rollup_.partition->append;
    // An append rollup whose files hold no append marker (or no slice: an older manifest) yet
    // is rebuilt whole.
    bool full = options_.full || changed ||
                (append && (!previous->append_marker || !previous->append_slice_rows));
    // A published file that is gone or has another size (deleted, truncated, a full disk's
    // copy) sends every query around the rollup: it is rebuilt whole, due or not.
    bool damaged = false;
    if (!changed) {
      if (Status intact = store_.VerifyFiles(*previous, false); !intact.ok()) {
        damaged = full = true;
        outcome_.reason = "rebuilt whole, a file of version " + std::to_string(previous->version) +
                          " is damaged: " + intact.error().message;
      }
    }
    if (options_.due_only && !changed && !damaged) {
      if (std::optional<std::string> not_due = NotDue(*previous)) return Skip(*previous, *not_due);
    }
    if (append && !full) {
      STRATA_ASSIGN_OR_RETURN(const bool done, AppendRefresh(*previous, hash));
      if (done) return OkStatus();
      full = true;  // the append column went back below the stored marker: rebuild
    }
    STRATA_ASSIGN_OR_RETURN(marker_, ReadMarker());
    outcome_.marker = marker_;
    if (append) {
      STRATA_ASSIGN_OR_RETURN(const AppendMarker read, ReadAppendMarker(nullptr));
      append_to_ = read.value;
      if (append_to_) STRATA_TRY(CountSlice());
    }
    STRATA_ASSIGN_OR_RETURN(RollupPlan plan,
                            PlanPeriods(model_, rollup_, warehouse_, previous, full, now_));
    if (!full && marker_ && previous->freshness_marker == marker_ && SamePeriods(plan, *previous)) {
      return Skip(*previous,
                  "the freshness marker did not move since the build of " + previous->built_at);
    }
    WriteAll(plan);
    for (const PlannedPeriod& period : plan.periods) outcome_.periods.push_back(period.outcome);
    if (outcome_.error) return CollectAfterFailure();
    if (watcher_.cancelled()) {
      outcome_.error = Interrupted();
      return OkStatus();
    }
    Manifest manifest = NewManifest(plan, hash, previous);
    if (append_to_) {
      STRATA_TRY(AppendBuiltSlice(manifest));
      if (outcome_.error) return CollectAfterFailure();
    }
    return PublishAndCompact(manifest);
  }

  // The marker's slice of a full build and how many rows it holds, counted before the files
  // are read: a row that lands in the slice later makes the next refresh read it again.
  Status CountSlice() {
    slice_from_ = AppendSliceFrom(rollup_, *append_to_);
    Manifest counted;
    counted.append_marker = append_to_;
    counted.append_slice_from = slice_from_;
    STRATA_ASSIGN_OR_RETURN(const AppendMarker read, ReadAppendMarker(&counted));
    slice_rows_ = read.in_slice.value_or(0);
    return OkStatus();
  }

  // A full build of an append rollup reads every row through the marker; the files the
  // marker's slice touches then get their bases (append.h), from the rows before the slice.
  Status AppendBuiltSlice(Manifest& manifest) {
    AppendRequest request;
    request.carve = true;
    request.slice.from = slice_from_;
    request.slice.through = append_to_;
    request.settled = semantic::AppendBounds{};
    request.settled->before = slice_from_;
    request.settled->with_nulls = true;
    Result<AppendedFiles> appended = AppendLocked(manifest, request);
    if (!appended.ok()) {
      outcome_.error = std::move(appended).error();
      return OkStatus();
    }
    appended->slice_rows = slice_rows_;
    SetAppended(manifest, *appended);
    return OkStatus();
  }

  void SetAppended(Manifest& manifest, AppendedFiles& appended) const {
    manifest.append_marker = append_to_;
    manifest.append_slice_from = slice_from_;
    manifest.append_slice_rows = appended.slice_rows;
    manifest.range_start = appended.range_start;
    manifest.range_end = appended.range_end;
    manifest.files = std::move(appended.files);
    manifest.append_bases = std::move(appended.bases);
  }

  Status CollectAfterFailure() {
    if (Result<GarbageReport> garbage = store_.CollectGarbage(lock_); garbage.ok()) {
      outcome_.garbage = garbage->summary;
    }
    return OkStatus();
  }

  Status PublishAndCompact(const Manifest& manifest) {
    STRATA_ASSIGN_OR_RETURN(outcome_.version, store_.Publish(lock_, manifest));
    outcome_.rows = manifest.TotalRows();
    if (rollup_.partition && rollup_.partition->compact) {
      CompactionOutcome compacted = CompactLocked(model_, rollup_, engine_, store_, lock_, now_);
      if (compacted.error) {
        outcome_.error = std::move(compacted.error);
        return OkStatus();
      }
      outcome_.version = compacted.version;
      outcome_.compacted_files = compacted.merged_files;
    }
    return CollectAfterFailure();  // the garbage of the versions replaced
  }

  // The build_range window of now differs from the one `previous` covers.
  bool WindowMoved(const Manifest& previous) const {
    if (!rollup_.build_range) return false;
    const TimeGrain unit = RangeUnit(rollup_);
    const UnixSeconds days = static_cast<UnixSeconds>(rollup_.build_range->days);
    return previous.range_start != PeriodStart(now_ - days * kDay, unit) ||
           previous.range_end != NextPeriodStart(PeriodStart(now_, unit), unit);
  }

  // An append refresh (append.h): the rows past the stored append marker merged into the files.
  // False when it cannot append (the append column went back): the caller rebuilds.
  Result<bool> AppendRefresh(const Manifest& previous, const std::string& hash) {
    const bool own_marker = rollup_.refresh && rollup_.refresh->when_changed_sql;
    if (own_marker) {
      STRATA_ASSIGN_OR_RETURN(marker_, ReadMarker());
      outcome_.marker = marker_;
      if (marker_ && previous.freshness_marker == marker_ && !WindowMoved(previous)) {
        STRATA_TRY(Skip(
            previous, "the freshness marker did not move since the build of " + previous.built_at));
        return true;
      }
    }
    STRATA_ASSIGN_OR_RETURN(const AppendMarker read, ReadAppendMarker(&previous));
    if (read.behind || !read.value) return false;
    if (rollup_.refresh && rollup_.refresh->when_changed && !own_marker) {
      marker_ = read.value;  // the freshness marker is the append column's maximum
      outcome_.marker = marker_;
    }
    // The slice is as it was read when no row arrived in it since (a tie with the marker, a
    // late row of the marker's bucket): then a marker that did not move reads nothing.
    const bool slice_intact = read.in_slice == previous.append_slice_rows;
    if (read.value == previous.append_marker && slice_intact && !WindowMoved(previous)) {
      STRATA_TRY(Skip(previous, rollup_.refresh && rollup_.refresh->when_changed && !own_marker
                                    ? "the freshness marker did not move since the build of " +
                                          previous.built_at
                                    : "no row past the append marker " + *read.value));
      return true;
    }
    append_to_ = read.value;
    slice_from_ = AppendSliceFrom(rollup_, *append_to_);
    Result<AppendedFiles> appended = AppendLocked(previous, RefreshRequest(previous, slice_intact));
    if (!appended.ok()) {
      outcome_.error = std::move(appended).error();
      STRATA_TRY(CollectAfterFailure());
      return true;
    }
    outcome_.periods = appended->periods;
    if (watcher_.cancelled()) {
      outcome_.error = Interrupted();
      return true;
    }
    Manifest manifest = previous;
    manifest.definition_hash = hash;
    manifest.built_at = FormatIso8601(now_);
    manifest.built_through = now_;
    manifest.freshness_marker = marker_;
    SetAppended(manifest, *appended);
    STRATA_TRY(PublishAndCompact(manifest));
    return true;
  }

  // What a refresh reads (append.h): the rows between what the files hold and the new slice,
  // then the slice. The files are the start when the stored slice is intact and the new one
  // starts past the stored marker; otherwise the periods restart from their bases and the
  // stored slice is read again.
  AppendRequest RefreshRequest(const Manifest& previous, bool slice_intact) const {
    AppendRequest request;
    request.slice.from = slice_from_;
    request.slice.through = append_to_;
    if (slice_intact && AppendSliceIsPast(rollup_, *slice_from_, *previous.append_marker)) {
      request.settled = semantic::AppendBounds{};
      request.settled->after = previous.append_marker;
      request.settled->before = slice_from_;
      return request;
    }
    request.from_bases = true;
    if (previous.append_slice_from != slice_from_) {
      request.settled = semantic::AppendBounds{};
      request.settled->from = previous.append_slice_from;
      request.settled->before = slice_from_;
    }
    return request;
  }

  Result<AppendedFiles> AppendLocked(const Manifest& previous, const AppendRequest& request) {
    STRATA_ASSIGN_OR_RETURN(auto source, warehouse_.Connect());
    STRATA_ASSIGN_OR_RETURN(auto engine, engine_.Connect());
    watcher_.Register(source.get());
    watcher_.Register(engine.get());
    Result<AppendedFiles> appended = AppendToFiles(model_, rollup_, warehouse_.dialect(), *source,
                                                   *engine, store_, previous, request, now_);
    watcher_.Unregister(source.get());
    watcher_.Unregister(engine.get());
    if (!appended.ok() && watcher_.cancelled()) return Interrupted();
    return appended;
  }

  // The attempt's record for `rollups status` (refresh_record.h), while the lock is held. Best
  // effort: a record that cannot be written does not fail a build that published.
  void Record() {
    if (!lock_.held()) return;
    RefreshRecord record;
    record.at = FormatIso8601(now_);
    record.status = outcome_.status;
    record.reason = outcome_.error ? outcome_.error->message : outcome_.reason;
    record.marker = outcome_.marker;
    record.version = outcome_.version;
    if (Status written = WriteRefreshRecord(lock_, record); !written.ok()) {
      outcome_.garbage += (outcome_.garbage.empty() ? "" : "; ") +
                          std::string("the refresh record was not written: ") +
                          written.error().message;
    }
    lock_.Release();
  }

  Status Skip(const Manifest& previous, std::string reason) {
    skipped_ = true;
    outcome_.reason = std::move(reason);
    outcome_.version = previous.version;
    outcome_.rows = previous.TotalRows();
    if (!outcome_.marker) outcome_.marker = previous.freshness_marker;
    return OkStatus();
  }

  // Why a refresh does not build the rollup now (nullopt: it is due).
  std::optional<std::string> NotDue(const Manifest& previous) const {
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
  bool SamePeriods(const RollupPlan& plan, const Manifest& previous) const {
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
  Result<std::optional<std::string>> ReadMarker() {
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

  struct AppendMarker {
    std::optional<std::string> value;      // the append column's maximum; nullopt: no row has one
    bool behind = false;                   // below the stored marker
    std::optional<std::int64_t> in_slice;  // the rows in the stored marker's slice now
  };

  // The append column's maximum; with `previous`, whether it went below its marker and how many
  // rows its slice holds now.
  Result<AppendMarker> ReadAppendMarker(const Manifest* previous) {
    std::optional<std::string> stored, slice_from;
    if (previous != nullptr) {
      stored = previous->append_marker;
      slice_from = previous->append_slice_from;
    }
    STRATA_ASSIGN_OR_RETURN(const std::string sql,
                            semantic::PlanRollupAppendMarker(model_, rollup_, warehouse_.dialect(),
                                                             stored, slice_from));
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

  Manifest NewManifest(const RollupPlan& plan, const std::string& hash,
                       const std::optional<Manifest>& previous) {
    Manifest manifest;
    manifest.rollup = rollup_.name;
    manifest.definition_hash = hash;
    manifest.built_at = FormatIso8601(now_);
    // The watermark: a live_tail rollup holds the source rows before its open period (the
    // tail reads the rest); any other, the rows there were when it was built.
    manifest.built_through = now_;
    if (rollup_.live_tail) manifest.built_through = plan.range_end;
    manifest.freshness_marker = marker_;
    if (rollup_.partition && rollup_.partition->append) manifest.append_marker = append_to_;
    manifest.range_start = plan.range_start;
    manifest.range_end = plan.range_end;
    manifest.partition_by = rollup_.partition ? rollup_.partition->by : "";
    manifest.time_dimension = semantic::RollupTimeDimension(rollup_).value_or("");
    manifest.columns = columns_;
    if (manifest.columns.empty() && previous) manifest.columns = previous->columns;
    for (const PlannedPeriod& period : plan.periods) {
      if (period.kept && !manifest.files.empty() &&
          manifest.files.back().path == period.kept->path) {
        continue;  // a compacted file keeps several periods
      }
      manifest.files.push_back(period.kept ? *period.kept : written_.at(&period));
    }
    return manifest;
  }

  // The periods to write, as batches that each read the warehouse once: runs of adjacent
  // periods, split so that `parallel` batches can run at once and none spans more than
  // kMaxBatchPeriods. The whole-rollup and NULL-time files are batches of their own.
  std::vector<std::vector<PlannedPeriod*>> Batches(RollupPlan& plan) const {
    constexpr std::size_t kMaxBatchPeriods = 32;
    std::vector<std::vector<PlannedPeriod*>> runs(1);
    std::vector<std::vector<PlannedPeriod*>> singles;
    for (PlannedPeriod& period : plan.periods) {
      if (period.kept) {
        runs.emplace_back();
      } else if (!period.outcome.start || !rollup_.partition) {
        singles.push_back({&period});
      } else {
        runs.back().push_back(&period);
      }
    }
    std::size_t todo = 0;
    for (const auto& run : runs) todo += run.size();
    const std::size_t parallel = static_cast<std::size_t>(std::max(1, options_.parallel));
    const std::size_t size =
        std::clamp<std::size_t>((todo + parallel - 1) / parallel, 1, kMaxBatchPeriods);
    std::vector<std::vector<PlannedPeriod*>> batches;
    for (const auto& run : runs) {
      for (std::size_t i = 0; i < run.size(); i += size) {
        batches.emplace_back(
            run.begin() + static_cast<std::ptrdiff_t>(i),
            run.begin() + static_cast<std::ptrdiff_t>(std::min(run.size(), i + size)));
      }
    }
    for (auto& single : singles) batches.push_back(std::move(single));
    return batches;
  }

  // Writes every period that is not kept, `parallel` batches at a time.
  void WriteAll(RollupPlan& plan) {
    const std::vector<std::vector<PlannedPeriod*>> batches = Batches(plan);
    total_ = 0;
    for (const auto& batch : batches) total_ += batch.size();
    std::atomic<std::size_t> next{0};
    const auto worker = [&] {
      Result<std::unique_ptr<warehouse::Connection>> source = warehouse_.Connect();
      Result<std::unique_ptr<warehouse::Connection>> engine = engine_.Connect();
      if (source.ok()) watcher_.Register(source->get());
      if (engine.ok()) watcher_.Register(engine->get());
      for (std::size_t i = next++; i < batches.size(); i = next++) {
        if (watcher_.cancelled()) {
          for (PlannedPeriod* period : batches[i]) Finish(*period, Interrupted(), std::nullopt, 0);
          continue;
        }
        if (!source.ok() || !engine.ok()) {
          for (PlannedPeriod* period : batches[i]) {
            Finish(*period, source.ok() ? engine.error() : source.error(), std::nullopt, 0);
          }
          continue;
        }
        WriteBatch(batches[i], **source, **engine);
      }
      if (source.ok()) watcher_.Unregister(source->get());
      if (engine.ok()) watcher_.Unregister(engine->get());
    };
    const std::size_t threads =
        std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, options_.parallel)), 1,
                                std::max<std::size_t>(1, batches.size()));
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& thread : pool) thread.join();
  }

  void WriteBatch(const std::vector<PlannedPeriod*>& batch, warehouse::Connection& source,
                  warehouse::Connection& engine) {
    const auto started = std::chrono::steady_clock::now();
    const auto fail = [&](const Error& error) {
      for (PlannedPeriod* period : batch) {
        Finish(*period, error, std::nullopt, MillisSince(started) / batch.size());
      }
    };
    const PeriodOutcome& first = batch.front()->outcome;
    PeriodRequest request;
    request.null_time = first.null_time;
    if (append_to_) {
      request.append = semantic::AppendBounds{};
      request.append->through = append_to_;
      request.append->with_nulls = true;
    }
    if (first.start) request.window = {*first.start, *batch.back()->outcome.end};
    for (PlannedPeriod* period : batch) {
      PeriodFile file;
      file.label = period->outcome.label;
      if (batch.size() > 1) {  // one period's batch is exactly its rows
        file.period = {*period->outcome.start, *period->outcome.end};
      }
      if (rollup_.partition) {  // an unpartitioned rollup's one file is the whole rollup
        file.entry.start = period->outcome.start;
        file.entry.end = period->outcome.end;
      }
      file.entry.null_time = period->outcome.null_time;
      request.files.push_back(std::move(file));
    }
    Result<WrittenPeriods> written =
        WritePeriods(model_, rollup_, warehouse_.dialect(), source, engine, store_, request, now_);
    if (!written.ok()) return fail(written.error());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (columns_.empty()) columns_ = written->columns;
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
      Finish(*batch[i], std::nullopt, written->files[i], written->files[i].build_ms);
    }
  }

  void Finish(PlannedPeriod& period, std::optional<Error> error, std::optional<ManifestFile> file,
              double duration_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    period.outcome.duration_ms = duration_ms;
    if (error) {
      period.outcome.status = "failed";
      period.outcome.error = *error;
      if (!outcome_.error) outcome_.error = *error;
    } else {
      period.outcome.rows = file->rows;
      period.outcome.bytes = file->bytes;
      written_[&period] = *file;
    }
    ++done_;
    if (options_.progress) options_.progress(rollup_.name, period.outcome, done_, total_);
  }

  warehouse::CancellationWatcher& watcher_;
  const semantic::SemanticModel& model_;
  const semantic::Rollup& rollup_;
  warehouse::Warehouse& warehouse_;
  warehouse::Warehouse& engine_;
  const RollupStore& store_;
  const BuildOptions& options_;
  const UnixSeconds now_;
  RollupOutcome outcome_;
  std::mutex mutex_;  // guards written_, columns_, done_ and outcome_.error
  std::map<const PlannedPeriod*, ManifestFile> written_;
  std::vector<ManifestColumn> columns_;
  std::optional<std::string> marker_;
  std::optional<std::string> append_to_;   // partition.append: the marker the files are read to
  std::optional<std::string> slice_from_;  // partition.append: where the marker's slice starts
  std::int64_t slice_rows_ = 0;            // a full build's: the rows of its slice
  bool skipped_ = false;
  std::size_t done_ = 0, total_ = 0;
  BuildLock lock_;  // held from the start of Build() until Record()
};

}  // namespace

bool BuildReport::ok() const {
  return std::all_of(rollups.begin(), rollups.end(),
                     [](const RollupOutcome& rollup) { return !rollup.error; });
}

Result<BuildReport> BuildRollups(const semantic::SemanticModel& model,
                                 warehouse::Warehouse& warehouse, warehouse::Warehouse& engine,
                                 const RollupStore& store, const BuildOptions& options) {
  std::vector<std::string> names;
  for (const semantic::Rollup& rollup : model.rollups) names.push_back(rollup.name);
  for (const std::string& wanted : options.rollups) {
    if (std::find(names.begin(), names.end(), wanted) == names.end()) {
      return MakeError(ErrorCode::kConfig, fmt::format("no rollup named \"{}\"", wanted),
                       project::SuggestionHint(wanted, names));
    }
  }
  const UnixSeconds now = (options.clock != nullptr ? *options.clock : SystemClock()).Now();
  BuildReport report;
  warehouse::CancellationWatcher watcher(options.cancel);
  for (const semantic::Rollup& rollup : model.rollups) {
    if (!options.rollups.empty() && std::find(options.rollups.begin(), options.rollups.end(),
                                              rollup.name) == options.rollups.end()) {
      continue;
    }
    if (watcher.cancelled()) {  // not started
      RollupOutcome outcome;
      outcome.rollup = rollup.name;
      outcome.status = "failed";
      outcome.error = Interrupted();
      report.rollups.push_back(std::move(outcome));
      continue;
    }
    report.rollups.push_back(
        RollupBuild(model, rollup, warehouse, engine, store, options, now, watcher).Run());
  }
  return report;
}

}  // namespace strata::rollup
