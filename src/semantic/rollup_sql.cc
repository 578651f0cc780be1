#include "semantic/rollup_sql.h"

#include <fmt/format.h>

#include <algorithm>

#include "semantic/internal/plan.h"
#include "semantic/literal.h"
#include "semantic/path.h"

namespace strata::semantic {
namespace {

std::string GroupBy(std::size_t count) {
  std::string out;
  for (std::size_t i = 1; i <= count; ++i) {
    out += (i == 1 ? "\nGROUP BY " : ", ") + std::to_string(i);
  }
  return out;
}

std::string TimestampLiteral(UnixSeconds seconds, sql::Dialect dialect) {
  return "TIMESTAMP " + sql::QuoteString(FormatSqlTimestamp(seconds), dialect);
}

// The raw (untruncated) column of dimension `path` of the partial's base, joining its path.
Result<std::string> RawColumn(const SemanticModel& model, Partial& partial, const std::string& path,
                              const Dimension** out = nullptr) {
  STRATA_ASSIGN_OR_RETURN(const MemberPath walked,
                          WalkPath(model, partial.base(), path, ErrorCode::kSemanticInvalid));
  const Dimension* dimension = walked.target->FindDimension(walked.member);
  if (dimension == nullptr) {
    return MakeError(ErrorCode::kSemanticInvalid,
                     fmt::format("\"{}\" is not a dimension of {}", path, partial.base().name));
  }
  if (out != nullptr) *out = dimension;
  const int node = partial.AddPath(walked.hops, /*from_query=*/true);
  return partial.Column(node, dimension->sql);
}

enum class Nulls { kExcluded, kIncluded, kOnly };

// Which source rows a build plan reads, by the rollup's raw time dimension: from <= time < to
// (an absent bound is open), and what to do with the rows whose time is NULL. Everything
// absent and kExcluded: every row, unfiltered.
struct RowSelection {
  std::optional<UnixSeconds> from, to;
  Nulls nulls = Nulls::kExcluded;
  std::optional<AppendBounds> append;
};

// The append column (PlanRollupAppendMarker) on the partial's base: its SQL and, when it is a
// dimension's, that dimension's type.
struct AppendTarget {
  std::string column;
  std::optional<DimensionType> type;
};

Result<AppendTarget> AppendColumn(const SemanticModel& model, const Rollup& rollup,
                                  Partial& partial) {
  if (rollup.refresh && rollup.refresh->when_changed) {
    const std::string& name = *rollup.refresh->when_changed;
    const Dimension* dimension = partial.base().FindDimension(name);
    if (dimension == nullptr)
      return AppendTarget{partial.Column(0, Quote(name, partial.dialect())), std::nullopt};
    return AppendTarget{partial.Column(0, dimension->sql), dimension->type};
  }
  const std::optional<std::string> time = RollupTimeDimension(rollup);
  if (!time) {
    return MakeError(ErrorCode::kSemanticInvalid,
                     fmt::format("rollup \"{}\" has no time dimension", rollup.name));
  }
  const Dimension* dimension = nullptr;
  STRATA_ASSIGN_OR_RETURN(std::string column, RawColumn(model, partial, *time, &dimension));
  return AppendTarget{std::move(column), dimension->type};
}

// The type of a value the warehouse printed (a marker of a raw column): a time when it reads as
// one (ParseSqlTimeValue), a number, a boolean, else a string.
DimensionType TypeOfText(const std::string& text) {
  if (ParseSqlTimeValue(text)) return DimensionType::kTime;
  if (IsNumberText(text)) return DimensionType::kNumber;
  if (text == "true" || text == "false") return DimensionType::kBoolean;
  return DimensionType::kString;
}

// A value of the append column (text read from the warehouse) as a literal to compare it with:
// the string literal, which DuckDB and PostgreSQL cast to the column's type. Trino casts no
// varchar to a timestamp or a number, so there it is a literal of the dimension's type, or for a
// raw column of the type the text has (a wrong guess, a varchar of digits, is a type error on
// Trino, never a wrong comparison).
Result<std::string> BoundLiteral(const std::string& text, const AppendTarget& target,
                                 const Rollup& rollup, sql::Dialect dialect) {
  if (dialect != sql::Dialect::kTrino) return sql::QuoteString(text, dialect);
  switch (target.type.value_or(TypeOfText(text))) {
    case DimensionType::kString:
      return sql::QuoteString(text, dialect);
    case DimensionType::kTime:
      return "TIMESTAMP " + sql::QuoteString(text, dialect);
    case DimensionType::kNumber:
      if (IsNumberText(text)) return text;
      break;
    case DimensionType::kBoolean:
      if (text == "true" || text == "false") return text;
      break;
  }
  return MakeError(
      ErrorCode::kSemanticInvalid,
      fmt::format("rollup \"{}\": the append marker \"{}\" is not a value of its column's type",
                  rollup.name, text),
      "check the type of the dimension refresh.when_changed names (or of the time dimension)");
}

class BuildPlanner {
 public:
  BuildPlanner(const SemanticModel& model, const Rollup& rollup, const Entity& entity,
               sql::Dialect dialect)
      : model_(model), rollup_(rollup), dialect_(dialect), partial_(model, entity, dialect) {}

  Result<RollupBuildPlan> Run(const RowSelection& rows) {
    STRATA_TRY(Keys());
    STRATA_TRY(Measures());
    if (rows.from || rows.to || rows.nulls != Nulls::kExcluded) STRATA_TRY(Window(rows));
    if (rows.append) STRATA_TRY(Append(*rows.append));
    plan_.sql = "SELECT " + select_ + "\n" + partial_.FromAndWhere() + GroupBy(plan_.key_count);
    for (Pending& pending : pending_) {
      partial_.where().push_back(pending.input + " IS NOT NULL");
      pending.query.sql = "SELECT " + keys_ + pending.value + "\n" + partial_.FromAndWhere() +
                          GroupBy(plan_.key_count + 1);
      partial_.where().pop_back();
      plan_.sketches.push_back(std::move(pending.query));
    }
    return std::move(plan_);
  }

 private:
  std::string Q(const std::string& name) const { return Quote(name, dialect_); }

  Status Keys() {
    for (const RollupDimension& dimension : rollup_.dimensions) {
      STRATA_ASSIGN_OR_RETURN(std::string column, RawColumn(model_, partial_, dimension.path));
      std::optional<TimeGrain> grain;
      if (dimension.grain) grain = ParseTimeGrain(*dimension.grain);
      const std::string key = grain ? TruncateTime(column, *grain, model_.fiscal_year_start_month,
                                                   dialect_, rollup_.timezone)
                                    : column;
      const std::string alias = Q("d" + std::to_string(plan_.key_count++));
      keys_ += key + " AS " + alias + ", ";
      plan_.columns.push_back({dimension.path, true, dimension.path, "", grain});
      plan_.dimensions.push_back({dimension.path, grain, dimension.path});
    }
    select_ = keys_;
    return OkStatus();
  }

  void Add(const std::string& aggregate, const std::string& column, const std::string& source,
           const std::string& part) {
    select_ += aggregate + " AS " + Q("s" + std::to_string(parts_++)) + ", ";
    plan_.columns.push_back({column, false, source, part, std::nullopt});
  }

  void Client(const std::string& input, const std::string& value, const std::string& column,
              const std::string& source, const std::string& part, RollupSketchQuery::Kind kind) {
    pending_.push_back({input, value, {"", plan_.key_count, column, kind}});
    client_columns_.push_back({column, false, source, part, std::nullopt});
  }

  Status Measures() {
    const Entity& entity = partial_.base();
    for (const std::string& name : rollup_.measures) {
      const Measure* measure = entity.FindMeasure(name);
      if (measure == nullptr) {
        return MakeError(ErrorCode::kSemanticInvalid,
                         fmt::format("entity \"{}\" has no measure \"{}\"", entity.name, name));
      }
      const std::string input = MeasureInput(*measure);
      const std::string column = input.empty() ? "" : partial_.Column(0, input);
      const bool sketched = std::find(rollup_.sketches.begin(), rollup_.sketches.end(), name) !=
                            rollup_.sketches.end();
      AddMeasure(*measure, column, sketched);
    }
    Add("COUNT(*)", "__rows", "*", "rows");
    for (RollupColumn& column : client_columns_) plan_.columns.push_back(std::move(column));
    select_.resize(select_.size() - 2);
    return OkStatus();
  }

  void AddMeasure(const Measure& measure, const std::string& column, bool sketched) {
    const std::string& name = measure.name;
    const std::string value = column + " AS " + Q("v");
    switch (measure.agg) {
      case Aggregation::kSum:
      case Aggregation::kCount:
      case Aggregation::kMin:
      case Aggregation::kMax:
        Add(RenderAggregate(measure, column, dialect_), name, name, "");
        plan_.measures.push_back({name, StoredForm::kAdditive, {name}});
        return;
      case Aggregation::kAvg:
        Add("SUM(" + column + ")", name + "__sum", name, "sum");
        Add("COUNT(" + column + ")", name + "__count", name, "count");
        plan_.measures.push_back(
            {name, StoredForm::kSumAndCount, {name + "__sum", name + "__count"}});
        return;
      case Aggregation::kCountDistinct:
        Add(RenderAggregate(measure, column, dialect_), name, name, "");
        plan_.measures.push_back({name, StoredForm::kExactOnly, {name}});
        return;
      case Aggregation::kCountDistinctApprox:
        if (sketched) {
          Client(column, value, name + "__hll", name, "hll", RollupSketchQuery::Kind::kHll);
          plan_.measures.push_back({name, StoredForm::kHll, {name + "__hll"}});
        } else {
          Client(column, value, name, name, "", RollupSketchQuery::Kind::kHllEstimate);
          plan_.measures.push_back({name, StoredForm::kExactOnly, {name}});
        }
        return;
      case Aggregation::kMedian:
      case Aggregation::kP90:
      case Aggregation::kP95:
      case Aggregation::kP99:
        if (sketched) {
          const std::string counted =
              "CAST(" + column + " AS DOUBLE PRECISION) AS " + Q("v") + ", COUNT(*) AS " + Q("n");
          Client(column, counted, name + "__values", name, "values",
                 RollupSketchQuery::Kind::kValueCounts);
          plan_.measures.push_back({name, StoredForm::kValueCounts, {name + "__values"}});
        } else {
          Add(RenderAggregate(measure, column, dialect_), name, name, "");
          plan_.measures.push_back({name, StoredForm::kExactOnly, {name}});
        }
        return;
    }
  }

  Status Window(const RowSelection& rows) {
    const std::optional<std::string> time = RollupTimeDimension(rollup_);
    if (!time) {
      return MakeError(ErrorCode::kSemanticInvalid,
                       fmt::format("rollup \"{}\" has no time dimension", rollup_.name));
    }
    STRATA_ASSIGN_OR_RETURN(const std::string column, RawColumn(model_, partial_, *time));
    if (rows.nulls == Nulls::kOnly) {
      partial_.AddWhere(column + " IS NULL");
      return OkStatus();
    }
    std::string bounded;
    if (rows.from) bounded = column + " >= " + TimestampLiteral(*rows.from, dialect_);
    if (rows.to) {
      bounded +=
          (bounded.empty() ? "" : " AND ") + column + " < " + TimestampLiteral(*rows.to, dialect_);
    }
    if (rows.nulls == Nulls::kIncluded) {
      bounded = "((" + (bounded.empty() ? "TRUE" : bounded) + ") OR " + column + " IS NULL)";
    }
    partial_.AddWhere(bounded);
    return OkStatus();
  }

  Status Append(const AppendBounds& bounds) {
    STRATA_ASSIGN_OR_RETURN(const AppendTarget target, AppendColumn(model_, rollup_, partial_));
    const std::string& column = target.column;
    std::string bounded;
    const auto add = [&](const std::optional<std::string>& bound, const char* op) -> Status {
      if (!bound) return OkStatus();
      STRATA_ASSIGN_OR_RETURN(const std::string literal,
                              BoundLiteral(*bound, target, rollup_, dialect_));
      bounded += (bounded.empty() ? "" : " AND ") + column + op + literal;
      return OkStatus();
    };
    STRATA_TRY(add(bounds.after, " > "));
    STRATA_TRY(add(bounds.from, " >= "));
    STRATA_TRY(add(bounds.before, " < "));
    STRATA_TRY(add(bounds.through, " <= "));
    if (bounded.empty() && !bounds.with_nulls) return OkStatus();
    if (bounds.with_nulls) {
      bounded = "(" + (bounded.empty() ? "TRUE" : bounded) + " OR " + column + " IS NULL)";
    }
    partial_.AddWhere(bounded);
    return OkStatus();
  }

  struct Pending {
    std::string input;
    std::string value;
    RollupSketchQuery query;
  };

  const SemanticModel& model_;
  const Rollup& rollup_;
  sql::Dialect dialect_;
  Partial partial_;
  RollupBuildPlan plan_;
  std::string keys_, select_;
  std::size_t parts_ = 0;
  std::vector<Pending> pending_;
  std::vector<RollupColumn> client_columns_;
};

}  // namespace

std::optional<std::string> RollupTimeDimension(const Rollup& rollup) {
  if (rollup.build_range) return rollup.build_range->dimension;
  for (const RollupDimension& dimension : rollup.dimensions) {
    if (dimension.grain) return dimension.path;
  }
  return std::nullopt;
}

std::optional<TimeGrain> RollupDimensionGrain(const Rollup& rollup, std::string_view path) {
  for (const RollupDimension& dimension : rollup.dimensions) {
    if (dimension.path == path && dimension.grain) return ParseTimeGrain(*dimension.grain);
  }
  return std::nullopt;
}

Result<RollupBuildPlan> PlanRollupBuild(const SemanticModel& model, const Rollup& rollup,
                                        sql::Dialect dialect,
                                        std::optional<std::pair<UnixSeconds, UnixSeconds>> window,
                                        bool null_time, const std::optional<AppendBounds>& append) {
  const Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) {
    return MakeError(
        ErrorCode::kSemanticInvalid,
        fmt::format("rollup \"{}\": unknown entity \"{}\"", rollup.name, rollup.entity));
  }
  RowSelection rows;
  if (null_time) {
    rows.nulls = Nulls::kOnly;
  } else if (window) {
    rows.from = window->first;
    rows.to = window->second;
  }
  rows.append = append;
  return BuildPlanner(model, rollup, *entity, dialect).Run(rows);
}

Result<RollupBuildPlan> PlanRollupTail(const SemanticModel& model, const Rollup& rollup,
                                       sql::Dialect dialect, UnixSeconds from,
                                       std::optional<UnixSeconds> to, bool with_null_time) {
  const Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) {
    return MakeError(
        ErrorCode::kSemanticInvalid,
        fmt::format("rollup \"{}\": unknown entity \"{}\"", rollup.name, rollup.entity));
  }
  RowSelection rows{from, to, with_null_time ? Nulls::kIncluded : Nulls::kExcluded, std::nullopt};
  return BuildPlanner(model, rollup, *entity, dialect).Run(rows);
}

Result<std::string> PlanEntityRowCount(const SemanticModel& model, std::string_view entity,
                                       sql::Dialect dialect) {
  const Entity* found = model.FindEntity(entity);
  if (found == nullptr) {
    return MakeError(ErrorCode::kSemanticInvalid, fmt::format("unknown entity \"{}\"", entity));
  }
  const Partial partial(model, *found, dialect);
  return "SELECT COUNT(*) AS " + Quote("n", dialect) + "\n" + partial.FromAndWhere();
}

Result<std::string> PlanRollupTimeBounds(const SemanticModel& model, const Rollup& rollup,
                                         sql::Dialect dialect) {
  const Entity* entity = model.FindEntity(rollup.entity);
  const std::optional<std::string> time = RollupTimeDimension(rollup);
  if (entity == nullptr || !time) {
    return MakeError(ErrorCode::kSemanticInvalid,
                     fmt::format("rollup \"{}\" has no time dimension", rollup.name));
  }
  Partial partial(model, *entity, dialect);
  STRATA_ASSIGN_OR_RETURN(const std::string column, RawColumn(model, partial, *time));
  // Trino's TIMESTAMP is milliseconds: a rounded maximum could reach into the next period.
  const std::string timestamp =
      "CAST(" + column + (dialect == sql::Dialect::kTrino ? " AS TIMESTAMP(6))" : " AS TIMESTAMP)");
  return "SELECT MIN(" + timestamp + ") AS " + Quote("lo", dialect) + ", MAX(" + timestamp +
         ") AS " + Quote("hi", dialect) + ", COUNT(*) - COUNT(" + column + ") AS " +
         Quote("nulls", dialect) + "\n" + partial.FromAndWhere();
}

Result<std::string> PlanRollupAppendMarker(const SemanticModel& model, const Rollup& rollup,
                                           sql::Dialect dialect,
                                           const std::optional<std::string>& previous,
                                           const std::optional<std::string>& slice_from) {
  const Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) {
    return MakeError(
        ErrorCode::kSemanticInvalid,
        fmt::format("rollup \"{}\": unknown entity \"{}\"", rollup.name, rollup.entity));
  }
  Partial partial(model, *entity, dialect);
  STRATA_ASSIGN_OR_RETURN(const AppendTarget target, AppendColumn(model, rollup, partial));
  const std::string& column = target.column;
  std::string behind;
  if (previous) {
    STRATA_ASSIGN_OR_RETURN(const std::string marker,
                            BoundLiteral(*previous, target, rollup, dialect));
    behind = ", MAX(" + column + ") < " + marker + " AS " + Quote("behind", dialect);
    if (slice_from) {
      STRATA_ASSIGN_OR_RETURN(const std::string from,
                              BoundLiteral(*slice_from, target, rollup, dialect));
      behind += ", SUM(CASE WHEN " + column + " >= " + from + " AND " + column + " <= " + marker +
                " THEN 1 ELSE 0 END) AS " + Quote("in_slice", dialect);
    }
  }
  return "SELECT MAX(" + column + ") AS " + Quote("marker", dialect) + behind + "\n" +
         partial.FromAndWhere();
}

Result<std::optional<std::string>> PlanRollupMarker(const SemanticModel& model,
                                                    const Rollup& rollup, sql::Dialect dialect) {
  if (!rollup.refresh) return std::optional<std::string>();
  if (rollup.refresh->when_changed_sql) {
    return std::optional<std::string>(*rollup.refresh->when_changed_sql);
  }
  if (!rollup.refresh->when_changed) return std::optional<std::string>();
  const Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) {
    return MakeError(
        ErrorCode::kSemanticInvalid,
        fmt::format("rollup \"{}\": unknown entity \"{}\"", rollup.name, rollup.entity));
  }
  const std::string& name = *rollup.refresh->when_changed;
  const Dimension* dimension = entity->FindDimension(name);
  Partial partial(model, *entity, dialect);
  const std::string column =
      partial.Column(0, dimension != nullptr ? dimension->sql : Quote(name, dialect));
  return std::optional<std::string>("SELECT MAX(" + column + ") AS " + Quote("marker", dialect) +
                                    "\n" + partial.FromAndWhere());
}

}  // namespace strata::semantic
