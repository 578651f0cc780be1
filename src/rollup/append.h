// Append refreshes of a `partition.append` rollup (spec/semantic.md; docs/rollup-store.md
// "Append"): the refresh reads from the warehouse only the rows whose append column
// (refresh.when_changed, else the time dimension) lies past what the files hold, grouped as a
// build groups them, and merges them into the files of the periods they fall in. History before
// the marker's slice is never read again.
//
// The marker's slice: the rows whose append column is at or past the slice's start (the marker
// itself for a when_changed column; for the time dimension, the start of the stored grain's
// bucket that holds the marker). Rows can still arrive there after a refresh (ties with the
// marker, a bucket still filling), so its rows are kept apart: each file they touch has an
// append base, the same period without them. The next append starts those periods from their
// bases and reads the slice again, so a row at or past the slice's start is never missed and
// never counted twice. When the warehouse still holds exactly the rows the slice was read with
// and the new slice starts past the old marker, the files themselves are the start (nothing is
// read twice).
//
// Merging is exact because every stored measure of such a rollup re-aggregates (the loader
// refuses the others): sum, count, the avg parts and __rows add up, min and max take the
// extreme, HyperLogLog sketches merge (strata_hll_merge: the union's registers, the same bytes as
// a sketch of all the values) and value-count lists add counts per value. So a rollup appended
// N times holds the same groups and values as a full rebuild at the same marker.
//
// What an append does not see (documented in docs/rollup-store.md): rows whose append column is
// NULL (read by full builds only), rows that arrive with a value before the stored slice's
// start, updates and deletes. `--full` rebuilds everything.
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

// Where the slice of `marker` (an append-column value as the warehouse printed it) starts: for
// a rollup whose append column is its time dimension, the start of the bucket of the
// dimension's stored grain holding the marker ("2026-10-01", or "2026-10-01 13:00:00" for an
// hour; a fiscal grain counts by month); otherwise, or for a marker that is not a time, the
// marker itself. Pure.
std::string AppendSliceFrom(const semantic::Rollup& rollup, const std::string& marker);

// Whether the slice starting at `slice_from` lies wholly past `marker` (so the rows up to the
// marker are all before it). False when that cannot be told (a value that is not a time).
// REQUIRES: `slice_from` is the AppendSliceFrom of a marker not below `marker`.
bool AppendSliceIsPast(const semantic::Rollup& rollup, const std::string& slice_from,
                       const std::string& marker);

// What one append reads and where it starts.
struct AppendRequest {
  // A full build's files already hold every row through the marker: read the slice only to
  // see which files it touches, and write each one's base from `settled` (the rows before the
  // slice). The files themselves are kept.
  bool carve = false;
  // true: a period whose file has an append base starts from the base (the stored slice is read
  // again); false: every period starts from its file, and the old bases are dropped.
  bool from_bases = false;
  // The rows merged into the files for good; nullopt: none are read.
  std::optional<semantic::AppendBounds> settled;
  // The new marker's slice: merged into the files, with the files before it kept as bases.
  semantic::AppendBounds slice;
};

struct AppendedFiles {
  std::vector<ManifestFile> files;  // the new manifest's files
  std::vector<ManifestFile> bases;  // the new manifest's append_bases
  std::optional<UnixSeconds> range_start, range_end;
  // One per period file of the new version: "appended" (merged with new rows), "built" (a
  // period that had no file), "kept"; and the NULL-time file when it exists.
  std::vector<PeriodOutcome> periods;
  std::int64_t read_rows = 0;   // the grouped rows read from the warehouse
  std::int64_t slice_rows = 0;  // the source rows of the slice read (its __rows)
};

// Reads the rows of `request` from `source` and merges them into `previous`'s files through
// `engine`, writing new files in `store`. With a build_range the files cover its current window
// (files wholly before it are dropped, its new periods built); without one the range grows to
// the periods the new rows fall in. Writes nothing the caller must clean up on failure other
// than garbage files (the store's collection removes them). `previous` need not be published
// (a full build appends its slice to the files it just wrote).
// Errors: the warehouse's or engine's, with a note naming the rollup.
Result<AppendedFiles> AppendToFiles(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& source, warehouse::Connection& engine,
                                    const RollupStore& store, const Manifest& previous,
                                    const AppendRequest& request, UnixSeconds now);

}  // namespace strata::rollup
