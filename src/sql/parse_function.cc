// Function calls with their modifiers, window specifications and the keyword-argument forms
// EXTRACT / SUBSTRING / POSITION / TRIM.
#include "sql/internal/parser_impl.h"

namespace strata::sql::internal {

Result<std::unique_ptr<FunctionCall>> Parser::ParseFunctionCall(NodeVector<Identifier> name,
                                                                Span span) {
  auto call = std::make_unique<FunctionCall>(span);
  call->name = std::move(name);
  STRATA_TRY(ExpectSymbol("("));
  if (!AtSymbol(")")) STRATA_TRY(ParseFunctionArguments(*call));
  STRATA_TRY(ExpectSymbol(")"));
  STRATA_TRY(ParseFunctionModifiers(*call));
  return call;
}

Status Parser::ParseFunctionArguments(FunctionCall& call) {
  call.distinct = AcceptKeyword("DISTINCT");
  do {
    STRATA_ASSIGN_OR_RETURN(ExprPtr argument, ParseFunctionArgument());
    call.args.push_back(std::move(argument));
  } while (AcceptSymbol(","));
  if ((AtKeyword("IGNORE") || AtKeyword("RESPECT")) && AtKeyword("NULLS", 1)) {
    call.nulls_treatment = AtKeyword("IGNORE") ? "IGNORE NULLS" : "RESPECT NULLS";
    call.nulls_inside = true;
    Advance();
    Advance();
  }
  if (AtKeyword("ORDER") && AtKeyword("BY", 1)) {
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(call.order_by, ParseOrderByList());
  }
  if (dialect() == Dialect::kBigQuery && AcceptKeyword("LIMIT")) {  // ARRAY_AGG, STRING_AGG
    STRATA_ASSIGN_OR_RETURN(call.limit, ParseOperand(kPrecUnary));
  }
  return OkStatus();
}

Result<ExprPtr> Parser::ParseFunctionArgument() {
  if (AtAnyName() && (AtSymbol("=>", 1) || AtSymbol(":=", 1))) {
    auto named = std::make_unique<NamedArgument>(Here());
    named->name = MakeIdentifier(Advance());
    named->op = Advance().text;
    STRATA_ASSIGN_OR_RETURN(named->value, ParseExpression());
    return ExprPtr(std::move(named));
  }
  if (dialect() == Dialect::kDuckDb && AtSymbol("*") && AtKeyword("COLUMNS", 1) &&
      AtSymbol("(", 2)) {  // *COLUMNS(...): DuckDB's binder allows it only as an argument
    const Span span = Here();
    Advance();
    NodeVector<Identifier> name{MakeIdentifier(Advance())};
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<FunctionCall> columns,
                            ParseFunctionCall(std::move(name), span));
    columns->unpacked = true;
    return ExprPtr(std::move(columns));
  }
  if (AtKeyword("SELECT") || AtKeyword("WITH")) {
    auto subquery = std::make_unique<Subquery>(Here());
    subquery->parenthesized = false;
    STRATA_ASSIGN_OR_RETURN(subquery->query, ParseQuery());
    return ExprPtr(std::move(subquery));
  }
  return ParseExpression();
}

Status Parser::ParseFunctionModifiers(FunctionCall& call) {
  if (AtKeyword("WITHIN") && AtKeyword("GROUP", 1)) {
    Advance();
    Advance();
    STRATA_TRY(ExpectSymbol("("));
    STRATA_TRY(ExpectKeyword("ORDER"));
    STRATA_TRY(ExpectKeyword("BY"));
    STRATA_ASSIGN_OR_RETURN(call.within_group, ParseOrderByList());
    STRATA_TRY(ExpectSymbol(")"));
    call.has_within_group = true;
  }
  if (AtKeyword("FILTER") && AtSymbol("(", 1)) {
    Advance();
    Advance();
    // DuckDB also takes FILTER (condition) without WHERE.
    if (dialect() != Dialect::kDuckDb || AtKeyword("WHERE")) STRATA_TRY(ExpectKeyword("WHERE"));
    STRATA_ASSIGN_OR_RETURN(call.filter, ParseExpression());
    STRATA_TRY(ExpectSymbol(")"));
  }
  if (call.nulls_treatment.empty() && (AtKeyword("IGNORE") || AtKeyword("RESPECT")) &&
      AtKeyword("NULLS", 1)) {
    call.nulls_treatment = AtKeyword("IGNORE") ? "IGNORE NULLS" : "RESPECT NULLS";
    Advance();
    Advance();
  }
  if (AcceptKeyword("OVER")) {
    if (AtSymbol("(")) {
      Advance();
      STRATA_ASSIGN_OR_RETURN(WindowSpec spec, ParseWindowSpec());
      call.over = std::make_unique<WindowSpec>(std::move(spec));
      STRATA_TRY(ExpectSymbol(")"));
    } else {
      STRATA_ASSIGN_OR_RETURN(Identifier name, ParseName("a window name or '('"));
      call.over_name = name;
    }
  }
  return OkStatus();
}

Result<WindowSpec> Parser::ParseWindowSpec() {
  WindowSpec spec;
  const bool clause = AtKeyword("PARTITION") || AtKeyword("ORDER") || AtKeyword("ROWS") ||
                      AtKeyword("RANGE") || AtKeyword("GROUPS");
  if (!clause && AtName()) spec.base = MakeIdentifier(Advance());
  if (AtKeyword("PARTITION") && AtKeyword("BY", 1)) {
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(spec.partition_by, ParseExpressionList());
  }
  if (AtKeyword("ORDER") && AtKeyword("BY", 1)) {
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(spec.order_by, ParseOrderByList());
  }
  if (AtKeyword("ROWS") || AtKeyword("RANGE") || AtKeyword("GROUPS")) {
    STRATA_ASSIGN_OR_RETURN(WindowFrame frame, ParseWindowFrame());
    spec.frame = std::move(frame);
  }
  return spec;
}

Result<WindowFrame> Parser::ParseWindowFrame() {
  WindowFrame frame;
  frame.unit = AtKeyword("ROWS")    ? WindowFrame::Unit::kRows
               : AtKeyword("RANGE") ? WindowFrame::Unit::kRange
                                    : WindowFrame::Unit::kGroups;
  Advance();
  if (AcceptKeyword("BETWEEN")) {
    STRATA_ASSIGN_OR_RETURN(frame.start, ParseFrameBound());
    STRATA_TRY(ExpectKeyword("AND"));
    STRATA_ASSIGN_OR_RETURN(FrameBound end, ParseFrameBound());
    frame.end = std::move(end);
  } else {
    STRATA_ASSIGN_OR_RETURN(frame.start, ParseFrameBound());
  }
  if (AcceptKeyword("EXCLUDE")) {
    if (AtKeyword("CURRENT") && AtKeyword("ROW", 1)) {
      Advance();
      frame.exclude = WindowFrame::Exclude::kCurrentRow;
    } else if (AtKeyword("GROUP")) {
      frame.exclude = WindowFrame::Exclude::kGroup;
    } else if (AtKeyword("TIES")) {
      frame.exclude = WindowFrame::Exclude::kTies;
    } else if (AtKeyword("NO") && AtKeyword("OTHERS", 1)) {
      Advance();
      frame.exclude = WindowFrame::Exclude::kNoOthers;
    } else {
      return Expected("CURRENT ROW, GROUP, TIES or NO OTHERS after EXCLUDE");
    }
    Advance();
  }
  return frame;
}

Result<FrameBound> Parser::ParseFrameBound() {
  FrameBound bound;
  if (AcceptKeyword("UNBOUNDED")) {
    if (AcceptKeyword("PRECEDING")) {
      bound.kind = FrameBound::Kind::kUnboundedPreceding;
    } else {
      STRATA_TRY(ExpectKeyword("FOLLOWING"));
      bound.kind = FrameBound::Kind::kUnboundedFollowing;
    }
    return bound;
  }
  if (AtKeyword("CURRENT") && AtKeyword("ROW", 1)) {
    Advance();
    Advance();
    bound.kind = FrameBound::Kind::kCurrentRow;
    return bound;
  }
  STRATA_ASSIGN_OR_RETURN(bound.offset, ParseOperand(kPrecCompare));
  if (AcceptKeyword("PRECEDING")) {
    bound.kind = FrameBound::Kind::kPreceding;
  } else {
    STRATA_TRY(ExpectKeyword("FOLLOWING"));
    bound.kind = FrameBound::Kind::kFollowing;
  }
  return bound;
}

// EXTRACT(part FROM x) always; SUBSTRING / POSITION / TRIM only when a keyword separates the
// arguments, otherwise they are ordinary calls.
Result<ExprPtr> Parser::ParseKeywordFunction(std::string_view name) {
  const Span span = Here();
  const std::size_t start = pos_;
  const int depth = depth_;
  auto keyword_form = ParseKeywordFunctionParts(name, span);
  if (keyword_form.ok() && *keyword_form) return keyword_form;
  if (!keyword_form.ok() && name == "EXTRACT") return keyword_form;
  pos_ = start;
  depth_ = depth;
  NodeVector<Identifier> parts{MakeIdentifier(Advance())};
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<FunctionCall> call,
                          ParseFunctionCall(std::move(parts), span));
  return ExprPtr(std::move(call));
}

// Returns a null ExprPtr when the call has no separating keyword.
Result<ExprPtr> Parser::ParseKeywordFunctionParts(std::string_view name, Span span) {
  auto node = std::make_unique<KeywordFunction>(span);
  node->name = name;
  Advance();
  Advance();
  std::string_view lead;
  if (name == "TRIM") {
    for (std::string_view word : {"BOTH", "LEADING", "TRAILING"}) {
      if (AtKeyword(word)) lead = word;
    }
    if (!lead.empty()) Advance();
    if (!lead.empty() && AcceptKeyword("FROM")) {
      // TRIM(BOTH FROM s)
      node->parts.emplace_back(lead, nullptr);
      lead = "FROM";
    }
  }
  STRATA_ASSIGN_OR_RETURN(ExprPtr first, ParseOperand(kPrecLike + 1));
  node->parts.emplace_back(lead, std::move(first));
  while (AtKeyword("FROM") || AtKeyword("FOR") || AtKeyword("IN")) {
    const std::string_view keyword = AtKeyword("FROM") ? "FROM" : AtKeyword("FOR") ? "FOR" : "IN";
    Advance();
    STRATA_ASSIGN_OR_RETURN(ExprPtr argument, ParseExpression());
    node->parts.emplace_back(keyword, std::move(argument));
  }
  if (node->parts.size() == 1 && lead.empty()) return ExprPtr();
  STRATA_TRY(ExpectSymbol(")"));
  return ExprPtr(std::move(node));
}

}  // namespace strata::sql::internal
