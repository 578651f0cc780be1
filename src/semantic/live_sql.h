// Live SQL for a semantic query: resolves every member against the model (paths, ambiguity,
// fan-out, data roles) and renders the SQL the warehouse runs. Pure: no I/O; thread-safe.
//
// Shape. Measures are grouped by the entity they belong to; each group is one "partial": the
// group's entity joined (LEFT JOIN) only along many_to_one/one_to_one paths to the entities of
// the query's dimensions and filters, aggregated to the query's dimensions. Every entity
// instance is a derived table projecting just the expressions it needs, so model expressions
// stay unqualified and are never rewritten. One partial is the whole query; several partials
// (measures of several entities) are combined on the dimensions:
//   WITH p0 AS (...), p1 AS (...)
//   SELECT d..., MAX(m0) AS m0, MAX(m1) AS m1 FROM (
//     SELECT p0.d..., p0.m0, p1.m1 FROM p0 CROSS JOIN p1 WHERE FALSE   -- no rows: the types
//     UNION ALL SELECT d..., m0, NULL AS m1 FROM p0
//     UNION ALL SELECT d..., NULL AS m0, m1 FROM p1) AS u
//   GROUP BY d...
// Each partial has one row per dimension tuple and GROUP BY treats NULLs as equal, so this is
// exactly a FULL OUTER JOIN of the partials on `d IS NOT DISTINCT FROM d` with coalesced
// dimensions, computed by hash aggregation in both engines (PostgreSQL's FULL JOIN refuses
// IS NOT DISTINCT FROM, and a LEFT JOIN on it would be a nested loop there). Raw rows are never
// joined across one_to_many.
// Metrics and filters on measures are evaluated on the combined result (outer query); x / y is
// CAST(x AS DOUBLE PRECISION) / NULLIF(y, 0), so division by zero is NULL.
//
// Filters. Each item of `filters` is one ANDed predicate: a filter, or a group rendered as
// parenthesized SQL ("(a OR b)", "(a AND b)", "NOT (a)") with SQL's three-valued logic (a NOT
// over a NULL member keeps no row). A group whose filters all read dimensions goes into the
// WHERE of every partial (each of its members resolved from that partial's base, as a single
// filter's); one whose filters all read measures or metrics filters the combined result; a
// group reading both is kQueryInvalid. `offset` follows ORDER BY as the dialect writes it
// (LIMIT n OFFSET m; Trino OFFSET m LIMIT n; Snowflake and BigQuery add an unlimited LIMIT).
//
// Member resolution. `Entity.member` or `Entity.rel.rel.member`. In a partial of entity B, a
// dimension of entity T written from entity S resolves to the written path when S == B;
// otherwise to the unique many_to_one/one_to_one path from B to T (kAmbiguousPath listing the
// candidates when several; kFanOut listing the paths when T is reachable only across
// one_to_many; kQueryInvalid when unreachable). A written path crossing one_to_many is kFanOut.
//
// Data roles. No role (nullopt) = a trusted caller (the local CLI without --role): no checks.
// With a role: an unknown (or empty) role name, or an entity instance the query reads (measures,
// dimensions, filters, and the entities their paths pass through) that the role does not list, is
// kAccessDenied (403) naming the entity. Each read entity's row filter (resolved from that entity)
// is ANDed into the WHERE of every partial that reads it, including when reached through a join.
// Entities joined only to evaluate a row filter are not themselves access-checked.
//
// count_distinct_approx is computed client-side (base/hll.h) from (dimensions, value) rows: the
// main SQL carries NULL in its column and `sketches` lists one query per such measure. Such a
// measure cannot be used in a metric, a filter or `order` (kQueryInvalid).
//
// Percentiles: DuckDB quantile_cont(CAST(x AS DOUBLE PRECISION), q); Trino, which has no exact
// percentile (approx_percentile is a sketch), DuckDB's interpolation written out over the group's
// sorted values (array_sort(array_agg(...)), the same doubles, the same answer to the bit); other
// dialects percentile_cont(q) WITHIN GROUP (ORDER BY CAST(x AS DOUBLE PRECISION)) — the same
// continuous interpolation over doubles in all. Time grains truncate CAST(x AS TIMESTAMP), on
// Trino TIMESTAMP(6) (its TIMESTAMP is milliseconds). Values are literals from literal.h;
// identifiers are quoted by the dialect.
//
// Time zones. The query's zone (`timezone`, else the model's default_timezone, else UTC) makes
// grains local: the UTC timestamp is turned into the zone's wall-clock time (DuckDB, PostgreSQL:
// `AT TIME ZONE 'UTC'` then `AT TIME ZONE 'zone'`; Trino: with_timezone and AT TIME ZONE),
// truncated, and turned back into the UTC instant that starts the local bucket, so every time
// value the SQL returns is still a UTC timestamp. Range bounds and time filter values (but not a
// data role's, which the model states in UTC) are wall-clock times in the zone unless they end
// in Z, converted to UTC instants here (TimeZone::FirstInstantAtOrAfter) and written as
// TIMESTAMP literals; the zone's name is a quoted literal, checked against the tz database when
// the query was parsed. In UTC the SQL is exactly that of a query without a zone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "semantic/model.h"
#include "semantic/query.h"
#include "sql/dialect.h"

namespace strata::semantic {

struct OutputColumn {
  std::string name;  // "Order.status", "Order.order_date.month", "Order.revenue"
  DimensionType type = DimensionType::kNumber;  // measures and metrics are numbers
};

// A query returning the group key columns (the plan's first `key_count` output columns, in
// order) and then one value column; the estimate of the HLL of each key's values fills output
// column `column`.
struct SketchQuery {
  std::string sql;
  std::size_t column = 0;
  std::size_t key_count = 0;
};

struct LivePlan {
  std::string sql;
  std::vector<OutputColumn> columns;  // dimensions first, then measures and metrics
  std::size_t dimension_count = 0;
  std::vector<SketchQuery> sketches;
  std::vector<std::string> entities;  // the entities of the partials, in order
  // The query's zone (its `timezone`, else the model's default_timezone): the time values the
  // SQL returns are UTC instants, rendered with this zone's offset (TimeZone::FormatInstant).
  TimeZone zone;
};

struct PlanOptions {
  sql::Dialect dialect = sql::Dialect::kDuckDb;
  std::optional<std::string> role;  // nullopt: trusted caller; "" is an unknown role
};

Result<LivePlan> PlanLiveQuery(const SemanticModel& model, const SemanticQuery& query,
                               const PlanOptions& options);

}  // namespace strata::semantic
