// The refresh policy of a rollup build (builder.h): whether a build runs at all, how much it
// reads, and when it is skipped. It reads the store's current manifest, the rollup's definition
// and the warehouse's markers (refresh.when_changed / when_changed_sql, the append column's
// maximum, the source rows' time bounds) and decides; it never writes a file. The builder
// executes its decisions (rollup/builder.cc: write, publish, compact).
//
//   start:  a changed definition, `--full`, an append rollup without a slice: rebuilt whole;
//           a damaged file: rebuilt whole, due or not; a refresh not due: skipped.
//   append: a partition.append rollup appends the rows past its marker (rollup/append.h), is
//           skipped when neither marker moved, and is rebuilt whole when the append column
//           went back below its marker.
//   build:  a plain build is skipped when its freshness marker did not move and it would cover
//           the periods it has.
//
// Thread safety: const methods only; the warehouse is connected per read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "base/time.h"
#include "rollup/append.h"
#include "rollup/builder.h"
#include "rollup/internal/period_plan.h"
#include "rollup/manifest.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// Where a build starts.
struct RefreshStart {
  bool full = false;                // every period is read again
  bool append = false;              // an append refresh is tried first
  std::string reason;               // why it is rebuilt whole (a damaged file); else empty
  std::optional<std::string> skip;  // not due: why
};

// What an append refresh does. The fields are filled as they are read, so a failed decision
// still says which marker it read.
struct AppendDecision {
  enum class Kind { kSkip, kRebuild, kAppend };
  Kind kind = Kind::kRebuild;
  std::string skip;                   // kSkip: why
  bool marker_read = false;           // `marker` was read (when_changed / when_changed_sql)
  std::optional<std::string> marker;  // the freshness marker
  std::string append_to, slice_from;  // kAppend: the new marker and where its slice starts
  AppendRequest request;              // kAppend: what it reads
};

// What a build (not an append) reads. Filled as it is read, as AppendDecision.
struct BuildDecision {
  std::optional<std::string> skip;  // skipped: why
  bool marker_read = false;
  std::optional<std::string> marker;  // the freshness marker
  // partition.append: the marker the files are read through, where its slice starts and how
  // many source rows the slice holds (counted before the files are read).
  std::optional<std::string> append_to, slice_from;
  std::int64_t slice_rows = 0;
  RollupPlan plan;
};

class RefreshPolicy {
 public:
  // All must outlive the policy.
  RefreshPolicy(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                warehouse::Warehouse& warehouse, const BuildOptions& options, UnixSeconds now)
      : model_(model), rollup_(rollup), warehouse_(warehouse), options_(options), now_(now) {}

  // From `previous` (nullopt: never built or unreadable) built from definition `hash`; checks
  // the sizes of its files in `store`.
  RefreshStart Start(const std::optional<Manifest>& previous, const std::string& hash,
                     const RollupStore& store) const;

  // REQUIRES: Start(...).append. Errors: the warehouse's, with a note naming the marker.
  Status DecideAppend(const Manifest& previous, AppendDecision& decision) const;

  // `full` as Start (or an append that must rebuild) decided. Errors: the warehouse's.
  Status DecideBuild(const std::optional<Manifest>& previous, bool full,
                     BuildDecision& decision) const;

 private:
  struct AppendMarker {
    std::optional<std::string> value;      // the append column's maximum; nullopt: no row has one
    bool behind = false;                   // below the stored marker
    std::optional<std::int64_t> in_slice;  // the rows in the stored marker's slice now
  };

  std::optional<std::string> NotDue(const Manifest& previous) const;
  bool WindowMoved(const Manifest& previous) const;
  bool SamePeriods(const RollupPlan& plan, const Manifest& previous) const;
  Result<std::optional<std::string>> ReadMarker() const;
  Result<AppendMarker> ReadAppendMarker(const Manifest* previous) const;
  AppendRequest RefreshRequest(const Manifest& previous, bool slice_intact,
                               const std::string& append_to, const std::string& slice_from) const;

  const semantic::SemanticModel& model_;
  const semantic::Rollup& rollup_;
  warehouse::Warehouse& warehouse_;
  const BuildOptions& options_;
  const UnixSeconds now_;
};

}  // namespace strata::rollup
