// DuckDB functions over the sketch formats of spec/semantic.md ("Sketches"; base/hll.h and
// base/value_counts.h), so rollups re-aggregate in the same SQL that reads their Parquet files.
// Private to the adapter: callers get them through OpenDuckDbEngine (duckdb_engine.h).
//
//   strata_hll_add(VARCHAR) -> BLOB             aggregate: the serialized HyperLogLog of the
//       group's non-NULL texts, byte-identical to HyperLogLog::Add of the same texts in C++;
//       NULL when there are none.
//   strata_hll_merge(BLOB) -> BLOB              aggregate: the union (HyperLogLog::Merge) of the
//       group's non-NULL sketches; NULL when there are none.
//   strata_hll_estimate(BLOB) -> BIGINT         scalar: std::llround(Estimate()); NULL for NULL.
//   strata_value_counts(DOUBLE) -> LIST(STRUCT(value DOUBLE, count BIGINT))
//       aggregate: the value-count sketch of the group's non-NULL values (MergeValueCounts
//       order: ascending, NaN last); NULL when there are none.
//   strata_quantile_merge(LIST(STRUCT(value DOUBLE, count BIGINT)), DOUBLE q) -> DOUBLE
//       aggregate: sums the counts of every list of the group by value and returns the continuous
//       quantile q (DuckDB's quantile_cont, bit for bit); NULL for an empty multiset. NULL lists,
//       NULL entries and entries with a NULL value or count are skipped; count 0 adds nothing.
//   strata_quantile_merge_postgres(LIST(STRUCT(value DOUBLE, count BIGINT)), DOUBLE q) -> DOUBLE
//       the same with PostgreSQL's percentile_cont interpolation (QuantileInterpolation::
//       kPostgres), which differs from DuckDB's in the last bits for some inputs: for rollups
//       whose live answer comes from PostgreSQL.
//
// Errors are DuckDB errors (the statement fails, nothing crashes): a blob that is not a
// version-1 sketch ("strata_hll_merge: bad HyperLogLog sketch: ..."), q NULL, NaN or outside
// [0, 1], q not the same on every row, a negative count, and counts whose sum overflows BIGINT.
//
// All aggregates combine partial states, so they are correct under DuckDB's parallel aggregation
// and in window frames (combine leaves its source intact).
//
// Never write ORDER BY inside these aggregates (`strata_hll_merge(s ORDER BY k)`): DuckDB 1.4.4
// hands a C API aggregate's update one constant state vector there (CAPIAggregateUpdate does
// not flatten it), so the update reads past it and the process crashes. No C API call marks an
// aggregate order-independent, which would make DuckDB drop the ORDER BY. None of these results
// depend on the order anyway.
#pragma once

#include <duckdb.h>

#include <memory>
#include <vector>

#include "base/result.h"
#include "warehouse/duckdb/vector_access.h"

namespace strata::warehouse {

// Registers every function above. DuckDB keeps C API functions in the database's system catalog:
// once registered through one connection, every connection to that database has them (register
// once per database). kWarehouse when DuckDB refuses (for instance, already registered).
Status RegisterSketchFunctions(duckdb_connection connection);

// The parts RegisterSketchFunctions is made of (hll_functions.cc, value_count_functions.cc).
Status RegisterHllFunctions(duckdb_connection connection);
Status RegisterValueCountFunctions(duckdb_connection connection);

// One aggregate function of the C API: its name, types and callbacks.
struct AggregateSpec {
  const char* name = nullptr;
  std::vector<std::unique_ptr<LogicalType>> parameters;
  std::unique_ptr<LogicalType> return_type;
  duckdb_aggregate_state_size state_size = nullptr;
  duckdb_aggregate_init_t init = nullptr;
  duckdb_aggregate_update_t update = nullptr;
  duckdb_aggregate_combine_t combine = nullptr;
  duckdb_aggregate_finalize_t finalize = nullptr;
  duckdb_aggregate_destroy_t destroy = nullptr;
  void* extra_info = nullptr;  // not owned; must outlive the database
};
// kWarehouse naming the function when DuckDB refuses it.
Status RegisterAggregate(duckdb_connection connection, const AggregateSpec& spec);

}  // namespace strata::warehouse
