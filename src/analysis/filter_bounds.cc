#include "analysis/internal/filter_bounds.h"

#include "analysis/internal/column_bounds.h"
#include "base/ascii.h"

namespace strata::analysis::internal {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ExprKind;

// The comparison written with the placeholder on the right: `@start_date <= x` is `x >= ...`.
BinaryOp Mirror(BinaryOp op) {
  switch (op) {
    case BinaryOp::kLess:
      return BinaryOp::kGreater;
    case BinaryOp::kLessEq:
      return BinaryOp::kGreaterEq;
    case BinaryOp::kGreater:
      return BinaryOp::kLess;
    case BinaryOp::kGreaterEq:
      return BinaryOp::kLessEq;
    case BinaryOp::kOr:
    case BinaryOp::kAnd:
    case BinaryOp::kEq:
    case BinaryOp::kNotEq:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kIntegerDivide:
    case BinaryOp::kModulo:
    case BinaryOp::kPower:
    case BinaryOp::kConcat:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kShiftLeft:
    case BinaryOp::kShiftRight:
    case BinaryOp::kArrow:
    case BinaryOp::kLongArrow:
    case BinaryOp::kHashArrow:
    case BinaryOp::kHashLongArrow:
    case BinaryOp::kContains:
    case BinaryOp::kOverlaps:
    case BinaryOp::kTextMatch:
    case BinaryOp::kRegexMatch:
    case BinaryOp::kRegexNotMatch:
    case BinaryOp::kRegexIMatch:
    case BinaryOp::kRegexNotIMatch:
      break;
  }
  return op;
}

bool IsCoarse(TimeUnit unit, const FilterContext& context) {
  return context.grain && !IsExactFor(unit, *context.grain);
}

// One bounding comparison `column op placeholder`, with the column side truncated to `a` and
// the placeholder side to `b` (at least one of them kInstant, or both the same unit).
struct Comparison {
  BinaryOp op;
  TimeUnit a;
  TimeUnit b;
  WindowEdge edge;
};

// What the comparison bounds. With a truncation T, T(col) >= T(@start_date) gives
// col >= T(@start_date) and T(col) < T(@end_date) gives col < T(@end_date): exact when T keeps
// the window's boundaries (IsExactFor), else looser at the start and tighter at the end.
// T(col) < @end_date gives col < ceil_T(@end_date) (looser when T is coarse) and
// T(col) >= @start_date gives col >= ceil_T(@start_date) (tighter). T(col) <= x lets a whole
// T-bucket from x on through, so it bounds nothing; T(col) = T(@start_date) keeps one T-bucket.
FilterBounds Evaluate(const Comparison& c, const FilterContext& context,
                      std::optional<Looseness>* looseness) {
  const bool coarse_a = IsCoarse(c.a, context);
  const bool coarse_b = IsCoarse(c.b, context);
  FilterBounds bounds;
  bool looser = false;
  bool tighter = false;
  if (c.edge == WindowEdge::kStart) {
    if (c.op != BinaryOp::kGreaterEq && c.op != BinaryOp::kGreater && c.op != BinaryOp::kEq) {
      return bounds;
    }
    bounds.start = true;
    looser = coarse_b;
    tighter = coarse_a && c.b == TimeUnit::kInstant;
    if (c.op == BinaryOp::kEq) {
      bounds.end = true;
      looser = looser || coarse_a;
    }
  } else if (c.op == BinaryOp::kLess || (c.op == BinaryOp::kLessEq && c.a == TimeUnit::kInstant)) {
    bounds.end = true;
    looser = coarse_a && c.b == TimeUnit::kInstant;
    tighter = coarse_b;
  }
  if (looser) {
    *looseness = Looseness::kLooser;
  } else if (tighter) {
    *looseness = Looseness::kTighter;
  }
  return bounds;
}

// `column op placeholder` where `column` is classified as `side`; records a CoarseBound at
// `span` when the comparison counts and truncates coarser than the grain.
FilterBounds SideBounds(const ColumnSide& side, BinaryOp op, const PlaceholderSide& placeholder,
                        sql::Span span, const FilterContext& context, const ColumnTarget* target) {
  if (side.shape == ColumnShape::kNone || side.shape == ColumnShape::kNonMonotone) return {};
  if (target != nullptr && (side.shape != ColumnShape::kTime || !target->Matches(*side.column))) {
    return {};
  }
  const TimeUnit a = side.shape == ColumnShape::kTime ? side.unit : TimeUnit::kInstant;
  const TimeUnit b = placeholder.unit;
  // Different truncations on the two sides are not proven (only the same one, or one side bare).
  if (a != TimeUnit::kInstant && b != TimeUnit::kInstant && a != b) return {};
  std::optional<Looseness> looseness;
  const FilterBounds bounds = Evaluate({op, a, b, placeholder.edge}, context, &looseness);
  if (looseness) {
    const TimeUnit coarse = IsCoarse(b, context) ? b : a;
    context.findings->coarse_bounds.push_back({span, placeholder.edge, coarse, *looseness});
  }
  return bounds;
}

FilterBounds ComparisonBounds(const sql::Binary& binary, const FilterContext& context,
                              const ColumnTarget* target) {
  const Expr* column = binary.left.get();
  BinaryOp op = binary.op;
  std::optional<PlaceholderSide> placeholder = ClassifyPlaceholderSide(*binary.right);
  if (const std::optional<PlaceholderSide> left = ClassifyPlaceholderSide(*binary.left)) {
    placeholder = left;
    column = binary.right.get();
    op = Mirror(op);
  }
  if (!placeholder) return {};
  const FilterBounds bounds =
      SideBounds(ClassifyColumnSide(*column), op, *placeholder, binary.span, context, target);
  if (bounds.end && op == BinaryOp::kLessEq && placeholder->edge == WindowEdge::kEnd) {
    context.findings->inclusive_compares.push_back(binary.span);
  }
  return bounds;
}

FilterBounds BetweenBounds(const sql::Between& between, const FilterContext& context,
                           const ColumnTarget* target) {
  FilterBounds bounds;
  if (between.negated || between.symmetric) return bounds;
  const ColumnSide side = ClassifyColumnSide(*between.value);
  const std::optional<PlaceholderSide> low = ClassifyPlaceholderSide(*between.low);
  const std::optional<PlaceholderSide> high = ClassifyPlaceholderSide(*between.high);
  if (low && low->edge == WindowEdge::kStart) {
    bounds.start =
        SideBounds(side, BinaryOp::kGreaterEq, *low, between.span, context, target).start;
  }
  if (high && high->edge == WindowEdge::kEnd) {
    bounds.end = SideBounds(side, BinaryOp::kLessEq, *high, between.span, context, target).end;
  }
  if (bounds.start && bounds.end) context.findings->inclusive_ends.push_back(between.span);
  return bounds;
}

// The outer rows of `x IN (...)` or of an EXISTS correlated on x are bounded as by
// `x >= @start_date` / `x < @end_date` for each bound the subquery's column carries.
FilterBounds MatchedBounds(const ColumnSide& side, FilterBounds carried, sql::Span span,
                           const FilterContext& context, const ColumnTarget* target) {
  FilterBounds bounds;
  if (carried.start) {
    bounds.start = SideBounds(side, BinaryOp::kGreaterEq, {WindowEdge::kStart, TimeUnit::kInstant},
                              span, context, target)
                       .start;
  }
  if (carried.end) {
    bounds.end = SideBounds(side, BinaryOp::kLess, {WindowEdge::kEnd, TimeUnit::kInstant}, span,
                            context, target)
                     .end;
  }
  return bounds;
}

FilterBounds InBounds(const sql::InSubquery& in, const FilterContext& context,
                      const ColumnTarget* target) {
  if (in.negated) return {};
  const ColumnSide side = ClassifyColumnSide(*in.value);
  if (side.shape == ColumnShape::kNone || side.shape == ColumnShape::kNonMonotone) return {};
  return MatchedBounds(side, InSubqueryColumnBounds(*in.query, context), in.span, context, target);
}

FilterBounds ExistsBounds(const sql::Exists& exists, const FilterContext& context,
                          const ColumnTarget* target) {
  FilterBounds bounds;
  for (const Correlation& correlation : ExistsCorrelations(*exists.query, context)) {
    const ColumnSide side{ColumnShape::kTime, TimeUnit::kInstant, correlation.outer};
    const FilterBounds matched =
        MatchedBounds(side, correlation.bounds, exists.span, context, target);
    bounds.start = bounds.start || matched.start;
    bounds.end = bounds.end || matched.end;
  }
  return bounds;
}

}  // namespace

bool ColumnTarget::Matches(const ColumnName& other) const {
  if (!EqualsIgnoreAsciiCase(column.name, other.name)) return false;
  if (column.qualifier.empty() || other.qualifier.empty()) {
    return single_relation || column.qualifier.size() == other.qualifier.size();
  }
  return EqualsIgnoreAsciiCase(column.qualifier.back(), other.qualifier.back());
}

FilterBounds BoundsOf(const Expr& filter, const FilterContext& context,
                      const ColumnTarget* target) {
  switch (filter.kind) {
    case ExprKind::kNested:
      return BoundsOf(*filter.As<sql::Nested>().inner, context, target);
    case ExprKind::kBetween:
      return BetweenBounds(filter.As<sql::Between>(), context, target);
    case ExprKind::kInSubquery:
      return InBounds(filter.As<sql::InSubquery>(), context, target);
    case ExprKind::kExists:
      return ExistsBounds(filter.As<sql::Exists>(), context, target);
    case ExprKind::kBinary: {
      const auto& binary = filter.As<sql::Binary>();
      if (binary.op == BinaryOp::kAnd || binary.op == BinaryOp::kOr) {
        const FilterBounds left = BoundsOf(*binary.left, context, target);
        const FilterBounds right = BoundsOf(*binary.right, context, target);
        if (binary.op == BinaryOp::kAnd) return {left.start || right.start, left.end || right.end};
        return {left.start && right.start, left.end && right.end};
      }
      return ComparisonBounds(binary, context, target);
    }
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kColumn:
    case ExprKind::kStar:
    case ExprKind::kUnary:
    case ExprKind::kLike:
    case ExprKind::kInList:
    case ExprKind::kIs:
    case ExprKind::kIsDistinct:
    case ExprKind::kQuantified:
    case ExprKind::kSubquery:
    case ExprKind::kFunction:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCast:
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
  return {};
}

}  // namespace strata::analysis::internal
