// FROM: tables, table functions, derived tables, joins, TABLESAMPLE, PIVOT / UNPIVOT.
#include "sql/internal/parser_impl.h"

namespace strata::sql::internal {

Error LaterError(Error a, Error b) {
  const int a_line = a.span ? a.span->line : 0;
  const int b_line = b.span ? b.span->line : 0;
  const int a_column = a.span ? a.span->column : 0;
  const int b_column = b.span ? b.span->column : 0;
  if (b_line > a_line || (b_line == a_line && b_column > a_column)) return b;
  return a;
}

// Comma-separated join chains: "a, b JOIN c" is a CROSS (b JOIN c), as in the standard.
Result<TableRefPtr> Parser::ParseFrom() {
  STRATA_ASSIGN_OR_RETURN(TableRefPtr left, ParseJoinChain());
  while (AtSymbol(",")) {
    auto join = std::make_unique<Join>(Here());
    Advance();
    join->join = JoinKind::kComma;
    join->left = std::move(left);
    STRATA_ASSIGN_OR_RETURN(join->right, ParseJoinChain());
    left = std::move(join);
  }
  return left;
}

Result<TableRefPtr> Parser::ParseJoinChain() {
  STRATA_ASSIGN_OR_RETURN(TableRefPtr left, ParseTablePrimary());
  while (AtJoin() || AtLateralView()) {
    if (AtLateralView()) {
      STRATA_ASSIGN_OR_RETURN(left, ParseLateralView(std::move(left)));
    } else {
      STRATA_ASSIGN_OR_RETURN(left, ParseJoinRight(std::move(left)));
    }
  }
  return left;
}

bool Parser::AtLateralView() const {
  return dialect_ == Dialect::kDatabricks && AtKeyword("LATERAL") && AtKeyword("VIEW", 1);
}

// Spark's grammar: LATERAL VIEW [OUTER] name(args) table [[AS] column [, column ...]].
Result<TableRefPtr> Parser::ParseLateralView(TableRefPtr left) {
  auto join = std::make_unique<Join>(Here());
  Advance();
  Advance();
  join->join = JoinKind::kCross;
  join->lateral_view = true;
  join->lateral_view_outer = AcceptKeyword("OUTER");
  const Span span = Here();
  STRATA_ASSIGN_OR_RETURN(NodeVector<Identifier> name, ParseQualifiedName("a generator function"));
  if (!AtSymbol("(")) return Expected("'(' after the generator function");
  auto function = std::make_unique<TableFunction>(span);
  STRATA_ASSIGN_OR_RETURN(function->call, ParseFunctionCall(std::move(name), span));
  TableAlias alias;
  STRATA_ASSIGN_OR_RETURN(alias.name, ParseName("a table name for the LATERAL VIEW"));
  if (AcceptKeyword("AS") || AtName()) {
    do {
      STRATA_ASSIGN_OR_RETURN(Identifier column, ParseAnyName("a column name"));
      alias.columns.push_back(column);
    } while (AcceptSymbol(","));
  }
  function->alias = std::move(alias);
  join->left = std::move(left);
  join->right = std::move(function);
  return TableRefPtr(std::move(join));
}

namespace {

// Inner and outer joins need ON or USING, except NATURAL ones and in Spark SQL (Databricks), where
// a bare JOIN is a cross join. CROSS, SEMI, ANTI, POSITIONAL and ASOF follow their own rules.
bool NeedsJoinCondition(const Join& join, Dialect dialect) {
  if (join.natural || join.asof || dialect == Dialect::kDatabricks) return false;
  switch (join.join) {
    case JoinKind::kInner:
    case JoinKind::kLeft:
    case JoinKind::kRight:
    case JoinKind::kFull:
      return true;
    case JoinKind::kComma:
    case JoinKind::kCross:
    case JoinKind::kSemi:
    case JoinKind::kAnti:
    case JoinKind::kPositional:
      return false;
  }
  return false;
}

}  // namespace

bool Parser::AtMatchCondition() const {
  return dialect_ == Dialect::kSnowflake && AtKeyword("MATCH_CONDITION") && AtSymbol("(", 1);
}

bool Parser::AtJoin() const {
  for (std::string_view word : {"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL",
                                "SEMI", "ANTI", "ASOF", "POSITIONAL"}) {
    if (AtKeyword(word)) return true;
  }
  return false;
}

Result<TableRefPtr> Parser::ParseJoinRight(TableRefPtr left) {
  auto join = std::make_unique<Join>(Here());
  join->natural = AcceptKeyword("NATURAL");
  join->asof = AcceptKeyword("ASOF");
  join->join = JoinKind::kInner;
  if (AcceptKeyword("INNER")) {
  } else if (AcceptKeyword("LEFT") || AtKeyword("RIGHT")) {
    const bool right = AcceptKeyword("RIGHT");
    join->join = right ? JoinKind::kRight : JoinKind::kLeft;
    if (!right && (AtKeyword("SEMI") || AtKeyword("ANTI"))) {
      join->join = AcceptKeyword("SEMI") ? JoinKind::kSemi : JoinKind::kAnti;
      if (join->join == JoinKind::kAnti) Advance();
      join->left_keyword = true;
    } else {
      AcceptKeyword("OUTER");
    }
  } else if (AcceptKeyword("FULL")) {
    join->join = JoinKind::kFull;
    AcceptKeyword("OUTER");
  } else if (AcceptKeyword("CROSS")) {
    join->join = JoinKind::kCross;
  } else if (AcceptKeyword("SEMI")) {
    join->join = JoinKind::kSemi;
  } else if (AcceptKeyword("ANTI")) {
    join->join = JoinKind::kAnti;
  } else if (AcceptKeyword("POSITIONAL")) {
    join->join = JoinKind::kPositional;
  }
  STRATA_TRY(ExpectKeyword("JOIN"));
  join->left = std::move(left);
  STRATA_ASSIGN_OR_RETURN(join->right, ParseTablePrimary());
  // A NATURAL join names its columns itself; CROSS and POSITIONAL joins pair rows without a
  // condition (Spark SQL alone allows CROSS JOIN ... ON).
  const bool takes_no_condition =
      join->natural || join->join == JoinKind::kPositional ||
      (join->join == JoinKind::kCross && dialect_ != Dialect::kDatabricks);
  if (join->asof && AtMatchCondition()) {
    Advance();
    STRATA_TRY(ExpectSymbol("("));
    STRATA_ASSIGN_OR_RETURN(join->match_condition, ParseExpression());
    STRATA_TRY(ExpectSymbol(")"));
  }
  if (takes_no_condition && (AtKeyword("ON") || AtKeyword("USING"))) {
    return Expected("the next clause (a NATURAL, CROSS or POSITIONAL join has no ON or USING)");
  }
  if (AcceptKeyword("ON")) {
    STRATA_ASSIGN_OR_RETURN(join->on, ParseExpression());
  } else if (AtKeyword("USING")) {
    Advance();
    join->has_using = true;
    STRATA_ASSIGN_OR_RETURN(join->using_columns, ParseNameList());
  } else if (NeedsJoinCondition(*join, dialect_)) {
    return Expected("ON or USING after the joined table");
  }
  return TableRefPtr(std::move(join));
}

Result<TableRefPtr> Parser::ParseTablePrimary() {
  TableRefPtr table;
  if (AtKeyword("LATERAL")) {
    STRATA_ASSIGN_OR_RETURN(table, ParseLateral());
  } else if (AtSymbol("(")) {
    STRATA_ASSIGN_OR_RETURN(table, ParseParenthesizedTable());
  } else if (AtKeyword("VALUES") && AtSymbol("(", 1) &&
             (dialect_ == Dialect::kDuckDb || dialect_ == Dialect::kDatabricks)) {
    // FROM VALUES (1, 2), (3, 4) AS v(a, b): a derived table (printed back in parentheses).
    auto derived = std::make_unique<DerivedTable>(Here());
    derived->query = std::make_unique<Query>();
    derived->query->span = Here();
    STRATA_ASSIGN_OR_RETURN(derived->query->body, ParseValues());
    table = std::move(derived);
  } else {
    STRATA_ASSIGN_OR_RETURN(table, ParseNamedOrFunctionTable(false, Here()));
  }
  return ParseTableSuffixes(std::move(table));
}

Result<TableRefPtr> Parser::ParseLateral() {
  const Span span = Here();
  Advance();
  if (!AtSymbol("(")) return ParseNamedOrFunctionTable(true, span);
  auto derived = std::make_unique<DerivedTable>(span);
  derived->lateral = true;
  Advance();
  STRATA_ASSIGN_OR_RETURN(derived->query, ParseQuery());
  STRATA_TRY(ExpectSymbol(")"));
  return TableRefPtr(std::move(derived));
}

// "(" starts a derived table or a parenthesized join; try the query first when it looks like
// one and fall back, reporting whichever attempt got further.
Result<TableRefPtr> Parser::ParseParenthesizedTable() {
  return MemoizingFailures<TableRefPtr>(pos_ * 2 + 1,
                                        [this] { return ParseParenthesizedTableUncached(); });
}

Result<TableRefPtr> Parser::ParseParenthesizedTableUncached() {
  const Span span = Here();
  std::optional<Error> query_error;
  if (QueryPtr query = TryParenthesizedQuery(&query_error)) {
    auto derived = std::make_unique<DerivedTable>(span);
    derived->query = std::move(query);
    return TableRefPtr(std::move(derived));
  }
  Advance();
  auto parenthesized = std::make_unique<ParenthesizedTable>(span);
  auto inner = ParseFrom();
  if (inner.ok() && AtSymbol(")")) {
    Advance();
    parenthesized->inner = std::move(inner).value();
    return TableRefPtr(std::move(parenthesized));
  }
  Error join_error = inner.ok() ? Expected("')'") : std::move(inner).error();
  if (!query_error) return join_error;
  return LaterError(std::move(*query_error), std::move(join_error));
}

Result<TableRefPtr> Parser::ParseNamedOrFunctionTable(bool lateral, Span span) {
  if (!lateral && dialect_ == Dialect::kDuckDb && Peek().kind == TokenKind::kString) {
    auto file = std::make_unique<NamedTable>(span);  // FROM 'events.parquet'
    file->file = Advance().text;
    return TableRefPtr(std::move(file));
  }
  STRATA_ASSIGN_OR_RETURN(NodeVector<Identifier> name, ParseQualifiedName("a table name"));
  if (!AtSymbol("(")) {
    if (lateral) return Expected("'(' after LATERAL");
    auto table = std::make_unique<NamedTable>(span);
    table->name = std::move(name);
    return TableRefPtr(std::move(table));
  }
  auto function = std::make_unique<TableFunction>(span);
  function->lateral = lateral;
  STRATA_ASSIGN_OR_RETURN(function->call, ParseFunctionCall(std::move(name), span));
  if (AtKeyword("WITH") && AtKeyword("ORDINALITY", 1)) {
    Advance();
    Advance();
    function->with_ordinality = true;
  }
  return TableRefPtr(std::move(function));
}

Result<TableRefPtr> Parser::ParseTableSuffixes(TableRefPtr table) {
  while (true) {
    if (AtKeyword("PIVOT") && AtSymbol("(", 1)) {
      STRATA_ASSIGN_OR_RETURN(table, ParsePivot(std::move(table)));
    } else if (AtKeyword("UNPIVOT") &&
               (AtSymbol("(", 1) || AtKeyword("INCLUDE", 1) || AtKeyword("EXCLUDE", 1))) {
      STRATA_ASSIGN_OR_RETURN(table, ParseUnpivot(std::move(table)));
    } else if (!table->sample &&
               (AtKeyword("TABLESAMPLE") || (AtKeyword("SAMPLE") && !AtKeyword("AS", 1)))) {
      STRATA_ASSIGN_OR_RETURN(table->sample, ParseTableSample());
    } else if (!table->alias && (AtKeyword("AS") || AtName()) && !AtMatchCondition()) {
      STRATA_TRY(ParseTableAlias(*table));
    } else if (table->kind == TableRefKind::kFunction && AtKeyword("WITH") &&
               AtKeyword("OFFSET", 1)) {
      auto& function = static_cast<TableFunction&>(*table);
      if (function.with_offset) break;
      Advance();
      Advance();
      function.with_offset = true;
      if (AcceptKeyword("AS")) {
        STRATA_ASSIGN_OR_RETURN(function.offset_alias, ParseAnyName("an offset alias"));
      } else if (AtName()) {
        function.offset_alias = MakeIdentifier(Advance());
      }
    } else {
      break;
    }
  }
  return table;
}

Status Parser::ParseTableAlias(TableRef& table) {
  TableAlias alias;
  // DuckDB and PostgreSQL refuse their reserved words as a table alias even after AS (their
  // sets are the engines' own); the other dialects' sets are only the parser's words.
  const bool engine_words = dialect() == Dialect::kDuckDb || dialect() == Dialect::kPostgres;
  const bool after_as = AcceptKeyword("AS");
  if (after_as && !engine_words) {
    STRATA_ASSIGN_OR_RETURN(alias.name, ParseAnyName("an alias"));
  } else {
    STRATA_ASSIGN_OR_RETURN(alias.name, ParseName("an alias"));
  }
  if (AtSymbol("(") && AtAnyName(1)) {
    STRATA_ASSIGN_OR_RETURN(alias.columns, ParseNameList());
  }
  table.alias = std::move(alias);
  return OkStatus();
}

Result<std::unique_ptr<TableSample>> Parser::ParseTableSample() {
  auto sample = std::make_unique<TableSample>();
  const bool using_sample = AtKeyword("USING");
  sample->keyword = using_sample ? "USING SAMPLE" : AtKeyword("SAMPLE") ? "SAMPLE" : "TABLESAMPLE";
  Advance();
  if (using_sample) Advance();
  if (AtName() && AtSymbol("(", 1)) sample->method = MakeIdentifier(Advance());
  const bool parenthesized = AcceptSymbol("(");
  sample->parenthesized = parenthesized;
  STRATA_ASSIGN_OR_RETURN(sample->size, ParseOperand(kPrecUnary));
  if (AcceptKeyword("PERCENT")) {
    sample->unit = "PERCENT";
  } else if (AcceptKeyword("ROWS")) {
    sample->unit = "ROWS";
  } else if (AcceptSymbol("%")) {
    sample->unit = "%";
  }
  if (parenthesized) STRATA_TRY(ExpectSymbol(")"));
  if (using_sample && !parenthesized && !sample->method && AtSymbol("(") && AtName(1)) {
    // USING SAMPLE 10% (bernoulli[, seed])
    Advance();
    sample->method_after_size = true;
    sample->method = MakeIdentifier(Advance());
    if (AcceptSymbol(",")) {
      STRATA_ASSIGN_OR_RETURN(sample->seed, ParseExpression());
    }
    STRATA_TRY(ExpectSymbol(")"));
    return sample;
  }
  if (AtKeyword("REPEATABLE") || AtKeyword("SEED")) {
    sample->seed_keyword = AtKeyword("SEED") ? "SEED" : "REPEATABLE";
    Advance();
    STRATA_TRY(ExpectSymbol("("));
    STRATA_ASSIGN_OR_RETURN(sample->seed, ParseExpression());
    STRATA_TRY(ExpectSymbol(")"));
  }
  return sample;
}

Result<std::vector<SelectItem>> Parser::ParseAliasedList() {
  STRATA_TRY(ExpectSymbol("("));
  std::vector<SelectItem> items;
  do {
    SelectItem item;
    STRATA_ASSIGN_OR_RETURN(item.expr, ParseExpression());
    STRATA_ASSIGN_OR_RETURN(item.alias, ParseOptionalAlias());
    items.push_back(std::move(item));
  } while (AcceptSymbol(","));
  STRATA_TRY(ExpectSymbol(")"));
  return items;
}

Result<TableRefPtr> Parser::ParsePivot(TableRefPtr source) {
  auto pivot = std::make_unique<Pivot>(Here());
  pivot->source = std::move(source);
  Advance();
  STRATA_TRY(ExpectSymbol("("));
  do {
    SelectItem item;
    STRATA_ASSIGN_OR_RETURN(item.expr, ParseExpression());
    STRATA_ASSIGN_OR_RETURN(item.alias, ParseOptionalAlias());
    pivot->aggregates.push_back(std::move(item));
  } while (AcceptSymbol(","));
  STRATA_TRY(ExpectKeyword("FOR"));
  if (AtSymbol("(")) {
    STRATA_ASSIGN_OR_RETURN(pivot->for_columns, ParseNameList());
  } else {
    STRATA_ASSIGN_OR_RETURN(Identifier column, ParseAnyName("a pivot column"));
    pivot->for_columns.push_back(column);
  }
  STRATA_TRY(ExpectKeyword("IN"));
  STRATA_ASSIGN_OR_RETURN(pivot->in_values, ParseAliasedList());
  if (AtKeyword("GROUP") && AtKeyword("BY", 1)) {
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(pivot->group_by, ParseExpressionList());
  }
  STRATA_TRY(ExpectSymbol(")"));
  return TableRefPtr(std::move(pivot));
}

Result<TableRefPtr> Parser::ParseUnpivot(TableRefPtr source) {
  auto unpivot = std::make_unique<Unpivot>(Here());
  unpivot->source = std::move(source);
  Advance();
  if (AtKeyword("INCLUDE") || AtKeyword("EXCLUDE")) {
    unpivot->nulls = AtKeyword("INCLUDE") ? "INCLUDE NULLS" : "EXCLUDE NULLS";
    Advance();
    STRATA_TRY(ExpectKeyword("NULLS"));
  }
  STRATA_TRY(ExpectSymbol("("));
  if (AtSymbol("(")) {
    STRATA_ASSIGN_OR_RETURN(unpivot->value_columns, ParseNameList());
  } else {
    STRATA_ASSIGN_OR_RETURN(Identifier column, ParseAnyName("a value column"));
    unpivot->value_columns.push_back(column);
  }
  STRATA_TRY(ExpectKeyword("FOR"));
  STRATA_ASSIGN_OR_RETURN(unpivot->name_column, ParseAnyName("a name column"));
  STRATA_TRY(ExpectKeyword("IN"));
  STRATA_ASSIGN_OR_RETURN(unpivot->in_columns, ParseAliasedList());
  STRATA_TRY(ExpectSymbol(")"));
  return TableRefPtr(std::move(unpivot));
}

}  // namespace strata::sql::internal
