// Operands: literals, placeholders, names, *, parenthesized expressions and subqueries, CASE,
// CAST, INTERVAL, typed literals, array / struct / map literals.
#include <array>

#include "sql/internal/parser_impl.h"
#include "sql/keyword_set.h"
#include "sql/reserved_words.h"

namespace strata::sql::internal {
namespace {

constexpr std::array<std::string_view, 13> kTypedLiteralWords = {
    "DATE",          "TIME",         "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP_NTZ",
    "TIMESTAMP_LTZ", "TIMESTAMP_TZ", "DATETIME",  "JSON",        "NUMERIC",
    "DECIMAL",       "BIGNUMERIC",   "UUID"};

// The words ParseKeywordPrimary tests itself; with kTypedLiteralWords, every word it acts on.
constexpr std::array<std::string_view, 18> kPrimaryKeywords = {
    "NULL",     "TRUE",  "FALSE",  "CASE", "LAMBDA", "CAST",    "TRY_CAST",  "SAFE_CAST", "EXISTS",
    "INTERVAL", "ARRAY", "STRUCT", "MAP",  "ROW",    "EXTRACT", "SUBSTRING", "POSITION",  "TRIM"};
// Any other identifier is a name, known after one lookup.
constexpr KeywordSet<31> kKeywordPrimaryWords(JoinWords(kPrimaryKeywords, kTypedLiteralWords));

constexpr std::array<std::string_view, 24> kIntervalUnits = {
    "YEAR",        "YEARS",        "QUARTER", "QUARTERS", "MONTH",       "MONTHS",
    "WEEK",        "WEEKS",        "DAY",     "DAYS",     "HOUR",        "HOURS",
    "MINUTE",      "MINUTES",      "SECOND",  "SECONDS",  "MILLISECOND", "MILLISECONDS",
    "MICROSECOND", "MICROSECONDS", "DECADE",  "CENTURY",  "MILLENNIUM",  "EPOCH"};

bool IsQuotedPlaceholder(std::string_view text) {
  if (text.size() < 4 || text.front() != '\'' || text.back() != '\'' || text[1] != '@') {
    return false;
  }
  const std::string_view name = text.substr(2, text.size() - 3);
  const char first = name.front();
  if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') || first == '_')) {
    return false;
  }
  for (char c : name) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<ExprPtr> Parser::ParsePrimary() {
  const Token& token = Peek();
  const Span span = SpanOf(token);
  switch (token.kind) {
    case TokenKind::kNumber:
    case TokenKind::kString: {
      if (token.kind == TokenKind::kString && IsQuotedPlaceholder(token.text)) {
        auto placeholder = std::make_unique<Placeholder>(span);
        placeholder->name = token.text.substr(2, token.text.size() - 3);
        placeholder->quoted = true;
        Advance();
        return ExprPtr(std::move(placeholder));
      }
      auto literal = std::make_unique<Literal>(span);
      literal->literal_kind =
          token.kind == TokenKind::kNumber ? LiteralKind::kNumber : LiteralKind::kString;
      literal->text = Advance().text;
      return ExprPtr(std::move(literal));
    }
    case TokenKind::kPlaceholder: {
      auto placeholder = std::make_unique<Placeholder>(span);
      placeholder->name = Advance().text.substr(1);
      return ExprPtr(std::move(placeholder));
    }
    case TokenKind::kParameter:
    case TokenKind::kVariable: {
      auto parameter = std::make_unique<Parameter>(span);
      parameter->text = Advance().text;
      return ExprPtr(std::move(parameter));
    }
    case TokenKind::kQuotedIdentifier:
      return ParseNameOrCall();
    case TokenKind::kIdentifier: {
      bool handled = false;
      STRATA_ASSIGN_OR_RETURN(ExprPtr keyword, ParseKeywordPrimary(&handled));
      if (handled) return keyword;
      return ParseNameOrCall();
    }
    case TokenKind::kPunctuation:
      if (AtSymbol("(")) return ParseParenthesized();
      if (AtSymbol("[")) return ParseArray(false);
      if (AtSymbol("{")) return ParseBraceStruct();
      break;
    case TokenKind::kOperator:
      if (AtSymbol("*")) return ParseStar({}, span);
      break;
    case TokenKind::kLineComment:
    case TokenKind::kBlockComment:
    case TokenKind::kWhitespace:
    case TokenKind::kEnd:
      break;
  }
  return Expected("an expression");
}

Result<ExprPtr> Parser::ParseKeywordPrimary(bool* handled) {
  if (!kKeywordPrimaryWords.Contains(Peek())) {
    *handled = false;
    return ExprPtr();
  }
  *handled = true;
  const Span span = Here();
  const bool call = AtSymbol("(", 1);
  if (AtKeyword("NULL") || AtKeyword("TRUE") || AtKeyword("FALSE")) {
    auto literal = std::make_unique<Literal>(span);
    literal->literal_kind = AtKeyword("NULL")   ? LiteralKind::kNull
                            : AtKeyword("TRUE") ? LiteralKind::kTrue
                                                : LiteralKind::kFalse;
    literal->text = Advance().text;
    return ExprPtr(std::move(literal));
  }
  if (AtKeyword("CASE")) return ParseCase();
  if (dialect() == Dialect::kDuckDb && AtKeyword("LAMBDA") &&
      Peek(1).kind == TokenKind::kIdentifier && (AtSymbol(":", 2) || AtSymbol(",", 2))) {
    return ParsePythonLambda();
  }
  if (call && AtKeyword("CAST")) return ParseCast(CastStyle::kCast);
  if (call && AtKeyword("TRY_CAST")) return ParseCast(CastStyle::kTryCast);
  if (call && AtKeyword("SAFE_CAST")) return ParseCast(CastStyle::kSafeCast);
  if (call && AtKeyword("EXISTS")) {
    auto exists = std::make_unique<Exists>(span);
    Advance();
    Advance();
    STRATA_ASSIGN_OR_RETURN(exists->query, ParseQuery());
    STRATA_TRY(ExpectSymbol(")"));
    return ExprPtr(std::move(exists));
  }
  const TokenKind next = Peek(1).kind;
  if (AtKeyword("INTERVAL") && (next == TokenKind::kString || next == TokenKind::kNumber ||
                                next == TokenKind::kPlaceholder || call || AtSymbol("-", 1))) {
    return ParseInterval();
  }
  if (AtKeyword("ARRAY") && (call || AtSymbol("[", 1) || AtSymbol("<", 1))) return ParseArray(true);
  if (AtKeyword("STRUCT") && (call || AtSymbol("<", 1))) return ParseStructKeyword();
  if (AtKeyword("MAP") && AtSymbol("{", 1)) return ParseMap();
  if (AtKeyword("ROW") && call) {
    auto row = std::make_unique<Row>(span);
    row->row_keyword = true;
    Advance();
    Advance();
    if (!AtSymbol(")")) {
      STRATA_ASSIGN_OR_RETURN(row->elements, ParseExpressionList());
    }
    STRATA_TRY(ExpectSymbol(")"));
    return ExprPtr(std::move(row));
  }
  if (call) {
    for (std::string_view name : {"EXTRACT", "SUBSTRING", "POSITION", "TRIM"}) {
      if (AtKeyword(name)) return ParseKeywordFunction(name);
    }
  }
  if (next == TokenKind::kString) {
    for (std::string_view word : kTypedLiteralWords) {
      if (AtKeyword(word)) return ParseTypedLiteral();
    }
  }
  // TIMESTAMP WITH TIME ZONE '...', TIME WITHOUT TIME ZONE '...' (the SQL standard's spelling,
  // which BI tools send to PostgreSQL).
  if ((AtKeyword("TIMESTAMP") || AtKeyword("TIME")) &&
      (AtKeyword("WITH", 1) || AtKeyword("WITHOUT", 1)) && AtKeyword("TIME", 2) &&
      AtKeyword("ZONE", 3) && Peek(4).kind == TokenKind::kString) {
    return ParseTypedLiteral(4);
  }
  *handled = false;
  return ExprPtr();
}

Result<ExprPtr> Parser::ParseTypedLiteral(int words) {
  auto literal = std::make_unique<TypedLiteral>(Here());
  literal->type.span = Here();
  for (int i = 0; i < words; ++i) literal->type.words.push_back(MakeIdentifier(Advance()));
  literal->text = Advance().text;
  return ExprPtr(std::move(literal));
}

Result<ExprPtr> Parser::ParseNameOrCall() {
  const Span span = Here();
  // Reserved words the dialect still reads here: a function name before '(' (left(s, 2)) or a
  // value on its own (PostgreSQL's current_date), never qualified.
  const bool bare = Peek().kind == TokenKind::kIdentifier;
  const bool reserved_call =
      bare && AtSymbol("(", 1) && IsReservedFunctionName(Peek().text, dialect());
  const bool value_word = bare && IsReservedValueWord(Peek().text, dialect());
  if (!AtName() && !reserved_call && !value_word) return ExpectedName("an expression");
  NodeVector<Identifier> parts;
  parts.push_back(MakeIdentifier(Advance()));
  while (!value_word && AtSymbol(".")) {
    if (AtSymbol("*", 1)) {
      Advance();
      return ParseStar(std::move(parts), span);
    }
    if (!AtAnyName(1)) break;
    Advance();
    parts.push_back(MakeIdentifier(Advance()));
  }
  if (AtSymbol("(")) {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<FunctionCall> call,
                            ParseFunctionCall(std::move(parts), span));
    return ExprPtr(std::move(call));
  }
  auto column = std::make_unique<ColumnRef>(span);
  column->parts = std::move(parts);
  return ExprPtr(std::move(column));
}

Result<ExprPtr> Parser::ParseStar(NodeVector<Identifier> qualifier, Span span) {
  STRATA_TRY(ExpectSymbol("*"));
  auto star = std::make_unique<Star>(span);
  star->qualifier = std::move(qualifier);
  if ((AtKeyword("EXCLUDE") && (AtSymbol("(", 1) || AtAnyName(1))) ||
      (AtKeyword("EXCEPT") && AtSymbol("(", 1))) {
    Advance();
    const bool list = AcceptSymbol("(");
    do {
      // A column, possibly qualified (DuckDB: * EXCLUDE (t.id)).
      NodeVector<Identifier> parts;
      while (true) {
        STRATA_ASSIGN_OR_RETURN(Identifier part, ParseAnyName("a column name"));
        parts.push_back(part);
        if (!AtSymbol(".") || !AtAnyName(1)) break;
        Advance();
      }
      star->excluded.push_back(parts.back());
      parts.pop_back();
      star->excluded_qualifiers.push_back(std::move(parts));
    } while (list && AcceptSymbol(","));
    if (list) STRATA_TRY(ExpectSymbol(")"));
  }
  if (AtKeyword("REPLACE") && AtSymbol("(", 1)) {
    Advance();
    STRATA_ASSIGN_OR_RETURN(star->replaced, ParseAliasedList());
    for (const SelectItem& item : star->replaced) {
      if (!item.alias) return Expected("'AS name' in REPLACE");
    }
  }
  return ExprPtr(std::move(star));
}

QueryPtr Parser::TryParenthesizedQuery(std::optional<Error>* query_error) {
  if (!StartsQuery(1)) return nullptr;
  const std::size_t start = pos_;
  const int depth = depth_;
  Advance();
  auto query = ParseQuery();
  if (query.ok() && AtSymbol(")")) {
    Advance();
    return std::move(query).value();
  }
  *query_error = query.ok() ? Expected("')'") : std::move(query).error();
  pos_ = start;
  depth_ = depth;
  pending_angle_ = 0;
  return nullptr;
}

// "(" starts a subquery, a row (a, b), the empty grouping set () or a nested expression.
Result<ExprPtr> Parser::ParseParenthesized() {
  return MemoizingFailures<ExprPtr>(pos_ * 2, [this] { return ParseParenthesizedUncached(); });
}

Result<ExprPtr> Parser::ParseParenthesizedUncached() {
  const Span span = Here();
  std::optional<Error> query_error;
  if (QueryPtr query = TryParenthesizedQuery(&query_error)) {
    auto subquery = std::make_unique<Subquery>(span);
    subquery->query = std::move(query);
    return ExprPtr(std::move(subquery));
  }
  Advance();
  auto parsed = [&]() -> Result<ExprPtr> {
    if (AcceptSymbol(")")) return ExprPtr(std::make_unique<Row>(span));
    STRATA_ASSIGN_OR_RETURN(ExprPtr first, ParseExpression());
    if (AtSymbol(",")) {
      auto row = std::make_unique<Row>(span);
      row->elements.push_back(std::move(first));
      while (AcceptSymbol(",")) {
        STRATA_ASSIGN_OR_RETURN(ExprPtr element, ParseExpression());
        row->elements.push_back(std::move(element));
      }
      STRATA_TRY(ExpectSymbol(")"));
      return ExprPtr(std::move(row));
    }
    STRATA_TRY(ExpectSymbol(")"));
    auto nested = std::make_unique<Nested>(span);
    nested->inner = std::move(first);
    return ExprPtr(std::move(nested));
  }();
  if (parsed.ok() || !query_error) return parsed;
  return LaterError(std::move(*query_error), std::move(parsed).error());
}

Result<ExprPtr> Parser::ParseCase() {
  auto node = std::make_unique<Case>(Here());
  Advance();
  if (!AtKeyword("WHEN")) {
    STRATA_ASSIGN_OR_RETURN(node->operand, ParseExpression());
  }
  while (AcceptKeyword("WHEN")) {
    STRATA_ASSIGN_OR_RETURN(ExprPtr condition, ParseExpression());
    STRATA_TRY(ExpectKeyword("THEN"));
    STRATA_ASSIGN_OR_RETURN(ExprPtr result, ParseExpression());
    node->whens.emplace_back(std::move(condition), std::move(result));
  }
  if (node->whens.empty()) return Expected("WHEN");
  if (AcceptKeyword("ELSE")) {
    STRATA_ASSIGN_OR_RETURN(node->else_result, ParseExpression());
  }
  STRATA_TRY(ExpectKeyword("END"));
  return ExprPtr(std::move(node));
}

Result<ExprPtr> Parser::ParseCast(CastStyle style) {
  auto cast = std::make_unique<Cast>(Here());
  cast->style = style;
  Advance();
  Advance();
  STRATA_ASSIGN_OR_RETURN(cast->value, ParseExpression());
  STRATA_TRY(ExpectKeyword("AS"));
  STRATA_ASSIGN_OR_RETURN(cast->type, ParseDataType());
  STRATA_TRY(ExpectSymbol(")"));
  return ExprPtr(std::move(cast));
}

Result<ExprPtr> Parser::ParseInterval() {
  auto interval = std::make_unique<Interval>(Here());
  Advance();
  STRATA_ASSIGN_OR_RETURN(interval->value, ParseOperand(kPrecUnary));
  auto at_unit = [&]() {
    for (std::string_view unit : kIntervalUnits) {
      if (AtKeyword(unit)) return true;
    }
    return false;
  };
  if (at_unit()) {
    interval->unit = Advance().text;
    if (AcceptKeyword("TO")) {
      if (!at_unit()) return Expected("an interval unit after TO");
      interval->to_unit = Advance().text;
    }
  }
  return ExprPtr(std::move(interval));
}

Result<ExprPtr> Parser::ParseArray(bool keyword) {
  auto array = std::make_unique<ArrayLiteral>(Here());
  array->array_keyword = keyword;
  if (keyword) {
    Advance();
    if (AtSymbol("<")) {
      Advance();
      DataType type;
      STRATA_ASSIGN_OR_RETURN(type, ParseDataType());
      STRATA_TRY(ExpectClosingAngle());
      array->element_type = std::move(type);
    }
    if (AtSymbol("(")) {
      // ARRAY(subquery): a function-like form; keep it as a call of ARRAY.
      if (array->element_type) return Expected("'['");
      Identifier name{"ARRAY", false, array->span};
      STRATA_ASSIGN_OR_RETURN(std::unique_ptr<FunctionCall> call,
                              ParseFunctionCall({name}, array->span));
      return ExprPtr(std::move(call));
    }
  }
  STRATA_TRY(ExpectSymbol("["));
  ++no_colon_path_;
  if (!AtSymbol("]")) {
    auto elements = ParseExpressionList();
    if (!elements.ok()) return std::move(elements).error();
    array->elements = std::move(elements).value();
  }
  if (dialect() == Dialect::kDuckDb && array->elements.size() == 1 && !array->array_keyword &&
      AcceptKeyword("FOR")) {
    auto comprehension = std::make_unique<ArrayLiteral::Comprehension>();
    STRATA_ASSIGN_OR_RETURN(comprehension->variable, ParseName("a loop variable"));
    STRATA_TRY(ExpectKeyword("IN"));
    STRATA_ASSIGN_OR_RETURN(comprehension->source, ParseExpression());
    if (AcceptKeyword("IF")) {
      STRATA_ASSIGN_OR_RETURN(comprehension->condition, ParseExpression());
    }
    array->comprehension = std::move(comprehension);
  }
  --no_colon_path_;
  STRATA_TRY(ExpectSymbol("]"));
  return ExprPtr(std::move(array));
}

// DuckDB: lambda x: body, lambda x, y: body.
Result<ExprPtr> Parser::ParsePythonLambda() {
  auto lambda = std::make_unique<Binary>(Here());
  lambda->op = BinaryOp::kArrow;
  lambda->python_lambda = true;
  Advance();
  auto parameters = std::make_unique<Row>(Here());
  do {
    auto parameter = std::make_unique<ColumnRef>(Here());
    STRATA_ASSIGN_OR_RETURN(Identifier name, ParseName("a lambda parameter"));
    parameter->parts.push_back(name);
    parameters->elements.push_back(std::move(parameter));
  } while (AcceptSymbol(","));
  STRATA_TRY(ExpectSymbol(":"));
  if (parameters->elements.size() == 1) {
    lambda->left = std::move(parameters->elements.front());
  } else {
    lambda->left = std::move(parameters);
  }
  ++no_colon_path_;
  Result<ExprPtr> body = ParseExpression();
  --no_colon_path_;
  if (!body.ok()) return std::move(body).error();
  lambda->right = std::move(body).value();
  return ExprPtr(std::move(lambda));
}

Result<ExprPtr> Parser::ParseBraceStruct() {
  auto node = std::make_unique<StructLiteral>(Here());
  Advance();
  ++no_colon_path_;
  if (!AtSymbol("}")) {
    do {
      StructLiteral::Field field;
      STRATA_ASSIGN_OR_RETURN(field.key, ParseExpression());
      STRATA_TRY(ExpectSymbol(":"));
      STRATA_ASSIGN_OR_RETURN(field.value, ParseExpression());
      node->fields.push_back(std::move(field));
    } while (AcceptSymbol(","));
  }
  --no_colon_path_;
  STRATA_TRY(ExpectSymbol("}"));
  return ExprPtr(std::move(node));
}

Result<ExprPtr> Parser::ParseMap() {
  auto map = std::make_unique<MapLiteral>(Here());
  Advance();
  Advance();
  ++no_colon_path_;
  if (!AtSymbol("}")) {
    do {
      STRATA_ASSIGN_OR_RETURN(ExprPtr key, ParseExpression());
      STRATA_TRY(ExpectSymbol(":"));
      STRATA_ASSIGN_OR_RETURN(ExprPtr value, ParseExpression());
      map->entries.emplace_back(std::move(key), std::move(value));
    } while (AcceptSymbol(","));
  }
  --no_colon_path_;
  STRATA_TRY(ExpectSymbol("}"));
  return ExprPtr(std::move(map));
}

Result<ExprPtr> Parser::ParseStructKeyword() {
  auto node = std::make_unique<StructLiteral>(Here());
  node->struct_keyword = true;
  if (AtSymbol("<", 1)) {
    STRATA_ASSIGN_OR_RETURN(DataType type, ParseDataType());
    node->type = std::move(type);
  } else {
    Advance();
  }
  STRATA_TRY(ExpectSymbol("("));
  if (!AtSymbol(")")) {
    do {
      StructLiteral::Field field;
      STRATA_ASSIGN_OR_RETURN(field.value, ParseExpression());
      if (AcceptKeyword("AS")) {
        STRATA_ASSIGN_OR_RETURN(Identifier alias, ParseAnyName("a field name"));
        field.alias = alias;
      }
      node->fields.push_back(std::move(field));
    } while (AcceptSymbol(","));
  }
  STRATA_TRY(ExpectSymbol(")"));
  return ExprPtr(std::move(node));
}

}  // namespace strata::sql::internal
