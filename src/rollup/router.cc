#include "rollup/router.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "rollup/definition.h"
#include "semantic/rollup_sql.h"
#include "semantic/stored_sql.h"
#include "sql/dialect.h"

namespace strata::rollup {
namespace {

namespace miss = semantic::miss;
using semantic::Aggregation;

// One candidate rollup: its lease (whose manifest the relation reads) and relation.
struct Candidate {
  const semantic::Rollup* rollup = nullptr;
  ReaderLease lease;
  semantic::StoredRelation relation;
  std::optional<RollupMiss> miss;  // decided before planning
};

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
bool ReadsDistinct(const semantic::SemanticModel& model, const std::string& written) {
  const std::size_t dot = written.find('.');
  if (dot == std::string::npos) return false;
  const semantic::Entity* entity = model.FindEntity(written.substr(0, dot));
  if (entity == nullptr) return false;
  const std::string name = written.substr(dot + 1);
  if (const semantic::Measure* measure = entity->FindMeasure(name)) {
    return !Reaggregable(measure->agg);
  }
  if (const semantic::Metric* metric = entity->FindMetric(name)) {
    return !MetricReaggregable(model, *metric->parsed);
  }
  return false;
}

bool QueryReadsDistinct(const semantic::SemanticModel& model,
                        const semantic::SemanticQuery& query) {
  for (const std::string& measure : query.measures) {
    if (ReadsDistinct(model, measure)) return true;
  }
  for (const semantic::FilterRequest& filter : query.filters) {
    if (ReadsDistinct(model, filter.member)) return true;
  }
  return false;
}

std::string ReadParquet(const ReaderLease& lease, const std::vector<const ManifestFile*>& files) {
  std::string list;
  for (const ManifestFile* file : files) {
    list += (list.empty() ? "" : ", ") +
            sql::QuoteString(lease.FilePath(*file).string(), sql::Dialect::kDuckDb);
  }
  return "read_parquet([" + list + "])";
}

semantic::StoredRows Relation(const ReaderLease& lease, std::optional<UnixSeconds> from,
                              std::optional<UnixSeconds> to) {
  const Manifest& manifest = lease.manifest();
  std::vector<const ManifestFile*> files;
  semantic::StoredRows rows;
  for (const ManifestFile& file : manifest.files) {
    const bool overlaps = !from || !file.start || (*file.start<*to&& * file.end> * from);
    if (!overlaps || (from && file.null_time)) continue;
    files.push_back(&file);
    rows.rows += file.rows;
  }
  if (files.empty()) {
    rows.sql = "(SELECT * FROM " + ReadParquet(lease, {&manifest.files.front()}) + " LIMIT 0)";
  } else {
    rows.sql = ReadParquet(lease, files);
  }
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
  if (dimension.grain &&
      (!semantic::IsGrainBoundary(from, *dimension.grain, model.fiscal_year_start_month) ||
       !semantic::IsGrainBoundary(to, *dimension.grain, model.fiscal_year_start_month))) {
    return miss::kRangeNotAligned;
  }
  if (dimension.path != manifest.time_dimension) return "";
  const bool bounded = rollup.build_range.has_value() || rollup.live_tail;
  if (manifest.range_start && (from < *manifest.range_start || to > *manifest.range_end)) {
    return bounded ? miss::kOutsideBuildRange : miss::kPartitionMissing;
  }
  if (!manifest.partition_by.empty() && !PeriodsCover(manifest, from, to)) {
    return miss::kPartitionMissing;
  }
  return "";
}

// Loads `rollup` and describes its stored rows; a miss when it cannot be read as built.
void Prepare(const semantic::SemanticModel& model, const RollupStore& store, Candidate& candidate) {
  const semantic::Rollup& rollup = *candidate.rollup;
  const auto missed = [&](const char* reason, std::string detail) {
    candidate.miss = RollupMiss{rollup.name, reason, std::move(detail)};
  };
  Result<std::optional<ReaderLease>> opened = store.OpenForRead(rollup.name);
  if (!opened.ok()) return missed(miss::kStoreError, opened.error().message);
  if (!opened->has_value()) return missed(miss::kNotBuilt, "never built");
  candidate.lease = std::move(**opened);
  const Manifest& manifest = candidate.lease.manifest();
  if (manifest.definition_hash != DefinitionHash(model, rollup)) {
    return missed(miss::kNotBuilt,
                  fmt::format("the definition changed since the build of {}; run `strata "
                              "rollups build --rollup {}`",
                              manifest.built_at, rollup.name));
  }
  if (manifest.files.empty()) return missed(miss::kPartitionMissing, "no period is built");
  Result<semantic::RollupBuildPlan> layout =
      semantic::PlanRollupBuild(model, rollup, sql::Dialect::kDuckDb, std::nullopt);
  if (!layout.ok()) return missed(miss::kStoreError, layout.error().message);
  semantic::StoredRelation& relation = candidate.relation;
  relation.entity = model.FindEntity(rollup.entity);
  relation.dimensions = std::move(layout->dimensions);
  relation.measures = std::move(layout->measures);
  const ReaderLease* lease = &candidate.lease;
  relation.relation = [lease](std::optional<UnixSeconds> from, std::optional<UnixSeconds> to) {
    return Relation(*lease, from, to);
  };
  relation.range_check = [&model, &rollup, lease](const semantic::StoredDimension& dimension,
                                                  UnixSeconds from, UnixSeconds to) {
    return RangeReason(model, rollup, lease->manifest(), dimension, from, to);
  };
  relation.range_dimension = manifest.time_dimension;
  if (rollup.build_range || rollup.live_tail) relation.no_range_reason = miss::kOutsideBuildRange;
}

}  // namespace

Route RouteQuery(const semantic::SemanticModel& model, const semantic::SemanticQuery& query,
                 const semantic::PlanOptions& options, const semantic::LivePlan& live,
                 const RollupStore& store) {
  std::vector<std::unique_ptr<Candidate>> candidates;
  const bool joined = live.entities.size() > 1;
  const bool distinct = joined && QueryReadsDistinct(model, query);
  for (const semantic::Rollup& rollup : model.rollups) {
    if (std::find(live.entities.begin(), live.entities.end(), rollup.entity) ==
        live.entities.end()) {
      continue;
    }
    auto candidate = std::make_unique<Candidate>();
    candidate->rollup = &rollup;
    if (distinct) {
      candidate->miss = RollupMiss{rollup.name, miss::kDistinctAcrossEntities,
                                   "distinct counts and percentiles do not join across entities"};
    } else if (joined && rollup.live_tail) {
      candidate->miss = RollupMiss{rollup.name, miss::kLiveTailInJoin, "live_tail rollup"};
    } else {
      Prepare(model, store, *candidate);
    }
    candidates.push_back(std::move(candidate));
  }
  Route route;
  std::vector<const semantic::StoredRelation*> relations;
  for (const auto& candidate : candidates) {
    if (!candidate->miss) relations.push_back(&candidate->relation);
  }
  std::optional<semantic::StoredPlan> stored;
  std::string failure;
  if (!relations.empty()) {
    Result<semantic::StoredPlan> planned =
        semantic::PlanStoredQuery(model, query, options, relations);
    if (planned.ok()) {
      stored = std::move(*planned);
    } else {
      failure = planned.error().message;
    }
  }
  if (stored && stored->plan && stored->plan->entities == live.entities) {
    for (const semantic::StoredRelation* chosen : stored->chosen) {
      for (auto& candidate : candidates) {
        if (&candidate->relation != chosen) continue;
        route.used.push_back(candidate->rollup->name);
        route.leases.push_back(std::move(candidate->lease));
      }
    }
    route.plan = std::move(stored->plan);
    // The other candidates' reasons, for the answer that falls back live (store_error).
    for (const auto& candidate : candidates) {
      if (std::find(route.used.begin(), route.used.end(), candidate->rollup->name) !=
          route.used.end()) {
        continue;
      }
      std::optional<RollupMiss> missed = candidate->miss;
      for (const semantic::StoredCandidate& outcome : stored->candidates) {
        if (outcome.relation != &candidate->relation || !outcome.miss) continue;
        missed = RollupMiss{candidate->rollup->name, outcome.miss->reason, outcome.miss->detail};
      }
      if (missed) route.missed.push_back(std::move(*missed));
    }
    return route;
  }
  for (const auto& candidate : candidates) {
    if (candidate->miss) {
      route.missed.push_back(*candidate->miss);
      continue;
    }
    std::optional<RollupMiss> missed;
    if (stored) {
      for (const semantic::StoredCandidate& outcome : stored->candidates) {
        if (outcome.relation != &candidate->relation || !outcome.miss) continue;
        missed = RollupMiss{candidate->rollup->name, outcome.miss->reason, outcome.miss->detail};
      }
    }
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

}  // namespace strata::rollup
