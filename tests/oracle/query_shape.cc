#include "query_shape.h"

#include <cctype>
#include <string_view>
#include <vector>

namespace strata::oracle {
namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// Walks our syntax tree; every node that can hold a query is visited.
class AstWalker {
 public:
  explicit AstWalker(QueryShape& shape) : shape_(shape) {}

  void Query(const sql::Query& query) {
    for (const sql::Cte& cte : query.ctes) {
      shape_.cte_names.insert(Lower(cte.name.name));
      Query(*cte.query);
    }
    SetExpr(*query.body);
    OrderItems(query.order_by);
    Expr(query.limit.get());
    Expr(query.offset.get());
    Expr(query.fetch.get());
  }

 private:
  void SetExpr(const sql::SetExpr& body) {
    switch (body.kind) {
      case sql::SetExprKind::kSelect:
        Select(body.As<sql::Select>());
        return;
      case sql::SetExprKind::kSetOperation: {
        const auto& operation = body.As<sql::SetOperation>();
        ++shape_.set_operations[SetOpName(operation.op)];
        SetExpr(*operation.left);
        SetExpr(*operation.right);
        return;
      }
      case sql::SetExprKind::kValues:
        for (const sql::NodeVector<sql::ExprPtr>& row : body.As<sql::Values>().rows) Exprs(row);
        return;
      case sql::SetExprKind::kNested:
        Query(*body.As<sql::NestedQuery>().query);
        return;
    }
  }

  static std::string SetOpName(sql::SetOp op) {
    switch (op) {
      case sql::SetOp::kUnion:
        return "UNION";
      case sql::SetOp::kIntersect:
        return "INTERSECT";
      case sql::SetOp::kExcept:
        return "EXCEPT";
    }
    return "?";
  }

  void Select(const sql::Select& select) {
    Exprs(select.distinct_on);
    Expr(select.top.get());
    for (const sql::SelectItem& item : select.items) Expr(item.expr.get());
    if (select.from != nullptr) Table(*select.from);
    Expr(select.where.get());
    Exprs(select.group_by);
    Expr(select.having.get());
    for (const sql::NamedWindow& window : select.windows) Window(window.spec);
    Expr(select.qualify.get());
  }

  void Table(const sql::TableRef& table) {
    if (table.sample != nullptr) {
      Expr(table.sample->size.get());
      Expr(table.sample->seed.get());
    }
    switch (table.kind) {
      case sql::TableRefKind::kTable:
        return;
      case sql::TableRefKind::kFunction:
        Expr(table.As<sql::TableFunction>().call.get());
        return;
      case sql::TableRefKind::kDerived:
        Query(*table.As<sql::DerivedTable>().query);
        return;
      case sql::TableRefKind::kJoin: {
        const auto& join = table.As<sql::Join>();
        shape_.joins.insert(JoinName(join));
        Table(*join.left);
        Table(*join.right);
        Expr(join.on.get());
        return;
      }
      case sql::TableRefKind::kParenthesized:
        Table(*table.As<sql::ParenthesizedTable>().inner);
        return;
      case sql::TableRefKind::kPivot: {
        const auto& pivot = table.As<sql::Pivot>();
        Table(*pivot.source);
        for (const sql::SelectItem& item : pivot.aggregates) Expr(item.expr.get());
        for (const sql::SelectItem& item : pivot.in_values) Expr(item.expr.get());
        Exprs(pivot.group_by);
        return;
      }
      case sql::TableRefKind::kUnpivot: {
        const auto& unpivot = table.As<sql::Unpivot>();
        Table(*unpivot.source);
        for (const sql::SelectItem& item : unpivot.in_columns) Expr(item.expr.get());
        return;
      }
    }
  }

  static std::string JoinName(const sql::Join& join) {
    std::string type = "INNER";
    std::string reference = "REGULAR";
    switch (join.join) {
      case sql::JoinKind::kComma:
      case sql::JoinKind::kCross:
        reference = "CROSS";
        break;
      case sql::JoinKind::kInner:
        break;
      case sql::JoinKind::kLeft:
        type = "LEFT";
        break;
      case sql::JoinKind::kRight:
        type = "RIGHT";
        break;
      case sql::JoinKind::kFull:
        type = "FULL";
        break;
      case sql::JoinKind::kSemi:
        type = "SEMI";
        break;
      case sql::JoinKind::kAnti:
        type = "ANTI";
        break;
      case sql::JoinKind::kPositional:
        reference = "POSITIONAL";
        break;
    }
    if (join.natural) reference = "NATURAL";
    if (join.asof) reference = "ASOF";
    return type + "/" + reference;
  }

  void Window(const sql::WindowSpec& spec) {
    Exprs(spec.partition_by);
    OrderItems(spec.order_by);
    if (spec.frame.has_value()) {
      Expr(spec.frame->start.offset.get());
      if (spec.frame->end.has_value()) Expr(spec.frame->end->offset.get());
    }
  }

  void OrderItems(const std::vector<sql::OrderItem>& items) {
    for (const sql::OrderItem& item : items) Expr(item.expr.get());
  }

  void Exprs(const sql::NodeVector<sql::ExprPtr>& exprs) {
    for (const sql::ExprPtr& expr : exprs) Expr(expr.get());
  }

  void Expr(const sql::Expr* expr);
  void Function(const sql::FunctionCall& call);

  QueryShape& shape_;
};

void AstWalker::Function(const sql::FunctionCall& call) {
  Exprs(call.args);
  OrderItems(call.order_by);
  OrderItems(call.within_group);
  Expr(call.filter.get());
  if (call.over != nullptr) Window(*call.over);
}

void AstWalker::Expr(const sql::Expr* expr) {
  if (expr == nullptr) return;
  switch (expr->kind) {
    case sql::ExprKind::kLiteral:
    case sql::ExprKind::kTypedLiteral:
    case sql::ExprKind::kPlaceholder:
    case sql::ExprKind::kParameter:
    case sql::ExprKind::kColumn:
      return;
    case sql::ExprKind::kInterval:
      Expr(expr->As<sql::Interval>().value.get());
      return;
    case sql::ExprKind::kStar:
      for (const sql::SelectItem& item : expr->As<sql::Star>().replaced) Expr(item.expr.get());
      return;
    case sql::ExprKind::kUnary:
      Expr(expr->As<sql::Unary>().operand.get());
      return;
    case sql::ExprKind::kBinary: {
      const auto& binary = expr->As<sql::Binary>();
      Expr(binary.left.get());
      Expr(binary.right.get());
      return;
    }
    case sql::ExprKind::kLike: {
      const auto& like = expr->As<sql::Like>();
      Expr(like.value.get());
      Expr(like.pattern.get());
      Expr(like.escape.get());
      return;
    }
    case sql::ExprKind::kBetween: {
      const auto& between = expr->As<sql::Between>();
      Expr(between.value.get());
      Expr(between.low.get());
      Expr(between.high.get());
      return;
    }
    case sql::ExprKind::kInList:
      Expr(expr->As<sql::InList>().value.get());
      Exprs(expr->As<sql::InList>().list);
      return;
    case sql::ExprKind::kInSubquery:
      Expr(expr->As<sql::InSubquery>().value.get());
      Query(*expr->As<sql::InSubquery>().query);
      return;
    case sql::ExprKind::kIs:
      Expr(expr->As<sql::Is>().value.get());
      return;
    case sql::ExprKind::kIsDistinct:
      Expr(expr->As<sql::IsDistinct>().left.get());
      Expr(expr->As<sql::IsDistinct>().right.get());
      return;
    case sql::ExprKind::kQuantified: {
      const auto& quantified = expr->As<sql::Quantified>();
      Expr(quantified.left.get());
      if (quantified.query != nullptr) Query(*quantified.query);
      Expr(quantified.right.get());
      return;
    }
    case sql::ExprKind::kExists:
      Query(*expr->As<sql::Exists>().query);
      return;
    case sql::ExprKind::kSubquery:
      Query(*expr->As<sql::Subquery>().query);
      return;
    case sql::ExprKind::kFunction:
      Function(expr->As<sql::FunctionCall>());
      return;
    case sql::ExprKind::kKeywordFunction:
      for (const auto& part : expr->As<sql::KeywordFunction>().parts) Expr(part.second.get());
      return;
    case sql::ExprKind::kCast:
      Expr(expr->As<sql::Cast>().value.get());
      return;
    case sql::ExprKind::kCase: {
      const auto& case_expr = expr->As<sql::Case>();
      Expr(case_expr.operand.get());
      for (const auto& [when, then] : case_expr.whens) {
        Expr(when.get());
        Expr(then.get());
      }
      Expr(case_expr.else_result.get());
      return;
    }
    case sql::ExprKind::kArray:
      Exprs(expr->As<sql::ArrayLiteral>().elements);
      return;
    case sql::ExprKind::kStruct:
      for (const auto& field : expr->As<sql::StructLiteral>().fields) {
        Expr(field.key.get());
        Expr(field.value.get());
      }
      return;
    case sql::ExprKind::kMap:
      for (const auto& [key, value] : expr->As<sql::MapLiteral>().entries) {
        Expr(key.get());
        Expr(value.get());
      }
      return;
    case sql::ExprKind::kRow:
      Exprs(expr->As<sql::Row>().elements);
      return;
    case sql::ExprKind::kNested:
      Expr(expr->As<sql::Nested>().inner.get());
      return;
    case sql::ExprKind::kSubscript: {
      const auto& subscript = expr->As<sql::Subscript>();
      Expr(subscript.value.get());
      Expr(subscript.index.get());
      Expr(subscript.slice_end.get());
      return;
    }
    case sql::ExprKind::kField:
      Expr(expr->As<sql::FieldAccess>().value.get());
      return;
    case sql::ExprKind::kJsonPath: {
      const auto& path = expr->As<sql::JsonPath>();
      Expr(path.value.get());
      for (const auto& step : path.steps) Expr(step.index.get());
      return;
    }
    case sql::ExprKind::kNamedArgument:
      Expr(expr->As<sql::NamedArgument>().value.get());
      return;
    case sql::ExprKind::kCollate:
      Expr(expr->As<sql::Collate>().value.get());
      return;
    case sql::ExprKind::kAtTimeZone:
      Expr(expr->As<sql::AtTimeZone>().value.get());
      Expr(expr->As<sql::AtTimeZone>().zone.get());
      return;
    case sql::ExprKind::kGrouping:
      Exprs(expr->As<sql::Grouping>().items);
      return;
  }
}

// Walks DuckDB's serialized tree generically: any object is inspected, every member visited.
// A materialized CTE appears as a CTE_NODE whose body is repeated in its "query", in its own
// cte_map and in its child's cte_map; each (name, body) is walked once, "query" never.
class JsonWalker {
 public:
  explicit JsonWalker(QueryShape& shape) : shape_(shape) {}

  void Walk(const nlohmann::json& node) {
    if (node.is_array()) {
      for (const nlohmann::json& child : node) Walk(child);
      return;
    }
    if (!node.is_object()) return;
    const std::string type = node.contains("type") && node["type"].is_string()
                                 ? node["type"].get<std::string>()
                                 : std::string();
    if (type == "JOIN" && node.contains("join_type")) {
      shape_.joins.insert(node["join_type"].get<std::string>() + "/" +
                          node.value("ref_type", std::string("REGULAR")));
    } else if (type == "SET_OPERATION_NODE") {
      std::string op = node.value("setop_type", std::string("?"));
      if (op == "UNION_BY_NAME") op = "UNION";
      // 1.4 fills "left"/"right"; newer versions keep n-ary operations in "children".
      const auto children = node.find("children");
      const int count = children != node.end() && children->is_array() && children->size() > 2
                            ? static_cast<int>(children->size()) - 1
                            : 1;
      shape_.set_operations[op] += count;
    } else if (type == "RECURSIVE_CTE_NODE") {
      ++shape_.set_operations["UNION"];
    }
    for (const auto& [key, value] : node.items()) {
      if (key == "cte_map") {
        CteMap(value);
      } else if (!(type == "CTE_NODE" && key == "query")) {
        Walk(value);
      }
    }
  }

 private:
  void CteMap(const nlohmann::json& cte_map) {
    if (!cte_map.is_object() || !cte_map.contains("map")) return;
    for (const nlohmann::json& entry : cte_map["map"]) {
      const std::string name = Lower(entry["key"].get<std::string>());
      shape_.cte_names.insert(name);
      if (walked_ctes_.insert(name + "\n" + entry["value"].dump()).second) Walk(entry["value"]);
    }
  }

  QueryShape& shape_;
  std::set<std::string> walked_ctes_;
};

}  // namespace

std::string QueryShape::ToString() const {
  std::string text = "setops {";
  std::string separator;
  for (const auto& [op, count] : set_operations) {
    if (count == 0) continue;
    text += separator + op + ": " + std::to_string(count);
    separator = ", ";
  }
  text += "} ctes {";
  separator.clear();
  for (const std::string& name : cte_names) {
    text += separator + name;
    separator = ", ";
  }
  text += "} joins {";
  separator.clear();
  for (const std::string& join : joins) {
    text += separator + join;
    separator = ", ";
  }
  return text + "}";
}

QueryShape ShapeOfStatement(const sql::Statement& statement) {
  QueryShape shape;
  AstWalker(shape).Query(*statement.query);
  return shape;
}

QueryShape ShapeOfDuckDbJson(const nlohmann::json& statements) {
  QueryShape shape;
  JsonWalker(shape).Walk(statements);
  return shape;
}

}  // namespace strata::oracle
