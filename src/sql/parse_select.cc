// Queries: WITH, set operations, SELECT cores, VALUES, ORDER BY / LIMIT / OFFSET / FETCH.
#include "sql/internal/parser_impl.h"

namespace strata::sql::internal {
namespace {

constexpr int kMaxDepth = 200;

// Set operator binding: INTERSECT binds tighter than UNION / EXCEPT / MINUS.
// MINUS is EXCEPT only where the dialect has it (DuckDB, PostgreSQL, BigQuery and Trino do not).
bool HasMinus(Dialect dialect) {
  switch (dialect) {
    case Dialect::kSnowflake:
    case Dialect::kRedshift:
    case Dialect::kDatabricks:
      return true;
    case Dialect::kDuckDb:
    case Dialect::kPostgres:
    case Dialect::kBigQuery:
    case Dialect::kTrino:
      return false;
  }
  return false;
}

int SetPrecedence(const Parser& parser) {
  if (parser.AtKeyword("UNION") || parser.AtKeyword("EXCEPT") ||
      (parser.AtKeyword("MINUS") && HasMinus(parser.dialect()))) {
    return 1;
  }
  if (parser.AtKeyword("INTERSECT")) return 2;
  return 0;
}

}  // namespace

Result<QueryPtr> Parser::ParseQuery() {
  if (++depth_ > kMaxDepth) return Expected("a shallower query (nesting is too deep)");
  auto query = std::make_unique<Query>();
  query->span = Here();
  if (AcceptKeyword("WITH")) {
    query->has_with = true;
    query->recursive = AcceptKeyword("RECURSIVE");
    do {
      STRATA_ASSIGN_OR_RETURN(Cte cte, ParseCte());
      query->ctes.push_back(std::move(cte));
    } while (AcceptSymbol(","));
  }
  STRATA_ASSIGN_OR_RETURN(query->body, ParseSetExpr(1));
  STRATA_TRY(ParseQueryTail(*query));
  --depth_;
  return query;
}

Result<Cte> Parser::ParseCte() {
  Cte cte;
  cte.span = Here();
  STRATA_ASSIGN_OR_RETURN(cte.name, ParseAnyName("a CTE name"));
  if (AtSymbol("(")) {
    STRATA_ASSIGN_OR_RETURN(cte.columns, ParseNameList());
  }
  if (dialect() == Dialect::kDuckDb && AtKeyword("USING") && AtKeyword("KEY", 1)) {
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(cte.using_key, ParseNameList());
  }
  STRATA_TRY(ExpectKeyword("AS"));
  if (AtKeyword("NOT") && AtKeyword("MATERIALIZED", 1)) {
    cte.materialized = "NOT MATERIALIZED";
    Advance();
    Advance();
  } else if (AcceptKeyword("MATERIALIZED")) {
    cte.materialized = "MATERIALIZED";
  }
  STRATA_TRY(ExpectSymbol("("));
  STRATA_ASSIGN_OR_RETURN(cte.query, ParseQuery());
  STRATA_TRY(ExpectSymbol(")"));
  return cte;
}

Result<SetExprPtr> Parser::ParseSetExpr(int min_precedence) {
  STRATA_ASSIGN_OR_RETURN(SetExprPtr left, ParseSetOperand());
  while (true) {
    const int precedence = SetPrecedence(*this);
    if (precedence == 0 || precedence < min_precedence) break;
    auto operation = std::make_unique<SetOperation>(Here());
    if (AtKeyword("INTERSECT")) {
      operation->op = SetOp::kIntersect;
    } else if (AtKeyword("UNION")) {
      operation->op = SetOp::kUnion;
    } else {
      operation->op = SetOp::kExcept;
      operation->minus_keyword = AtKeyword("MINUS");
    }
    Advance();
    if (AcceptKeyword("ALL")) {
      operation->quantifier = SetOperation::Quantifier::kAll;
    } else if (AcceptKeyword("DISTINCT")) {
      operation->quantifier = SetOperation::Quantifier::kDistinct;
    }
    if (AtKeyword("BY") && AtKeyword("NAME", 1)) {
      operation->by_name = true;
      Advance();
      Advance();
    }
    operation->left = std::move(left);
    STRATA_ASSIGN_OR_RETURN(operation->right, ParseSetExpr(precedence + 1));
    left = std::move(operation);
  }
  return left;
}

Result<SetExprPtr> Parser::ParseSetOperand() {
  if (AtSymbol("(")) {
    auto nested = std::make_unique<NestedQuery>(Here());
    Advance();
    STRATA_ASSIGN_OR_RETURN(nested->query, ParseQuery());
    STRATA_TRY(ExpectSymbol(")"));
    return SetExprPtr(std::move(nested));
  }
  if (AtKeyword("SELECT") || (AtKeyword("FROM") && dialect_ == Dialect::kDuckDb)) {
    return ParseSelect();
  }
  if (AtKeyword("VALUES")) return ParseValues();
  return Expected("SELECT, VALUES or '('");
}

Result<SetExprPtr> Parser::ParseSelect() {
  auto select = std::make_unique<Select>(Here());
  if (AcceptKeyword("FROM")) {
    select->from_first = true;
    STRATA_ASSIGN_OR_RETURN(select->from, ParseFrom());
    if (AcceptKeyword("SELECT")) {
      STRATA_TRY(ParseSelectList(*select));
    } else {
      select->items.push_back({std::make_unique<Star>(select->span), std::nullopt});
    }
  } else {
    STRATA_TRY(ExpectKeyword("SELECT"));
    STRATA_TRY(ParseSelectList(*select));
    if (AcceptKeyword("FROM")) {
      STRATA_ASSIGN_OR_RETURN(select->from, ParseFrom());
    }
  }
  STRATA_TRY(ParseSelectTail(*select));
  return SetExprPtr(std::move(select));
}

Status Parser::ParseSelectList(Select& select) {
  if (AcceptKeyword("DISTINCT")) {
    select.distinct = Select::Distinct::kDistinct;
    if (AcceptKeyword("ON")) {
      STRATA_TRY(ExpectSymbol("("));
      STRATA_ASSIGN_OR_RETURN(select.distinct_on, ParseExpressionList());
      STRATA_TRY(ExpectSymbol(")"));
    }
  } else if (AcceptKeyword("ALL")) {
    select.distinct = Select::Distinct::kAll;
  }
  // SELECT TOP n: Snowflake and Redshift (DuckDB, PostgreSQL, BigQuery, Trino and Spark reject it).
  const bool top_dialect = dialect_ == Dialect::kSnowflake || dialect_ == Dialect::kRedshift;
  if (top_dialect && AtKeyword("TOP") && (Peek(1).kind == TokenKind::kNumber || AtSymbol("(", 1))) {
    Advance();
    STRATA_ASSIGN_OR_RETURN(select.top, ParseOperand(kPrecUnary));
    select.top_percent = AcceptKeyword("PERCENT");
  }
  do {
    // DuckDB accepts a trailing comma before FROM.
    if (!select.items.empty() && (AtKeyword("FROM") || Peek().kind == TokenKind::kEnd)) break;
    STRATA_ASSIGN_OR_RETURN(SelectItem item, ParseSelectItem());
    select.items.push_back(std::move(item));
  } while (AcceptSymbol(","));
  return OkStatus();
}

Result<SelectItem> Parser::ParseSelectItem() {
  SelectItem item;
  STRATA_ASSIGN_OR_RETURN(item.expr, ParseExpression());
  if (item.expr->kind == ExprKind::kStar) return item;
  STRATA_ASSIGN_OR_RETURN(item.alias, ParseOptionalAlias());
  return item;
}

Result<std::optional<Identifier>> Parser::ParseOptionalAlias() {
  if (AcceptKeyword("AS")) {
    if (Peek().kind == TokenKind::kString) {
      // 'alias' (Snowflake, BigQuery, Databricks): keep the text without quotes.
      const Token& token = Advance();
      Identifier alias{token.text.substr(1, token.text.size() - 2), true, SpanOf(token)};
      return std::optional<Identifier>(alias);
    }
    STRATA_ASSIGN_OR_RETURN(Identifier alias, ParseAnyName("an alias"));
    return std::optional<Identifier>(alias);
  }
  if (AtName()) return std::optional<Identifier>(MakeIdentifier(Advance()));
  return std::optional<Identifier>();
}

Status Parser::ParseSelectTail(Select& select) {
  if (AcceptKeyword("WHERE")) {
    STRATA_ASSIGN_OR_RETURN(select.where, ParseExpression());
  }
  if (AtKeyword("GROUP") && AtKeyword("BY", 1)) STRATA_TRY(ParseGroupBy(select));
  if (AcceptKeyword("HAVING")) {
    STRATA_ASSIGN_OR_RETURN(select.having, ParseExpression());
  }
  if (AtKeyword("WINDOW")) STRATA_TRY(ParseNamedWindows(select));
  if (AcceptKeyword("QUALIFY")) {
    STRATA_ASSIGN_OR_RETURN(select.qualify, ParseExpression());
  }
  if (AtKeyword("WINDOW") && select.windows.empty()) STRATA_TRY(ParseNamedWindows(select));
  if (AtKeyword("USING") && AtKeyword("SAMPLE", 1)) {
    STRATA_ASSIGN_OR_RETURN(select.using_sample, ParseTableSample());
  }
  return OkStatus();
}

Status Parser::ParseGroupBy(Select& select) {
  Advance();
  Advance();
  select.has_group_by = true;
  if (AtKeyword("ALL") && !AtSymbol("(", 1)) {
    Advance();
    select.group_by_all = true;
    return OkStatus();
  }
  do {
    if (AtKeyword("ROLLUP") && AtSymbol("(", 1)) {
      Advance();
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseGrouping(Grouping::Kind::kRollup));
      select.group_by.push_back(std::move(item));
    } else if (AtKeyword("CUBE") && AtSymbol("(", 1)) {
      Advance();
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseGrouping(Grouping::Kind::kCube));
      select.group_by.push_back(std::move(item));
    } else if (AtKeyword("GROUPING") && AtKeyword("SETS", 1)) {
      Advance();
      Advance();
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseGrouping(Grouping::Kind::kGroupingSets));
      select.group_by.push_back(std::move(item));
    } else {
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseExpression());
      select.group_by.push_back(std::move(item));
    }
  } while (AcceptSymbol(","));
  return OkStatus();
}

Result<ExprPtr> Parser::ParseGrouping(Grouping::Kind kind) {
  auto grouping = std::make_unique<Grouping>(Here());
  grouping->grouping = kind;
  STRATA_TRY(ExpectSymbol("("));
  do {
    if (AtKeyword("ROLLUP") && AtSymbol("(", 1)) {
      Advance();
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseGrouping(Grouping::Kind::kRollup));
      grouping->items.push_back(std::move(item));
    } else if (AtKeyword("CUBE") && AtSymbol("(", 1)) {
      Advance();
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseGrouping(Grouping::Kind::kCube));
      grouping->items.push_back(std::move(item));
    } else {
      STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseExpression());
      grouping->items.push_back(std::move(item));
    }
  } while (AcceptSymbol(","));
  STRATA_TRY(ExpectSymbol(")"));
  return ExprPtr(std::move(grouping));
}

Status Parser::ParseNamedWindows(Select& select) {
  Advance();
  do {
    NamedWindow window;
    STRATA_ASSIGN_OR_RETURN(window.name, ParseAnyName("a window name"));
    STRATA_TRY(ExpectKeyword("AS"));
    STRATA_TRY(ExpectSymbol("("));
    STRATA_ASSIGN_OR_RETURN(window.spec, ParseWindowSpec());
    STRATA_TRY(ExpectSymbol(")"));
    select.windows.push_back(std::move(window));
  } while (AcceptSymbol(","));
  return OkStatus();
}

Result<SetExprPtr> Parser::ParseValues() {
  auto values = std::make_unique<Values>(Here());
  Advance();
  do {
    STRATA_TRY(ExpectSymbol("("));
    STRATA_ASSIGN_OR_RETURN(NodeVector<ExprPtr> row, ParseExpressionList());
    STRATA_TRY(ExpectSymbol(")"));
    values->rows.push_back(std::move(row));
  } while (AcceptSymbol(","));
  return SetExprPtr(std::move(values));
}

Status Parser::ParseQueryTail(Query& query) {
  if (AtKeyword("ORDER") && AtKeyword("BY", 1)) {
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(query.order_by, ParseOrderByList());
  }
  return ParseLimitOffset(query);
}

// LIMIT n, and DuckDB's percentages LIMIT 10% / LIMIT 10 PERCENT. "10%" alone does not parse as
// an expression (a modulo without its right side), so that form is retried as an operand above
// the multiplicative operators followed by '%'.
Status Parser::ParseLimitCount(Query& query) {
  const std::size_t start = pos_;
  const int depth = depth_;
  auto count = ParseExpression();
  if (count.ok()) {
    query.limit = std::move(count).value();
    query.limit_percent = dialect_ == Dialect::kDuckDb && AcceptKeyword("PERCENT");
    return OkStatus();
  }
  if (dialect_ != Dialect::kDuckDb) return std::move(count).error();
  pos_ = start;
  depth_ = depth;
  auto operand = ParseOperand(kPrecMultiply + 1);
  if (!operand.ok() || !AcceptSymbol("%")) return std::move(count).error();
  query.limit = std::move(operand).value();
  query.limit_percent = true;
  return OkStatus();
}

Status Parser::ParseLimitOffset(Query& query) {
  while (true) {
    if (!query.limit && !query.limit_all && AcceptKeyword("LIMIT")) {
      if (AcceptKeyword("ALL")) {
        query.limit_all = true;
      } else {
        STRATA_TRY(ParseLimitCount(query));
      }
    } else if (!query.offset && AcceptKeyword("OFFSET")) {
      STRATA_ASSIGN_OR_RETURN(query.offset, ParseExpression());
      if (!AcceptKeyword("ROWS")) AcceptKeyword("ROW");
    } else if (!query.has_fetch && AcceptKeyword("FETCH")) {
      if (!AcceptKeyword("FIRST")) STRATA_TRY(ExpectKeyword("NEXT"));
      query.has_fetch = true;
      if (!AtKeyword("ROW") && !AtKeyword("ROWS")) {
        STRATA_ASSIGN_OR_RETURN(query.fetch, ParseOperand(kPrecAdd));
      }
      if (!AcceptKeyword("ROWS")) STRATA_TRY(ExpectKeyword("ROW"));
      if (AcceptKeyword("WITH")) {
        STRATA_TRY(ExpectKeyword("TIES"));
        query.fetch_with_ties = true;
      } else {
        STRATA_TRY(ExpectKeyword("ONLY"));
      }
    } else {
      return OkStatus();
    }
  }
}

Result<std::vector<OrderItem>> Parser::ParseOrderByList() {
  std::vector<OrderItem> items;
  do {
    OrderItem item;
    if (AtKeyword("ALL") && !AtSymbol("(", 1)) {
      // DuckDB ORDER BY ALL: kept as the bare word.
      auto all = std::make_unique<ColumnRef>(Here());
      all->parts.push_back(MakeIdentifier(Advance()));
      item.expr = std::move(all);
    } else {
      STRATA_ASSIGN_OR_RETURN(item.expr, ParseExpression());
    }
    if (AcceptKeyword("ASC")) {
      item.direction = OrderItem::Direction::kAsc;
    } else if (AcceptKeyword("DESC")) {
      item.direction = OrderItem::Direction::kDesc;
    }
    if (AtKeyword("NULLS") && (AtKeyword("FIRST", 1) || AtKeyword("LAST", 1))) {
      Advance();
      item.nulls = AtKeyword("FIRST") ? OrderItem::Nulls::kFirst : OrderItem::Nulls::kLast;
      Advance();
    }
    items.push_back(std::move(item));
  } while (AcceptSymbol(","));
  return items;
}

Result<NodeVector<ExprPtr>> Parser::ParseExpressionList() {
  NodeVector<ExprPtr> list;
  do {
    STRATA_ASSIGN_OR_RETURN(ExprPtr item, ParseExpression());
    list.push_back(std::move(item));
  } while (AcceptSymbol(","));
  return list;
}

}  // namespace strata::sql::internal
