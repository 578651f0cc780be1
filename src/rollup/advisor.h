// The rollup advisor: for a query the warehouse answered live, the rollups that would answer it
// exactly once built (one per entity of the query: a query over several entities is answered by
// a set of join rollups), by the router's own rules (router.h, semantic/stored_sql.h).
//
// A proposal stores, for each entity, the paths the query groups and filters by (a time
// dimension at the coarsest grain that rolls up into every grain the query asks for and on whose
// boundaries its range and time filters fall; raw when none does), the query's measures (and
// those its metrics read), with a sketch for every count_distinct_approx and percentile, the
// query's zone, and from a range on its time dimension a partition and a build_range reaching
// back to the range's start. It is then checked: planned by PlanStoredQuery over the proposed
// rollups as if built, with their build windows at `now`.
//
// What no rollup answers is named instead, with the router's reason:
//   not_additive             an exact count_distinct over groups other than the stored ones;
//   distinct_across_entities a distinct count or percentile in a query over several entities;
//   row_security             the role's row filter reads a member the query does not name: the
//                            advice never adds one (it would reveal how the role is filtered);
//                            the member reported is the entity.
// The advice never names a member the role may not read: the query is planned for the role
// first, and a query the role may not run is refused (kAccessDenied), as POST /v1/query does.
//
// Pure: no I/O; thread-safe.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/router.h"
#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "semantic/query.h"

namespace strata::rollup {

struct AdviseOptions {
  semantic::PlanOptions plan;  // the role; the dialect is not used
  UnixSeconds now = 0;         // build windows are computed at this time
  // false: never propose a build_range (the ranges of queries read back from the access log
  // are known only by their alignment, `strata rollups advise --from-log`).
  bool build_range = true;
};

struct UnansweredMember {
  std::string member;  // "Order.customers", or the entity for row_security
  std::string reason;  // a semantic::miss reason
  std::string detail;
};

struct Advice {
  std::vector<semantic::Rollup> rollups;  // named uniquely against the model's rollups
  std::vector<UnansweredMember> unanswerable;
  // Whether the rollups, once built, answer the query exactly (checked); false when something
  // is unanswerable.
  bool answers = false;
};

// The advice for `query`. Errors: those of PlanLiveQuery (kQueryInvalid, kAccessDenied, ...).
Result<Advice> AdviseRollups(const semantic::SemanticModel& model,
                             const semantic::SemanticQuery& query, const AdviseOptions& options);

// Rollups (of `model`'s entities, not yet in it) as if built at `now` with every period
// present, to check queries against. REQUIRES: the model outlives it.
class ProposedRollups {
 public:
  // Errors: a rollup the planner cannot lay out (PlanRollupBuild's).
  static Result<ProposedRollups> Make(const semantic::SemanticModel& model,
                                      std::vector<semantic::Rollup> rollups, UnixSeconds now);
  ProposedRollups(ProposedRollups&&) noexcept;
  ProposedRollups& operator=(ProposedRollups&&) noexcept;
  ~ProposedRollups();

  // Whether they answer `query` for `plan.role` by the router's rules: nullopt when they do,
  // else one of the misses. Errors: those of PlanLiveQuery.
  Result<std::optional<RollupMiss>> Check(const semantic::SemanticQuery& query,
                                          const semantic::PlanOptions& plan) const;

  const std::vector<semantic::Rollup>& rollups() const { return rollups_; }

 private:
  struct Relations;
  ProposedRollups(const semantic::SemanticModel& model, std::vector<semantic::Rollup> rollups);
  const semantic::SemanticModel* model_;
  std::vector<semantic::Rollup> rollups_;
  std::unique_ptr<Relations> relations_;
};

// {"rollups": [{"name", "entity", "dimensions": ["status", {"name", "grain"}], "measures",
// "sketches", "partition": {"by"}, "build_range": {"dimension", "days"}, "timezone"}],
// "unanswerable": [{"member", "reason", "detail"}], "answers": bool, "yaml": "rollups:\n..."};
// partition, build_range and timezone only when set (timezone when not UTC).
nlohmann::json AdviceJson(const Advice& advice);

// The rollups as a `rollups:` block of the model's YAML, each preceded by its comment lines
// (`comments[i]`, when given, without the "# ").
std::string RollupsYaml(const std::vector<semantic::Rollup>& rollups,
                        const std::vector<std::vector<std::string>>& comments = {});

}  // namespace strata::rollup
