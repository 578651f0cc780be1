#include "analysis/internal/time_order.h"

#include <array>

#include "base/ascii.h"

namespace strata::analysis::internal {
namespace {

using sql::Expr;
using sql::ExprKind;

constexpr std::string_view kStart = "start_date";
constexpr std::string_view kEnd = "end_date";

// True when every boundary of `coarse`'s buckets is a boundary of `fine`'s.
bool Divides(TimeUnit fine, TimeUnit coarse) {
  switch (fine) {
    case TimeUnit::kInstant:
      return true;
    case TimeUnit::kSecond:
    case TimeUnit::kMinute:
    case TimeUnit::kHour:
    case TimeUnit::kDay:
      return coarse >= fine;  // weeks, months, quarters and years start at midnight
    case TimeUnit::kWeek:
      return coarse == TimeUnit::kWeek;
    case TimeUnit::kMonth:
    case TimeUnit::kQuarter:
    case TimeUnit::kYear:
      return coarse >= fine && coarse != TimeUnit::kWeek;
  }
  return false;
}

// Truncating to `a` then `b` (either order) is truncating to the coarser one when one divides
// the other; nullopt otherwise (weeks and months).
std::optional<TimeUnit> Compose(TimeUnit a, TimeUnit b) {
  if (Divides(a, b)) return b;
  if (Divides(b, a)) return a;
  return std::nullopt;
}

std::optional<TimeUnit> ParseUnit(std::string_view name) {
  static constexpr std::array<TimeUnit, 8> kUnits = {
      TimeUnit::kSecond, TimeUnit::kMinute, TimeUnit::kHour,    TimeUnit::kDay,
      TimeUnit::kWeek,   TimeUnit::kMonth,  TimeUnit::kQuarter, TimeUnit::kYear};
  for (const TimeUnit unit : kUnits) {
    if (EqualsIgnoreAsciiCase(name, TimeUnitName(unit))) return unit;
  }
  return std::nullopt;
}

enum class TypeClass { kDate, kTimestamp, kString, kOther };

TypeClass ClassOf(const sql::DataType& type) {
  if (type.words.empty() || !type.array_suffixes.empty()) return TypeClass::kOther;
  const std::string_view first = type.words.front().name;
  if (type.words.size() == 1 && EqualsIgnoreAsciiCase(first, "DATE")) return TypeClass::kDate;
  for (const std::string_view name :
       {"TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIMESTAMP_TZ", "DATETIME",
        "DATETIME2", "SMALLDATETIME", "DATETIMEOFFSET"}) {
    if (EqualsIgnoreAsciiCase(first, name)) return TypeClass::kTimestamp;
  }
  for (const std::string_view name : {"VARCHAR", "TEXT", "STRING", "CHAR", "CHARACTER", "NVARCHAR",
                                      "NCHAR", "BPCHAR", "NTEXT", "CLOB"}) {
    if (EqualsIgnoreAsciiCase(first, name)) return TypeClass::kString;
  }
  return TypeClass::kOther;
}

bool NameIs(const sql::FunctionCall& call, std::string_view name) {
  return call.name.size() == 1 && EqualsIgnoreAsciiCase(call.name.front().name, name);
}

// Functions whose result does not keep the order of a time argument, or is no time: parts of a
// date and strings.
bool IsNonMonotoneFunction(const sql::FunctionCall& call) {
  static constexpr std::string_view kNames[] = {"EXTRACT",
                                                "DATE_PART",
                                                "DATEPART",
                                                "HOUR",
                                                "MINUTE",
                                                "SECOND",
                                                "DAY",
                                                "DAYOFWEEK",
                                                "DAYOFMONTH",
                                                "DAYOFYEAR",
                                                "DAYNAME",
                                                "DOW",
                                                "ISODOW",
                                                "WEEK",
                                                "WEEKDAY",
                                                "WEEKOFYEAR",
                                                "YEARWEEK",
                                                "ISOYEAR",
                                                "MONTH",
                                                "MONTHNAME",
                                                "QUARTER",
                                                "YEAR",
                                                "SUBSTR",
                                                "SUBSTRING",
                                                "LEFT",
                                                "RIGHT",
                                                "CONCAT",
                                                "CONCAT_WS",
                                                "LOWER",
                                                "UPPER",
                                                "LCASE",
                                                "UCASE",
                                                "TRIM",
                                                "LTRIM",
                                                "RTRIM",
                                                "REPLACE",
                                                "LPAD",
                                                "RPAD",
                                                "REVERSE",
                                                "STRFTIME",
                                                "TO_CHAR",
                                                "TO_VARCHAR",
                                                "DATE_FORMAT",
                                                "FORMAT",
                                                "FORMAT_DATE",
                                                "FORMAT_TIMESTAMP",
                                                "FORMAT_DATETIME",
                                                "PRINTF",
                                                "MD5",
                                                "HASH",
                                                "STRING"};
  if (call.name.size() != 1) return false;
  for (const std::string_view name : kNames) {
    if (EqualsIgnoreAsciiCase(call.name.front().name, name)) return true;
  }
  return false;
}

bool AnyReadsColumn(const sql::NodeVector<sql::ExprPtr>& list);

// True when `expr` reads a column outside any subquery.
bool ReadsColumn(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kColumn:
      return true;
    case ExprKind::kNested:
      return ReadsColumn(*expr.As<sql::Nested>().inner);
    case ExprKind::kCast:
      return ReadsColumn(*expr.As<sql::Cast>().value);
    case ExprKind::kUnary:
      return ReadsColumn(*expr.As<sql::Unary>().operand);
    case ExprKind::kBinary: {
      const auto& binary = expr.As<sql::Binary>();
      return ReadsColumn(*binary.left) || ReadsColumn(*binary.right);
    }
    case ExprKind::kFunction:
      return AnyReadsColumn(expr.As<sql::FunctionCall>().args);
    case ExprKind::kKeywordFunction:
      for (const auto& part : expr.As<sql::KeywordFunction>().parts) {
        if (part.second && ReadsColumn(*part.second)) return true;
      }
      return false;
    case ExprKind::kSubscript:
      return ReadsColumn(*expr.As<sql::Subscript>().value);
    case ExprKind::kField:
      return ReadsColumn(*expr.As<sql::FieldAccess>().value);
    case ExprKind::kJsonPath:
      return ReadsColumn(*expr.As<sql::JsonPath>().value);
    case ExprKind::kAtTimeZone:
      return ReadsColumn(*expr.As<sql::AtTimeZone>().value);
    case ExprKind::kCollate:
      return ReadsColumn(*expr.As<sql::Collate>().value);
    case ExprKind::kNamedArgument:
      return ReadsColumn(*expr.As<sql::NamedArgument>().value);
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kStar:
    case ExprKind::kLike:
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kIs:
    case ExprKind::kIsDistinct:
    case ExprKind::kQuantified:
    case ExprKind::kExists:
    case ExprKind::kSubquery:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kGrouping:
      break;
  }
  return false;
}

bool AnyReadsColumn(const sql::NodeVector<sql::ExprPtr>& list) {
  for (const sql::ExprPtr& item : list) {
    if (ReadsColumn(*item)) return true;
  }
  return false;
}

ColumnSide Shaped(ColumnShape shape) { return ColumnSide{shape, TimeUnit::kInstant, {}}; }

// `inner` truncated to `unit` (kInstant: kept as is).
ColumnSide Truncated(ColumnSide inner, TimeUnit unit) {
  if (inner.shape != ColumnShape::kTime) {
    return Shaped(inner.shape == ColumnShape::kNone ? ColumnShape::kNone : ColumnShape::kOpaque);
  }
  const std::optional<TimeUnit> composed = Compose(inner.unit, unit);
  if (!composed) return Shaped(ColumnShape::kOpaque);
  inner.unit = *composed;
  return inner;
}

ColumnSide OfCast(const sql::Cast& cast) {
  const ColumnSide inner = ClassifyColumnSide(*cast.value);
  switch (ClassOf(cast.type)) {
    case TypeClass::kDate:
      return Truncated(inner, TimeUnit::kDay);
    case TypeClass::kTimestamp:
      return Truncated(inner, TimeUnit::kInstant);
    case TypeClass::kString:
      return Shaped(inner.shape == ColumnShape::kNone ? ColumnShape::kNone
                                                      : ColumnShape::kNonMonotone);
    case TypeClass::kOther:
      return Shaped(inner.shape == ColumnShape::kNone ? ColumnShape::kNone : ColumnShape::kOpaque);
  }
  return Shaped(ColumnShape::kOpaque);
}

// The unit of DATE_TRUNC('unit', x): nullopt for another call, a unit that is not a string
// literal, or an unknown unit.
std::optional<TimeUnit> TruncationUnit(const sql::FunctionCall& call) {
  if (!NameIs(call, "DATE_TRUNC") || call.args.size() != 2 || call.over || call.over_name) {
    return std::nullopt;
  }
  const Expr& unit = *call.args.front();
  if (unit.kind != ExprKind::kLiteral) return std::nullopt;
  const auto& literal = unit.As<sql::Literal>();
  const std::string_view text = literal.text;
  if (literal.literal_kind != sql::LiteralKind::kString || text.size() < 2 ||
      text.front() != '\'' || text.back() != '\'') {
    return std::nullopt;
  }
  return ParseUnit(text.substr(1, text.size() - 2));
}

// DATE(x) (one argument, as in DuckDB, PostgreSQL casts, BigQuery, Databricks, Snowflake).
bool IsDateCall(const sql::FunctionCall& call) {
  return NameIs(call, "DATE") && call.args.size() == 1 && !call.over && !call.over_name;
}

ColumnSide OfFunction(const sql::FunctionCall& call) {
  if (IsDateCall(call)) return Truncated(ClassifyColumnSide(*call.args.front()), TimeUnit::kDay);
  if (const std::optional<TimeUnit> unit = TruncationUnit(call)) {
    return Truncated(ClassifyColumnSide(*call.args.back()), *unit);
  }
  if (!AnyReadsColumn(call.args)) return Shaped(ColumnShape::kNone);
  return Shaped(IsNonMonotoneFunction(call) ? ColumnShape::kNonMonotone : ColumnShape::kOpaque);
}

// `x + c` and `x - c` (c reads no column) shift the time; other arithmetic does not keep it.
ColumnSide OfBinary(const sql::Binary& binary) {
  const bool left = ReadsColumn(*binary.left);
  const bool right = ReadsColumn(*binary.right);
  if (!left && !right) return Shaped(ColumnShape::kNone);
  const bool shift = (binary.op == sql::BinaryOp::kAdd && left != right) ||
                     (binary.op == sql::BinaryOp::kSubtract && left && !right);
  return Shaped(shift ? ColumnShape::kOpaque : ColumnShape::kNonMonotone);
}

ColumnSide OfUnary(const sql::Unary& unary) {
  if (unary.op == sql::UnaryOp::kPlus) return ClassifyColumnSide(*unary.operand);
  return Shaped(ReadsColumn(*unary.operand) ? ColumnShape::kNonMonotone : ColumnShape::kNone);
}

}  // namespace

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kInstant:
      return "instant";
    case TimeUnit::kSecond:
      return "second";
    case TimeUnit::kMinute:
      return "minute";
    case TimeUnit::kHour:
      return "hour";
    case TimeUnit::kDay:
      return "day";
    case TimeUnit::kWeek:
      return "week";
    case TimeUnit::kMonth:
      return "month";
    case TimeUnit::kQuarter:
      return "quarter";
    case TimeUnit::kYear:
      return "year";
  }
  return "instant";
}

bool IsExactFor(TimeUnit unit, Grain grain) {
  switch (grain) {
    case Grain::kHour:
      return Divides(unit, TimeUnit::kHour);
    case Grain::kDay:
      return Divides(unit, TimeUnit::kDay);
    case Grain::kMonth:
      return Divides(unit, TimeUnit::kMonth);
    case Grain::kYear:
      return Divides(unit, TimeUnit::kYear);
  }
  return false;
}

ColumnName NameOf(const sql::ColumnRef& column) {
  ColumnName name;
  for (std::size_t i = 0; i + 1 < column.parts.size(); ++i) {
    name.qualifier.push_back(column.parts[i].name);
  }
  if (!column.parts.empty()) name.name = column.parts.back().name;
  return name;
}

ColumnSide ClassifyColumnSide(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kColumn:
      return ColumnSide{ColumnShape::kTime, TimeUnit::kInstant, NameOf(expr.As<sql::ColumnRef>())};
    case ExprKind::kNested:
      return ClassifyColumnSide(*expr.As<sql::Nested>().inner);
    case ExprKind::kCast:
      return OfCast(expr.As<sql::Cast>());
    case ExprKind::kFunction:
      return OfFunction(expr.As<sql::FunctionCall>());
    case ExprKind::kBinary:
      return OfBinary(expr.As<sql::Binary>());
    case ExprKind::kUnary:
      return OfUnary(expr.As<sql::Unary>());
    case ExprKind::kKeywordFunction:
      // EXTRACT(part FROM x), SUBSTRING(s FROM ...), TRIM(...), POSITION(...): no time order.
      return Shaped(ReadsColumn(expr) ? ColumnShape::kNonMonotone : ColumnShape::kNone);
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kStar:
    case ExprKind::kLike:
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kIs:
    case ExprKind::kIsDistinct:
    case ExprKind::kQuantified:
    case ExprKind::kExists:
    case ExprKind::kSubquery:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kNamedArgument:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
    case ExprKind::kGrouping:
      break;
  }
  return Shaped(ReadsColumn(expr) ? ColumnShape::kOpaque : ColumnShape::kNone);
}

std::optional<PlaceholderSide> ClassifyPlaceholderSide(const Expr& expr) {
  std::optional<PlaceholderSide> inner;
  TimeUnit unit = TimeUnit::kInstant;
  switch (expr.kind) {
    case ExprKind::kPlaceholder: {
      const std::string_view name = expr.As<sql::Placeholder>().name;
      if (name == kStart) return PlaceholderSide{WindowEdge::kStart, TimeUnit::kInstant};
      if (name == kEnd) return PlaceholderSide{WindowEdge::kEnd, TimeUnit::kInstant};
      return std::nullopt;
    }
    case ExprKind::kNested:
      return ClassifyPlaceholderSide(*expr.As<sql::Nested>().inner);
    case ExprKind::kCast: {
      const auto& cast = expr.As<sql::Cast>();
      inner = ClassifyPlaceholderSide(*cast.value);
      if (ClassOf(cast.type) == TypeClass::kDate) unit = TimeUnit::kDay;
      break;
    }
    case ExprKind::kFunction: {
      const auto& call = expr.As<sql::FunctionCall>();
      const std::optional<TimeUnit> truncation = TruncationUnit(call);
      if (!IsDateCall(call) && !truncation) return std::nullopt;
      inner = ClassifyPlaceholderSide(*call.args.back());
      unit = truncation.value_or(TimeUnit::kDay);
      break;
    }
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kParameter:
    case ExprKind::kColumn:
    case ExprKind::kStar:
    case ExprKind::kUnary:
    case ExprKind::kBinary:
    case ExprKind::kLike:
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kIs:
    case ExprKind::kIsDistinct:
    case ExprKind::kQuantified:
    case ExprKind::kExists:
    case ExprKind::kSubquery:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kNamedArgument:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
    case ExprKind::kGrouping:
      return std::nullopt;
  }
  if (!inner) return std::nullopt;
  const std::optional<TimeUnit> composed = Compose(inner->unit, unit);
  if (!composed) return std::nullopt;
  inner->unit = *composed;
  return inner;
}

}  // namespace strata::analysis::internal
