// Compaction of a partitioned rollup (`partition.compact`, spec/semantic.md; docs/rollup-store.md
// "Compaction"): the files of ended periods are merged into one file per period of the coarser
// `compact` grain, and the merged set is published atomically through the manifest like a build.
//
// A period has ended when it ends at or before the start of the period containing now and is
// older than the newest `refresh_last` periods (those a plain build re-reads). A coarse period
// is merged once all of its stored periods have ended, so it is merged once; its file covers the
// union of their periods (a coarse period the data starts or ends inside covers only the part
// that is stored). Merging concatenates rows (the stored buckets of different periods never
// share a group) sorted by sort_by: answers are identical before and after. The NULL-time file
// is never merged.
//
// Thread safety: as the builder; a compaction takes the rollup's build lock.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/manifest.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

struct CompactionOutcome {
  std::string rollup;
  // "compacted" (a new version was published), "unchanged" (nothing to merge: `reason`),
  // "failed" (`error`; the previous version stays in force).
  std::string status;
  std::string reason;
  std::size_t merged_files = 0;   // fine files replaced
  std::size_t written_files = 0;  // coarse files written
  std::int64_t version = 0;       // the manifest version in force afterwards
  double duration_ms = 0;
  std::optional<Error> error;
  std::string garbage;  // the garbage collection's summary
};

// Which files of `manifest` merge into which coarse file (pure; for the builder, tests and
// CompactRollup): each group is the indexes into manifest.files of two or more adjacent files
// of one ended coarse period, oldest first.
std::vector<std::vector<std::size_t>> CompactionGroups(const semantic::Rollup& rollup,
                                                       const Manifest& manifest, UnixSeconds now);

// Compacts `rollup` under a build lock the caller holds (the builder, after its publish):
// reads the current manifest, writes the coarse files through `engine` and publishes. A rollup
// without partition.compact, not built, or built from another definition is "unchanged".
CompactionOutcome CompactLocked(const semantic::SemanticModel& model,
                                const semantic::Rollup& rollup, warehouse::Warehouse& engine,
                                const RollupStore& store, const BuildLock& lock, UnixSeconds now);

// `strata rollups compact`: CompactLocked under the rollup's build lock, taken without waiting
// (a build or compaction that holds it: "failed" with kRollupLocked).
CompactionOutcome CompactRollup(const semantic::SemanticModel& model,
                                const semantic::Rollup& rollup, warehouse::Warehouse& engine,
                                const RollupStore& store, UnixSeconds now);

}  // namespace strata::rollup
