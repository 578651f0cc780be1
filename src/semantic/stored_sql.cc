// Stored partials (stored_sql.h): a partial of the live planner that reads one relation of
// pre-aggregated rows and re-aggregates them.
#include "semantic/stored_sql.h"

#include <fmt/format.h>

#include <algorithm>

#include "semantic/internal/plan.h"
#include "semantic/literal.h"

namespace strata::semantic {
namespace {

bool IsFiscal(TimeGrain grain) {
  return grain == TimeGrain::kFiscalQuarter || grain == TimeGrain::kFiscalYear;
}

// Whether calendar quarters and fiscal quarters coincide (the fiscal year starts on a quarter).
bool FiscalOnQuarters(int fiscal_year_start_month) {
  return (fiscal_year_start_month - 1) % 3 == 0;
}

std::string StoredColumn(const StoredDimension& stored) {
  return Quote("t0", sql::Dialect::kDuckDb) + "." + Quote(stored.column, sql::Dialect::kDuckDb);
}

class StoredPartialBuilder {
 public:
  StoredPartialBuilder(const StoredInputs& inputs, const StoredRelation& relation, Partial& partial,
                       std::optional<StoredMiss>* miss, std::int64_t* rows)
      : in_(inputs), relation_(relation), partial_(partial), miss_(*miss), rows_(*rows) {}

  Status Build() {
    if (!Measures() || miss_) return OkStatus();
    STRATA_TRY(Dimensions());
    if (miss_ || !Exactness()) return OkStatus();
    STRATA_TRY(Filters());
    if (miss_) return OkStatus();
    STRATA_TRY(Ranges());
    if (miss_) return OkStatus();
    STRATA_TRY(RowFilters());
    if (miss_) return OkStatus();
    StoredRows rows = relation_.relation(range_from_, range_to_);
    rows_ = rows.rows;
    partial_.SetRelation(std::move(rows.sql));
    return OkStatus();
  }

 private:
  bool Miss(const char* reason, std::string detail) {
    if (!miss_) miss_ = StoredMiss{relation_.entity->name, reason, std::move(detail)};
    return false;
  }

  // The re-aggregation of every measure of this partial; false on a miss.
  bool Measures() {
    const Entity& base = partial_.base();
    for (std::size_t index = 0; index < in_.needed.size(); ++index) {
      const NeededMeasure& needed = in_.needed[index];
      if (needed.entity != &base) continue;
      const StoredMeasure* stored = relation_.FindMeasure(needed.measure->name);
      if (stored == nullptr) {
        return Miss(miss::kMeasureNotStored, base.name + "." + needed.measure->name);
      }
      if (stored->form == StoredForm::kExactOnly) exact_only_ = base.name + "." + stored->name;
      partial_.aggregates().emplace_back(index, Reaggregate(*needed.measure, *stored));
    }
    return true;
  }

  static std::string Column(const std::string& name) {
    return Quote("t0", sql::Dialect::kDuckDb) + "." + Quote(name, sql::Dialect::kDuckDb);
  }

  std::string Reaggregate(const Measure& measure, const StoredMeasure& stored) const {
    const std::string first = Column(stored.columns.at(0));
    switch (stored.form) {
      case StoredForm::kAdditive:
        if (measure.agg == Aggregation::kMin) return "MIN(" + first + ")";
        if (measure.agg == Aggregation::kMax) return "MAX(" + first + ")";
        // COUNT over no row is 0 where SUM of the stored counts is NULL (an ungrouped query
        // whose filters keep no stored row).
        if (measure.agg == Aggregation::kCount) return "COALESCE(SUM(" + first + "), 0)";
        return "SUM(" + first + ")";
      case StoredForm::kSumAndCount:
        return "(CAST(SUM(" + first + ") AS DOUBLE PRECISION) / NULLIF(SUM(" +
               Column(stored.columns.at(1)) + "), 0))";
      case StoredForm::kHll:
        return "COALESCE(strata_hll_estimate(strata_hll_merge(" + first + ")), 0)";
      case StoredForm::kValueCounts:
        return fmt::format("{}({}, {})",
                           relation_.percentiles == sql::Dialect::kPostgres
                               ? "strata_quantile_merge_postgres"
                               : "strata_quantile_merge",
                           first, PercentileOf(measure.agg).value_or(0.5));
      case StoredForm::kExactOnly:
        return "MAX(" + first + ")";
    }
    return "NULL";
  }

  const StoredDimension* Lookup(const MemberRef& ref, const Dimension& dimension, int* node) {
    Result<int> resolved = partial_.Resolve(ref);
    if (!resolved.ok()) return nullptr;
    *node = *resolved;
    return relation_.FindDimension(partial_.RelativePath(*node, dimension.name));
  }

  Status Dimensions() {
    for (const DimensionRequest& request : in_.dimensions) {
      STRATA_ASSIGN_OR_RETURN(const int node, partial_.Resolve(request.ref));
      const std::string path = partial_.RelativePath(node, request.dimension->name);
      const StoredDimension* stored = relation_.FindDimension(path);
      if (stored == nullptr || (!request.grain && stored->grain)) {
        Miss(miss::kDimensionNotStored, request.output_name);
        return OkStatus();
      }
      if (request.grain && stored->grain && !ZonesAgree(*stored, request.ref.written)) {
        Miss(miss::kTimezoneMismatch,
             fmt::format("{} is stored by {} in {}; the query reads {}", request.output_name,
                         TimeGrainName(*stored->grain), relation_.zone.name(), in_.zone.name()));
        return OkStatus();
      }
      std::string key = StoredColumn(*stored);
      // Hours of another zone (ZonesAgree) are re-truncated in the query's zone, as the live SQL
      // does, so the fall-back hour's two occurrences share one bucket there as they do live.
      const bool other_zone = stored->grain && !(relation_.zone == in_.zone);
      if (request.grain && (!stored->grain || *stored->grain != *request.grain || other_zone)) {
        if (stored->grain &&
            !GrainDerivable(*stored->grain, *request.grain, in_.model.fiscal_year_start_month)) {
          Miss(miss::kGrainNotDerivable, fmt::format("{} is stored by {}", request.output_name,
                                                     TimeGrainName(*stored->grain)));
          return OkStatus();
        }
        key = TruncateTime(key, *request.grain, in_.model.fiscal_year_start_month,
                           sql::Dialect::kDuckDb, in_.zone);
        rolled_up_ = true;
      }
      if (std::find(grouped_.begin(), grouped_.end(), stored) == grouped_.end()) {
        grouped_.push_back(stored);
      }
      partial_.keys().push_back(key);
    }
    return OkStatus();
  }

  // Whether the stored buckets of a time dimension are buckets of the query's zone
  // (stored_sql.h timezone_mismatch).
  bool ZonesAgree(const StoredDimension& stored, const std::string& written) const {
    if (relation_.zone == in_.zone) return true;
    if (*stored.grain != TimeGrain::kHour) return false;
    std::optional<std::pair<UnixSeconds, UnixSeconds>> span;
    for (const RangeRequest& range : in_.ranges) {
      if (range.ref.written != written) continue;
      span = std::make_pair(std::max(span ? span->first : range.from_seconds, range.from_seconds),
                            std::min(span ? span->second : range.to_seconds, range.to_seconds));
    }
    if (!span) span = relation_.span;
    if (!span) return false;
    return relation_.zone.WholeHourOffsets(span->first, span->second) &&
           in_.zone.WholeHourOffsets(span->first, span->second);
  }

  // Exact-only measures need one stored row per group: every stored dimension grouped, at its
  // stored grain.
  bool Exactness() {
    if (exact_only_.empty()) return true;
    if (!rolled_up_ && grouped_.size() == relation_.dimensions.size()) return true;
    return Miss(miss::kNotAdditive, exact_only_ + " cannot be re-aggregated");
  }

  // A filter or group answers when every filter it holds reads a stored dimension (a time
  // dimension stored at a grain: gte/lt on its bucket boundaries). Each such filter is then true,
  // false or unknown (NULL) on a stored row exactly as on each of the entity's rows it
  // aggregates, so any and/or/not of them is too.
  Status Filters() {
    for (const DimensionFilter& filter : in_.filters) {
      std::vector<std::string> columns;
      for (const FilterTarget& target : filter.targets) {
        int node = 0;
        const StoredDimension* stored = Lookup(target.ref, *target.dimension, &node);
        if (stored == nullptr) {
          Miss(miss::kFilterNotStored, target.filter->member);
          return OkStatus();
        }
        if (stored->grain && !AlignedTimeFilter(*target.filter, *stored->grain)) {
          Miss(miss::kFilterNotStored, fmt::format("{} is stored by {}", target.filter->member,
                                                   TimeGrainName(*stored->grain)));
          return OkStatus();
        }
        columns.push_back(StoredColumn(*stored));
      }
      STRATA_ASSIGN_OR_RETURN(
          std::string predicate,
          RenderDimensionFilter(filter, columns, sql::Dialect::kDuckDb, in_.zone));
      partial_.AddWhere(std::move(predicate));
    }
    return OkStatus();
  }

  // gte/lt on bucket boundaries select whole stored buckets; nothing else is exact.
  bool AlignedTimeFilter(const FilterRequest& filter, TimeGrain grain) const {
    if (filter.op != FilterOp::kGte && filter.op != FilterOp::kLt) return false;
    for (const FilterValue& value : filter.values) {
      const std::optional<UnixSeconds> seconds = ParseTimeText(value.text, in_.zone);
      if (!seconds ||
          !IsGrainBoundary(*seconds, grain, in_.model.fiscal_year_start_month, relation_.zone)) {
        return false;
      }
    }
    return true;
  }

  Status Ranges() {
    bool ranged = false;
    for (const RangeRequest& range : in_.ranges) {
      int node = 0;
      const StoredDimension* stored = Lookup(range.ref, *range.dimension, &node);
      if (stored == nullptr) {
        Miss(miss::kFilterNotStored, range.ref.written + " (range)");
        return OkStatus();
      }
      if (relation_.range_check) {
        const std::string reason =
            relation_.range_check(*stored, range.from_seconds, range.to_seconds);
        if (!reason.empty()) {
          miss_ = StoredMiss{
              relation_.entity->name, reason,
              fmt::format("range of {} [{}, {})", range.ref.written,
                          FormatIso8601(range.from_seconds), FormatIso8601(range.to_seconds))};
          return OkStatus();
        }
      }
      if (stored->path == relation_.range_dimension) {
        ranged = true;
        range_from_ = std::max(range_from_.value_or(range.from_seconds), range.from_seconds);
        range_to_ = std::min(range_to_.value_or(range.to_seconds), range.to_seconds);
      }
      const std::string column = StoredColumn(*stored);
      partial_.AddWhere(column + " >= " + range.from + " AND " + column + " < " + range.to);
    }
    if (!ranged && !relation_.no_range_reason.empty()) {
      miss_ = StoredMiss{relation_.entity->name, relation_.no_range_reason,
                         "the query reads all time; the rollup holds a build range"};
    }
    return OkStatus();
  }

  Status RowFilters() {
    if (in_.role == nullptr || in_.role->all) return OkStatus();
    const std::size_t read = partial_.nodes().size();
    for (std::size_t i = 0; i < read; ++i) {
      const JoinNode node = partial_.nodes()[i];
      if (!node.from_query) continue;
      const EntityAccess* access = in_.role->Find(node.entity->name);
      if (access == nullptr || !access->row_filter) continue;
      const RowFilter& filter = *access->row_filter;
      STRATA_ASSIGN_OR_RETURN(MemberPath path, WalkPath(in_.model, *node.entity, filter.member,
                                                        ErrorCode::kSemanticInvalid));
      const std::string relative =
          node.key.empty() ? path.Relative() : node.key + "." + path.Relative();
      const StoredDimension* stored = relation_.FindDimension(relative);
      const Dimension* dimension = path.target->FindDimension(path.member);
      if (stored == nullptr || dimension == nullptr || stored->grain) {
        Miss(miss::kRowSecurity,
             fmt::format("data role \"{}\" filters {} on {}, which is not stored", in_.role->name,
                         node.entity->name, filter.member));
        return OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(std::string predicate,
                              RenderPredicate(StoredColumn(*stored), dimension->type, filter.op,
                                              filter.values, sql::Dialect::kDuckDb));
      partial_.AddWhere(std::move(predicate), /*first=*/true);
    }
    return OkStatus();
  }

  const StoredInputs& in_;
  const StoredRelation& relation_;
  Partial& partial_;
  std::optional<StoredMiss>& miss_;
  std::int64_t& rows_;
  std::string exact_only_;  // an exact-only measure of this partial ("Order.customers")
  std::vector<const StoredDimension*> grouped_;
  bool rolled_up_ = false;  // some group key is coarser than its stored grain
  std::optional<UnixSeconds> range_from_, range_to_;
};

}  // namespace

const StoredDimension* StoredRelation::FindDimension(std::string_view path) const {
  for (const StoredDimension& dimension : dimensions) {
    if (dimension.path == path) return &dimension;
  }
  return nullptr;
}

const StoredMeasure* StoredRelation::FindMeasure(std::string_view name) const {
  for (const StoredMeasure& measure : measures) {
    if (measure.name == name) return &measure;
  }
  return nullptr;
}

bool IsGrainBoundary(UnixSeconds seconds, TimeGrain grain, int fiscal_start, const TimeZone& zone) {
  const CivilTime t = zone.ToLocal(seconds);
  if (t.minute != 0 || t.second != 0) return false;
  if (grain == TimeGrain::kHour) return true;
  if (t.hour != 0) return false;
  switch (grain) {
    case TimeGrain::kHour:
    case TimeGrain::kDay:
      return true;
    case TimeGrain::kWeek:
      // 1970-01-05 was a Monday.
      return ((ToUnixSeconds(t) / 86400 - 4) % 7 + 7) % 7 == 0;
    case TimeGrain::kMonth:
      return t.day == 1;
    case TimeGrain::kQuarter:
      return t.day == 1 && (t.month - 1) % 3 == 0;
    case TimeGrain::kYear:
      return t.day == 1 && t.month == 1;
    case TimeGrain::kFiscalQuarter:
      return t.day == 1 && ((t.month - fiscal_start) % 3 + 3) % 3 == 0;
    case TimeGrain::kFiscalYear:
      return t.day == 1 && t.month == fiscal_start;
  }
  return false;
}

bool GrainDerivable(TimeGrain stored, TimeGrain wanted, int fiscal_year_start_month) {
  if (stored == wanted) return true;
  const bool quarters = FiscalOnQuarters(fiscal_year_start_month);
  switch (stored) {
    case TimeGrain::kHour:
      return true;
    case TimeGrain::kDay:
      return wanted != TimeGrain::kHour;
    case TimeGrain::kWeek:
      return false;
    case TimeGrain::kMonth:
      return wanted != TimeGrain::kHour && wanted != TimeGrain::kDay && wanted != TimeGrain::kWeek;
    case TimeGrain::kQuarter:
      return wanted == TimeGrain::kYear || (IsFiscal(wanted) && quarters);
    case TimeGrain::kYear:
      return wanted == TimeGrain::kFiscalYear && fiscal_year_start_month == 1;
    case TimeGrain::kFiscalQuarter:
      return wanted == TimeGrain::kFiscalYear ||
             (quarters && (wanted == TimeGrain::kQuarter ||
                           (wanted == TimeGrain::kYear && fiscal_year_start_month == 1)));
    case TimeGrain::kFiscalYear:
      return wanted == TimeGrain::kYear && fiscal_year_start_month == 1;
  }
  return false;
}

Status BuildStoredPartial(const StoredInputs& inputs, const StoredRelation& relation,
                          Partial& partial, std::optional<StoredMiss>* miss, std::int64_t* rows) {
  return StoredPartialBuilder(inputs, relation, partial, miss, rows).Build();
}

namespace {

// Each partial reads the relation of its entity with the fewest rows to scan among those that
// answer it; every relation's outcome is recorded.
class RelationChoice final : public StoredPartials {
 public:
  explicit RelationChoice(const std::vector<const StoredRelation*>& relations)
      : relations_(relations), candidates_(relations.size()) {
    for (std::size_t i = 0; i < relations.size(); ++i) candidates_[i].relation = relations[i];
  }

  Result<Partial> Build(const StoredInputs& inputs, const Entity& base, Partial partial) override {
    std::optional<Partial> best;
    const StoredRelation* best_relation = nullptr;
    std::int64_t best_rows = 0;
    for (std::size_t i = 0; i < relations_.size(); ++i) {
      const StoredRelation* candidate = relations_[i];
      if (candidate->entity != &base) continue;
      Partial attempt = partial;
      StoredCandidate& outcome = candidates_[i];
      STRATA_TRY(BuildStoredPartial(inputs, *candidate, attempt, &outcome.miss, &outcome.rows));
      if (outcome.miss || (best && outcome.rows >= best_rows)) continue;
      best.emplace(std::move(attempt));
      best_relation = candidate;
      best_rows = outcome.rows;
    }
    chosen_.push_back(best_relation);
    return best ? std::move(*best) : std::move(partial);
  }

  bool Complete() const override {
    return std::find(chosen_.begin(), chosen_.end(), nullptr) == chosen_.end();
  }

  StoredPlan Outcome(std::optional<LivePlan> plan) && {
    StoredPlan out;
    out.plan = std::move(plan);
    out.candidates = std::move(candidates_);
    out.chosen = std::move(chosen_);
    return out;
  }

 private:
  const std::vector<const StoredRelation*>& relations_;
  std::vector<StoredCandidate> candidates_;    // one per relation
  std::vector<const StoredRelation*> chosen_;  // one per partial (or null)
};

}  // namespace

Result<StoredPlan> PlanStoredQuery(const SemanticModel& model, const SemanticQuery& query,
                                   const PlanOptions& options,
                                   const std::vector<const StoredRelation*>& relations) {
  if (options.dialect != sql::Dialect::kDuckDb) {
    return MakeError(ErrorCode::kInternal, "stored plans are DuckDB SQL");
  }
  RelationChoice choice(relations);
  STRATA_ASSIGN_OR_RETURN(std::optional<LivePlan> plan,
                          PlanWithStoredPartials(model, query, options, choice));
  return std::move(choice).Outcome(std::move(plan));
}

}  // namespace strata::semantic
