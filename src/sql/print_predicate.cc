// Printing predicates (NOT, binary operators, LIKE, BETWEEN, IN, IS, quantified comparisons,
// EXISTS) and composite values (subqueries, CASE, array / struct / map / row literals, nested
// expressions, grouping sets).
#include "sql/internal/parser_impl.h"
#include "sql/internal/printer_impl.h"

namespace strata::sql::internal {
namespace {

std::string_view UnaryText(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNot:
      return "NOT ";
    case UnaryOp::kMinus:
      return "-";
    case UnaryOp::kPlus:
      return "+";
    case UnaryOp::kBitNot:
      return "~";
  }
  return "";
}

std::string_view LikeText(LikeOp op) {
  switch (op) {
    case LikeOp::kLike:
      return "LIKE";
    case LikeOp::kILike:
      return "ILIKE";
    case LikeOp::kSimilarTo:
      return "SIMILAR TO";
    case LikeOp::kRLike:
      return "RLIKE";
    case LikeOp::kRegexp:
      return "REGEXP";
    case LikeOp::kGlob:
      return "GLOB";
  }
  return "LIKE";
}

}  // namespace

void Printer::PrintPredicate(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kUnary: {
      const auto& unary = expr.As<Unary>();
      Write(UnaryText(unary.op));
      // "- -1", never "--1" (a line comment).
      if (unary.op == UnaryOp::kMinus && unary.operand->kind == ExprKind::kUnary &&
          unary.operand->As<Unary>().op == UnaryOp::kMinus) {
        Write(" ");
      }
      const bool wrap = unary.op != UnaryOp::kNot && unary.operand->kind == ExprKind::kBinary;
      if (wrap) Write("(");
      PrintExpr(*unary.operand);
      if (wrap) Write(")");
      return;
    }
    case ExprKind::kBinary: {
      const auto& binary = expr.As<Binary>();
      if (binary.python_lambda) {
        Write("lambda ");
        if (binary.left->kind == ExprKind::kRow) {
          PrintExprList(binary.left->As<Row>().elements);
        } else {
          PrintExpr(*binary.left);
        }
        Write(": ");
        PrintExpr(*binary.right);
        return;
      }
      const int precedence = BinaryPrecedence(binary.op);
      PrintOperand(*binary.left, precedence, false);
      Write(" ");
      Write(BinaryOpText(binary.op));
      Write(" ");
      PrintOperand(*binary.right, precedence, true);
      return;
    }
    case ExprKind::kLike: {
      const auto& like = expr.As<Like>();
      PrintExpr(*like.value);
      Write(like.negated ? " NOT " : " ");
      Write(LikeText(like.op));
      Write(" ");
      PrintExpr(*like.pattern);
      if (like.escape) {
        Write(" ESCAPE ");
        PrintExpr(*like.escape);
      }
      return;
    }
    case ExprKind::kBetween: {
      const auto& between = expr.As<Between>();
      PrintExpr(*between.value);
      Write(between.negated ? " NOT BETWEEN " : " BETWEEN ");
      if (between.symmetric) Write("SYMMETRIC ");
      PrintExpr(*between.low);
      Write(" AND ");
      PrintExpr(*between.high);
      return;
    }
    case ExprKind::kInList: {
      const auto& in = expr.As<InList>();
      PrintExpr(*in.value);
      Write(in.negated ? " NOT IN (" : " IN (");
      PrintExprList(in.list);
      Write(")");
      return;
    }
    case ExprKind::kInSubquery: {
      const auto& in = expr.As<InSubquery>();
      PrintExpr(*in.value);
      Write(in.negated ? " NOT IN (" : " IN (");
      PrintQuery(*in.query);
      Write(")");
      return;
    }
    case ExprKind::kIs: {
      const auto& is = expr.As<Is>();
      PrintExpr(*is.value);
      Write(is.negated ? " IS NOT " : " IS ");
      switch (is.test) {
        case IsTest::kNull:
          Write("NULL");
          break;
        case IsTest::kTrue:
          Write("TRUE");
          break;
        case IsTest::kFalse:
          Write("FALSE");
          break;
        case IsTest::kUnknown:
          Write("UNKNOWN");
          break;
      }
      return;
    }
    case ExprKind::kIsDistinct: {
      const auto& distinct = expr.As<IsDistinct>();
      PrintExpr(*distinct.left);
      Write(distinct.negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ");
      PrintExpr(*distinct.right);
      return;
    }
    case ExprKind::kQuantified: {
      const auto& quantified = expr.As<Quantified>();
      PrintExpr(*quantified.left);
      Write(" ");
      Write(BinaryOpText(quantified.op));
      Write(" ");
      Write(quantified.quantifier);
      Write(" (");
      if (quantified.query) {
        PrintQuery(*quantified.query);
      } else {
        PrintExpr(*quantified.right);
      }
      Write(")");
      return;
    }
    case ExprKind::kExists:
      Write("EXISTS (");
      PrintQuery(*expr.As<Exists>().query);
      Write(")");
      return;
    // PrintExpr sends these kinds to the other printers.
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kColumn:
    case ExprKind::kStar:
    case ExprKind::kSubquery:
    case ExprKind::kFunction:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCast:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kNested:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kNamedArgument:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
    case ExprKind::kGrouping:
      break;
  }
  STRATA_CHECK(false);
}

void Printer::PrintComposite(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kSubquery: {
      const auto& subquery = expr.As<Subquery>();
      if (subquery.parenthesized) Write("(");
      PrintQuery(*subquery.query);
      if (subquery.parenthesized) Write(")");
      return;
    }
    case ExprKind::kCase: {
      const auto& node = expr.As<Case>();
      Write("CASE");
      if (node.operand) {
        Write(" ");
        PrintExpr(*node.operand);
      }
      for (const auto& [condition, result] : node.whens) {
        Write(" WHEN ");
        PrintExpr(*condition);
        Write(" THEN ");
        PrintExpr(*result);
      }
      if (node.else_result) {
        Write(" ELSE ");
        PrintExpr(*node.else_result);
      }
      Write(" END");
      return;
    }
    case ExprKind::kArray: {
      const auto& array = expr.As<ArrayLiteral>();
      if (array.array_keyword) Write("ARRAY");
      if (array.element_type) {
        Write("<");
        PrintType(*array.element_type);
        Write(">");
      }
      Write("[");
      PrintExprList(array.elements);
      if (array.comprehension) {
        Write(" FOR ");
        PrintName(array.comprehension->variable);
        Write(" IN ");
        PrintExpr(*array.comprehension->source);
        if (array.comprehension->condition) {
          Write(" IF ");
          PrintExpr(*array.comprehension->condition);
        }
      }
      Write("]");
      return;
    }
    case ExprKind::kStruct: {
      const auto& node = expr.As<StructLiteral>();
      if (node.struct_keyword) {
        if (node.type) {
          PrintType(*node.type);
        } else {
          Write("STRUCT");
        }
      }
      Write(node.struct_keyword ? "(" : "{");
      for (std::size_t i = 0; i < node.fields.size(); ++i) {
        if (i > 0) Write(", ");
        if (node.fields[i].key) {
          PrintExpr(*node.fields[i].key);
          Write(": ");
        }
        PrintExpr(*node.fields[i].value);
        if (node.fields[i].alias) {
          Write(" AS ");
          PrintName(*node.fields[i].alias);
        }
      }
      Write(node.struct_keyword ? ")" : "}");
      return;
    }
    case ExprKind::kMap: {
      Write("MAP {");
      const auto& map = expr.As<MapLiteral>();
      for (std::size_t i = 0; i < map.entries.size(); ++i) {
        if (i > 0) Write(", ");
        PrintExpr(*map.entries[i].first);
        Write(": ");
        PrintExpr(*map.entries[i].second);
      }
      Write("}");
      return;
    }
    case ExprKind::kRow: {
      const auto& row = expr.As<Row>();
      Write(row.row_keyword ? "ROW(" : "(");
      PrintExprList(row.elements);
      Write(")");
      return;
    }
    case ExprKind::kNested:
      Write("(");
      PrintExpr(*expr.As<Nested>().inner);
      Write(")");
      return;
    case ExprKind::kGrouping: {
      const auto& grouping = expr.As<Grouping>();
      Write(grouping.grouping == Grouping::Kind::kRollup ? "ROLLUP ("
            : grouping.grouping == Grouping::Kind::kCube ? "CUBE ("
                                                         : "GROUPING SETS (");
      PrintExprList(grouping.items);
      Write(")");
      return;
    }
    // PrintExpr sends these kinds to the other printers.
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
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
    case ExprKind::kFunction:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCast:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kNamedArgument:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
      break;
  }
  STRATA_CHECK(false);
}

}  // namespace strata::sql::internal
