// Printing queries and FROM clauses.
#include "sql/printer.h"

#include "sql/internal/printer_impl.h"

namespace strata::sql {
namespace internal {

void Printer::PrintQuery(const Query& query) {
  if (query.has_with) {
    Write(query.recursive ? "WITH RECURSIVE " : "WITH ");
    for (std::size_t i = 0; i < query.ctes.size(); ++i) {
      if (i > 0) Write(", ");
      PrintCte(query.ctes[i]);
    }
    Write(" ");
  }
  PrintSetExpr(*query.body);
  if (!query.order_by.empty()) {
    Write(" ORDER BY ");
    PrintOrderBy(query.order_by);
  }
  if (query.limit_all) Write(" LIMIT ALL");
  if (query.limit) {
    Write(" LIMIT ");
    // "x + 1%" would not read back: only a literal or a column stands bare before the '%'.
    const bool bare = !query.limit_percent || query.limit->kind == ExprKind::kLiteral ||
                      query.limit->kind == ExprKind::kColumn ||
                      query.limit->kind == ExprKind::kNested;
    if (!bare) Write("(");
    PrintExpr(*query.limit);
    if (!bare) Write(")");
    if (query.limit_percent) Write("%");
  }
  if (query.offset) {
    Write(" OFFSET ");
    PrintExpr(*query.offset);
    if (query.has_fetch) Write(" ROWS");
  }
  if (query.has_fetch) {
    Write(" FETCH FIRST ");
    if (query.fetch) {
      PrintExpr(*query.fetch);
      Write(" ");
    }
    Write(query.fetch_with_ties ? "ROWS WITH TIES" : "ROWS ONLY");
  }
}

void Printer::PrintCte(const Cte& cte) {
  PrintName(cte.name);
  if (!cte.columns.empty()) {
    Write(" (");
    PrintNames(cte.columns, ", ");
    Write(")");
  }
  if (!cte.using_key.empty()) {
    Write(" USING KEY (");
    PrintNames(cte.using_key, ", ");
    Write(")");
  }
  Write(" AS ");
  if (!cte.materialized.empty()) {
    Write(cte.materialized);
    Write(" ");
  }
  Write("(");
  PrintQuery(*cte.query);
  Write(")");
}

void Printer::PrintSetExpr(const SetExpr& body) {
  switch (body.kind) {
    case SetExprKind::kSelect:
      PrintSelect(body.As<Select>());
      return;
    case SetExprKind::kSetOperation: {
      const auto& operation = body.As<SetOperation>();
      PrintSetExpr(*operation.left);
      const bool minus = operation.minus_keyword &&
                         (target_ == Dialect::kSnowflake || target_ == Dialect::kRedshift ||
                          target_ == Dialect::kDatabricks);
      switch (operation.op) {
        case SetOp::kUnion:
          Write(" UNION");
          break;
        case SetOp::kIntersect:
          Write(" INTERSECT");
          break;
        case SetOp::kExcept:
          Write(minus ? " MINUS" : " EXCEPT");
          break;
      }
      switch (operation.quantifier) {
        case SetOperation::Quantifier::kAll:
          Write(" ALL");
          break;
        case SetOperation::Quantifier::kDistinct:
          Write(" DISTINCT");
          break;
        case SetOperation::Quantifier::kNone:
          if (target_ == Dialect::kBigQuery) Write(" DISTINCT");
          break;
      }
      if (operation.by_name) Write(" BY NAME");
      Write(" ");
      PrintSetExpr(*operation.right);
      return;
    }
    case SetExprKind::kValues: {
      const auto& values = body.As<Values>();
      Write("VALUES ");
      for (std::size_t i = 0; i < values.rows.size(); ++i) {
        if (i > 0) Write(", ");
        Write("(");
        PrintExprList(values.rows[i]);
        Write(")");
      }
      return;
    }
    case SetExprKind::kNested:
      Write("(");
      PrintQuery(*body.As<NestedQuery>().query);
      Write(")");
      return;
  }
}

void Printer::PrintSelect(const Select& select) {
  Write("SELECT ");
  if (select.distinct == Select::Distinct::kAll) Write("ALL ");
  if (select.distinct == Select::Distinct::kDistinct) {
    Write("DISTINCT ");
    if (!select.distinct_on.empty()) {
      Write("ON (");
      PrintExprList(select.distinct_on);
      Write(") ");
    }
  }
  if (select.top) {
    Write("TOP ");
    PrintExpr(*select.top);
    Write(select.top_percent ? " PERCENT " : " ");
  }
  for (std::size_t i = 0; i < select.items.size(); ++i) {
    if (i > 0) Write(", ");
    PrintExpr(*select.items[i].expr);
    if (select.items[i].alias) {
      Write(" AS ");
      PrintName(*select.items[i].alias);
    }
  }
  if (select.from) {
    Write(" FROM ");
    PrintTable(*select.from);
  }
  PrintSelectClauses(select);
}

void Printer::PrintSelectClauses(const Select& select) {
  if (select.where) {
    Write(" WHERE ");
    PrintExpr(*select.where);
  }
  if (select.has_group_by) {
    Write(" GROUP BY ");
    if (select.group_by_all) Write("ALL");
    PrintExprList(select.group_by);
  }
  if (select.having) {
    Write(" HAVING ");
    PrintExpr(*select.having);
  }
  if (!select.windows.empty()) {
    Write(" WINDOW ");
    for (std::size_t i = 0; i < select.windows.size(); ++i) {
      if (i > 0) Write(", ");
      PrintName(select.windows[i].name);
      Write(" AS (");
      PrintWindow(select.windows[i].spec);
      Write(")");
    }
  }
  if (select.qualify) {
    Write(" QUALIFY ");
    PrintExpr(*select.qualify);
  }
  if (select.using_sample) PrintSample(*select.using_sample);
}

void Printer::PrintTable(const TableRef& table) {
  switch (table.kind) {
    case TableRefKind::kTable:
      if (!table.As<NamedTable>().file.empty()) {
        Write(table.As<NamedTable>().file);
      } else {
        PrintNames(table.As<NamedTable>().name, ".");
      }
      break;
    case TableRefKind::kFunction: {
      const auto& function = table.As<TableFunction>();
      if (function.lateral) Write("LATERAL ");
      PrintFunction(*function.call);
      if (function.with_ordinality) Write(" WITH ORDINALITY");
      break;
    }
    case TableRefKind::kDerived: {
      const auto& derived = table.As<DerivedTable>();
      Write(derived.lateral ? "LATERAL (" : "(");
      PrintQuery(*derived.query);
      Write(")");
      break;
    }
    case TableRefKind::kJoin:
      PrintJoin(table.As<Join>());
      break;
    case TableRefKind::kParenthesized:
      Write("(");
      PrintTable(*table.As<ParenthesizedTable>().inner);
      Write(")");
      break;
    case TableRefKind::kPivot:
      PrintPivot(table.As<Pivot>());
      break;
    case TableRefKind::kUnpivot:
      PrintUnpivot(table.As<Unpivot>());
      break;
  }
  PrintTableTail(table);
}

void Printer::PrintTableTail(const TableRef& table) {
  if (table.alias) {
    Write(" AS ");
    PrintName(table.alias->name);
    if (!table.alias->columns.empty()) {
      Write(" (");
      PrintNames(table.alias->columns, ", ");
      Write(")");
    }
  }
  if (table.kind == TableRefKind::kFunction) {
    const auto& function = table.As<TableFunction>();
    if (function.with_offset) {
      Write(" WITH OFFSET");
      if (function.offset_alias) {
        Write(" AS ");
        PrintName(*function.offset_alias);
      }
    }
  }
  if (table.sample) PrintSample(*table.sample);
}

void Printer::PrintSample(const TableSample& sample) {
  Write(" ");
  Write(sample.keyword);
  Write(" ");
  if (sample.method_after_size) {
    PrintExpr(*sample.size);
    if (!sample.unit.empty()) {
      if (sample.unit != "%") Write(" ");
      Write(sample.unit);
    }
    Write(" (");
    WriteUpper(sample.method->name);
    if (sample.seed) {
      Write(", ");
      PrintExpr(*sample.seed);
    }
    Write(")");
    return;
  }
  if (sample.method) {
    WriteUpper(sample.method->name);
  }
  if (sample.parenthesized) Write(sample.method ? " (" : "(");
  PrintExpr(*sample.size);
  if (!sample.unit.empty()) {
    if (sample.unit != "%") Write(" ");
    Write(sample.unit);
  }
  if (sample.parenthesized) Write(")");
  if (sample.seed) {
    Write(" ");
    Write(sample.seed_keyword);
    Write(" (");
    PrintExpr(*sample.seed);
    Write(")");
  }
}

void Printer::PrintJoin(const Join& join) {
  PrintTable(*join.left);
  if (join.join == JoinKind::kComma) {
    Write(", ");
    PrintTable(*join.right);
    return;
  }
  if (join.lateral_view) {
    Write(join.lateral_view_outer ? " LATERAL VIEW OUTER " : " LATERAL VIEW ");
    const auto& function = join.right->As<TableFunction>();
    PrintFunction(*function.call);
    if (function.alias) {
      Write(" ");
      PrintName(function.alias->name);
      if (!function.alias->columns.empty()) {
        Write(" AS ");
        PrintNames(function.alias->columns, ", ");
      }
    }
    return;
  }
  Write(" ");
  if (join.natural) Write("NATURAL ");
  if (join.asof) Write("ASOF ");
  switch (join.join) {
    case JoinKind::kComma:
    case JoinKind::kInner:
      if (!join.asof && !join.natural) Write("INNER ");
      break;
    case JoinKind::kLeft:
      Write("LEFT ");
      break;
    case JoinKind::kRight:
      Write("RIGHT ");
      break;
    case JoinKind::kFull:
      Write("FULL ");
      break;
    case JoinKind::kCross:
      Write("CROSS ");
      break;
    case JoinKind::kSemi:
      Write(target_ == Dialect::kDatabricks ? "LEFT SEMI " : "SEMI ");
      break;
    case JoinKind::kAnti:
      Write(target_ == Dialect::kDatabricks ? "LEFT ANTI " : "ANTI ");
      break;
    case JoinKind::kPositional:
      Write("POSITIONAL ");
      break;
  }
  Write("JOIN ");
  PrintTable(*join.right);
  if (join.match_condition) {
    Write(" MATCH_CONDITION (");
    PrintExpr(*join.match_condition);
    Write(")");
  }
  if (join.on) {
    Write(" ON ");
    PrintExpr(*join.on);
  }
  if (join.has_using) {
    Write(" USING (");
    PrintNames(join.using_columns, ", ");
    Write(")");
  }
}

void Printer::PrintAliasedList(const std::vector<SelectItem>& items) {
  Write("(");
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) Write(", ");
    PrintExpr(*items[i].expr);
    if (items[i].alias) {
      Write(" AS ");
      PrintName(*items[i].alias);
    }
  }
  Write(")");
}

void Printer::PrintPivot(const Pivot& pivot) {
  PrintTable(*pivot.source);
  Write(" PIVOT (");
  for (std::size_t i = 0; i < pivot.aggregates.size(); ++i) {
    if (i > 0) Write(", ");
    PrintExpr(*pivot.aggregates[i].expr);
    if (pivot.aggregates[i].alias) {
      Write(" AS ");
      PrintName(*pivot.aggregates[i].alias);
    }
  }
  Write(" FOR ");
  if (pivot.for_columns.size() == 1) {
    PrintName(pivot.for_columns.front());
  } else {
    Write("(");
    PrintNames(pivot.for_columns, ", ");
    Write(")");
  }
  Write(" IN ");
  PrintAliasedList(pivot.in_values);
  if (!pivot.group_by.empty()) {
    Write(" GROUP BY ");
    PrintExprList(pivot.group_by);
  }
  Write(")");
}

void Printer::PrintUnpivot(const Unpivot& unpivot) {
  PrintTable(*unpivot.source);
  Write(" UNPIVOT ");
  if (!unpivot.nulls.empty()) {
    Write(unpivot.nulls);
    Write(" ");
  }
  Write("(");
  if (unpivot.value_columns.size() == 1) {
    PrintName(unpivot.value_columns.front());
  } else {
    Write("(");
    PrintNames(unpivot.value_columns, ", ");
    Write(")");
  }
  Write(" FOR ");
  PrintName(unpivot.name_column);
  Write(" IN ");
  PrintAliasedList(unpivot.in_columns);
  Write(")");
}

}  // namespace internal

std::string Print(const Statement& statement, Dialect dialect) {
  internal::Printer printer(statement.dialect, dialect);
  printer.PrintQuery(*statement.query);
  return printer.Take();
}

std::string PrintExpr(const Expr& expr, Dialect source, Dialect dialect) {
  internal::Printer printer(source, dialect);
  printer.PrintExpr(expr);
  return printer.Take();
}

std::string PrintQuery(const Query& query, Dialect source, Dialect dialect) {
  internal::Printer printer(source, dialect);
  printer.PrintQuery(query);
  return printer.Take();
}

}  // namespace strata::sql
