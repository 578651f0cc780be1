// Types and nullability of expressions in one SELECT's scope (rules: output_columns.h).
#include <algorithm>
#include <array>
#include <initializer_list>

#include "analysis/internal/output_scope.h"

namespace strata::analysis::internal {
namespace {

using sql::ExprKind;

// NULL in, NULL out: nullable when any input is, not null when all are.
Nullability Strict(std::initializer_list<Nullability> inputs) {
  bool all_not_null = true;
  for (Nullability input : inputs) {
    if (input == Nullability::kNullable) return Nullability::kNullable;
    if (input != Nullability::kNotNull) all_not_null = false;
  }
  return all_not_null ? Nullability::kNotNull : Nullability::kUnknown;
}

std::string FunctionName(const sql::FunctionCall& call) {
  return call.name.empty() ? std::string() : Lower(call.name.back().name);
}

bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A string literal's value without quotes (no escapes: part names have none).
std::optional<std::string> StringLiteral(const sql::Expr& expression) {
  if (expression.kind != ExprKind::kLiteral) return std::nullopt;
  const auto& literal = expression.As<sql::Literal>();
  if (literal.literal_kind != sql::LiteralKind::kString || literal.text.size() < 2)
    return std::nullopt;
  if (literal.text.front() != '\'' || literal.text.back() != '\'') return std::nullopt;
  return Lower(literal.text.substr(1, literal.text.size() - 2));
}

// DuckDB 1.4.4: parts of a day or coarser truncate to DATE.
bool IsDatePart(std::string_view part) {
  return OneOf(
      part,
      {"day",        "days",      "d",          "dayofmonth", "week",    "weeks",   "w",
       "weekofyear", "yearweek",  "month",      "months",     "mon",     "quarter", "quarters",
       "year",       "years",     "y",          "yr",         "yrs",     "decade",  "decades",
       "century",    "centuries", "millennium", "millennia",  "isoyear", "dow",     "dayofweek",
       "weekday",    "isodow",    "doy",        "dayofyear",  "julian",  "jd"});
}

Inferred DateTrunc(const sql::FunctionCall& call, const Scope& scope) {
  if (call.args.size() != 2) return {};
  const bool value_first = scope.dialect == sql::Dialect::kBigQuery;
  const Inferred value = InferExpression(*call.args[value_first ? 0 : 1], scope);
  Inferred out{ValueType::kUnknown, value.nullability};
  if (!IsTemporal(value.type)) return out;
  switch (scope.dialect) {
    case sql::Dialect::kDuckDb: {
      if (value.type == ValueType::kTimestampTz) {
        out.type = value.type;
      } else {
        const std::optional<std::string> part = StringLiteral(*call.args[0]);
        out.type = part && IsDatePart(*part) ? ValueType::kDate : ValueType::kTimestamp;
      }
      break;
    }
    case sql::Dialect::kPostgres:
    case sql::Dialect::kRedshift:
    case sql::Dialect::kDatabricks:
      out.type = value.type == ValueType::kDate ? ValueType::kTimestamp : value.type;
      break;
    case sql::Dialect::kSnowflake:
    case sql::Dialect::kBigQuery:
    case sql::Dialect::kTrino:
      out.type = value.type;
      break;
  }
  return out;
}

Inferred FirstArgument(const sql::FunctionCall& call, const Scope& scope) {
  return call.args.empty() ? Inferred{} : InferExpression(*call.args[0], scope);
}

Inferred Window(const sql::FunctionCall& call, const std::string& name, const Scope& scope) {
  if (OneOf(name, {"count", "count_star", "row_number", "rank", "dense_rank", "ntile"})) {
    return {ValueType::kInteger, Nullability::kNotNull};
  }
  if (!OneOf(name,
             {"min", "max", "sum", "first_value", "last_value", "lag", "lead", "any_value"})) {
    return {};
  }
  Inferred argument = FirstArgument(call, scope);
  const bool edge_null = OneOf(name, {"lag", "lead"}) && call.args.size() < 3;
  if (argument.nullability != Nullability::kNullable) {
    argument.nullability = edge_null ? Nullability::kNullable : Nullability::kUnknown;
  }
  return argument;
}

Inferred Coalesce(const sql::FunctionCall& call, const Scope& scope) {
  Inferred out{ValueType::kUnknown, Nullability::kNullable};
  for (const sql::ExprPtr& argument : call.args) {
    const Inferred inferred = InferExpression(*argument, scope);
    if (out.type == ValueType::kUnknown) out.type = inferred.type;
    if (inferred.nullability == Nullability::kNotNull) out.nullability = Nullability::kNotNull;
    if (inferred.nullability == Nullability::kUnknown &&
        out.nullability == Nullability::kNullable) {
      out.nullability = Nullability::kUnknown;
    }
  }
  return out;
}

Inferred Function(const sql::FunctionCall& call, const Scope& scope) {
  const std::string name = FunctionName(call);
  if (call.over || call.over_name) return Window(call, name, scope);
  if (name == "count" || name == "count_star") return {ValueType::kInteger, Nullability::kNotNull};
  if (OneOf(name,
            {"sum", "min", "max", "any_value", "first", "last", "arbitrary", "avg", "mean"})) {
    Inferred argument = FirstArgument(call, scope);
    if (name == "avg" || name == "mean") argument.type = ValueType::kDouble;
    // A group has rows; a global aggregate or a FILTER may see none and return NULL.
    if (!scope.grouped || call.filter) argument.nullability = Nullability::kNullable;
    return argument;
  }
  if (name == "date_trunc" || name == "datetrunc") return DateTrunc(call, scope);
  if (name == "date" && call.args.size() == 1) {
    return {ValueType::kDate, InferExpression(*call.args[0], scope).nullability};
  }
  if (name == "time_bucket" && call.args.size() >= 2) {
    const Inferred value = InferExpression(*call.args[1], scope);
    return {value.type, value.nullability};
  }
  if (OneOf(name, {"coalesce", "ifnull", "nvl"})) return Coalesce(call, scope);
  return {};
}

Inferred Arithmetic(const sql::Binary& binary, const Scope& scope) {
  const Inferred left = InferExpression(*binary.left, scope);
  const Inferred right = InferExpression(*binary.right, scope);
  Inferred out{ValueType::kUnknown, Strict({left.nullability, right.nullability})};
  // DuckDB returns NULL for a division by zero.
  if ((binary.op == sql::BinaryOp::kDivide || binary.op == sql::BinaryOp::kIntegerDivide ||
       binary.op == sql::BinaryOp::kModulo) &&
      out.nullability == Nullability::kNotNull) {
    out.nullability = Nullability::kUnknown;
  }
  const bool shift = binary.op == sql::BinaryOp::kAdd || binary.op == sql::BinaryOp::kSubtract;
  if (shift && IsTemporal(left.type)) {
    if (binary.right->kind == ExprKind::kInterval) {
      out.type = left.type == ValueType::kDate ? ValueType::kTimestamp : left.type;
    } else if (left.type == ValueType::kDate && right.type == ValueType::kInteger) {
      out.type = ValueType::kDate;
    }
  } else if (binary.op == sql::BinaryOp::kConcat) {
    out.type = ValueType::kString;
  } else if (left.type == right.type &&
             (left.type == ValueType::kInteger || left.type == ValueType::kDouble ||
              left.type == ValueType::kDecimal) &&
             binary.op != sql::BinaryOp::kDivide) {
    out.type = left.type;
  }
  return out;
}

Inferred BinaryExpression(const sql::Binary& binary, const Scope& scope) {
  switch (binary.op) {
    case sql::BinaryOp::kOr:
    case sql::BinaryOp::kAnd: {
      const Nullability both = Strict({InferExpression(*binary.left, scope).nullability,
                                       InferExpression(*binary.right, scope).nullability});
      return {ValueType::kBoolean,
              both == Nullability::kNotNull ? Nullability::kNotNull : Nullability::kUnknown};
    }
    case sql::BinaryOp::kEq:
    case sql::BinaryOp::kNotEq:
    case sql::BinaryOp::kLess:
    case sql::BinaryOp::kLessEq:
    case sql::BinaryOp::kGreater:
    case sql::BinaryOp::kGreaterEq:
      return {ValueType::kBoolean, Strict({InferExpression(*binary.left, scope).nullability,
                                           InferExpression(*binary.right, scope).nullability})};
    case sql::BinaryOp::kNullSafeEq:
      return {ValueType::kBoolean, Nullability::kNotNull};
    case sql::BinaryOp::kAdd:
    case sql::BinaryOp::kSubtract:
    case sql::BinaryOp::kMultiply:
    case sql::BinaryOp::kDivide:
    case sql::BinaryOp::kIntegerDivide:
    case sql::BinaryOp::kModulo:
    case sql::BinaryOp::kPower:
    case sql::BinaryOp::kConcat:
      return Arithmetic(binary, scope);
    case sql::BinaryOp::kBitAnd:
    case sql::BinaryOp::kBitOr:
    case sql::BinaryOp::kBitXor:
    case sql::BinaryOp::kShiftLeft:
    case sql::BinaryOp::kShiftRight:
    case sql::BinaryOp::kArrow:
    case sql::BinaryOp::kLongArrow:
    case sql::BinaryOp::kHashArrow:
    case sql::BinaryOp::kHashLongArrow:
    case sql::BinaryOp::kContains:
    case sql::BinaryOp::kOverlaps:
    case sql::BinaryOp::kTextMatch:
    case sql::BinaryOp::kRegexMatch:
    case sql::BinaryOp::kRegexNotMatch:
    case sql::BinaryOp::kRegexIMatch:
    case sql::BinaryOp::kRegexNotIMatch:
      return {};
  }
  return {};
}

Inferred CaseExpression(const sql::Case& expression, const Scope& scope) {
  std::vector<const sql::Expr*> results;
  for (const auto& when : expression.whens) results.push_back(when.second.get());
  if (expression.else_result) results.push_back(expression.else_result.get());
  Inferred out{ValueType::kUnknown,
               expression.else_result ? Nullability::kNotNull : Nullability::kNullable};
  bool first = true;
  for (const sql::Expr* result : results) {
    const Inferred inferred = InferExpression(*result, scope);
    out.type = first || out.type == inferred.type ? inferred.type : ValueType::kUnknown;
    first = false;
    if (inferred.nullability == Nullability::kNullable) out.nullability = Nullability::kNullable;
    if (inferred.nullability == Nullability::kUnknown && out.nullability == Nullability::kNotNull) {
      out.nullability = Nullability::kUnknown;
    }
  }
  return out;
}

Inferred LiteralValue(const sql::Literal& literal) {
  switch (literal.literal_kind) {
    case sql::LiteralKind::kNumber: {
      const bool fraction = literal.text.find_first_of(".eE") != std::string_view::npos;
      return {fraction ? ValueType::kDecimal : ValueType::kInteger, Nullability::kNotNull};
    }
    case sql::LiteralKind::kString:
      return {ValueType::kString, Nullability::kNotNull};
    case sql::LiteralKind::kTrue:
    case sql::LiteralKind::kFalse:
      return {ValueType::kBoolean, Nullability::kNotNull};
    case sql::LiteralKind::kNull:
      return {ValueType::kUnknown, Nullability::kNullable};
  }
  return {};
}

Inferred Column(const sql::ColumnRef& column, const Scope& scope) {
  const Resolved resolved = Resolve(scope, column);
  Inferred out;
  if (resolved.column != nullptr) out = {resolved.column->type, resolved.column->nullability};
  if (resolved.relation >= 0 &&
      std::find(scope.null_rejected.begin(), scope.null_rejected.end(),
                std::make_pair(resolved.relation, resolved.name)) != scope.null_rejected.end()) {
    out.nullability = Nullability::kNotNull;
  }
  return out;
}

Inferred CastExpression(const sql::Cast& cast, const Scope& scope) {
  const Inferred value = InferExpression(*cast.value, scope);
  const bool can_fail =
      cast.style == sql::CastStyle::kTryCast || cast.style == sql::CastStyle::kSafeCast;
  return {TypeOf(cast.type), can_fail ? Nullability::kNullable : value.nullability};
}

Inferred AtTimeZoneExpression(const sql::AtTimeZone& expression, const Scope& scope) {
  Inferred value = InferExpression(*expression.value, scope);
  if (value.type == ValueType::kTimestamp) {
    value.type = ValueType::kTimestampTz;
  } else if (value.type == ValueType::kTimestampTz) {
    value.type = ValueType::kTimestamp;
  } else {
    value.type = ValueType::kUnknown;
  }
  value.nullability =
      Strict({value.nullability, InferExpression(*expression.zone, scope).nullability});
  return value;
}

}  // namespace

Resolved Resolve(const Scope& scope, const sql::ColumnRef& column) {
  Resolved out;
  if (column.parts.empty()) return out;
  out.name = Lower(column.parts.back().name);
  const auto find = [&](int index) -> const TypedColumn* {
    for (const TypedColumn& candidate : *scope.relations[index].columns) {
      if (SameName(candidate.name, out.name)) return &candidate;
    }
    return nullptr;
  };
  const int count = static_cast<int>(scope.relations.size());
  if (column.parts.size() == 1) {
    int unknown = -1;
    int unknown_count = 0;
    for (int index = 0; index < count; ++index) {
      const Relation& relation = scope.relations[index];
      if (!relation.visible) continue;
      if (!relation.columns) {
        unknown = index;
        ++unknown_count;
      } else if (const TypedColumn* found = find(index)) {
        out.relation = index;
        out.column = found;
        return out;
      }
    }
    if (unknown_count == 1) out.relation = unknown;  // the only table it can come from
    return out;
  }
  const std::string_view qualifier = column.parts[column.parts.size() - 2].name;
  for (int index = 0; index < count; ++index) {
    if (!SameName(scope.relations[index].alias, qualifier)) continue;
    if (!scope.relations[index].columns) {
      out.relation = index;
    } else if (const TypedColumn* found = find(index)) {
      out.relation = index;
      out.column = found;
    }
    return out;
  }
  return out;
}

Inferred InferExpression(const sql::Expr& expression, const Scope& scope) {
  switch (expression.kind) {
    case ExprKind::kLiteral:
      return LiteralValue(expression.As<sql::Literal>());
    case ExprKind::kTypedLiteral:
      return {TypeOf(expression.As<sql::TypedLiteral>().type), Nullability::kNotNull};
    case ExprKind::kInterval:
      return {ValueType::kOther, Nullability::kNotNull};
    case ExprKind::kPlaceholder:
      return {ValueType::kUnknown, Nullability::kNotNull};
    case ExprKind::kColumn:
      return Column(expression.As<sql::ColumnRef>(), scope);
    case ExprKind::kUnary: {
      const auto& unary = expression.As<sql::Unary>();
      Inferred operand = InferExpression(*unary.operand, scope);
      if (unary.op == sql::UnaryOp::kNot) operand.type = ValueType::kBoolean;
      return operand;
    }
    case ExprKind::kBinary:
      return BinaryExpression(expression.As<sql::Binary>(), scope);
    case ExprKind::kIs:
    case ExprKind::kIsDistinct:
    case ExprKind::kExists:
      return {ValueType::kBoolean, Nullability::kNotNull};
    case ExprKind::kLike:
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kQuantified:
      return {ValueType::kBoolean, Nullability::kUnknown};
    case ExprKind::kFunction:
      return Function(expression.As<sql::FunctionCall>(), scope);
    case ExprKind::kCast:
      return CastExpression(expression.As<sql::Cast>(), scope);
    case ExprKind::kCase:
      return CaseExpression(expression.As<sql::Case>(), scope);
    case ExprKind::kNested:
      return InferExpression(*expression.As<sql::Nested>().inner, scope);
    case ExprKind::kCollate:
      return InferExpression(*expression.As<sql::Collate>().value, scope);
    case ExprKind::kAtTimeZone:
      return AtTimeZoneExpression(expression.As<sql::AtTimeZone>(), scope);
    case ExprKind::kParameter:
    case ExprKind::kStar:
    case ExprKind::kSubquery:
    case ExprKind::kKeywordFunction:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kNamedArgument:
    case ExprKind::kGrouping:
      return {};
  }
  return {};
}

}  // namespace strata::analysis::internal
