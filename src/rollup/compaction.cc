#include "rollup/compaction.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "rollup/definition.h"
#include "rollup/internal/parquet_file.h"
#include "rollup/periods.h"
#include "semantic/query.h"

namespace strata::rollup {
namespace {

constexpr sql::Dialect kEngine = sql::Dialect::kDuckDb;

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The start of the oldest period that has not ended: the period containing now, or the oldest
// of the newest `refresh_last` period files when that is earlier.
UnixSeconds EndedBefore(const semantic::Rollup& rollup, const Manifest& manifest,
                        semantic::TimeGrain by, UnixSeconds now) {
  UnixSeconds cutoff = PeriodStart(now, by, rollup.timezone);
  std::vector<UnixSeconds> starts;
  for (const ManifestFile& file : manifest.files) {
    if (file.start) starts.push_back(*file.start);
  }
  std::sort(starts.begin(), starts.end());
  const std::size_t refresh_last = rollup.partition->refresh_last;
  if (refresh_last > 0 && !starts.empty()) {
    cutoff = std::min(cutoff, starts[starts.size() - std::min(refresh_last, starts.size())]);
  }
  return cutoff;
}

// Writes the merged file of `group` (adjacent files, in order) and returns its manifest entry.
Result<ManifestFile> Merge(const semantic::Rollup& rollup,
                           const std::vector<const ManifestFile*>& group,
                           warehouse::Connection& engine, const RollupStore& store,
                           UnixSeconds now) {
  std::string list;
  for (const ManifestFile* file : group) {
    list += (list.empty() ? "" : ", ") +
            sql::QuoteString((store.FolderOf(rollup.name) / file->path).string(), kEngine);
  }
  ManifestFile merged;
  merged.start = group.front()->start;
  merged.end = group.back()->end;
  const std::string label = PeriodLabel(*merged.start, rollup.timezone);
  return WriteParquetFile(engine, store, rollup.name, label,
                          "SELECT * FROM read_parquet([" + list + "])" + SortClause(rollup),
                          std::move(merged), now);
}

// Merges the files of `group` into one (added to `files`); when one of them has an append base,
// their bases (or the files themselves) into the merged file's base (added to `bases`).
Status MergeGroup(const semantic::Rollup& rollup, const Manifest& manifest,
                  const std::vector<std::size_t>& group, warehouse::Connection& engine,
                  const RollupStore& store, UnixSeconds now, std::vector<ManifestFile>& files,
                  std::vector<ManifestFile>& bases) {
  std::vector<const ManifestFile*> members, base_members;
  bool any_base = false;
  for (const std::size_t index : group) {
    const ManifestFile& file = manifest.files[index];
    const ManifestFile* base = manifest.AppendBaseOf(file);
    any_base = any_base || base != nullptr;
    members.push_back(&file);
    base_members.push_back(base != nullptr ? base : &file);
  }
  STRATA_ASSIGN_OR_RETURN(ManifestFile merged, Merge(rollup, members, engine, store, now));
  files.push_back(std::move(merged));
  if (!any_base) return OkStatus();
  STRATA_ASSIGN_OR_RETURN(ManifestFile base, Merge(rollup, base_members, engine, store, now));
  bases.push_back(std::move(base));
  return OkStatus();
}

CompactionOutcome Unchanged(CompactionOutcome outcome, std::string reason) {
  outcome.status = "unchanged";
  outcome.reason = std::move(reason);
  return outcome;
}

}  // namespace

std::vector<std::vector<std::size_t>> CompactionGroups(const semantic::Rollup& rollup,
                                                       const Manifest& manifest, UnixSeconds now) {
  std::vector<std::vector<std::size_t>> groups;
  if (!rollup.partition || !rollup.partition->compact) return groups;
  const std::optional<semantic::TimeGrain> by = semantic::ParseTimeGrain(rollup.partition->by);
  const std::optional<semantic::TimeGrain> coarse =
      semantic::ParseTimeGrain(*rollup.partition->compact);
  if (!by || !coarse) return groups;
  const UnixSeconds cutoff = EndedBefore(rollup, manifest, *by, now);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < manifest.files.size(); ++i) {
    if (manifest.files[i].start) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return *manifest.files[a].start < *manifest.files[b].start;
  });
  std::vector<std::size_t> group;
  UnixSeconds group_end = 0;
  const auto close = [&] {
    if (group.size() >= 2) groups.push_back(group);
    group.clear();
  };
  for (const std::size_t index : order) {
    const ManifestFile& file = manifest.files[index];
    const UnixSeconds coarse_start = PeriodStart(*file.start, *coarse, rollup.timezone);
    const UnixSeconds coarse_end = NextPeriodStart(coarse_start, *coarse, rollup.timezone);
    // A file that is already one coarse period's (or spans more) stays as it is.
    const bool within = *file.end <= coarse_end;
    const bool adjacent = !group.empty() && *manifest.files[group.back()].end == *file.start;
    if (group.empty() || coarse_end != group_end || !adjacent) close();
    if (!within || coarse_end > cutoff) continue;
    group.push_back(index);
    group_end = coarse_end;
  }
  close();
  return groups;
}

CompactionOutcome CompactLocked(const semantic::SemanticModel& model,
                                const semantic::Rollup& rollup, warehouse::Warehouse& engine,
                                const RollupStore& store, const BuildLock& lock, UnixSeconds now) {
  const auto started = std::chrono::steady_clock::now();
  CompactionOutcome outcome;
  outcome.rollup = rollup.name;
  const auto failed = [&](Error error) {
    outcome.status = "failed";
    outcome.error = std::move(error);
    outcome.duration_ms = MillisSince(started);
    return outcome;
  };
  if (!rollup.partition || !rollup.partition->compact) {
    return Unchanged(outcome, "the rollup has no partition.compact");
  }
  Result<std::optional<Manifest>> loaded = store.Load(rollup.name);
  if (!loaded.ok()) return failed(std::move(loaded).error());
  if (!loaded->has_value()) return Unchanged(outcome, "not built");
  Manifest manifest = std::move(**loaded);
  outcome.version = manifest.version;
  if (manifest.definition_hash != DefinitionHash(model, rollup)) {
    return Unchanged(outcome, "built from another definition: rebuild it first");
  }
  const std::vector<std::vector<std::size_t>> groups = CompactionGroups(rollup, manifest, now);
  if (groups.empty()) return Unchanged(outcome, "no ended period to merge");
  Result<std::unique_ptr<warehouse::Connection>> connection = engine.Connect();
  if (!connection.ok()) return failed(std::move(connection).error());
  std::vector<bool> merged(manifest.files.size(), false);
  std::vector<ManifestFile> files, bases;
  for (const std::vector<std::size_t>& group : groups) {
    Status written = MergeGroup(rollup, manifest, group, **connection, store, now, files, bases);
    if (!written.ok()) {
      return failed(std::move(written.error().Note("while compacting rollup " + rollup.name)));
    }
    for (const std::size_t index : group) merged[index] = true;
    outcome.merged_files += group.size();
  }
  outcome.written_files = files.size();
  for (std::size_t i = 0; i < manifest.files.size(); ++i) {
    if (merged[i]) continue;
    files.push_back(manifest.files[i]);
    if (const ManifestFile* base = manifest.AppendBaseOf(manifest.files[i])) bases.push_back(*base);
  }
  manifest.files = std::move(files);
  manifest.append_bases = std::move(bases);
  Result<std::int64_t> version = store.Publish(lock, manifest);
  if (!version.ok()) return failed(std::move(version).error());
  outcome.version = *version;
  outcome.status = "compacted";
  if (Result<GarbageReport> garbage = store.CollectGarbage(lock); garbage.ok()) {
    outcome.garbage = garbage->summary;
  }
  outcome.duration_ms = MillisSince(started);
  return outcome;
}

CompactionOutcome CompactRollup(const semantic::SemanticModel& model,
                                const semantic::Rollup& rollup, warehouse::Warehouse& engine,
                                const RollupStore& store, UnixSeconds now) {
  Result<BuildLock> lock = store.LockForBuild(rollup.name);
  if (!lock.ok()) {
    CompactionOutcome outcome;
    outcome.rollup = rollup.name;
    outcome.status = "failed";
    outcome.error = std::move(lock).error();
    return outcome;
  }
  return CompactLocked(model, rollup, engine, store, *lock, now);
}

}  // namespace strata::rollup
