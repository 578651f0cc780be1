// The warehouse SQL that computes a rollup's stored rows (the builder's half of
// docs/rollup-store.md): one grouped query at the rollup's dimensions (time dimensions truncated
// to their stored grain, joined dimensions through their many_to_one/one_to_one path) with the
// stored partial aggregates, plus one (group, value) query per measure whose stored form is
// computed client-side (sketches, approximate distinct counts), exactly as the live path
// computes them, so a stored sketch and a live one of the same values are the same bytes.
//
// Pure: no I/O; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "semantic/model.h"
#include "semantic/query.h"
#include "semantic/stored_sql.h"
#include "sql/dialect.h"

namespace strata::semantic {

// One column of the stored rows, in file order.
struct RollupColumn {
  std::string name;                // the stored column name (docs/rollup-store.md)
  bool dimension = false;          // a dimension (group key) or a measure part
  std::string source;              // the dimension path or the measure name
  std::string part;                // "" | "sum" | "count" | "hll" | "values"
  std::optional<TimeGrain> grain;  // a time dimension's stored grain
};

// A query returning the group keys (the first `key_count` columns, as in the main query) and
// then the value (`with_counts`: and its count) of one measure, for one client-side column.
struct RollupSketchQuery {
  enum class Kind {
    kHll,          // the serialized HLL of the group's values (BLOB)
    kHllEstimate,  // llround of that HLL's estimate (BIGINT): unsketched count_distinct_approx
    kValueCounts,  // the sorted (value, count) list (LIST(STRUCT(value DOUBLE, count BIGINT)))
  };
  std::string sql;
  std::size_t key_count = 0;
  std::string column;  // the stored column it fills
  Kind kind = Kind::kHll;
};

struct RollupBuildPlan {
  std::string sql;                    // group keys "d0".., then the stored measure parts "s0"..
  std::vector<RollupColumn> columns;  // of `sql` then one per sketch, in stored order
  std::size_t key_count = 0;
  std::vector<RollupSketchQuery> sketches;
  // The stored measures and dimensions, for the router.
  std::vector<StoredDimension> dimensions;
  std::vector<StoredMeasure> measures;
};

// The rollup's partition (and build range) time dimension: build_range.dimension when set, else
// the first dimension with a grain; nullopt when the rollup has no time dimension with a grain.
std::optional<std::string> RollupTimeDimension(const Rollup& rollup);

// The stored grain of `rollup`'s dimension `path` (nullopt: not a time dimension with a grain).
std::optional<TimeGrain> RollupDimensionGrain(const Rollup& rollup, std::string_view path);

// The rows of a partition.append rollup by their append column (PlanRollupAppendMarker): each
// bound present applies (`after` < value, `from` <= value, value < `before`, value <=
// `through`), each the text of a value read from the warehouse or of a time bucket's start,
// compared as a literal the column's type casts (so a marker round-trips; on Trino, which casts no
// varchar, a literal of the type of the dimension the column is, or for a raw column of the type
// the text reads as: kSemanticInvalid when a dimension's value is not of its type). `with_nulls`:
// the rows whose value is NULL too (a full build; no append reads them). No bound and no
// with_nulls: every row.
struct AppendBounds {
  std::optional<std::string> after, from, before, through;
  bool with_nulls = false;
};

// The rows of `rollup` whose time dimension (RollupTimeDimension) lies in [from, to) when a
// window is given (`null_time`: exactly the rows whose time dimension is NULL), all rows
// otherwise; with `append`, only those rows within its bounds. REQUIRES: `rollup` was validated
// against `model` by the loader.
Result<RollupBuildPlan> PlanRollupBuild(const SemanticModel& model, const Rollup& rollup,
                                        sql::Dialect dialect,
                                        std::optional<std::pair<UnixSeconds, UnixSeconds>> window,
                                        bool null_time = false,
                                        const std::optional<AppendBounds>& append = std::nullopt);

// The append column of a partition.append rollup (spec/semantic.md: the rows past the stored
// marker): its refresh.when_changed column (or the dimension of that name), else its time
// dimension, untruncated. SELECT MAX of it over the entity's rows as "marker"; with `previous`
// (the stored marker) also "behind": whether that maximum is below it (the rows were rewritten;
// NULL when no row has a value); with `slice_from` too, "in_slice": how many rows have a value
// in [slice_from, previous] (the stored marker's slice, docs/rollup-store.md "Append"). One row.
Result<std::string> PlanRollupAppendMarker(
    const SemanticModel& model, const Rollup& rollup, sql::Dialect dialect,
    const std::optional<std::string>& previous,
    const std::optional<std::string>& slice_from = std::nullopt);

// The rows of `rollup` a live tail reads (spec/semantic.md "Live tail"): those whose time
// dimension is at or after `from` and, when `to` is given, before it; with `with_null_time`
// also the rows whose time is NULL (a query over all time). The same stored columns as
// PlanRollupBuild, so the tail's rows union with the stored files'. REQUIRES: as
// PlanRollupBuild, and the rollup has a time dimension with a grain.
Result<RollupBuildPlan> PlanRollupTail(const SemanticModel& model, const Rollup& rollup,
                                       sql::Dialect dialect, UnixSeconds from,
                                       std::optional<UnixSeconds> to, bool with_null_time);

// SELECT COUNT(*) AS "n" over the entity's rows (its table or SELECT): one row. The rollup
// advisor's size estimate (rollup/query_log.h) divides a proposal's stored rows by it.
Result<std::string> PlanEntityRowCount(const SemanticModel& model, std::string_view entity,
                                       sql::Dialect dialect);

// SELECT min, max of the rollup's time dimension (truncation-free) over the entity's rows, and
// the number of rows whose time is NULL; one row: two timestamps (NULLs when no row has a time)
// and a count.
Result<std::string> PlanRollupTimeBounds(const SemanticModel& model, const Rollup& rollup,
                                         sql::Dialect dialect);

// The freshness marker query of a rollup with `refresh.when_changed` (SELECT MAX of that column
// of the entity, or of the dimension of that name: its SQL) or `refresh.when_changed_sql` (as
// written); nullopt when it has neither. One row, one column.
Result<std::optional<std::string>> PlanRollupMarker(const SemanticModel& model,
                                                    const Rollup& rollup, sql::Dialect dialect);

}  // namespace strata::semantic
