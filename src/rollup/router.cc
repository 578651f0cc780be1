#include "rollup/router.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "rollup/definition.h"
#include "semantic/path.h"
#include "semantic/rollup_sql.h"
#include "semantic/stored_sql.h"
#include "sql/dialect.h"

namespace strata::rollup {
namespace {

namespace miss = semantic::miss;
using semantic::Aggregation;

// One candidate rollup: the cached manifest version its relation reads, and the relation.
struct Candidate {
  const semantic::Rollup* rollup = nullptr;
  std::shared_ptr<const StampedManifest> manifest;
  std::filesystem::path folder;
  semantic::StoredRelation relation;
  std::optional<RollupMiss> miss;  // decided before planning
  // A live_tail rollup's watermark and the tail its relation reads for the query's range (set
  // when the planner asks for the rows; nullopt: the files alone answer).
  std::optional<UnixSeconds> watermark;
  std::optional<LiveTail> tail;
};

// A stored answer that also reads the warehouse ranks after every one that does not.
constexpr std::int64_t kTailRank = std::int64_t{1} << 40;

bool Reaggregable(Aggregation agg) {
  return agg != Aggregation::kCountDistinct && agg != Aggregation::kCountDistinctApprox &&
         !semantic::PercentileOf(agg);
}

bool MetricReaggregable(const semantic::SemanticModel& model, const semantic::MetricExpr& expr) {
  if (expr.kind == semantic::MetricExpr::Kind::kMeasure) {
    const semantic::Entity* entity = model.FindEntity(expr.entity);
    const semantic::Measure* measure =
        entity != nullptr ? entity->FindMeasure(expr.measure) : nullptr;
    if (measure != nullptr && !Reaggregable(measure->agg)) return false;
  }
  if (expr.left && !MetricReaggregable(model, *expr.left)) return false;
  if (expr.right && !MetricReaggregable(model, *expr.right)) return false;
  return true;
}

// Whether a member the query names as a measure (or metric) is a distinct count or percentile.
// A query's measures name no relationship path (the live plan refuses one).
bool ReadsDistinct(const semantic::SemanticModel& model, const std::string& written) {
  Result<semantic::MemberPath> path =
      semantic::WalkMemberPath(model, written, ErrorCode::kQueryInvalid);
  if (!path.ok() || !path->hops.empty()) return false;
  if (const semantic::Measure* measure = path->target->FindMeasure(path->member)) {
    return !Reaggregable(measure->agg);
  }
  if (const semantic::Metric* metric = path->target->FindMetric(path->member)) {
    return !MetricReaggregable(model, *metric->parsed);
  }
  return false;
}

bool QueryReadsDistinct(const semantic::SemanticModel& model,
                        const semantic::SemanticQuery& query) {
  for (const std::string& measure : query.measures) {
    if (ReadsDistinct(model, measure)) return true;
  }
  for (const semantic::FilterRequest* filter : semantic::FiltersOf(query.filters)) {
    if (ReadsDistinct(model, filter->member)) return true;
  }
  return false;
}

std::string ReadParquet(const std::filesystem::path& folder,
                        const std::vector<const ManifestFile*>& files) {
  std::string list;
  for (const ManifestFile* file : files) {
    list += (list.empty() ? "" : ", ") +
            sql::QuoteString((folder / file->path).string(), sql::Dialect::kDuckDb);
  }
  return "read_parquet([" + list + "])";
}

semantic::StoredRows Relation(const Manifest& manifest, const std::filesystem::path& folder,
                              std::optional<UnixSeconds> from, std::optional<UnixSeconds> to) {
  std::vector<const ManifestFile*> files;
  semantic::StoredRows rows;
  for (const ManifestFile& file : manifest.files) {
    const bool overlaps = !from || !file.start || (*file.start<*to&& * file.end> * from);
    if (!overlaps || (from && file.null_time)) continue;
    files.push_back(&file);
    rows.rows += file.rows;
  }
  if (files.empty()) {
    rows.sql = "(SELECT * FROM " + ReadParquet(folder, {&manifest.files.front()}) + " LIMIT 0)";
  } else {
    rows.sql = ReadParquet(folder, files);
  }
  return rows;
}

// The stored rows of a live_tail rollup: its files before the watermark, and the warehouse's
// rows at or after it (the candidate's tail) when the range reaches past it.
semantic::StoredRows TailRelation(Candidate& candidate, std::optional<UnixSeconds> from,
                                  std::optional<UnixSeconds> to) {
  const UnixSeconds watermark = *candidate.watermark;
  const Manifest& manifest = candidate.manifest->manifest;
  semantic::StoredRows rows =
      from ? Relation(manifest, candidate.folder, from, std::min(*to, watermark))
           : Relation(manifest, candidate.folder, from, to);
  if (to && *to <= watermark) {
    candidate.tail.reset();
    return rows;
  }
  static std::atomic<std::uint64_t> counter{0};
  if (!candidate.tail) {
    candidate.tail.emplace();
    candidate.tail->rollup = candidate.rollup->name;
    candidate.tail->table = fmt::format("strata_tail_{}", counter++);
    candidate.tail->schema_from = (candidate.folder / manifest.files.front().path).string();
  }
  candidate.tail->from = from ? std::max(*from, watermark) : watermark;
  candidate.tail->to = to;
  candidate.tail->with_null_time = !from;
  rows.sql = "(SELECT * FROM " + rows.sql + " UNION ALL BY NAME SELECT * FROM " +
             sql::QuoteIdentifier(candidate.tail->table, sql::Dialect::kDuckDb) + ")";
  rows.rows += kTailRank;
  return rows;
}

// Whether the manifest's period files cover [from, to) without a gap.
bool PeriodsCover(const Manifest& manifest, UnixSeconds from, UnixSeconds to) {
  std::vector<std::pair<UnixSeconds, UnixSeconds>> periods;
  for (const ManifestFile& file : manifest.files) {
    if (file.start) periods.emplace_back(*file.start, *file.end);
  }
  std::sort(periods.begin(), periods.end());
  UnixSeconds reached = from;
  for (const auto& [start, end] : periods) {
    if (reached >= to) break;
    if (end <= reached) continue;
    if (start > reached) return false;
    reached = end;
  }
  return reached >= to;
}

std::string RangeReason(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                        const Manifest& manifest, const semantic::StoredDimension& dimension,
                        UnixSeconds from, UnixSeconds to) {
  const int fiscal = model.fiscal_year_start_month;
  if (dimension.grain &&
      (!semantic::IsGrainBoundary(from, *dimension.grain, fiscal, rollup.timezone) ||
       !semantic::IsGrainBoundary(to, *dimension.grain, fiscal, rollup.timezone))) {
    return miss::kRangeNotAligned;
  }
  if (dimension.path != manifest.time_dimension) return "";
  if (rollup.live_tail && manifest.range_start && manifest.range_end) {
    // The files hold [range_start, watermark); the tail answers everything after.
    if (from < *manifest.range_start) {
      // Before the files: outside the build_range when there is one, else before the oldest
      // built period (the data starts later).
      return rollup.build_range ? miss::kOutsideBuildRange : miss::kPartitionMissing;
    }
    const UnixSeconds stored_to = std::min(to, *manifest.range_end);
    if (from < stored_to && !manifest.partition_by.empty() &&
        !PeriodsCover(manifest, from, stored_to)) {
      return miss::kPartitionMissing;
    }
    return "";
  }
  if (manifest.range_start && (from < *manifest.range_start || to > *manifest.range_end)) {
    return rollup.build_range ? miss::kOutsideBuildRange : miss::kPartitionMissing;
  }
  if (!manifest.partition_by.empty() && !PeriodsCover(manifest, from, to)) {
    return miss::kPartitionMissing;
  }
  return "";
}

// Describes the stored rows of the candidate's cached manifest; a miss when it cannot be read
// as built.
void Prepare(const RouterCache& cache, std::size_t index, sql::Dialect warehouse,
             Candidate& candidate) {
  const semantic::SemanticModel& model = cache.model();
  const semantic::Rollup& rollup = *candidate.rollup;
  const auto missed = [&](const char* reason, std::string detail) {
    candidate.miss = RollupMiss{rollup.name, reason, std::move(detail)};
  };
  Result<std::shared_ptr<const StampedManifest>> current = cache.manifests().Current(rollup.name);
  if (!current.ok()) return missed(miss::kStoreError, current.error().message);
  if (*current == nullptr) return missed(miss::kNotBuilt, "never built");
  candidate.manifest = std::move(*current);
  candidate.folder = cache.manifests().store().FolderOf(rollup.name);
  const Manifest& manifest = candidate.manifest->manifest;
  const RouterCache::Definition& definition = cache.DefinitionOf(index);
  if (manifest.definition_hash != definition.hash) {
    return missed(miss::kNotBuilt,
                  fmt::format("the definition changed since the build of {}; run `strata "
                              "rollups build --rollup {}`",
                              manifest.built_at, rollup.name));
  }
  if (manifest.files.empty()) return missed(miss::kPartitionMissing, "no period is built");
  if (!definition.layout.ok()) return missed(miss::kStoreError, definition.layout.error().message);
  semantic::StoredRelation& relation = candidate.relation;
  relation.entity = model.FindEntity(rollup.entity);
  relation.dimensions = definition.layout->dimensions;
  relation.measures = definition.layout->measures;
  relation.percentiles = warehouse;
  relation.zone = rollup.timezone;
  if (manifest.range_start && manifest.range_end) {
    relation.span = std::make_pair(*manifest.range_start, *manifest.range_end);
  }
  const Manifest* planned = &manifest;
  const std::filesystem::path* folder = &candidate.folder;
  if (rollup.live_tail && manifest.range_start && manifest.range_end) {
    candidate.watermark = manifest.range_end;
    Candidate* tailed = &candidate;
    relation.relation = [tailed](std::optional<UnixSeconds> from, std::optional<UnixSeconds> to) {
      return TailRelation(*tailed, from, to);
    };
  } else {
    relation.relation = [planned, folder](std::optional<UnixSeconds> from,
                                          std::optional<UnixSeconds> to) {
      return Relation(*planned, *folder, from, to);
    };
  }
  relation.range_check = [&model, &rollup, planned](const semantic::StoredDimension& dimension,
                                                    UnixSeconds from, UnixSeconds to) {
    return RangeReason(model, rollup, *planned, dimension, from, to);
  };
  relation.range_dimension = manifest.time_dimension;
  // Without a range a query reads all time: a build_range holds only part of it; a live tail
  // without one holds it all (the files, then the tail with the rows without a time).
  if (rollup.build_range || (rollup.live_tail && !candidate.watermark)) {
    relation.no_range_reason = miss::kOutsideBuildRange;
  }
}

std::optional<RollupMiss> OutcomeMiss(const semantic::StoredPlan& stored,
                                      const Candidate& candidate) {
  std::optional<RollupMiss> missed;
  for (const semantic::StoredCandidate& outcome : stored.candidates) {
    if (outcome.relation != &candidate.relation || !outcome.miss) continue;
    missed = RollupMiss{candidate.rollup->name, outcome.miss->reason, outcome.miss->detail};
  }
  return missed;
}

// The candidates' misses when nothing answers.
Route MissAll(const std::vector<std::unique_ptr<Candidate>>& candidates,
              const std::optional<semantic::StoredPlan>& stored, const std::string& failure) {
  Route route;
  for (const auto& candidate : candidates) {
    if (candidate->miss) {
      route.missed.push_back(*candidate->miss);
      continue;
    }
    std::optional<RollupMiss> missed = stored ? OutcomeMiss(*stored, *candidate) : std::nullopt;
    if (!missed && !stored) {
      missed = RollupMiss{candidate->rollup->name, miss::kDimensionNotStored, failure};
    }
    if (!missed) {
      missed = RollupMiss{candidate->rollup->name, miss::kJoinRollupIncomplete,
                          "another entity of the query has no rollup that answers it"};
    }
    route.missed.push_back(std::move(*missed));
  }
  return route;
}

// The candidates a hit does not read: each with its miss, or `costlier` when it answers too.
std::vector<RollupMiss> NotUsed(const std::vector<std::unique_ptr<Candidate>>& candidates,
                                const semantic::StoredPlan& stored, const Route& route) {
  std::vector<RollupMiss> missed;
  for (const auto& candidate : candidates) {
    const std::string& name = candidate->rollup->name;
    if (std::find(route.used.begin(), route.used.end(), name) != route.used.end()) continue;
    std::optional<RollupMiss> reason = candidate->miss;
    if (!reason) reason = OutcomeMiss(stored, *candidate);
    if (!reason) reason = RollupMiss{name, miss::kCostlier, "another rollup reads fewer rows"};
    missed.push_back(std::move(*reason));
  }
  return missed;
}

enum class Leased { kAll, kChanged, kFailed };

// Leases the planned versions of the rollups a hit reads. kChanged when one was rebuilt since
// it was cached; kFailed (with the candidate's miss set to store_error) when a lock fails.
Leased LeaseChosen(const RollupStore& store, std::vector<std::unique_ptr<Candidate>>& candidates,
                   const semantic::StoredPlan& stored, Route& route) {
  for (const semantic::StoredRelation* chosen : stored.chosen) {
    for (auto& candidate : candidates) {
      if (&candidate->relation != chosen) continue;
      Result<std::optional<ReaderLease>> lease =
          store.OpenForReadIfCurrent(candidate->rollup->name, *candidate->manifest);
      if (!lease.ok()) {
        candidate->miss =
            RollupMiss{candidate->rollup->name, miss::kStoreError, lease.error().message};
        return Leased::kFailed;
      }
      if (!lease->has_value()) return Leased::kChanged;
      route.used.push_back(candidate->rollup->name);
      route.leases.push_back(std::move(**lease));
      if (candidate->tail) route.tails.push_back(*candidate->tail);
    }
  }
  return Leased::kAll;
}

// One routing attempt over the manifests cached now. nullopt when a chosen rollup was rebuilt
// between planning and leasing (the caller tries again with the new version).
std::optional<Route> TryRoute(const semantic::SemanticQuery& query, const RouteOptions& options,
                              const semantic::LivePlan& live, const RouterCache& cache) {
  const semantic::SemanticModel& model = cache.model();
  std::vector<std::unique_ptr<Candidate>> candidates;
  const bool joined = live.entities.size() > 1;
  const bool distinct = joined && QueryReadsDistinct(model, query);
  for (std::size_t index = 0; index < model.rollups.size(); ++index) {
    const semantic::Rollup& rollup = model.rollups[index];
    if (std::find(live.entities.begin(), live.entities.end(), rollup.entity) ==
        live.entities.end()) {
      continue;
    }
    auto candidate = std::make_unique<Candidate>();
    candidate->rollup = &rollup;
    const auto failed =
        std::find_if(options.failed.begin(), options.failed.end(),
                     [&](const RollupMiss& miss) { return miss.rollup == rollup.name; });
    if (failed != options.failed.end()) {
      candidate->miss = *failed;
    } else if (distinct) {
      candidate->miss = RollupMiss{rollup.name, miss::kDistinctAcrossEntities,
                                   "distinct counts and percentiles do not join across entities"};
    } else if (joined && rollup.live_tail) {
      candidate->miss = RollupMiss{rollup.name, miss::kLiveTailInJoin, "live_tail rollup"};
    } else {
      Prepare(cache, index, options.warehouse, *candidate);
    }
    candidates.push_back(std::move(candidate));
  }
  std::vector<const semantic::StoredRelation*> relations;
  for (const auto& candidate : candidates) {
    if (!candidate->miss) relations.push_back(&candidate->relation);
  }
  std::optional<semantic::StoredPlan> stored;
  std::string failure;
  if (!relations.empty()) {
    Result<semantic::StoredPlan> planned =
        semantic::PlanStoredQuery(model, query, options.plan, relations);
    if (planned.ok()) {
      stored = std::move(*planned);
    } else {
      failure = planned.error().message;
    }
  }
  if (!stored || !stored->plan || stored->plan->entities != live.entities) {
    return MissAll(candidates, stored, failure);
  }
  Route route;
  switch (LeaseChosen(cache.manifests().store(), candidates, *stored, route)) {
    case Leased::kAll:
      break;
    case Leased::kChanged:
      return std::nullopt;
    case Leased::kFailed:
      return MissAll(candidates, stored, failure);
  }
  route.missed = NotUsed(candidates, *stored, route);
  route.plan = std::move(stored->plan);
  return route;
}

}  // namespace

RouterCache::RouterCache(const semantic::SemanticModel& model, const RollupStore& store)
    : model_(model), manifests_(store) {
  definitions_.reserve(model.rollups.size());
  for (const semantic::Rollup& rollup : model.rollups) {
    definitions_.push_back(
        {DefinitionHash(model, rollup),
         semantic::PlanRollupBuild(model, rollup, sql::Dialect::kDuckDb, std::nullopt)});
  }
}

Route RouteQuery(const semantic::SemanticQuery& query, const RouteOptions& options,
                 const semantic::LivePlan& live, const RouterCache& cache) {
  // A rebuild between planning and leasing is rare; three in a row means a build loop.
  constexpr int kAttempts = 3;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (std::optional<Route> route = TryRoute(query, options, live, cache))
      return std::move(*route);
  }
  Route route;
  for (const semantic::Rollup& rollup : cache.model().rollups) {
    if (std::find(live.entities.begin(), live.entities.end(), rollup.entity) !=
        live.entities.end()) {
      route.missed.push_back({rollup.name, miss::kStoreError,
                              "the rollups were rebuilt while the query was routed; it runs live"});
    }
  }
  return route;
}

Route RouteQuery(const semantic::SemanticModel& model, const semantic::SemanticQuery& query,
                 const semantic::PlanOptions& options, const semantic::LivePlan& live,
                 const RollupStore& store) {
  const RouterCache cache(model, store);
  return RouteQuery(query, RouteOptions{options, sql::Dialect::kDuckDb, {}}, live, cache);
}

}  // namespace strata::rollup
