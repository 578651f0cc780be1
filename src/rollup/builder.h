// The rollup builder (`strata rollups build`): computes each period of a rollup on the warehouse
// (semantic/rollup_sql.h), loads the rows into the in-process DuckDB engine
// (warehouse/duckdb/duckdb_engine.h; sketches are computed there by the registered strata_*
// functions from the values' canonical text, as the live path computes them), writes one
// Parquet file per period with COPY ... (FORMAT parquet), sorted by sort_by, and publishes a new
// manifest through the store (rollup/store.h).
//
// Which periods: partition.by periods of the rollup's time dimension over the build range
// (build_range: the periods from the one containing now - days through the one containing now;
// else those of the source rows' min through max, plus one file for rows whose time is NULL
// when there are any); a live_tail rollup stops before the open period (the live tail reads
// it). Unpartitioned rollups are one file. Adjacent periods to write are read from the
// warehouse as one batch (one grouped query per batch, split into period files in the engine). A
// plain build builds the periods its manifest lacks and rebuilds the newest `refresh_last`; `full`
// (or a changed definition) rebuilds every period. Files of periods that are not rebuilt are kept
// as they are.
//
// Skipping: a build that is not `full`, of a rollup whose definition is unchanged, is skipped
// when its freshness marker (refresh.when_changed / when_changed_sql) has the value the current
// manifest recorded and the periods it would cover are the ones it has: nothing changed.
//
// Append (`partition.append`, rollup/append.h): a build that is not `full`, of a rollup whose
// files hold an append marker, reads only the rows past it and merges them into the files of
// their periods (a definition change, `full`, or an append column whose maximum went below the
// stored marker rebuilds everything, reading the rows up to the maximum read first). It is
// skipped when neither the freshness marker nor the append column's maximum moved.
//
// Failure: a period that fails leaves the previous manifest in force (nothing is published for
// that rollup; its new files are garbage for the next collection) and is reported; other
// rollups still build. A held build lock is a failure of that rollup.
//
// Where it is: builder.cc runs each rollup's build and executes it (write, append, publish,
// compact, collect, record); internal/refresh_policy.h decides (due, markers, skips, full or
// append); internal/period_plan.h plans the periods; internal/batch_writer.h writes them in
// parallel batches, each one internal/period_writer.h; every data file is written by
// internal/parquet_file.h.
//
// Thread safety: BuildRollups runs up to `parallel` batches at once (the periods are split into
// at least that many batches when there are enough), each with its own warehouse and engine
// connection; the warehouse must allow that many connections.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

struct PeriodOutcome {
  std::string label;  // "2026-04-01", "all", "null"
  std::optional<UnixSeconds> start, end;
  bool null_time = false;
  std::string status;  // "built" | "appended" (an append merged new rows in) | "kept" | "failed"
  std::int64_t rows = 0;
  std::uint64_t bytes = 0;
  double duration_ms = 0;
  std::optional<Error> error;
};

struct RollupOutcome {
  std::string rollup;
  std::string status;  // "built" | "failed" | "skipped" (nothing read or published; see reason)
  std::vector<PeriodOutcome> periods;
  std::optional<Error> error;  // the first failure
  std::int64_t version = 0;    // the published manifest version
  std::int64_t rows = 0;       // rows of the published manifest
  double duration_ms = 0;
  std::string garbage;                // the garbage collection's summary
  std::optional<std::string> marker;  // the freshness marker read (when_changed / _sql)
  std::string reason;  // why it was skipped, or why it was rebuilt whole (a damaged file)
  // Files merged by the compaction that follows the publish of a rollup with
  // partition.compact (compaction.h); a failed compaction fails the rollup, with the built
  // version still in force.
  std::size_t compacted_files = 0;
};

struct BuildReport {
  std::vector<RollupOutcome> rollups;
  bool ok() const;
};

struct BuildOptions {
  std::vector<std::string> rollups;  // empty: every rollup of the model
  bool full = false;
  // `strata rollups refresh`: build only the rollups that are due — never built, definition
  // changed, or refresh.every elapsed since the last build (no refresh.every: always due);
  // `refresh.manual` rollups only when named in `rollups`. The others are "skipped".
  bool due_only = false;
  int parallel = 1;
  const Clock* clock = nullptr;  // null: the system clock
  // Becomes true on SIGINT/SIGTERM (may be null): statements in flight are interrupted, no
  // further batch or rollup starts, and nothing more is published (kInterrupted failures).
  const std::atomic<bool>* cancel = nullptr;
  // Called (from worker threads, serialized) after each period finishes.
  std::function<void(const std::string& rollup, const PeriodOutcome& period, std::size_t done,
                     std::size_t total)>
      progress;
};

// Errors: kConfig for a rollup name that the model does not declare (with a "did you mean");
// everything else is reported per rollup and period.
Result<BuildReport> BuildRollups(const semantic::SemanticModel& model,
                                 warehouse::Warehouse& warehouse, warehouse::Warehouse& engine,
                                 const RollupStore& store, const BuildOptions& options);

}  // namespace strata::rollup
