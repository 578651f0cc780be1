// The working state of PlanLiveQuery (live_sql.h): partials with their joined entity instances,
// shared by partial.cc (resolution) and render.cc (SQL text).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "semantic/path.h"
#include "semantic/query.h"
#include "semantic/stored_sql.h"

namespace strata::semantic {

// A member as written: "Order.customer.region" = start Order, hops [customer], member region.
struct MemberRef {
  std::string written;
  MemberPath path;
};
Result<MemberRef> ParseMemberRef(const SemanticModel& model, std::string_view written);

// One entity instance of a partial: the derived table "t<index>".
struct JoinNode {
  const Entity* entity = nullptr;
  std::string key;  // the relationship names from the base, dot-joined ("" for the base)
  std::vector<const Relationship*> hops;  // the path from the base
  int parent = -1;
  std::string join_on;                   // "t0"."c1" = "t2"."c0"; empty for the base
  std::vector<std::string> expressions;  // projected as "c0", "c1", ...
  bool from_query = true;                // false when joined only for a row filter
};

// A dimension of the query (a group key "d<i>" or only a filter target).
struct DimensionRequest {
  MemberRef ref;
  const Dimension* dimension = nullptr;
  std::optional<TimeGrain> grain;
  std::string output_name;
};

// A time_dimensions range [from, to) of the query.
struct RangeRequest {
  MemberRef ref;
  const Dimension* dimension = nullptr;
  std::string from, to;  // literals
  UnixSeconds from_seconds = 0, to_seconds = 0;
};

// One filter on a dimension, inside a DimensionFilter.
struct FilterTarget {
  MemberRef ref;
  const Dimension* dimension = nullptr;
  const FilterRequest* filter = nullptr;  // points into the query
};

// An item of the query's `filters` whose members are all dimensions (a filter, or a group):
// ANDed into the WHERE of every partial.
struct DimensionFilter {
  const FilterNode* node = nullptr;   // points into the query
  std::vector<FilterTarget> targets;  // one per filter of `node`, in FiltersOf order
};

// A measure some partial aggregates, as column "m<index>".
struct NeededMeasure {
  const Entity* entity = nullptr;
  const Measure* measure = nullptr;
};

class Partial {
 public:
  Partial(const SemanticModel& model, const Entity& base, sql::Dialect dialect);

  const Entity& base() const { return *nodes_[0].entity; }
  // The node reached by `hops` from the base, joining the missing ones.
  int AddPath(const std::vector<const Relationship*>& hops, bool from_query);
  // "t<node>"."c<k>" for `expression` projected by `node` (registered once).
  std::string Column(int node, const std::string& expression);
  // Resolves `request` from this partial's base (see live_sql.h), joining what it needs.
  Result<int> Resolve(const MemberRef& ref);
  // The path of `member` of node `node` relative to the base, as a rollup writes it
  // ("customer.region"). REQUIRES: `node` is a node of this partial.
  std::string RelativePath(int node, const std::string& member) const;

  std::vector<JoinNode>& nodes() { return nodes_; }
  const std::vector<JoinNode>& nodes() const { return nodes_; }
  // Adds a WHERE predicate (ANDed) unless the same text is already there; `first` puts it
  // before the others (data-role row filters lead the WHERE).
  void AddWhere(std::string predicate, bool first = false);
  std::vector<std::string>& where() { return where_; }
  const std::vector<std::string>& where() const { return where_; }
  std::vector<std::string>& keys() { return keys_; }  // one per group key, "d<i>" order
  const std::vector<std::string>& keys() const { return keys_; }
  std::vector<std::pair<std::size_t, std::string>>& aggregates() {
    return aggregates_;
  }  // (m index, SQL)
  const std::vector<std::pair<std::size_t, std::string>>& aggregates() const { return aggregates_; }
  sql::Dialect dialect() const { return dialect_; }

  // Reads `relation` (as "t0") instead of the joined derived tables: a stored partial.
  void SetRelation(std::string relation) { relation_ = std::move(relation); }

  // FROM ... [WHERE ...] (no SELECT): the joined derived tables (or the stored relation) and
  // the predicates.
  std::string FromAndWhere() const;

 private:
  const SemanticModel& model_;
  sql::Dialect dialect_;
  std::vector<JoinNode> nodes_;
  std::vector<std::string> where_;
  std::size_t row_filters_ = 0;  // the first row_filters_ entries of where_ are row filters
  std::vector<std::string> keys_;
  std::vector<std::pair<std::size_t, std::string>> aggregates_;
  std::string relation_;
};

// What a stored partial reads from the planner's resolved query.
struct StoredInputs {
  const SemanticModel& model;
  const DataRole* role;  // null: a trusted caller
  const std::vector<DimensionRequest>& dimensions;
  const std::vector<RangeRequest>& ranges;
  const std::vector<DimensionFilter>& filters;
  const std::vector<NeededMeasure>& needed;
  const TimeZone& zone;  // the query's (live_sql.h "Time zones")
};

// Builds every partial of the planner (live_sql.cc) from stored rows instead of the entities'
// tables: PlanStoredQuery's choice among stored relations (stored_sql.cc).
class StoredPartials {
 public:
  virtual ~StoredPartials() = default;
  // `partial` (of entity `base`, for the query resolved in `inputs`) built to read a stored
  // relation, or as given when none answers it; an error fails the plan.
  virtual Result<Partial> Build(const StoredInputs& inputs, const Entity& base,
                                Partial partial) = 0;
  // Whether every partial built so far reads a relation.
  virtual bool Complete() const = 0;
};

// PlanLiveQuery with `stored` building every partial: the composed plan, or nullopt when some
// partial reads no relation (stored.Complete() is false). Errors are PlanLiveQuery's.
Result<std::optional<LivePlan>> PlanWithStoredPartials(const SemanticModel& model,
                                                       const SemanticQuery& query,
                                                       const PlanOptions& options,
                                                       StoredPartials& stored);

// Fills `partial` (keys, predicates, re-aggregations, relation) to read `relation`
// (stored_sql.h). A member the relation cannot answer exactly sets *miss and returns ok; else
// *rows is the number of stored rows it scans.
Status BuildStoredPartial(const StoredInputs& inputs, const StoredRelation& relation,
                          Partial& partial, std::optional<StoredMiss>* miss, std::int64_t* rows);

// SQL pieces (render.cc).
// The wall-clock time in `zone` (a TIMESTAMP) of `utc_timestamp`, a TIMESTAMP holding a UTC
// instant, and back; in `dialect`. The zone's name is a quoted string literal.
std::string LocalWallTime(const std::string& utc_timestamp, const TimeZone& zone,
                          sql::Dialect dialect);
std::string UtcFromWallTime(const std::string& local, const TimeZone& zone, sql::Dialect dialect);
// date_trunc of `column` (as a timestamp) to `grain`, fiscal grains shifted by the fiscal year's
// first month, in `dialect`: a TIMESTAMP holding the UTC instant that starts the bucket, the
// buckets being local to `zone` (for UTC, the plain date_trunc).
std::string TruncateTime(const std::string& column, TimeGrain grain, int fiscal_start_month,
                         sql::Dialect dialect, const TimeZone& zone);
// Time values are read in `zone` (literal.h ParseTimeText).
Result<std::string> RenderPredicate(const std::string& column, DimensionType type, FilterOp op,
                                    const std::vector<FilterValue>& values, sql::Dialect dialect,
                                    const TimeZone& zone = TimeZone::Utc());
// `node` as one boolean SQL expression: each filter's predicate from `leaf`, groups
// parenthesized ("(a OR b)", "(a AND b)", "NOT (a)"); a group of one item is that item.
Result<std::string> RenderFilterNode(
    const FilterNode& node, const std::function<Result<std::string>(const FilterRequest&)>& leaf);
// `filter` as a WHERE predicate, the filter of targets[i] reading columns[i]. REQUIRES:
// columns.size() == filter.targets.size(). An error names the filter's member.
Result<std::string> RenderDimensionFilter(const DimensionFilter& filter,
                                          const std::vector<std::string>& columns,
                                          sql::Dialect dialect, const TimeZone& zone);
// The LIMIT and OFFSET clauses (each on a new line; "" for neither, an offset of 0 is none) in
// `dialect`: LIMIT n OFFSET m, Trino's OFFSET m LIMIT n, and where an OFFSET needs a LIMIT
// (Snowflake, BigQuery) an unlimited one.
std::string RenderLimitOffset(std::optional<std::int64_t> limit, std::int64_t offset,
                              sql::Dialect dialect);
std::string RenderAggregate(const Measure& measure, const std::string& input, sql::Dialect dialect);
// The projected input of a measure (its sql, or CASE WHEN filter THEN sql END); empty for
// count(*) without a filter.
std::string MeasureInput(const Measure& measure);
// The metric as SQL over the "m<index>" columns; `index_of` maps (entity, measure) to index.
std::string RenderMetric(const MetricExpr& expr,
                         const std::map<std::pair<std::string, std::string>, std::size_t>& index_of,
                         sql::Dialect dialect);
std::string Quote(std::string_view name, sql::Dialect dialect);

}  // namespace strata::semantic
