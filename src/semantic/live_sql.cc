#include "semantic/live_sql.h"

#include <fmt/format.h>

#include <algorithm>

#include "project/did_you_mean.h"
#include "semantic/internal/plan.h"
#include "semantic/literal.h"

namespace strata::semantic {
namespace {

Error Invalid(std::string message, std::string hint = {}) {
  return MakeError(ErrorCode::kQueryInvalid, std::move(message), std::move(hint));
}

// RenderPredicate for a query filter; an error (a value that is not a number, out of range, ...)
// names the filtered member.
Result<std::string> FilterPredicate(const FilterRequest& filter, const std::string& column,
                                    DimensionType type, sql::Dialect dialect,
                                    const TimeZone& zone) {
  Result<std::string> predicate =
      RenderPredicate(column, type, filter.op, filter.values, dialect, zone);
  if (!predicate.ok()) predicate.error().Note(fmt::format("in the filter on {}", filter.member));
  return predicate;
}

struct OutputMeasure {
  std::string name;
  const Entity* entity = nullptr;
  const Measure* measure = nullptr;  // or
  const Metric* metric = nullptr;
};

class Planner {
 public:
  Planner(const SemanticModel& model, const SemanticQuery& query, const PlanOptions& options,
          StoredPartials* stored = nullptr)
      : model_(model),
        query_(query),
        options_(options),
        stored_(stored),
        zone_(query.timezone.value_or(model.default_timezone)) {}

  // Plans with `stored_` building every partial (PlanWithStoredPartials): the plan is composed
  // only when every partial read a relation.
  Result<std::optional<LivePlan>> RunStored() {
    STRATA_TRY(ResolveRole());
    STRATA_TRY(ResolveDimensions());
    STRATA_TRY(ResolveMeasures());
    STRATA_TRY(ResolveFilters());
    STRATA_TRY(BuildPartials());
    if (!stored_->Complete()) return std::optional<LivePlan>();
    STRATA_ASSIGN_OR_RETURN(LivePlan plan, Compose());
    return std::optional<LivePlan>(std::move(plan));
  }

  Result<LivePlan> Run() {
    STRATA_TRY(ResolveRole());
    STRATA_TRY(ResolveDimensions());
    STRATA_TRY(ResolveMeasures());
    STRATA_TRY(ResolveFilters());
    STRATA_TRY(BuildPartials());
    return Compose();
  }

 private:
  Status ResolveRole() {
    if (!options_.role) return OkStatus();
    role_ = model_.FindRole(*options_.role);
    if (role_ == nullptr) {
      std::vector<std::string> names;
      for (const DataRole& role : model_.data_roles) names.push_back(role.name);
      return MakeError(ErrorCode::kAccessDenied,
                       fmt::format("unknown data role \"{}\"", *options_.role),
                       project::SuggestionHint(*options_.role, names));
    }
    return OkStatus();
  }

  Result<std::pair<MemberRef, const Dimension*>> DimensionRef(const std::string& written) {
    STRATA_ASSIGN_OR_RETURN(MemberRef ref, Ref(written));
    const Dimension* dimension = ref.path.target->FindDimension(ref.path.member);
    if (dimension == nullptr) {
      return Invalid(fmt::format("\"{}\" is not a dimension", written),
                     "measures and metrics go in \"measures\"; filter them by name");
    }
    return std::make_pair(std::move(ref), dimension);
  }

  Status AddGroupKey(DimensionRequest request) {
    for (const DimensionRequest& existing : dimensions_) {
      if (existing.output_name == request.output_name) {
        return Invalid(fmt::format("\"{}\" is selected twice", request.output_name));
      }
    }
    dimensions_.push_back(std::move(request));
    return OkStatus();
  }

  Status ResolveDimensions() {
    for (const std::string& written : query_.dimensions) {
      STRATA_ASSIGN_OR_RETURN(auto resolved, DimensionRef(written));
      STRATA_TRY(AddGroupKey({std::move(resolved.first), resolved.second, std::nullopt, written}));
    }
    for (const TimeDimensionRequest& time : query_.time_dimensions) {
      STRATA_ASSIGN_OR_RETURN(auto resolved, DimensionRef(time.dimension));
      if (resolved.second->type != DimensionType::kTime) {
        return Invalid(fmt::format("\"{}\" is a {} dimension, not a time dimension", time.dimension,
                                   DimensionTypeName(resolved.second->type)),
                       fmt::format("list it under \"dimensions\" (or filter it under \"filters\"); "
                                   "time_dimensions takes a dimension of type time"));
      }
      if (time.range_from) STRATA_TRY(AddRange(resolved.first, resolved.second, time));
      if (time.grain) {
        STRATA_TRY(AddGroupKey({std::move(resolved.first), resolved.second, time.grain,
                                time.dimension + "." + std::string(TimeGrainName(*time.grain))}));
      }
    }
    return OkStatus();
  }

  Status AddRange(const MemberRef& ref, const Dimension* dimension,
                  const TimeDimensionRequest& time) {
    const std::optional<UnixSeconds> from = ParseTimeText(*time.range_from, zone_);
    const std::optional<UnixSeconds> to = ParseTimeText(*time.range_to, zone_);
    if (!from || !to) {
      return Invalid(
          fmt::format("range [\"{}\", \"{}\"] of \"{}\" is not two dates or timestamps",
                      *time.range_from, *time.range_to, time.dimension),
          "write [\"2026-01-01\", \"2026-07-01\"] (half-open: from inclusive, to exclusive)");
    }
    if (*from > *to) {
      return Invalid(fmt::format("range of \"{}\" starts after it ends", time.dimension));
    }
    const auto literal = [&](UnixSeconds t) {
      return "TIMESTAMP " + sql::QuoteString(FormatSqlTimestamp(t), options_.dialect);
    };
    ranges_.push_back({ref, dimension, literal(*from), literal(*to), *from, *to});
    return OkStatus();
  }

  // Adds the measure to its entity's partial (once) and returns its "m<index>".
  Result<std::size_t> Need(const Entity& entity, const std::string& name) {
    const auto key = std::make_pair(entity.name, name);
    if (const auto it = index_of_.find(key); it != index_of_.end()) return it->second;
    const Measure* measure = entity.FindMeasure(name);
    if (measure == nullptr)
      return Invalid(fmt::format("entity \"{}\" has no measure \"{}\"", entity.name, name));
    needed_.push_back({&entity, measure});
    index_of_[key] = needed_.size() - 1;
    return needed_.size() - 1;
  }

  Status NeedMetric(const MetricExpr& expr, const std::string& used_by) {
    if (expr.kind == MetricExpr::Kind::kMeasure) {
      const Entity* entity = model_.FindEntity(expr.entity);
      STRATA_ASSIGN_OR_RETURN(const std::size_t index, Need(*entity, expr.measure));
      if (needed_[index].measure->agg == Aggregation::kCountDistinctApprox) {
        return ApproxMisuse(expr.entity + "." + expr.measure, used_by);
      }
    }
    if (expr.left) STRATA_TRY(NeedMetric(*expr.left, used_by));
    if (expr.right) STRATA_TRY(NeedMetric(*expr.right, used_by));
    return OkStatus();
  }

  static Error ApproxMisuse(const std::string& measure, const std::string& used_by) {
    return Invalid(
        fmt::format("count_distinct_approx measure \"{}\" cannot be used in {}: its "
                    "sketch is estimated after the SQL runs",
                    measure, used_by));
  }

  // An Entity.member naming a measure or metric (no relationship path).
  Result<OutputMeasure> MeasureRef(const std::string& written) {
    STRATA_ASSIGN_OR_RETURN(MemberRef ref, Ref(written));
    const Entity& entity = *ref.path.target;
    OutputMeasure out{written, &entity, entity.FindMeasure(ref.path.member),
                      entity.FindMetric(ref.path.member)};
    if (out.measure == nullptr && out.metric == nullptr) {
      return Invalid(fmt::format("\"{}\" is a dimension, not a measure", written),
                     "dimensions go in \"dimensions\"");
    }
    if (!ref.path.hops.empty()) {
      return Invalid(
          fmt::format("write the measure \"{}\" as {}.{}", written, entity.name, ref.path.member));
    }
    return out;
  }

  Status ResolveMeasures() {
    for (const std::string& written : query_.measures) {
      STRATA_ASSIGN_OR_RETURN(OutputMeasure out, MeasureRef(written));
      for (const OutputMeasure& existing : outputs_) {
        if (existing.name == written)
          return Invalid(fmt::format("\"{}\" is selected twice", written));
      }
      if (out.measure != nullptr) {
        STRATA_TRY(Need(*out.entity, out.measure->name));
      } else {
        STRATA_TRY(NeedMetric(*out.metric->parsed, "metric \"" + written + "\""));
      }
      outputs_.push_back(std::move(out));
    }
    return OkStatus();
  }

  // The SQL of a measure or metric over the combined "m<index>" columns.
  std::string ValueSql(const OutputMeasure& out) const {
    if (out.metric != nullptr)
      return RenderMetric(*out.metric->parsed, index_of_, options_.dialect);
    return Quote("m" + std::to_string(index_of_.at({out.entity->name, out.measure->name})),
                 options_.dialect);
  }

  // Each item of `filters` is a filter or a group whose filters all read dimensions (a WHERE
  // predicate of every partial) or all read measures and metrics (a predicate on the combined
  // result, after aggregation).
  Status ResolveFilters() {
    for (const FilterNode& node : query_.filters) {
      DimensionFilter dimension_filter{&node, {}};
      std::vector<const FilterRequest*> measure_filters;
      for (const FilterRequest* filter : FiltersOf(node)) {
        STRATA_ASSIGN_OR_RETURN(MemberRef ref, Ref(filter->member));
        if (const Dimension* dimension = ref.path.target->FindDimension(ref.path.member)) {
          dimension_filter.targets.push_back({std::move(ref), dimension, filter});
        } else {
          STRATA_TRY(NeedFiltered(*filter));
          measure_filters.push_back(filter);
        }
      }
      if (!dimension_filter.targets.empty() && !measure_filters.empty()) {
        return MixedGroup(dimension_filter.targets.front().filter->member,
                          measure_filters.front()->member);
      }
      if (measure_filters.empty()) {
        dimension_filters_.push_back(std::move(dimension_filter));
        continue;
      }
      STRATA_ASSIGN_OR_RETURN(
          std::string predicate,
          RenderFilterNode(node, [&](const FilterRequest& filter) -> Result<std::string> {
            STRATA_ASSIGN_OR_RETURN(OutputMeasure out, MeasureRef(filter.member));
            return FilterPredicate(filter, ValueSql(out), DimensionType::kNumber, options_.dialect,
                                   zone_);
          }));
      post_filters_.push_back(std::move(predicate));
    }
    return OkStatus();
  }

  // Adds the measures a filter on a measure or metric reads.
  Status NeedFiltered(const FilterRequest& filter) {
    STRATA_ASSIGN_OR_RETURN(OutputMeasure out, MeasureRef(filter.member));
    if (out.measure == nullptr) return NeedMetric(*out.metric->parsed, "a filter");
    STRATA_ASSIGN_OR_RETURN(const std::size_t index, Need(*out.entity, out.measure->name));
    if (needed_[index].measure->agg == Aggregation::kCountDistinctApprox) {
      return ApproxMisuse(filter.member, "a filter");
    }
    return OkStatus();
  }

  static Error MixedGroup(const std::string& dimension, const std::string& measure) {
    return Invalid(
        fmt::format("a filter group reads the dimension {} and the measure {}: a group filters "
                    "either rows (dimensions, before aggregation) or results (measures and "
                    "metrics, after it), not both",
                    dimension, measure),
        "put the dimension filters and the measure filters in separate items of \"filters\" "
        "(the items are ANDed)");
  }

  Error Denied(const Entity& entity) const {
    return MakeError(
        ErrorCode::kAccessDenied,
        fmt::format("data role \"{}\" may not read entity \"{}\"", role_->name, entity.name),
        fmt::format("leave out the members that read {} (a measure, dimension, "
                    "filter or metric of it, or a path through it): GET /v1/meta "
                    "lists what this role may read; or use a role whose access "
                    "lists {}",
                    entity.name, entity.name));
  }

  Status CheckAccess(const Partial& partial) const {
    if (role_ == nullptr || role_->all) return OkStatus();
    for (const JoinNode& node : partial.nodes()) {
      if (node.from_query && role_->Find(node.entity->name) == nullptr) return Denied(*node.entity);
    }
    return OkStatus();
  }

  // ParseMemberRef for the query's role. What a role may not read is never described to it: a
  // member whose path reads such an entity is AccessDenied at once (the resolved query would be,
  // by CheckAccess), before anything about that entity's members (a "did you mean", "is a
  // dimension, not a measure") is said; an unknown entity is suggested among readable ones only.
  Result<MemberRef> Ref(const std::string& written) const {
    Result<MemberRef> ref = ParseMemberRef(model_, written);
    if (role_ == nullptr || role_->all) return ref;
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const std::size_t dot = written.find('.', start);
      parts.push_back(written.substr(start, dot == std::string::npos ? dot : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    const Entity* at = model_.FindEntity(parts.front());
    if (at == nullptr) {
      if (ref.ok() || parts.size() < 2) return ref;
      Error error = std::move(ref).error();
      std::vector<std::string> readable;
      for (const EntityAccess& access : role_->access) readable.push_back(access.entity);
      error.hint = project::SuggestionHint(parts.front(), readable);
      return error;
    }
    // Every entity the path reaches, as far as it resolves.
    for (std::size_t i = 1; at != nullptr; ++i) {
      if (role_->Find(at->name) == nullptr) return Denied(*at);
      if (i + 1 >= parts.size()) break;
      const Relationship* hop = at->FindRelationship(parts[i]);
      at = hop == nullptr ? nullptr : model_.FindEntity(hop->entity);
    }
    return ref;
  }

  Status ApplyRowFilters(Partial& partial) const {
    if (role_ == nullptr || role_->all) return OkStatus();
    const std::size_t read = partial.nodes().size();
    for (std::size_t i = 0; i < read; ++i) {
      if (!partial.nodes()[i].from_query) continue;
      const EntityAccess* access = role_->Find(partial.nodes()[i].entity->name);
      if (access == nullptr || !access->row_filter) continue;
      const RowFilter& filter = *access->row_filter;
      STRATA_ASSIGN_OR_RETURN(
          MemberPath path,
          WalkPath(model_, *partial.nodes()[i].entity, filter.member, ErrorCode::kSemanticInvalid));
      std::vector<const Relationship*> hops = partial.nodes()[i].hops;
      hops.insert(hops.end(), path.hops.begin(), path.hops.end());
      const int node = partial.AddPath(hops, /*from_query=*/false);
      const Dimension* dimension = path.target->FindDimension(path.member);
      STRATA_ASSIGN_OR_RETURN(std::string predicate,
                              RenderPredicate(partial.Column(node, dimension->sql), dimension->type,
                                              filter.op, filter.values, options_.dialect));
      partial.AddWhere(std::move(predicate), /*first=*/true);
    }
    return OkStatus();
  }

  // A query without measures reads one entity: the first (in the order the dimensions name
  // them, start entities before targets) from which every dimension resolves.
  Status BuildDimensionsOnly() {
    std::vector<const Entity*> candidates;
    const auto add = [&](const Entity* entity) {
      if (std::find(candidates.begin(), candidates.end(), entity) == candidates.end()) {
        candidates.push_back(entity);
      }
    };
    for (const DimensionRequest& request : dimensions_) add(request.ref.path.start);
    for (const DimensionRequest& request : dimensions_) add(request.ref.path.target);
    std::optional<Error> first_error;
    for (const Entity* base : candidates) {
      Status built = BuildPartial(*base);
      if (built.ok()) return OkStatus();
      // Access is decided for the entity the query names first, never by trying others.
      if (built.error().code == ErrorCode::kAccessDenied) return std::move(built).error();
      if (!first_error) first_error = std::move(built).error();
    }
    return first_error ? *first_error : Invalid("the query selects nothing");
  }

  Status BuildPartials() {
    if (needed_.empty()) return BuildDimensionsOnly();
    std::vector<const Entity*> bases;
    for (const NeededMeasure& needed : needed_) {
      if (std::find(bases.begin(), bases.end(), needed.entity) == bases.end()) {
        bases.push_back(needed.entity);
      }
    }
    for (const Entity* base : bases) STRATA_TRY(BuildPartial(*base));
    return OkStatus();
  }

  Status BuildPartial(const Entity& base) {
    Partial partial(model_, base, options_.dialect);
    if (stored_ != nullptr) return BuildStored(base, std::move(partial));
    for (const DimensionRequest& request : dimensions_) {
      STRATA_ASSIGN_OR_RETURN(const int node, partial.Resolve(request.ref));
      const std::string column = partial.Column(node, request.dimension->sql);
      partial.keys().push_back(request.grain ? TruncateTime(column, *request.grain,
                                                            model_.fiscal_year_start_month,
                                                            options_.dialect, zone_)
                                             : column);
    }
    for (const RangeRequest& range : ranges_) {
      STRATA_ASSIGN_OR_RETURN(const int node, partial.Resolve(range.ref));
      const std::string column = partial.Column(node, range.dimension->sql);
      partial.AddWhere(column + " >= " + range.from + " AND " + column + " < " + range.to);
    }
    for (const DimensionFilter& filter : dimension_filters_) {
      std::vector<std::string> columns;
      for (const FilterTarget& target : filter.targets) {
        STRATA_ASSIGN_OR_RETURN(const int node, partial.Resolve(target.ref));
        columns.push_back(partial.Column(node, target.dimension->sql));
      }
      STRATA_ASSIGN_OR_RETURN(std::string predicate,
                              RenderDimensionFilter(filter, columns, options_.dialect, zone_));
      partial.AddWhere(std::move(predicate));
    }
    for (std::size_t index = 0; index < needed_.size(); ++index) {
      if (needed_[index].entity != &base) continue;
      const Measure& measure = *needed_[index].measure;
      const std::string input = MeasureInput(measure);
      const std::string column = input.empty() ? "" : partial.Column(0, input);
      partial.aggregates().emplace_back(index, RenderAggregate(measure, column, options_.dialect));
      if (measure.agg == Aggregation::kCountDistinctApprox)
        approx_.push_back({partials_.size(), index, column});
    }
    STRATA_TRY(CheckAccess(partial));
    STRATA_TRY(ApplyRowFilters(partial));
    partials_.push_back(std::move(partial));
    return OkStatus();
  }

  // A partial built by `stored_` (stored_sql.h), kept whether or not a relation answers it.
  Status BuildStored(const Entity& base, Partial partial) {
    const StoredInputs inputs{model_,  role_, dimensions_, ranges_, dimension_filters_,
                              needed_, zone_};
    STRATA_ASSIGN_OR_RETURN(Partial built, stored_->Build(inputs, base, std::move(partial)));
    partials_.push_back(std::move(built));
    return OkStatus();
  }

  std::string GroupBy(std::size_t count) const {
    std::string out;
    for (std::size_t i = 1; i <= count; ++i)
      out += (i == 1 ? "\nGROUP BY " : ", ") + std::to_string(i);
    return out;
  }

  std::string KeyList(const Partial& partial) const {
    std::string out;
    for (std::size_t i = 0; i < partial.keys().size(); ++i) {
      out += partial.keys()[i] + " AS " + Quote("d" + std::to_string(i), options_.dialect) + ", ";
    }
    return out;
  }

  std::string PartialSql(const Partial& partial) const {
    std::string select = KeyList(partial);
    for (const auto& [index, aggregate] : partial.aggregates()) {
      select += aggregate + " AS " + Quote("m" + std::to_string(index), options_.dialect) + ", ";
    }
    select.resize(select.size() - 2);
    return "SELECT " + select + "\n" + partial.FromAndWhere() + GroupBy(partial.keys().size());
  }

  // The partials combined on the dimensions (see live_sql.h).
  std::string CombinedSql() const {
    if (partials_.size() == 1) return PartialSql(partials_[0]);
    const auto q = [&](const std::string& name) { return Quote(name, options_.dialect); };
    const auto p_alias = [&](std::size_t p) { return q("p" + std::to_string(p)); };
    std::string with = "WITH ";
    for (std::size_t p = 0; p < partials_.size(); ++p) {
      with += (p == 0 ? "" : ", ") + p_alias(p) + " AS (\n" + PartialSql(partials_[p]) + "\n)";
    }
    std::string keys, typed, typed_from, combined;
    for (std::size_t i = 0; i < dimensions_.size(); ++i) {
      const std::string d = q("d" + std::to_string(i));
      keys += d + ", ";
      typed += p_alias(0) + "." + d + ", ";
    }
    for (std::size_t m = 0; m < needed_.size(); ++m) {
      const std::string column = q("m" + std::to_string(m));
      typed += p_alias(PartialOf(*needed_[m].entity)) + "." + column + ", ";
      combined += "MAX(" + column + ") AS " + column + ", ";
    }
    for (std::size_t p = 0; p < partials_.size(); ++p) {
      typed_from += (p == 0 ? "" : " CROSS JOIN ") + p_alias(p);
    }
    typed.resize(typed.size() - 2);
    combined.resize(combined.size() - 2);
    // The first branch returns no rows; it gives every column its type, so the NULLs of the
    // other branches never make PostgreSQL guess one (it would pick text).
    std::string branches = "  SELECT " + typed + " FROM " + typed_from + " WHERE FALSE";
    for (std::size_t p = 0; p < partials_.size(); ++p) {
      std::string columns = keys;
      for (std::size_t m = 0; m < needed_.size(); ++m) {
        const bool own = needed_[m].entity == &partials_[p].base();
        columns += (own ? "" : "NULL AS ") + q("m" + std::to_string(m)) + ", ";
      }
      columns.resize(columns.size() - 2);
      branches += "\n  UNION ALL\n  SELECT " + columns + " FROM " + p_alias(p);
    }
    return with + "\nSELECT " + keys + combined + " FROM (\n" + branches + "\n) AS " + q("u") +
           GroupBy(dimensions_.size());
  }

  std::size_t PartialOf(const Entity& entity) const {
    for (std::size_t p = 0; p < partials_.size(); ++p) {
      if (&partials_[p].base() == &entity) return p;
    }
    return 0;
  }

  Result<std::string> OrderBy(const LivePlan& plan) const {
    std::vector<std::string> names;
    for (const OutputColumn& column : plan.columns) names.push_back(column.name);
    std::string out;
    for (const OrderRequest& order : query_.order) {
      if (std::find(names.begin(), names.end(), order.member) == names.end()) {
        return Invalid(fmt::format("order member \"{}\" is not a selected column", order.member),
                       project::SuggestionHint(order.member, names));
      }
      for (const OutputMeasure& measure : outputs_) {
        if (measure.name == order.member && measure.measure != nullptr &&
            measure.measure->agg == Aggregation::kCountDistinctApprox) {
          return ApproxMisuse(order.member, "order");
        }
      }
      out += (out.empty() ? "\nORDER BY " : ", ") + Quote(order.member, options_.dialect) +
             (order.desc ? " DESC" : " ASC") + " NULLS LAST";
    }
    if (query_.order.empty()) {
      for (std::size_t i = 0; i < plan.dimension_count; ++i) {
        out +=
            (i == 0 ? "\nORDER BY " : ", ") + Quote(names[i], options_.dialect) + " ASC NULLS LAST";
      }
    }
    return out;
  }

  Result<LivePlan> Compose() {
    LivePlan plan;
    plan.zone = zone_;
    for (const Partial& partial : partials_) plan.entities.push_back(partial.base().name);
    std::string select;
    for (std::size_t i = 0; i < dimensions_.size(); ++i) {
      const DimensionRequest& request = dimensions_[i];
      plan.columns.push_back(
          {request.output_name, request.grain ? DimensionType::kTime : request.dimension->type});
      select += Quote("d" + std::to_string(i), options_.dialect) + " AS " +
                Quote(request.output_name, options_.dialect) + ", ";
    }
    plan.dimension_count = dimensions_.size();
    for (const OutputMeasure& out : outputs_) {
      plan.columns.push_back({out.name, DimensionType::kNumber});
      select += ValueSql(out) + " AS " + Quote(out.name, options_.dialect) + ", ";
    }
    select.resize(select.size() - 2);
    plan.sql = "SELECT " + select + "\nFROM (\n" + CombinedSql() + "\n) AS " +
               Quote("q", options_.dialect);
    for (std::size_t i = 0; i < post_filters_.size(); ++i) {
      plan.sql += (i == 0 ? "\nWHERE " : "\n  AND ") + post_filters_[i];
    }
    STRATA_ASSIGN_OR_RETURN(const std::string order_by, OrderBy(plan));
    plan.sql += order_by;
    plan.sql += RenderLimitOffset(query_.limit, query_.offset, options_.dialect);
    for (const Approx& approx : approx_) plan.sketches.push_back(SketchFor(approx, plan));
    return plan;
  }

  struct Approx {
    std::size_t partial;
    std::size_t measure;
    std::string column;
  };

  SketchQuery SketchFor(const Approx& approx, const LivePlan& plan) {
    Partial& partial = partials_[approx.partial];
    partial.where().push_back(approx.column + " IS NOT NULL");
    SketchQuery sketch;
    sketch.sql = "SELECT " + KeyList(partial) + approx.column + " AS " +
                 Quote("v", options_.dialect) + "\n" + partial.FromAndWhere() +
                 GroupBy(partial.keys().size() + 1);
    partial.where().pop_back();
    sketch.key_count = plan.dimension_count;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      if (outputs_[i].measure == needed_[approx.measure].measure)
        sketch.column = plan.dimension_count + i;
    }
    return sketch;
  }

  const SemanticModel& model_;
  const SemanticQuery& query_;
  const PlanOptions& options_;
  StoredPartials* stored_;  // null: partials read the entities' tables
  const TimeZone zone_;     // the query's (live_sql.h "Time zones")
  const DataRole* role_ = nullptr;
  std::vector<DimensionRequest> dimensions_;
  std::vector<RangeRequest> ranges_;
  std::vector<DimensionFilter> dimension_filters_;
  std::vector<OutputMeasure> outputs_;
  std::vector<NeededMeasure> needed_;
  std::map<std::pair<std::string, std::string>, std::size_t> index_of_;
  std::vector<std::string> post_filters_;
  std::vector<Partial> partials_;
  std::vector<Approx> approx_;
};

}  // namespace

Result<LivePlan> PlanLiveQuery(const SemanticModel& model, const SemanticQuery& query,
                               const PlanOptions& options) {
  return Planner(model, query, options).Run();
}

Result<std::optional<LivePlan>> PlanWithStoredPartials(const SemanticModel& model,
                                                       const SemanticQuery& query,
                                                       const PlanOptions& options,
                                                       StoredPartials& stored) {
  return Planner(model, query, options, &stored).RunStored();
}

}  // namespace strata::semantic
