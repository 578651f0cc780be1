// The printer's private class, split over printer.cc (queries, FROM), print_expression.cc
// (expressions, types, names, literals) and print_predicate.cc (predicates, composite values).
// Private to sql/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sql/ast.h"
#include "sql/dialect.h"

namespace strata::sql::internal {

class Printer {
 public:
  Printer(Dialect source, Dialect target) : source_(source), target_(target) {}
  std::string Take() { return std::move(out_); }

  // printer.cc
  void PrintQuery(const Query& query);
  void PrintCte(const Cte& cte);
  void PrintSetExpr(const SetExpr& body);
  void PrintSelect(const Select& select);
  void PrintSelectClauses(const Select& select);
  void PrintTable(const TableRef& table);
  void PrintJoin(const Join& join);
  void PrintPivot(const Pivot& pivot);
  void PrintUnpivot(const Unpivot& unpivot);
  void PrintTableTail(const TableRef& table);
  void PrintSample(const TableSample& sample);
  void PrintAliasedList(const std::vector<SelectItem>& items);

  // print_expression.cc
  void PrintExpr(const Expr& expr);
  void PrintOperand(const Expr& expr, int parent_precedence, bool right_side);
  void PrintExprList(const NodeVector<ExprPtr>& list);
  void PrintOrderBy(const std::vector<OrderItem>& items);
  void PrintWindow(const WindowSpec& spec);
  void PrintFrameBound(const FrameBound& bound);
  void PrintType(const DataType& type);
  void PrintName(const Identifier& name);
  void PrintNames(const NodeVector<Identifier>& names, std::string_view separator);
  void PrintString(std::string_view text);
  void PrintFunction(const FunctionCall& call);
  void PrintCast(const Cast& cast);
  void PrintStar(const Star& star);
  void PrintLiteralLike(const Expr& expr);
  void PrintPredicate(const Expr& expr);
  void PrintComposite(const Expr& expr);
  void PrintAccess(const Expr& expr);
  void PrintSpecial(const Expr& expr);

  void Write(std::string_view text) { out_ += text; }
  void WriteUpper(std::string_view text);

 private:
  Dialect source_;
  Dialect target_;
  std::string out_;
};

}  // namespace strata::sql::internal
