#include "rollup/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "project/did_you_mean.h"
#include "rollup/append.h"
#include "rollup/compaction.h"
#include "rollup/definition.h"
#include "rollup/internal/batch_writer.h"
#include "rollup/internal/period_plan.h"
#include "rollup/internal/refresh_policy.h"
#include "rollup/refresh_record.h"
#include "semantic/rollup_sql.h"
#include "warehouse/cancellation.h"

namespace strata::rollup {
namespace {

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// One rollup's build: the refresh policy decides (refresh_policy.h), this executes: the
// writes (batch_writer.h), an append (append.h), the publish, the compaction and the collection.
class RollupBuild {
 public:
  explicit RollupBuild(const RollupBuildContext& build)
      : build_(build),
        policy_(build.model, build.rollup, build.warehouse, build.options, build.now) {}

  RollupOutcome Run() {
    const auto started = std::chrono::steady_clock::now();
    outcome_.rollup = build_.rollup.name;
    Status built = Build();
    outcome_.duration_ms = MillisSince(started);
    if (!built.ok() && !outcome_.error) outcome_.error = std::move(built).error();
    outcome_.status = outcome_.error ? "failed" : skipped_ ? "skipped" : "built";
    Record();
    return std::move(outcome_);
  }

 private:
  Status Build() {
    STRATA_ASSIGN_OR_RETURN(lock_, build_.store.LockForBuild(build_.rollup.name));
    Result<std::optional<Manifest>> loaded = build_.store.Load(build_.rollup.name);
    std::optional<Manifest> previous = loaded.ok() ? std::move(*loaded) : std::nullopt;
    const std::string hash = DefinitionHash(build_.model, build_.rollup);
    const RefreshStart start = policy_.Start(previous, hash, build_.store);
    outcome_.reason = start.reason;
    if (start.skip) return Skip(*previous, *start.skip);
    bool full = start.full;
    if (start.append) {
      AppendDecision decision;
      Status decided = policy_.DecideAppend(*previous, decision);
      if (decision.marker_read) outcome_.marker = marker_ = decision.marker;
      STRATA_TRY(decided);
      switch (decision.kind) {
        case AppendDecision::Kind::kSkip:
          return Skip(*previous, decision.skip);
        case AppendDecision::Kind::kAppend:
          return AppendRefresh(*previous, hash, decision);
        case AppendDecision::Kind::kRebuild:
          full = true;
          break;
      }
    }
    BuildDecision decision;
    Status decided = policy_.DecideBuild(previous, full, decision);
    if (decision.marker_read) outcome_.marker = marker_ = decision.marker;
    STRATA_TRY(decided);
    if (decision.skip) return Skip(*previous, *decision.skip);
    append_to_ = decision.append_to;
    slice_from_ = decision.slice_from;
    slice_rows_ = decision.slice_rows;
    return WriteAndPublish(decision.plan, hash, previous);
  }

  // Writes the plan's periods (batch_writer.h), then the append slice's bases, and publishes.
  Status WriteAndPublish(RollupPlan& plan, const std::string& hash,
                         const std::optional<Manifest>& previous) {
    BatchWriter writer(build_, append_to_);
    writer.WriteAll(plan);
    for (const PlannedPeriod& period : plan.periods) outcome_.periods.push_back(period.outcome);
    if (writer.error()) outcome_.error = writer.error();
    if (outcome_.error) return CollectAfterFailure();
    if (build_.watcher.cancelled()) {
      outcome_.error = BuildInterrupted();
      return OkStatus();
    }
    Manifest manifest = NewManifest(plan, hash, previous, writer);
    if (append_to_) {
      STRATA_TRY(AppendBuiltSlice(manifest));
      if (outcome_.error) return CollectAfterFailure();
    }
    return PublishAndCompact(manifest);
  }

  // An append refresh (append.h): the rows the policy decided merged into the files.
  Status AppendRefresh(const Manifest& previous, const std::string& hash,
                       const AppendDecision& decision) {
    append_to_ = decision.append_to;
    slice_from_ = decision.slice_from;
    Result<AppendedFiles> appended = AppendLocked(previous, decision.request);
    if (!appended.ok()) {
      outcome_.error = std::move(appended).error();
      return CollectAfterFailure();
    }
    outcome_.periods = appended->periods;
    if (build_.watcher.cancelled()) {
      outcome_.error = BuildInterrupted();
      return OkStatus();
    }
    Manifest manifest = previous;
    manifest.definition_hash = hash;
    manifest.built_at = FormatIso8601(build_.now);
    manifest.built_through = build_.now;
    manifest.freshness_marker = marker_;
    SetAppended(manifest, *appended);
    return PublishAndCompact(manifest);
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
    if (Result<GarbageReport> garbage = build_.store.CollectGarbage(lock_); garbage.ok()) {
      outcome_.garbage = garbage->summary;
    }
    return OkStatus();
  }

  Status PublishAndCompact(const Manifest& manifest) {
    STRATA_ASSIGN_OR_RETURN(outcome_.version, build_.store.Publish(lock_, manifest));
    outcome_.rows = manifest.TotalRows();
    if (build_.rollup.partition && build_.rollup.partition->compact) {
      CompactionOutcome compacted = CompactLocked(build_.model, build_.rollup, build_.engine,
                                                  build_.store, lock_, build_.now);
      if (compacted.error) {
        outcome_.error = std::move(compacted.error);
        return OkStatus();
      }
      outcome_.version = compacted.version;
      outcome_.compacted_files = compacted.merged_files;
    }
    return CollectAfterFailure();  // the garbage of the versions replaced
  }

  Result<AppendedFiles> AppendLocked(const Manifest& previous, const AppendRequest& request) {
    STRATA_ASSIGN_OR_RETURN(auto source, build_.warehouse.Connect());
    STRATA_ASSIGN_OR_RETURN(auto engine, build_.engine.Connect());
    build_.watcher.Register(source.get());
    build_.watcher.Register(engine.get());
    Result<AppendedFiles> appended =
        AppendToFiles(build_.model, build_.rollup, build_.warehouse.dialect(), *source, *engine,
                      build_.store, previous, request, build_.now);
    build_.watcher.Unregister(source.get());
    build_.watcher.Unregister(engine.get());
    if (!appended.ok() && build_.watcher.cancelled()) return BuildInterrupted();
    return appended;
  }

  // The attempt's record for `rollups status` (refresh_record.h), while the lock is held. Best
  // effort: a record that cannot be written does not fail a build that published.
  void Record() {
    if (!lock_.held()) return;
    RefreshRecord record;
    record.at = FormatIso8601(build_.now);
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

  Manifest NewManifest(const RollupPlan& plan, const std::string& hash,
                       const std::optional<Manifest>& previous, const BatchWriter& writer) {
    Manifest manifest;
    manifest.rollup = build_.rollup.name;
    manifest.definition_hash = hash;
    manifest.built_at = FormatIso8601(build_.now);
    // The watermark: a live_tail rollup holds the source rows before its open period (the
    // tail reads the rest); any other, the rows there were when it was built.
    manifest.built_through = build_.now;
    if (build_.rollup.live_tail) manifest.built_through = plan.range_end;
    manifest.freshness_marker = marker_;
    if (build_.rollup.partition && build_.rollup.partition->append)
      manifest.append_marker = append_to_;
    manifest.range_start = plan.range_start;
    manifest.range_end = plan.range_end;
    manifest.partition_by = build_.rollup.partition ? build_.rollup.partition->by : "";
    manifest.time_dimension = semantic::RollupTimeDimension(build_.rollup).value_or("");
    manifest.columns = writer.columns();
    if (manifest.columns.empty() && previous) manifest.columns = previous->columns;
    for (const PlannedPeriod& period : plan.periods) {
      if (period.kept && !manifest.files.empty() &&
          manifest.files.back().path == period.kept->path) {
        continue;  // a compacted file keeps several periods
      }
      manifest.files.push_back(period.kept ? *period.kept : writer.written().at(&period));
    }
    return manifest;
  }

  const RollupBuildContext build_;
  const RefreshPolicy policy_;
  RollupOutcome outcome_;
  std::optional<std::string> marker_;
  std::optional<std::string> append_to_;   // partition.append: the marker the files are read to
  std::optional<std::string> slice_from_;  // partition.append: where the marker's slice starts
  std::int64_t slice_rows_ = 0;            // a full build's: the rows of its slice
  bool skipped_ = false;
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
      outcome.error = BuildInterrupted();
      report.rollups.push_back(std::move(outcome));
      continue;
    }
    report.rollups.push_back(
        RollupBuild({model, rollup, warehouse, engine, store, options, now, watcher}).Run());
  }
  return report;
}

}  // namespace strata::rollup
