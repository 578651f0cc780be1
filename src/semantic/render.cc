// SQL text pieces of the live plan: grains, predicates, aggregates, metrics.
#include <fmt/format.h>

#include "semantic/internal/plan.h"
#include "semantic/literal.h"

namespace strata::semantic {
namespace {

std::string_view TruncUnit(TimeGrain grain) {
  switch (grain) {
    case TimeGrain::kHour:
      return "hour";
    case TimeGrain::kDay:
      return "day";
    case TimeGrain::kWeek:
      return "week";
    case TimeGrain::kMonth:
      return "month";
    case TimeGrain::kQuarter:
    case TimeGrain::kFiscalQuarter:
      return "quarter";
    case TimeGrain::kYear:
    case TimeGrain::kFiscalYear:
      return "year";
  }
  return "day";
}

std::string JoinLiterals(const std::vector<std::string>& literals) {
  std::string out;
  for (const std::string& literal : literals) out += (out.empty() ? "" : ", ") + literal;
  return out;
}

std::string AnyOf(const std::vector<std::string>& parts) {
  if (parts.size() == 1) return parts[0];
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "(" : " OR ") + part;
  return out + ")";
}

// DuckDB's quantile_cont(CAST(input AS DOUBLE), fraction) in Trino, which has no exact
// continuous percentile (approx_percentile is a sketch): the group's non-NULL values sorted
// into an array `s`, then DuckDB's arithmetic (base/value_counts.h) on it in doubles: RN =
// double(N - 1) * q, lo = s[floor(RN)], hi = s[ceil(RN)] (0-based), lo * (1 - d) + hi * d with
// d = RN - floor(RN), or lo when RN is whole. NULL for a group without values. Java's doubles
// are IEEE 754 like C++'s, so the answer is DuckDB's to the bit. The lambda only names the
// sorted array once; Trino holds each group's values in memory, as DuckDB's quantile_cont does.
std::string TrinoQuantileCont(const std::string& input, const std::string& fraction) {
  const std::string rn = "(CAST(cardinality(s) - 1 AS DOUBLE) * " + fraction + "E0)";
  const std::string lo = "s[CAST(floor(" + rn + ") AS BIGINT) + 1]";
  const std::string hi = "s[CAST(ceil(" + rn + ") AS BIGINT) + 1]";
  const std::string d = "(" + rn + " - floor(" + rn + "))";
  return "element_at(transform(ARRAY[array_sort(array_agg(CAST(" + input +
         " AS DOUBLE)) FILTER (WHERE " + input + " IS NOT NULL))], s -> CASE WHEN cardinality(s) " +
         "> 0 THEN CASE WHEN floor(" + rn + ") = ceil(" + rn + ") THEN " + lo + " ELSE " + lo +
         " * (1.0E0 - " + d + ") + " + hi + " * " + d + " END END), 1)";
}

}  // namespace

namespace {

// `timestamp`, a wall time in zone `from`, as the wall time in zone `to`; one of them is UTC
// (`to_utc` says which), for the dialects whose functions are one-directional.
std::string ConvertWallTime(const std::string& timestamp, const std::string& from,
                            const std::string& to, bool to_utc, sql::Dialect dialect) {
  switch (dialect) {
    case sql::Dialect::kDuckDb:
    case sql::Dialect::kPostgres:
    case sql::Dialect::kRedshift:
      // TIMESTAMP AT TIME ZONE z is a TIMESTAMPTZ (the wall time read in z), TIMESTAMPTZ AT TIME
      // ZONE z the wall time in z: the first step makes the source zone's reading explicit.
      return "((" + timestamp + " AT TIME ZONE " + from + ") AT TIME ZONE " + to + ")";
    case sql::Dialect::kTrino:
      return "CAST(with_timezone(" + timestamp + ", " + from + ") AT TIME ZONE " + to +
             " AS TIMESTAMP(6))";
    case sql::Dialect::kSnowflake:
      return "CONVERT_TIMEZONE(" + from + ", " + to + ", " + timestamp + ")";
    case sql::Dialect::kDatabricks:
      return to_utc ? "to_utc_timestamp(" + timestamp + ", " + from + ")"
                    : "from_utc_timestamp(" + timestamp + ", " + to + ")";
    case sql::Dialect::kBigQuery:
      return to_utc ? "TIMESTAMP(" + timestamp + ", " + from + ")"
                    : "DATETIME(" + timestamp + ", " + to + ")";
  }
  return timestamp;
}

}  // namespace

std::string LocalWallTime(const std::string& utc_timestamp, const TimeZone& zone,
                          sql::Dialect dialect) {
  return ConvertWallTime(utc_timestamp, sql::QuoteString("UTC", dialect),
                         sql::QuoteString(std::string(zone.name()), dialect), false, dialect);
}

std::string UtcFromWallTime(const std::string& local, const TimeZone& zone, sql::Dialect dialect) {
  return ConvertWallTime(local, sql::QuoteString(std::string(zone.name()), dialect),
                         sql::QuoteString("UTC", dialect), true, dialect);
}

std::string TruncateTime(const std::string& column, TimeGrain grain, int fiscal_start_month,
                         sql::Dialect dialect, const TimeZone& zone) {
  // Trino's TIMESTAMP is TIMESTAMP(3), which would round a microsecond column across a bucket's
  // edge (23:59:59.9996 to the next day); TIMESTAMP(6) is DuckDB's and PostgreSQL's precision.
  const bool trino = dialect == sql::Dialect::kTrino;
  std::string timestamp = "CAST(" + column + (trino ? " AS TIMESTAMP(6))" : " AS TIMESTAMP)");
  // In a zone the buckets are local: truncate the wall-clock time, then read the bucket's start
  // back as the UTC instant it is. UTC keeps the plain form (and its SQL text) unchanged.
  if (!zone.is_utc()) timestamp = LocalWallTime(timestamp, zone, dialect);
  const bool fiscal = grain == TimeGrain::kFiscalQuarter || grain == TimeGrain::kFiscalYear;
  const int shift = fiscal ? fiscal_start_month - 1 : 0;
  std::string truncated;
  if (shift == 0) {
    truncated = fmt::format("date_trunc('{}', {})", TruncUnit(grain), timestamp);
  } else {
    // A fiscal period starting in month m is the calendar period of (t - (m-1) months), moved
    // back. Trino reads only the standard interval literal (INTERVAL '3' MONTH).
    const std::string months = trino ? fmt::format("INTERVAL '{}' MONTH", shift)
                                     : fmt::format("INTERVAL '{} months'", shift);
    truncated = fmt::format("(date_trunc('{}', {} - {}) + {})", TruncUnit(grain), timestamp, months,
                            months);
  }
  return zone.is_utc() ? truncated : UtcFromWallTime(truncated, zone, dialect);
}

Result<std::string> RenderPredicate(const std::string& column, DimensionType type, FilterOp op,
                                    const std::vector<FilterValue>& values, sql::Dialect dialect,
                                    const TimeZone& zone) {
  std::vector<std::string> literals;
  const bool text_op = op == FilterOp::kContains || op == FilterOp::kStartsWith;
  if (text_op && type != DimensionType::kString) {
    return MakeError(ErrorCode::kQueryInvalid,
                     fmt::format("op {} needs a string member, not a {} one", FilterOpName(op),
                                 DimensionTypeName(type)));
  }
  for (const FilterValue& value : values) {
    STRATA_ASSIGN_OR_RETURN(std::string literal,
                            RenderLiteral(value, type, dialect, ErrorCode::kQueryInvalid, zone));
    literals.push_back(std::move(literal));
  }
  std::vector<std::string> parts;
  switch (op) {
    case FilterOp::kEquals:
      return literals.size() == 1 ? column + " = " + literals[0]
                                  : column + " IN (" + JoinLiterals(literals) + ")";
    case FilterOp::kNotEquals:
      return "(" + column +
             (literals.size() == 1 ? " <> " + literals[0]
                                   : " NOT IN (" + JoinLiterals(literals) + ")") +
             " OR " + column + " IS NULL)";
    case FilterOp::kGt:
      return column + " > " + literals.at(0);
    case FilterOp::kGte:
      return column + " >= " + literals.at(0);
    case FilterOp::kLt:
      return column + " < " + literals.at(0);
    case FilterOp::kLte:
      return column + " <= " + literals.at(0);
    case FilterOp::kContains:
      for (const std::string& literal : literals)
        parts.push_back("strpos(" + column + ", " + literal + ") > 0");
      return AnyOf(parts);
    case FilterOp::kStartsWith:
      for (const std::string& literal : literals)
        parts.push_back("starts_with(" + column + ", " + literal + ")");
      return AnyOf(parts);
    case FilterOp::kSet:
      return column + " IS NOT NULL";
    case FilterOp::kNotSet:
      return column + " IS NULL";
  }
  return MakeError(ErrorCode::kInternal, "unknown filter op");
}

Result<std::string> RenderFilterNode(
    const FilterNode& node, const std::function<Result<std::string>(const FilterRequest&)>& leaf) {
  std::vector<std::string> parts;
  for (const FilterNode& item : node.items) {
    STRATA_ASSIGN_OR_RETURN(std::string part, RenderFilterNode(item, leaf));
    parts.push_back(std::move(part));
  }
  std::string_view joiner;
  switch (node.kind) {
    case FilterNode::Kind::kFilter:
      return leaf(node.filter);
    case FilterNode::Kind::kNot:
      // NOT of an unknown (a NULL member) is unknown: the row is not kept, as in SQL.
      return "NOT (" + parts.at(0) + ")";
    case FilterNode::Kind::kAnd:
      joiner = " AND ";
      break;
    case FilterNode::Kind::kOr:
      joiner = " OR ";
      break;
  }
  if (parts.size() == 1) return parts[0];
  std::string out;
  for (const std::string& part : parts) {
    out += (out.empty() ? "(" : std::string(joiner)) + part;
  }
  return out + ")";
}

Result<std::string> RenderDimensionFilter(const DimensionFilter& filter,
                                          const std::vector<std::string>& columns,
                                          sql::Dialect dialect, const TimeZone& zone) {
  return RenderFilterNode(*filter.node, [&](const FilterRequest& request) -> Result<std::string> {
    std::size_t i = 0;
    while (i < filter.targets.size() && filter.targets[i].filter != &request) ++i;
    if (i == filter.targets.size()) {
      return MakeError(ErrorCode::kInternal, "a filter of the group was not resolved");
    }
    Result<std::string> predicate =
        RenderPredicate(columns.at(i), filter.targets[i].dimension->type, request.op,
                        request.values, dialect, zone);
    if (!predicate.ok()) predicate.error().Note("in the filter on " + request.member);
    return predicate;
  });
}

std::string RenderLimitOffset(std::optional<std::int64_t> limit, std::int64_t offset,
                              sql::Dialect dialect) {
  std::string limit_clause = limit ? "\nLIMIT " + std::to_string(*limit) : "";
  if (offset == 0) return limit_clause;
  const std::string offset_clause = "\nOFFSET " + std::to_string(offset);
  switch (dialect) {
    case sql::Dialect::kDuckDb:
    case sql::Dialect::kPostgres:
    case sql::Dialect::kRedshift:
    case sql::Dialect::kDatabricks:
      return limit_clause + offset_clause;
    case sql::Dialect::kTrino:
      // Trino's grammar reads OFFSET before LIMIT only ("LIMIT n OFFSET m" is a syntax error).
      return offset_clause + limit_clause;
    case sql::Dialect::kSnowflake:
      // Snowflake's OFFSET follows a LIMIT; LIMIT NULL is documented as "unlimited".
      return (limit ? limit_clause : "\nLIMIT NULL") + offset_clause;
    case sql::Dialect::kBigQuery:
      // BigQuery's OFFSET follows a LIMIT, which takes no NULL: the largest INT64.
      return (limit ? limit_clause : "\nLIMIT 9223372036854775807") + offset_clause;
  }
  return limit_clause + offset_clause;
}

std::string MeasureInput(const Measure& measure) {
  if (measure.filter.empty()) return measure.sql;
  return "CASE WHEN " + measure.filter + " THEN " + (measure.sql.empty() ? "1" : measure.sql) +
         " END";
}

std::string RenderAggregate(const Measure& measure, const std::string& input,
                            sql::Dialect dialect) {
  switch (measure.agg) {
    case Aggregation::kSum:
      return "SUM(" + input + ")";
    case Aggregation::kCount:
      return input.empty() ? "COUNT(*)" : "COUNT(" + input + ")";
    case Aggregation::kMin:
      return "MIN(" + input + ")";
    case Aggregation::kMax:
      return "MAX(" + input + ")";
    case Aggregation::kAvg:
      // The sum over the count, in DOUBLE PRECISION: what a rollup computes from its stored sum
      // and count, so both answers round alike (DuckDB's AVG of a DECIMAL divides in long
      // double, and PostgreSQL's returns a NUMERIC: each differs from it in the last digits).
      return "(CAST(SUM(" + input + ") AS DOUBLE PRECISION) / NULLIF(COUNT(" + input + "), 0))";
    case Aggregation::kCountDistinct:
      return "COUNT(DISTINCT " + input + ")";
    case Aggregation::kCountDistinctApprox:
      // A placeholder the sketch fills in afterwards (computed locally from the fetched values);
      // an aggregate, so a query without dimensions still answers one row.
      return "MAX(CAST(NULL AS BIGINT))";
    case Aggregation::kMedian:
    case Aggregation::kP90:
    case Aggregation::kP95:
    case Aggregation::kP99: {
      // Interpolated over DOUBLE PRECISION in every dialect: DuckDB's quantile_cont over a
      // DECIMAL rounds to the column's scale, PostgreSQL's percentile_cont reads doubles anyway.
      const std::string fraction = fmt::format("{}", *PercentileOf(measure.agg));
      const std::string value = "CAST(" + input + " AS DOUBLE PRECISION)";
      if (dialect == sql::Dialect::kDuckDb) return "quantile_cont(" + value + ", " + fraction + ")";
      if (dialect == sql::Dialect::kTrino) return TrinoQuantileCont(input, fraction);
      return "percentile_cont(" + fraction + ") WITHIN GROUP (ORDER BY " + value + ")";
    }
  }
  return "NULL";
}

std::string RenderMetric(const MetricExpr& expr,
                         const std::map<std::pair<std::string, std::string>, std::size_t>& index_of,
                         sql::Dialect dialect) {
  switch (expr.kind) {
    case MetricExpr::Kind::kNumber:
      return expr.number;
    case MetricExpr::Kind::kMeasure:
      return Quote("m" + std::to_string(index_of.at({expr.entity, expr.measure})), dialect);
    case MetricExpr::Kind::kNegate:
      return "(-" + RenderMetric(*expr.left, index_of, dialect) + ")";
    case MetricExpr::Kind::kBinary: {
      const std::string left = RenderMetric(*expr.left, index_of, dialect);
      const std::string right = RenderMetric(*expr.right, index_of, dialect);
      if (expr.op == '/') {
        return "(CAST(" + left + " AS DOUBLE PRECISION) / NULLIF(" + right + ", 0))";
      }
      return "(" + left + " " + expr.op + " " + right + ")";
    }
  }
  return "NULL";
}

}  // namespace strata::semantic
