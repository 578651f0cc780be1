// The rollup router (spec/semantic.md "Routing rules"): decides, for a query the live planner
// accepted, whether built rollups answer it exactly, and plans the DuckDB SQL over their Parquet
// files when they do. Routing never fails a query: anything that goes wrong (an unreadable
// manifest, a definition that changed, a rule that does not hold) is a miss with a stable reason,
// and the caller answers live.
//
// Candidates are the rollups of the live plan's entities, in declaration order. Each is planned
// from its cached manifest (RouterCache: one stat per candidate when nothing changed); a hit
// then takes reader leases (rollup/store.h) on the versions it planned with, only for the
// rollups it reads, and plans again when one was rebuilt meanwhile. The Route keeps the leases,
// so the files stay until the caller has run the SQL and drops it. Among the rollups of an entity
// that answer, the one with the fewest stored rows to scan (the rows of the files its range
// touches) wins. A query over several entities is answered from one rollup per entity or not at
// all (join_rollup_incomplete); never with live_tail rollups (live_tail_in_join) nor with
// count_distinct / count_distinct_approx / percentile measures (distinct_across_entities).
//
// A live_tail rollup (live_tail.h) answers ranges that reach past its watermark, and queries
// over all time when it has no build_range: the hit's SQL reads its files and a tail table,
// listed in Route::tails, which the caller stages before it runs the SQL. A range that ends at
// or before the watermark reads the files alone. A hit that reads a tail ranks after every hit
// that reads only files.
//
// Thread safety: RouteQuery is safe to call from many threads with the same store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rollup/live_tail.h"
#include "rollup/manifest_cache.h"
#include "rollup/store.h"
#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "semantic/query.h"
#include "semantic/rollup_sql.h"

namespace strata::rollup {

struct RollupMiss {
  std::string rollup;
  std::string reason;  // a semantic::miss:: reason
  std::string detail;  // for humans; not part of the stable contract
};

struct Route {
  std::optional<semantic::LivePlan> plan;  // DuckDB SQL over the store, on a hit
  std::vector<std::string> used;           // the rollups read, one per entity (hit only)
  // One per candidate rollup not read, on a miss and on a hit alike (an eligible rollup that was
  // not the cheapest is `costlier`).
  std::vector<RollupMiss> missed;
  std::vector<ReaderLease> leases;  // hold until the SQL has run
  std::vector<LiveTail> tails;      // to stage before the SQL runs (hit only)

  bool hit() const { return plan.has_value(); }
};

// What routing keeps across the queries of one model over one store: each rollup's definition
// hash and stored layout (computed once, in the constructor) and the parsed manifests
// (ManifestCache). Thread-safe. REQUIRES: the model and the store outlive it.
class RouterCache {
 public:
  RouterCache(const semantic::SemanticModel& model, const RollupStore& store);

  const semantic::SemanticModel& model() const { return model_; }
  const ManifestCache& manifests() const { return manifests_; }

  struct Definition {
    std::string hash;                          // DefinitionHash
    Result<semantic::RollupBuildPlan> layout;  // the stored dimensions and measures
  };
  // REQUIRES: `index` < model().rollups.size().
  const Definition& DefinitionOf(std::size_t index) const { return definitions_[index]; }

 private:
  const semantic::SemanticModel& model_;
  ManifestCache manifests_;
  std::vector<Definition> definitions_;
};

// How a routed query will meet the warehouse it would otherwise run on.
struct RouteOptions {
  semantic::PlanOptions plan;  // REQUIRES: plan.dialect is kDuckDb (the store's SQL)
  // The warehouse of the live answer: stored percentiles interpolate as its percentile_cont
  // does, so a hit returns the live answer's bits.
  sql::Dialect warehouse = sql::Dialect::kDuckDb;
  // Rollups whose files (or live tail) failed to read for this query: never chosen again, each
  // reported with this miss (store_error). query::Answer routes again with the rollups of a
  // failed hit added here, so another rollup that answers is tried before the live answer.
  std::vector<RollupMiss> failed;
};

// `live` is the live plan of `query` (so the query is valid and the role may read what it
// reads), over the cache's model.
Route RouteQuery(const semantic::SemanticQuery& query, const RouteOptions& options,
                 const semantic::LivePlan& live, const RouterCache& cache);

// RouteQuery with a cache made for this one query (parses each candidate's manifest).
Route RouteQuery(const semantic::SemanticModel& model, const semantic::SemanticQuery& query,
                 const semantic::PlanOptions& options, const semantic::LivePlan& live,
                 const RollupStore& store);

}  // namespace strata::rollup
