#include "rollup/advisor.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>

#include "rollup/internal/period_plan.h"
#include "rollup/periods.h"
#include "semantic/literal.h"
#include "semantic/query_shape.h"
#include "semantic/rollup_sql.h"
#include "semantic/stored_sql.h"

namespace strata::rollup {
namespace {

namespace miss = semantic::miss;
using semantic::Aggregation;
using semantic::TimeGrain;

constexpr UnixSeconds kDay = 86400;

// Stored grains, coarsest first: the first that fits the query is proposed.
constexpr std::array<TimeGrain, 8> kCoarseToFine = {
    TimeGrain::kYear,  TimeGrain::kFiscalYear, TimeGrain::kQuarter, TimeGrain::kFiscalQuarter,
    TimeGrain::kMonth, TimeGrain::kWeek,       TimeGrain::kDay,     TimeGrain::kHour};

bool Sketchable(Aggregation agg) {
  return agg == Aggregation::kCountDistinctApprox || semantic::PercentileOf(agg).has_value();
}

// What the query asks of one time dimension path.
struct TimePath {
  std::vector<TimeGrain> grains;  // grouped at these grains
  bool raw = false;               // grouped by the raw value
  std::vector<std::pair<UnixSeconds, UnixSeconds>> ranges;
  std::vector<const semantic::FilterRequest*> filters;
};

class Proposer {
 public:
  Proposer(const semantic::SemanticModel& model, const TimeZone& zone, const AdviseOptions& options)
      : model_(model), zone_(zone), options_(options) {}

  semantic::Rollup Propose(const semantic::PartialShape& shape, Advice& advice) {
    semantic::Rollup rollup;
    rollup.entity = shape.entity->name;
    rollup.timezone = zone_;
    Collect(shape);
    for (const std::string& path : order_) {
      semantic::RollupDimension dimension{path, std::nullopt};
      const auto time = times_.find(path);
      if (time != times_.end()) {
        if (const std::optional<TimeGrain> grain = StoredGrain(time->second)) {
          dimension.grain = std::string(semantic::TimeGrainName(*grain));
        }
      }
      rollup.dimensions.push_back(std::move(dimension));
    }
    for (const std::string& path : shape.row_filters) {
      if (std::find(order_.begin(), order_.end(), path) != order_.end()) continue;
      advice.unanswerable.push_back(
          {shape.entity->name, miss::kRowSecurity,
           fmt::format("your data role filters the rows of {} by a member this query does not "
                       "name; a rollup that answers the role's queries must store it (ask the "
                       "model's owner)",
                       shape.entity->name)});
    }
    for (const semantic::Measure* measure : shape.measures) {
      rollup.measures.push_back(measure->name);
      if (Sketchable(measure->agg)) rollup.sketches.push_back(measure->name);
    }
    Partition(shape, rollup);
    return rollup;
  }

 private:
  void AddPath(const std::string& path) {
    if (std::find(order_.begin(), order_.end(), path) == order_.end()) order_.push_back(path);
  }

  void Collect(const semantic::PartialShape& shape) {
    const auto is_time = [](const semantic::ShapeMember& member) {
      return member.dimension->type == semantic::DimensionType::kTime;
    };
    for (const semantic::ShapeKey& key : shape.keys) {
      AddPath(key.member.path);
      if (!is_time(key.member)) continue;
      TimePath& time = times_[key.member.path];
      if (key.grain) {
        time.grains.push_back(*key.grain);
      } else {
        time.raw = true;
      }
    }
    for (const semantic::ShapeFilter& filter : shape.filters) {
      AddPath(filter.member.path);
      if (is_time(filter.member)) times_[filter.member.path].filters.push_back(filter.filter);
    }
    for (const semantic::ShapeRange& range : shape.ranges) {
      AddPath(range.member.path);
      times_[range.member.path].ranges.emplace_back(range.from, range.to);
    }
  }

  bool Boundary(UnixSeconds seconds, TimeGrain grain) const {
    return semantic::IsGrainBoundary(seconds, grain, model_.fiscal_year_start_month, zone_);
  }

  // The coarsest grain that rolls up into every asked grain and on whose boundaries every range
  // and time filter falls; nullopt (store the raw value) when none does.
  std::optional<TimeGrain> StoredGrain(const TimePath& time) const {
    if (time.raw) return std::nullopt;
    for (const TimeGrain grain : kCoarseToFine) {
      const bool derivable = std::all_of(time.grains.begin(), time.grains.end(), [&](TimeGrain g) {
        return semantic::GrainDerivable(grain, g, model_.fiscal_year_start_month);
      });
      const bool ranges = std::all_of(time.ranges.begin(), time.ranges.end(), [&](auto range) {
        return Boundary(range.first, grain) && Boundary(range.second, grain);
      });
      const bool filters =
          std::all_of(time.filters.begin(), time.filters.end(), [&](const auto* filter) {
            if (filter->op != semantic::FilterOp::kGte && filter->op != semantic::FilterOp::kLt) {
              return false;
            }
            return std::all_of(filter->values.begin(), filter->values.end(), [&](const auto& v) {
              const std::optional<UnixSeconds> at = semantic::ParseTimeText(v.text, zone_);
              return at && Boundary(*at, grain);
            });
          });
      if (derivable && ranges && filters) return grain;
    }
    return std::nullopt;
  }

  // partition.by from the time dimension's stored grain, and a build_range from the query's
  // range on a time dimension (when it lies inside the window a build at `now` stores): that
  // dimension is then the rollup's time dimension (RollupTimeDimension), else the first one
  // stored with a grain.
  void Partition(const semantic::PartialShape& shape, semantic::Rollup& rollup) const {
    std::optional<semantic::ShapeRange> ranged;
    for (const semantic::ShapeRange& range : shape.ranges) {
      if (!ranged && Grain(rollup, range.member.path)) ranged = range;
    }
    std::optional<std::string> time =
        ranged ? std::optional<std::string>(ranged->member.path) : std::nullopt;
    for (const semantic::RollupDimension& dimension : rollup.dimensions) {
      if (!time && dimension.grain) time = dimension.path;
    }
    if (!time) return;
    const TimeGrain stored = *Grain(rollup, *time);
    for (const TimeGrain by : {TimeGrain::kMonth, TimeGrain::kYear, TimeGrain::kWeek}) {
      if (stored == TimeGrain::kMonth && by == TimeGrain::kMonth) continue;  // one bucket a file
      if (semantic::GrainDerivable(stored, by, model_.fiscal_year_start_month)) {
        rollup.partition.emplace();
        rollup.partition->by = std::string(semantic::TimeGrainName(by));
        break;
      }
    }
    if (!options_.build_range || !ranged) return;
    rollup.build_range.emplace();
    rollup.build_range->dimension = *time;
    const TimeGrain unit = RangeUnit(rollup);
    const UnixSeconds end = NextPeriodStart(PeriodStart(options_.now, unit, zone_), unit, zone_);
    if (ranged->to > end || ranged->from >= options_.now) {
      // The range reaches past what a build stores now: all time, and the first time
      // dimension partitions the files.
      rollup.build_range.reset();
      rollup.partition.reset();
      Partition(semantic::PartialShape{}, rollup);
      return;
    }
    const UnixSeconds days = (options_.now - ranged->from + kDay - 1) / kDay + 1;
    rollup.build_range->days = static_cast<std::uint32_t>(days);
  }

  static std::optional<TimeGrain> Grain(const semantic::Rollup& rollup, const std::string& path) {
    for (const semantic::RollupDimension& dimension : rollup.dimensions) {
      if (dimension.path == path && dimension.grain)
        return semantic::ParseTimeGrain(*dimension.grain);
    }
    return std::nullopt;
  }

  const semantic::SemanticModel& model_;
  const TimeZone& zone_;
  const AdviseOptions& options_;
  std::vector<std::string> order_;
  std::map<std::string, TimePath> times_;
};

std::string Snake(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (word) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "rollup" : out;
}

std::string NameOf(const semantic::Rollup& rollup, const semantic::SemanticModel& model,
                   const std::vector<semantic::Rollup>& taken) {
  std::string base = Snake(rollup.entity);
  std::string dimensions;
  for (const semantic::RollupDimension& dimension : rollup.dimensions) {
    dimensions += (dimensions.empty() ? "" : "_") + Snake(dimension.path);
    if (dimension.grain) dimensions += "_" + *dimension.grain;
  }
  base += dimensions.empty() ? "_totals" : "_by_" + dimensions;
  constexpr std::size_t kMaxName = 60;
  if (base.size() > kMaxName) base.resize(kMaxName);
  const auto used = [&](const std::string& name) {
    const auto same = [&](const semantic::Rollup& other) { return other.name == name; };
    return std::any_of(model.rollups.begin(), model.rollups.end(), same) ||
           std::any_of(taken.begin(), taken.end(), same);
  };
  std::string name = base;
  for (int suffix = 2; used(name); ++suffix) name = fmt::format("{}_{}", base, suffix);
  return name;
}

// A stored relation for `rollup` as if built at `now` with every period present.
struct AsBuilt {
  semantic::StoredRelation relation;
  std::optional<std::pair<UnixSeconds, UnixSeconds>> window;
};

Result<std::unique_ptr<AsBuilt>> Relation(const semantic::SemanticModel& model,
                                          const semantic::Rollup& rollup, UnixSeconds now) {
  auto built = std::make_unique<AsBuilt>();
  semantic::StoredRelation& relation = built->relation;
  relation.entity = model.FindEntity(rollup.entity);
  if (relation.entity == nullptr) {
    return MakeError(ErrorCode::kInternal, fmt::format("no entity {}", rollup.entity));
  }
  STRATA_ASSIGN_OR_RETURN(
      semantic::RollupBuildPlan layout,
      semantic::PlanRollupBuild(model, rollup, sql::Dialect::kDuckDb, std::nullopt));
  relation.dimensions = std::move(layout.dimensions);
  relation.measures = std::move(layout.measures);
  relation.zone = rollup.timezone;
  relation.relation = [](std::optional<UnixSeconds>, std::optional<UnixSeconds>) {
    return semantic::StoredRows{"(SELECT 1)", 0};
  };
  relation.range_dimension = semantic::RollupTimeDimension(rollup).value_or("");
  if (rollup.build_range) {
    const TimeGrain unit = RangeUnit(rollup);
    const UnixSeconds days = static_cast<UnixSeconds>(rollup.build_range->days);
    built->window = std::make_pair(
        PeriodStart(now - days * kDay, unit, rollup.timezone),
        NextPeriodStart(PeriodStart(now, unit, rollup.timezone), unit, rollup.timezone));
    relation.no_range_reason = miss::kOutsideBuildRange;
  }
  const int fiscal = model.fiscal_year_start_month;
  const TimeZone zone = rollup.timezone;
  const std::string time = relation.range_dimension;
  const auto window = built->window;
  relation.range_check = [fiscal, zone, time, window](const semantic::StoredDimension& dimension,
                                                      UnixSeconds from, UnixSeconds to) {
    if (dimension.grain && (!semantic::IsGrainBoundary(from, *dimension.grain, fiscal, zone) ||
                            !semantic::IsGrainBoundary(to, *dimension.grain, fiscal, zone))) {
      return std::string(miss::kRangeNotAligned);
    }
    if (window && dimension.path == time && (from < window->first || to > window->second)) {
      return std::string(miss::kOutsideBuildRange);
    }
    return std::string();
  };
  return built;
}

// The measures a query over several entities reads that no join of rollups answers.
std::vector<UnansweredMember> DistinctAcrossEntities(const semantic::QueryShape& shape) {
  std::vector<UnansweredMember> out;
  if (shape.partials.size() < 2) return out;
  for (const semantic::PartialShape& partial : shape.partials) {
    for (const semantic::Measure* measure : partial.measures) {
      if (semantic::IsAdditive(measure->agg)) continue;
      out.push_back({partial.entity->name + "." + measure->name, miss::kDistinctAcrossEntities,
                     "distinct counts and percentiles do not join across entities: ask for it "
                     "in a query of its own entity"});
    }
  }
  return out;
}

// Drops the exact count_distinct measures of the rollup of `entity`, naming them unanswerable.
void DropExactDistinct(const semantic::SemanticModel& model, const std::string& entity,
                       Advice& advice) {
  const semantic::Entity* owner = model.FindEntity(entity);
  for (semantic::Rollup& rollup : advice.rollups) {
    if (rollup.entity != entity) continue;
    std::erase_if(rollup.measures, [&](const std::string& name) {
      const semantic::Measure* measure = owner->FindMeasure(name);
      if (measure == nullptr || measure->agg != Aggregation::kCountDistinct) return false;
      advice.unanswerable.push_back(
          {entity + "." + name, miss::kNotAdditive,
           "an exact distinct count cannot be re-aggregated: a rollup answers it only grouped "
           "exactly as stored, which this query's filters or grains are not; a "
           "count_distinct_approx measure with a sketch can be"});
      return true;
    });
  }
}

}  // namespace

struct ProposedRollups::Relations {
  std::vector<std::unique_ptr<AsBuilt>> built;
  std::vector<const semantic::StoredRelation*> relations;
};

ProposedRollups::ProposedRollups(const semantic::SemanticModel& model,
                                 std::vector<semantic::Rollup> rollups)
    : model_(&model), rollups_(std::move(rollups)), relations_(std::make_unique<Relations>()) {}
ProposedRollups::ProposedRollups(ProposedRollups&&) noexcept = default;
ProposedRollups& ProposedRollups::operator=(ProposedRollups&&) noexcept = default;
ProposedRollups::~ProposedRollups() = default;

Result<ProposedRollups> ProposedRollups::Make(const semantic::SemanticModel& model,
                                              std::vector<semantic::Rollup> rollups,
                                              UnixSeconds now) {
  ProposedRollups proposed(model, std::move(rollups));
  for (const semantic::Rollup& rollup : proposed.rollups_) {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<AsBuilt> relation, Relation(model, rollup, now));
    proposed.relations_->relations.push_back(&relation->relation);
    proposed.relations_->built.push_back(std::move(relation));
  }
  return proposed;
}

Result<std::optional<RollupMiss>> ProposedRollups::Check(const semantic::SemanticQuery& query,
                                                         const semantic::PlanOptions& plan) const {
  STRATA_ASSIGN_OR_RETURN(const semantic::QueryShape shape,
                          semantic::ResolveQueryShape(*model_, query, plan));
  const std::vector<UnansweredMember> distinct = DistinctAcrossEntities(shape);
  if (!distinct.empty()) {
    return std::optional<RollupMiss>(
        RollupMiss{distinct.front().member, distinct.front().reason, distinct.front().detail});
  }
  semantic::PlanOptions duckdb = plan;
  duckdb.dialect = sql::Dialect::kDuckDb;
  STRATA_ASSIGN_OR_RETURN(const semantic::StoredPlan stored,
                          semantic::PlanStoredQuery(*model_, query, duckdb, relations_->relations));
  if (stored.plan) return std::optional<RollupMiss>();
  for (std::size_t i = 0; i < stored.candidates.size(); ++i) {
    const semantic::StoredCandidate& outcome = stored.candidates[i];
    if (outcome.miss) {
      return std::optional<RollupMiss>(
          RollupMiss{rollups_[i].name, outcome.miss->reason, outcome.miss->detail});
    }
  }
  return std::optional<RollupMiss>(RollupMiss{
      "", miss::kJoinRollupIncomplete, "an entity of the query has no rollup that answers it"});
}

Result<Advice> AdviseRollups(const semantic::SemanticModel& model,
                             const semantic::SemanticQuery& query, const AdviseOptions& options) {
  STRATA_ASSIGN_OR_RETURN(const semantic::QueryShape shape,
                          semantic::ResolveQueryShape(model, query, options.plan));
  Advice advice;
  advice.unanswerable = DistinctAcrossEntities(shape);
  if (!advice.unanswerable.empty()) return advice;
  for (const semantic::PartialShape& partial : shape.partials) {
    semantic::Rollup rollup = Proposer(model, shape.zone, options).Propose(partial, advice);
    rollup.name = NameOf(rollup, model, advice.rollups);
    advice.rollups.push_back(std::move(rollup));
  }
  STRATA_ASSIGN_OR_RETURN(const ProposedRollups proposed,
                          ProposedRollups::Make(model, advice.rollups, options.now));
  STRATA_ASSIGN_OR_RETURN(std::optional<RollupMiss> missed, proposed.Check(query, options.plan));
  if (missed && missed->reason == miss::kNotAdditive) {
    const auto rollup =
        std::find_if(advice.rollups.begin(), advice.rollups.end(),
                     [&](const semantic::Rollup& r) { return r.name == missed->rollup; });
    if (rollup != advice.rollups.end()) DropExactDistinct(model, rollup->entity, advice);
  } else if (missed && missed->reason != miss::kRowSecurity) {
    // The proposal and the router disagree: say so rather than advise a rollup that misses.
    advice.unanswerable.push_back({missed->rollup, missed->reason, missed->detail});
  }
  advice.answers = !missed && advice.unanswerable.empty();
  return advice;
}

namespace {

// A YAML scalar: plain when it is a name, else double-quoted (JSON's escapes are YAML's).
std::string Scalar(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '/';
  });
  return plain ? text : nlohmann::json(text).dump();
}

void List(std::string& out, const char* key, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out += fmt::format("    {}:\n", key);
  for (const std::string& item : items) out += "      - " + Scalar(item) + "\n";
}

}  // namespace

std::string RollupsYaml(const std::vector<semantic::Rollup>& rollups,
                        const std::vector<std::vector<std::string>>& comments) {
  std::string out = "rollups:\n";
  for (std::size_t i = 0; i < rollups.size(); ++i) {
    const semantic::Rollup& rollup = rollups[i];
    if (i < comments.size()) {
      for (const std::string& line : comments[i]) out += "  # " + line + "\n";
    }
    out += "  - name: " + Scalar(rollup.name) + "\n";
    out += "    entity: " + Scalar(rollup.entity) + "\n";
    if (!rollup.dimensions.empty()) out += "    dimensions:\n";
    for (const semantic::RollupDimension& dimension : rollup.dimensions) {
      out += dimension.grain ? fmt::format("      - {{ name: {}, grain: {} }}\n",
                                           Scalar(dimension.path), *dimension.grain)
                             : "      - " + Scalar(dimension.path) + "\n";
    }
    List(out, "measures", rollup.measures);
    List(out, "sketches", rollup.sketches);
    if (rollup.partition)
      out += fmt::format("    partition:\n      by: {}\n", rollup.partition->by);
    if (rollup.build_range) {
      out += fmt::format("    build_range:\n      dimension: {}\n      days: {}\n",
                         Scalar(rollup.build_range->dimension), rollup.build_range->days);
    }
    if (!rollup.timezone.is_utc()) {
      out += "    timezone: " + Scalar(std::string(rollup.timezone.name())) + "\n";
    }
  }
  return out;
}

nlohmann::json AdviceJson(const Advice& advice) {
  nlohmann::json rollups = nlohmann::json::array();
  for (const semantic::Rollup& rollup : advice.rollups) {
    nlohmann::json dimensions = nlohmann::json::array();
    for (const semantic::RollupDimension& dimension : rollup.dimensions) {
      if (dimension.grain) {
        dimensions.push_back({{"name", dimension.path}, {"grain", *dimension.grain}});
      } else {
        dimensions.push_back(dimension.path);
      }
    }
    nlohmann::json item = {{"name", rollup.name},
                           {"entity", rollup.entity},
                           {"dimensions", std::move(dimensions)},
                           {"measures", rollup.measures},
                           {"sketches", rollup.sketches}};
    if (rollup.partition) item["partition"] = {{"by", rollup.partition->by}};
    if (rollup.build_range) {
      item["build_range"] = {{"dimension", rollup.build_range->dimension},
                             {"days", rollup.build_range->days}};
    }
    if (!rollup.timezone.is_utc()) item["timezone"] = std::string(rollup.timezone.name());
    rollups.push_back(std::move(item));
  }
  nlohmann::json unanswerable = nlohmann::json::array();
  for (const UnansweredMember& member : advice.unanswerable) {
    unanswerable.push_back(
        {{"member", member.member}, {"reason", member.reason}, {"detail", member.detail}});
  }
  return {{"rollups", std::move(rollups)},
          {"unanswerable", std::move(unanswerable)},
          {"answers", advice.answers},
          {"yaml", advice.rollups.empty() ? "" : RollupsYaml(advice.rollups)}};
}

}  // namespace strata::rollup
