// Planning a semantic query against stored pre-aggregated rows (a rollup) instead of the
// entity's table. The same planner as the live path (live_sql.h) resolves the query, so the
// output columns, metrics, measure filters, order and limit are exactly those of the live plan;
// only the partials of the stored entities change: each reads one relation of flat stored
// columns (DuckDB SQL, e.g. read_parquet([...])) and re-aggregates the stored partial values.
//
// Exactness. A stored relation answers only what it answers exactly (up to sketch error for
// count_distinct_approx and sketched percentiles). Anything else is a *miss* with one of the
// stable reasons of spec/semantic.md, checked in this order per partial:
//   measure_not_stored   a measure (or one a metric reads) is not stored;
//   dimension_not_stored a group key's path is not a stored dimension (or it is a time
//                        dimension stored with a grain and the query asks for it raw);
//   timezone_mismatch    a group key asks for a grain of a stored time dimension whose buckets
//                        are not buckets of the query's zone: the relation's zone differs from
//                        the query's, unless it is stored by hour and both zones' offsets are
//                        whole hours over the query's range on it (without one, over the
//                        relation's `span`; without that, never);
//   grain_not_derivable  the stored grain cannot be rolled up into the asked one (fixed table
//                        of spec/semantic.md, fiscal grains included);
//   not_additive         exact count_distinct, or an unsketched count_distinct_approx or
//                        percentile, when the query's group keys are not exactly the stored
//                        dimensions (each at its stored grain): it cannot be re-aggregated;
//   filter_not_stored    a dimension filter's (or range's) path is not stored, or it filters a
//                        time dimension stored at a grain with anything but gte/lt on bucket
//                        boundaries; a filter group answers only when each filter in it does;
//   range_not_aligned / outside_build_range / partition_missing   from `range_check`; a query
//                        without a range on `range_dimension` gets `no_range_reason`;
//   row_security         a data role's row filter reads a member that is not stored.
// Re-aggregation: sum, count → SUM; min → MIN; max → MAX; avg → SUM(sum) / SUM(count);
// count_distinct_approx (sketched) → strata_hll_estimate(strata_hll_merge(hll)), 0 for none;
// percentiles (sketched) → strata_quantile_merge(values, q); exact-only forms → MAX (one stored
// row per group). The strata_* functions are registered by warehouse/duckdb/duckdb_engine.h.
//
// Pure: no I/O; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "semantic/query.h"

namespace strata::semantic {

// Stable miss reasons (spec/semantic.md "Query API").
namespace miss {
inline constexpr const char* kMeasureNotStored = "measure_not_stored";
inline constexpr const char* kDimensionNotStored = "dimension_not_stored";
inline constexpr const char* kFilterNotStored = "filter_not_stored";
inline constexpr const char* kGrainNotDerivable = "grain_not_derivable";
inline constexpr const char* kRangeNotAligned = "range_not_aligned";
inline constexpr const char* kOutsideBuildRange = "outside_build_range";
inline constexpr const char* kPartitionMissing = "partition_missing";
inline constexpr const char* kNotBuilt = "not_built";
inline constexpr const char* kNotAdditive = "not_additive";
inline constexpr const char* kRowSecurity = "row_security";
inline constexpr const char* kFanoutJoin = "fanout_join";
inline constexpr const char* kJoinRollupIncomplete = "join_rollup_incomplete";
inline constexpr const char* kLiveTailInJoin = "live_tail_in_join";
inline constexpr const char* kDistinctAcrossEntities = "distinct_across_entities";
inline constexpr const char* kStoreError = "store_error";
// The rollup's zone cannot serve the query's grains (spec/semantic.md "Time zones").
inline constexpr const char* kTimezoneMismatch = "timezone_mismatch";
// Eligible, but another rollup of the entity has fewer stored rows to scan (reported on a hit).
inline constexpr const char* kCostlier = "costlier";
}  // namespace miss

struct StoredDimension {
  std::string path;                // relative to the entity, as the rollup writes it
  std::optional<TimeGrain> grain;  // a time dimension's stored grain; nullopt: the raw value
  std::string column;              // the stored column's name
};

// How a measure is stored (docs/rollup-store.md has the column names).
enum class StoredForm {
  kAdditive,     // sum, count, min, max: one column, re-aggregated by the same (count by SUM)
  kSumAndCount,  // avg: columns {sum, count}
  kHll,          // sketched count_distinct_approx: one BLOB column
  kValueCounts,  // sketched percentile: one LIST(STRUCT(value DOUBLE, count BIGINT)) column
  kExactOnly,    // count_distinct, unsketched approx/percentile: the group's answer
};

struct StoredMeasure {
  std::string name;
  StoredForm form = StoredForm::kAdditive;
  std::vector<std::string> columns;
};

// The stored rows a query reads: the FROM text (DuckDB SQL) and how many rows it holds.
struct StoredRows {
  std::string sql;
  std::int64_t rows = 0;
};

struct StoredRelation {
  const Entity* entity = nullptr;
  // The rows for a range [from, to) of `range_dimension` (both nullopt: the query has no such
  // range), so a relation can skip periods outside it and be ranked by the rows it scans.
  std::function<StoredRows(std::optional<UnixSeconds> from, std::optional<UnixSeconds> to)>
      relation;
  std::vector<StoredDimension> dimensions;
  std::vector<StoredMeasure> measures;
  // Decides a range [from, to) on stored dimension `dimension`: "" when the stored rows answer
  // it exactly, else a miss reason. Null: every range is answered.
  std::function<std::string(const StoredDimension& dimension, UnixSeconds from, UnixSeconds to)>
      range_check;
  // The stored dimension path whose range selects the relation's periods ("" when none). A
  // query without a range on it is the miss `no_range_reason` unless that is empty (a rollup
  // with a build_range holds only part of all time).
  std::string range_dimension;
  std::string no_range_reason;
  // The zone of the stored grains' buckets (the rollup's `timezone`), and the instants the
  // stored rows cover when known (the built range), for the hour rule of timezone_mismatch.
  TimeZone zone;
  std::optional<std::pair<UnixSeconds, UnixSeconds>> span;
  // The warehouse whose percentile_cont the merged percentiles reproduce bit for bit:
  // kPostgres merges with strata_quantile_merge_postgres, others with strata_quantile_merge.
  sql::Dialect percentiles = sql::Dialect::kDuckDb;

  const StoredDimension* FindDimension(std::string_view path) const;
  const StoredMeasure* FindMeasure(std::string_view name) const;
};

struct StoredMiss {
  std::string entity;  // the entity whose partial missed
  std::string reason;  // a miss:: reason
  std::string detail;  // what did not match, for humans ("Order.channel is not stored")
};

// What one relation made of the query: its miss, or none and the rows it would scan.
struct StoredCandidate {
  const StoredRelation* relation = nullptr;
  std::optional<StoredMiss> miss;
  std::int64_t rows = 0;
};

struct StoredPlan {
  // DuckDB SQL over the chosen relations (`sketches` empty), when every partial found one.
  std::optional<LivePlan> plan;
  std::vector<StoredCandidate> candidates;    // one per relation given, in that order
  std::vector<const StoredRelation*> chosen;  // one per partial (plan.entities order); null
                                              // where no relation of that entity answers
};

// Plans `query` with every partial reading the relation of its entity with the fewest rows
// among those that answer it exactly. A partial whose entity has no such relation leaves a null
// in `chosen` and no plan. Errors are those of PlanLiveQuery (a query the live path refuses is
// refused here too); `options.dialect` must be kDuckDb.
Result<StoredPlan> PlanStoredQuery(const SemanticModel& model, const SemanticQuery& query,
                                   const PlanOptions& options,
                                   const std::vector<const StoredRelation*>& relations);

// Whether `seconds` starts a bucket of `grain` in `zone` (its wall-clock time is the start of a
// local bucket; weeks start on Monday; fiscal periods in `fiscal_year_start_month`).
bool IsGrainBoundary(UnixSeconds seconds, TimeGrain grain, int fiscal_year_start_month,
                     const TimeZone& zone = TimeZone::Utc());

// The fixed derivability table of spec/semantic.md: whether buckets of `stored` roll up exactly
// into buckets of `wanted`.
bool GrainDerivable(TimeGrain stored, TimeGrain wanted, int fiscal_year_start_month);

}  // namespace strata::semantic
