// Aggregates: MEASURE(col), SUM/COUNT/MIN/MAX/AVG(col) and COUNT(DISTINCT col) over a measure
// whose agg is that one; COUNT(*) over the entity's count measure.
#include <fmt/format.h>

#include "base/ascii.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg::internal {
namespace {

using semantic::Aggregation;

std::optional<Aggregation> AggregationOfCall(std::string_view name, bool distinct) {
  if (name == "sum") return Aggregation::kSum;
  if (name == "count") return distinct ? Aggregation::kCountDistinct : Aggregation::kCount;
  if (name == "min") return Aggregation::kMin;
  if (name == "max") return Aggregation::kMax;
  if (name == "avg") return Aggregation::kAvg;
  return std::nullopt;
}

// The SQL aggregate that reads a measure of `agg` directly ("SUM(x)"), or "" when only
// MEASURE(x) does.
std::string OwnAggregate(Aggregation agg, const std::string& column) {
  switch (agg) {
    case Aggregation::kSum:
      return "SUM(" + column + ")";
    case Aggregation::kCount:
      return "COUNT(" + column + ")";
    case Aggregation::kMin:
      return "MIN(" + column + ")";
    case Aggregation::kMax:
      return "MAX(" + column + ")";
    case Aggregation::kAvg:
      return "AVG(" + column + ")";
    case Aggregation::kCountDistinct:
      return "COUNT(DISTINCT " + column + ")";
    case Aggregation::kCountDistinctApprox:
    case Aggregation::kMedian:
    case Aggregation::kP90:
    case Aggregation::kP95:
    case Aggregation::kP99:
      return "";
  }
  return "";
}

std::string MeasureHint(const SqlColumn& column) {
  const std::string own = OwnAggregate(column.agg, column.name);
  return own.empty() ? fmt::format("write MEASURE({})", column.name)
                     : fmt::format("write MEASURE({}) or {}", column.name, own);
}

// The measures of `table` that `agg` reads directly, for hints.
std::string MeasuresOfAggregation(const SqlTable& table, Aggregation agg) {
  std::string list;
  for (const SqlColumn& column : table.columns) {
    if (column.kind == SqlColumnKind::kMeasure && column.agg == agg) {
      list += (list.empty() ? "" : ", ") + OwnAggregate(agg, column.name);
    }
  }
  return list.empty() ? "" : "; this table's: " + list;
}

Result<Term> CountStar(const Scope& scope) {
  const SqlTable& entity = *scope.entity;
  if (!entity.count_star.empty()) return ColumnTerm(*entity.Find(entity.count_star));
  std::string counts;
  for (const SqlColumn& column : entity.columns) {
    if (column.kind == SqlColumnKind::kMeasure && column.agg == Aggregation::kCount) {
      counts += (counts.empty() ? "" : ", ") + column.name;
    }
  }
  return Unsupported(fmt::format("COUNT(*) over \"{}\": the entity has {} unfiltered count measure",
                                 entity.name, counts.empty() ? "no" : "more than one or no"),
                     counts.empty()
                         ? "add a measure with agg: count to the entity"
                         : fmt::format("name the count you mean: MEASURE(x) for x in {}", counts));
}

}  // namespace

bool IsAggregateName(std::string_view name) {
  return name == "measure" || AggregationOfCall(name, false).has_value();
}

Result<Term> AggregateTerm(const sql::FunctionCall& call, const std::string& name,
                           const Scope& scope) {
  std::string shown = name;
  for (char& c : shown) c = AsciiUpper(c);
  if (scope.table == nullptr) {
    return Unsupported(fmt::format("{}() over a subquery's column", shown),
                       "aggregate in the inner query; the outer query may select, filter, order "
                       "and limit its columns");
  }
  if (name == "count" && call.args.size() == 1 && call.args[0]->kind == sql::ExprKind::kStar &&
      !call.distinct) {
    return CountStar(scope);
  }
  if (call.args.size() != 1) {
    return Invalid(fmt::format("{}() takes one column", shown));
  }
  const sql::Expr& arg = Unnest(*call.args[0]);
  if (arg.kind != sql::ExprKind::kColumn) {
    return Unsupported(fmt::format("{}() over {}", shown, ConstructName(arg)),
                       "aggregate a measure column: SUM(revenue), MEASURE(revenue)");
  }
  const auto& ref = arg.As<sql::ColumnRef>();
  const SqlColumn* column = FindBaseColumn(ref, scope);
  if (column == nullptr) return ResolveColumn(ref, scope);  // the unknown-column error
  if (column->kind == SqlColumnKind::kDimension || column->kind == SqlColumnKind::kTimeDimension) {
    const std::optional<Aggregation> agg = AggregationOfCall(name, call.distinct);
    return Unsupported(fmt::format("{}({}): \"{}\" is a dimension; only measures are aggregated",
                                   shown, column->name, column->name),
                       "aggregate a measure of the model" +
                           (agg ? MeasuresOfAggregation(*scope.table, *agg) : std::string()));
  }
  if (name == "measure") {
    if (call.distinct) return Unsupported("MEASURE(DISTINCT ...)", "write MEASURE(col)");
    return ColumnTerm(*column);
  }
  if (call.distinct && name != "count") {
    return Unsupported(fmt::format("{}(DISTINCT {})", shown, column->name), MeasureHint(*column));
  }
  if (column->kind == SqlColumnKind::kMetric) {
    return Unsupported(fmt::format("{}({}): \"{}\" is a metric, computed after aggregation", shown,
                                   column->name, column->name),
                       fmt::format("write MEASURE({}) or {} alone", column->name, column->name));
  }
  const std::optional<Aggregation> agg = AggregationOfCall(name, call.distinct);
  if (agg != column->agg) {
    return Unsupported(
        fmt::format("{}({}{}): \"{}\" is a {} measure", shown, call.distinct ? "DISTINCT " : "",
                    column->name, column->name, semantic::AggregationName(column->agg)),
        MeasureHint(*column));
  }
  return ColumnTerm(*column);
}

}  // namespace strata::serve::pg::internal
