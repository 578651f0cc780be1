// Which columns a WHERE clause rejects NULL for (rules: output_columns.h, "Null rejection").
#include <algorithm>

#include "analysis/internal/output_scope.h"

namespace strata::analysis::internal {
namespace {

using sql::ExprKind;

bool IsComparison(sql::BinaryOp op) {
  return op == sql::BinaryOp::kEq || op == sql::BinaryOp::kNotEq || op == sql::BinaryOp::kLess ||
         op == sql::BinaryOp::kLessEq || op == sql::BinaryOp::kGreater ||
         op == sql::BinaryOp::kGreaterEq;
}

bool IsStrictArithmetic(sql::BinaryOp op) {
  return op == sql::BinaryOp::kAdd || op == sql::BinaryOp::kSubtract ||
         op == sql::BinaryOp::kMultiply || op == sql::BinaryOp::kDivide ||
         op == sql::BinaryOp::kConcat;
}

// The columns whose NULL makes `expression` NULL: the column itself, through casts, DATE_TRUNC,
// DATE, TIME_BUCKET, AT TIME ZONE and arithmetic. Other kinds contribute nothing (if-chains
// rather than a switch: only these few of the many expression kinds matter).
void StrictColumns(const sql::Expr& expression, Scope& scope) {
  if (expression.kind == ExprKind::kColumn) {
    const Resolved resolved = Resolve(scope, expression.As<sql::ColumnRef>());
    if (resolved.relation >= 0) scope.null_rejected.emplace_back(resolved.relation, resolved.name);
  } else if (expression.kind == ExprKind::kNested) {
    StrictColumns(*expression.As<sql::Nested>().inner, scope);
  } else if (expression.kind == ExprKind::kCast) {
    const auto& cast = expression.As<sql::Cast>();
    if (cast.style == sql::CastStyle::kCast || cast.style == sql::CastStyle::kDoubleColon) {
      StrictColumns(*cast.value, scope);
    }
  } else if (expression.kind == ExprKind::kAtTimeZone) {
    StrictColumns(*expression.As<sql::AtTimeZone>().value, scope);
  } else if (expression.kind == ExprKind::kBinary) {
    const auto& binary = expression.As<sql::Binary>();
    if (IsStrictArithmetic(binary.op)) {
      StrictColumns(*binary.left, scope);
      StrictColumns(*binary.right, scope);
    }
  } else if (expression.kind == ExprKind::kFunction) {
    const auto& call = expression.As<sql::FunctionCall>();
    if (call.name.empty() || call.over || call.over_name) return;
    const std::string name = Lower(call.name.back().name);
    if (name == "date_trunc" || name == "datetrunc" || name == "date" || name == "time_bucket") {
      for (const sql::ExprPtr& argument : call.args) StrictColumns(*argument, scope);
    }
  }
}

void Conjuncts(const sql::Expr& expression, std::vector<const sql::Expr*>& out) {
  if (expression.kind == ExprKind::kNested) {
    Conjuncts(*expression.As<sql::Nested>().inner, out);
  } else if (expression.kind == ExprKind::kBinary &&
             expression.As<sql::Binary>().op == sql::BinaryOp::kAnd) {
    Conjuncts(*expression.As<sql::Binary>().left, out);
    Conjuncts(*expression.As<sql::Binary>().right, out);
  } else {
    out.push_back(&expression);
  }
}

void RejectedBy(const sql::Expr& conjunct, Scope& scope) {
  if (conjunct.kind == ExprKind::kBinary) {
    const auto& binary = conjunct.As<sql::Binary>();
    if (IsComparison(binary.op)) {
      StrictColumns(*binary.left, scope);
      StrictColumns(*binary.right, scope);
    }
  } else if (conjunct.kind == ExprKind::kBetween) {
    StrictColumns(*conjunct.As<sql::Between>().value, scope);
  } else if (conjunct.kind == ExprKind::kInList) {
    StrictColumns(*conjunct.As<sql::InList>().value, scope);
  } else if (conjunct.kind == ExprKind::kLike) {
    StrictColumns(*conjunct.As<sql::Like>().value, scope);
  } else if (conjunct.kind == ExprKind::kIs) {
    const auto& test = conjunct.As<sql::Is>();
    const bool not_null = test.negated && test.test == sql::IsTest::kNull;
    const bool truth =
        !test.negated && (test.test == sql::IsTest::kTrue || test.test == sql::IsTest::kFalse);
    if (not_null || truth) StrictColumns(*test.value, scope);
  }
}

}  // namespace

void CollectNullRejected(const sql::Expr* where, Scope& scope) {
  if (where == nullptr) return;
  std::vector<const sql::Expr*> conjuncts;
  Conjuncts(*where, conjuncts);
  for (const sql::Expr* conjunct : conjuncts) RejectedBy(*conjunct, scope);
}

namespace {

// The relations a FROM item adds to the scope, in AddTable's order (one per table, function,
// derived table, pivot; a join's left side's, then its right side's).
std::size_t RelationCount(const sql::TableRef& table) {
  if (table.kind == sql::TableRefKind::kParenthesized) {
    return RelationCount(*table.As<sql::ParenthesizedTable>().inner);
  }
  if (table.kind != sql::TableRefKind::kJoin) return 1;
  const auto& join = table.As<sql::Join>();
  return RelationCount(*join.left) + RelationCount(*join.right);
}

// `table`'s relations are scope.relations[first, first + RelationCount(table)).
void JoinNullRejected(const sql::TableRef& table, std::size_t first, bool preserved, Scope& scope) {
  if (table.kind == sql::TableRefKind::kParenthesized) {
    JoinNullRejected(*table.As<sql::ParenthesizedTable>().inner, first, preserved, scope);
    return;
  }
  if (table.kind != sql::TableRefKind::kJoin) return;
  const auto& join = table.As<sql::Join>();
  bool left = preserved;
  bool right = preserved;
  bool filters = false;  // the ON drops the rows it fails for
  switch (join.join) {
    case sql::JoinKind::kInner:
    case sql::JoinKind::kComma:
    case sql::JoinKind::kCross:
      filters = !join.asof;
      break;
    case sql::JoinKind::kSemi:
      filters = !join.asof;
      right = false;
      break;
    case sql::JoinKind::kAnti:  // keeps the left rows its ON fails for, as a LEFT join does
    case sql::JoinKind::kLeft:
      right = false;
      break;
    case sql::JoinKind::kRight:
      left = false;
      break;
    case sql::JoinKind::kFull:
    case sql::JoinKind::kPositional:
      left = false;
      right = false;
      break;
  }
  const std::size_t left_count = RelationCount(*join.left);
  const std::size_t count = left_count + RelationCount(*join.right);
  if (preserved && filters && join.on && first + count <= scope.relations.size()) {
    // The ON sees only its own join's relations: resolved in a scope of those alone, so a name
    // is never taken for a column of a relation outside the join.
    Scope own;
    own.dialect = scope.dialect;
    own.relations.assign(scope.relations.begin() + static_cast<std::ptrdiff_t>(first),
                         scope.relations.begin() + static_cast<std::ptrdiff_t>(first + count));
    CollectNullRejected(join.on.get(), own);
    for (auto& [relation, name] : own.null_rejected) {
      scope.null_rejected.emplace_back(relation + static_cast<int>(first), std::move(name));
    }
  }
  JoinNullRejected(*join.left, first, left, scope);
  JoinNullRejected(*join.right, first + left_count, right, scope);
}

}  // namespace

void CollectJoinNullRejected(const sql::TableRef& from, Scope& scope) {
  JoinNullRejected(from, 0, true, scope);
}

}  // namespace strata::analysis::internal
