// Append refreshes of a `partition.append` rollup (spec/semantic.md; docs/rollup-store.md
// "Append"): the refresh reads from the warehouse only the rows whose append column
// (refresh.when_changed, else the time dimension) lies past the manifest's append_marker and at or
// before the column's current maximum, grouped as a build groups them, and merges them into the
// files of the periods they fall in. History is never read again.
//
// Merging is exact because every stored measure of such a rollup re-aggregates (the loader
// refuses the others): sum, count, the avg parts and __rows add up, min and max take the
// extreme, HyperLogLog sketches merge (strata_hll_merge: the union's registers, the same bytes as
// a sketch of all the values) and value-count lists add counts per value. So a rollup appended
// N times holds the same groups and values as a full rebuild at the same marker.
//
// What an append does not see (documented in docs/rollup-store.md): rows whose append column is
// NULL (read by full builds only), rows that arrive with a value at or below the stored marker,
// updates and deletes. `--full` rebuilds everything.
//
// Thread safety: as the builder (one append per rollup at a time, under its build lock).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/builder.h"
#include "rollup/manifest.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "semantic/rollup_sql.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// The DuckDB SELECT that merges the stored rows of `relation` (a FROM item whose rows have the
// rollup's stored columns, several per group allowed) into one row per group of the stored
// dimensions, every column cast back to its stored type, in `columns` order, sorted by sort_by.
// Errors: kInternal for a column that does not merge (an exact-only measure, an unknown part).
// Pure.
Result<std::string> MergeStoredRows(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup,
                                    const std::vector<ManifestColumn>& columns,
                                    const std::string& relation);

struct AppendedFiles {
  std::vector<ManifestFile> files;  // the new manifest's files
  std::optional<UnixSeconds> range_start, range_end;
  // One per period file of the new version: "appended" (merged with new rows), "built" (a
  // period that had no file), "kept"; and the NULL-time file when it exists.
  std::vector<PeriodOutcome> periods;
  std::int64_t read_rows = 0;  // the grouped rows read from the warehouse
};

// Reads the rows of `bounds` (after = previous.append_marker) from `source` and merges them into
// `previous`'s files through `engine`, writing new files in `store`. With a build_range the
// files cover its current window (files wholly before it are dropped, its new periods built);
// without one the range grows to the periods the new rows fall in. Writes nothing the caller
// must clean up on failure other than garbage files (the store's collection removes them).
// Errors: the warehouse's or engine's, with a note naming the rollup.
Result<AppendedFiles> AppendToFiles(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& source, warehouse::Connection& engine,
                                    const RollupStore& store, const Manifest& previous,
                                    const semantic::AppendBounds& bounds, UnixSeconds now);

}  // namespace strata::rollup
