#include "analysis/internal/filter_bounds.h"

#include <string_view>

namespace strata::analysis::internal {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ExprKind;

constexpr std::string_view kStart = "start_date";
constexpr std::string_view kEnd = "end_date";

// True when `expr` is the placeholder `name`, possibly in parentheses and casts.
bool IsPlaceholder(const Expr& expr, std::string_view name) {
  switch (expr.kind) {
    case ExprKind::kPlaceholder:
      return expr.As<sql::Placeholder>().name == name;
    case ExprKind::kNested:
      return IsPlaceholder(*expr.As<sql::Nested>().inner, name);
    case ExprKind::kCast:
      return IsPlaceholder(*expr.As<sql::Cast>().value, name);
    default:
      return false;
  }
}

bool AnyReadsColumn(const std::vector<sql::ExprPtr>& list);

// True when `expr` reads a column outside any subquery (x in `x >= @start_date`).
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
    default:
      return false;
  }
}

bool AnyReadsColumn(const std::vector<sql::ExprPtr>& list) {
  for (const sql::ExprPtr& item : list) {
    if (ReadsColumn(*item)) return true;
  }
  return false;
}

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
    default:
      return op;
  }
}

// `column op placeholder`, after mirroring when the placeholder is on the left.
FilterBounds ComparisonBounds(const sql::Binary& binary) {
  FilterBounds bounds;
  const Expr* column = binary.left.get();
  const Expr* placeholder = binary.right.get();
  BinaryOp op = binary.op;
  if (IsPlaceholder(*column, kStart) || IsPlaceholder(*column, kEnd)) {
    std::swap(column, placeholder);
    op = Mirror(op);
  }
  if (!ReadsColumn(*column)) return bounds;
  if (IsPlaceholder(*placeholder, kStart)) {
    bounds.start = op == BinaryOp::kGreaterEq || op == BinaryOp::kGreater || op == BinaryOp::kEq;
    bounds.end = op == BinaryOp::kEq;
  } else if (IsPlaceholder(*placeholder, kEnd)) {
    bounds.end = op == BinaryOp::kLess || op == BinaryOp::kLessEq;
  }
  return bounds;
}

FilterBounds BetweenBounds(const sql::Between& between, std::vector<sql::Span>* inclusive_ends) {
  FilterBounds bounds;
  if (between.negated || between.symmetric || !ReadsColumn(*between.value)) return bounds;
  bounds.start = IsPlaceholder(*between.low, kStart);
  bounds.end = IsPlaceholder(*between.high, kEnd);
  if (bounds.start && bounds.end) inclusive_ends->push_back(between.span);
  return bounds;
}

}  // namespace

FilterBounds BoundsOf(const Expr& filter, std::vector<sql::Span>* inclusive_ends) {
  switch (filter.kind) {
    case ExprKind::kNested:
      return BoundsOf(*filter.As<sql::Nested>().inner, inclusive_ends);
    case ExprKind::kBetween:
      return BetweenBounds(filter.As<sql::Between>(), inclusive_ends);
    case ExprKind::kBinary: {
      const auto& binary = filter.As<sql::Binary>();
      if (binary.op == BinaryOp::kAnd || binary.op == BinaryOp::kOr) {
        const FilterBounds left = BoundsOf(*binary.left, inclusive_ends);
        const FilterBounds right = BoundsOf(*binary.right, inclusive_ends);
        if (binary.op == BinaryOp::kAnd) return {left.start || right.start, left.end || right.end};
        return {left.start && right.start, left.end && right.end};
      }
      return ComparisonBounds(binary);
    }
    default:
      return {};
  }
}

}  // namespace strata::analysis::internal
