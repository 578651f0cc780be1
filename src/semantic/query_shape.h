// What a semantic query reads from each entity's rows, resolved by the live planner's own rules
// (live_sql.h): one PartialShape per partial, with every member written as the path a rollup of
// that entity would store ("customer.region"). The rollup advisor (rollup/advisor.h) proposes
// rollups from it.
//
// Pure: no I/O; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "semantic/query.h"

namespace strata::semantic {

// A dimension one partial reads, by its path relative to the partial's entity.
struct ShapeMember {
  std::string path;     // "status", "customer.region"
  std::string written;  // as the query writes it ("Customer.region")
  const Dimension* dimension = nullptr;
};

struct ShapeKey {
  ShapeMember member;
  std::optional<TimeGrain> grain;  // a time dimension's grain; nullopt: the raw value
};

struct ShapeFilter {
  ShapeMember member;
  const FilterRequest* filter = nullptr;  // points into the query
};

struct ShapeRange {
  ShapeMember member;
  UnixSeconds from = 0, to = 0;  // [from, to), UTC instants
};

struct PartialShape {
  const Entity* entity = nullptr;
  std::vector<ShapeKey> keys;        // the group keys, in the query's order
  std::vector<ShapeFilter> filters;  // every filter on a dimension (groups flattened)
  std::vector<ShapeRange> ranges;
  std::vector<const Measure*> measures;  // this entity's measures, those metrics read included
  // The data role's row filters on the rows this partial reads: each member's path relative to
  // the partial's entity (a rollup answers the role only when it stores them).
  std::vector<std::string> row_filters;
};

struct QueryShape {
  std::vector<PartialShape> partials;  // in the live plan's order
  TimeZone zone;                       // the query's zone
};

// The shape of `query` for `options.role`. Errors are PlanLiveQuery's (an invalid query, a role
// that may not read it).
Result<QueryShape> ResolveQueryShape(const SemanticModel& model, const SemanticQuery& query,
                                     const PlanOptions& options);

}  // namespace strata::semantic
