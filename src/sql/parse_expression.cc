// Operators: prefix NOT / - / + / ~, binary operators by precedence climbing, IS, IN, LIKE,
// BETWEEN, quantified comparisons, AT TIME ZONE, COLLATE, and postfix ::, [], .field and ':'
// paths.
#include <array>
#include <optional>
#include <string_view>

#include "sql/internal/parser_impl.h"
#include "sql/keyword_set.h"

namespace strata::sql::internal {
namespace {

constexpr int kMaxDepth = 200;

struct OperatorToken {
  std::string_view text;
  BinaryOp op;
};

constexpr OperatorToken kOperators[] = {
    {"=", BinaryOp::kEq},
    {"==", BinaryOp::kEq},
    {"<>", BinaryOp::kNotEq},
    {"!=", BinaryOp::kNotEq},
    {"<", BinaryOp::kLess},
    {"<=", BinaryOp::kLessEq},
    {">", BinaryOp::kGreater},
    {">=", BinaryOp::kGreaterEq},
    {"<=>", BinaryOp::kNullSafeEq},
    {"+", BinaryOp::kAdd},
    {"-", BinaryOp::kSubtract},
    {"*", BinaryOp::kMultiply},
    {"/", BinaryOp::kDivide},
    {"%", BinaryOp::kModulo},
    {"^", BinaryOp::kPower},
    {"**", BinaryOp::kPower},
    {"||", BinaryOp::kConcat},
    {"&", BinaryOp::kBitAnd},
    {"|", BinaryOp::kBitOr},
    {"#", BinaryOp::kBitXor},
    {"<<", BinaryOp::kShiftLeft},
    {">>", BinaryOp::kShiftRight},
    {"->", BinaryOp::kArrow},
    {"->>", BinaryOp::kLongArrow},
    {"#>", BinaryOp::kHashArrow},
    {"#>>", BinaryOp::kHashLongArrow},
    {"@>", BinaryOp::kContains},
    {"&&", BinaryOp::kOverlaps},
    {"@@", BinaryOp::kTextMatch},
    {"~", BinaryOp::kRegexMatch},
    {"!~", BinaryOp::kRegexNotMatch},
    {"~*", BinaryOp::kRegexIMatch},
    {"!~*", BinaryOp::kRegexNotIMatch},
};

std::optional<BinaryOp> SymbolOperator(const Token& token) {
  if (token.kind != TokenKind::kOperator) return std::nullopt;
  for (const OperatorToken& entry : kOperators) {
    if (entry.text == token.text) return entry.op;
  }
  return std::nullopt;
}

bool IsComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNotEq:
    case BinaryOp::kLess:
    case BinaryOp::kLessEq:
    case BinaryOp::kGreater:
    case BinaryOp::kGreaterEq:
    case BinaryOp::kNullSafeEq:
      return true;
    case BinaryOp::kOr:
    case BinaryOp::kAnd:
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kIntegerDivide:
    case BinaryOp::kModulo:
    case BinaryOp::kPower:
    case BinaryOp::kConcat:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kShiftLeft:
    case BinaryOp::kShiftRight:
    case BinaryOp::kArrow:
    case BinaryOp::kLongArrow:
    case BinaryOp::kHashArrow:
    case BinaryOp::kHashLongArrow:
    case BinaryOp::kContains:
    case BinaryOp::kOverlaps:
    case BinaryOp::kTextMatch:
    case BinaryOp::kRegexMatch:
    case BinaryOp::kRegexNotMatch:
    case BinaryOp::kRegexIMatch:
    case BinaryOp::kRegexNotIMatch:
      break;
  }
  return false;
}

struct LikeWord {
  std::string_view word;
  LikeOp op;
};
constexpr LikeWord kLikeWords[] = {{"LIKE", LikeOp::kLike},         {"ILIKE", LikeOp::kILike},
                                   {"SIMILAR", LikeOp::kSimilarTo}, {"RLIKE", LikeOp::kRLike},
                                   {"REGEXP", LikeOp::kRegexp},     {"GLOB", LikeOp::kGlob}};

constexpr std::array<std::string_view, std::size(kLikeWords)> LikeWordNames() {
  std::array<std::string_view, std::size(kLikeWords)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kLikeWords[i].word;
  return names;
}
// Every word that starts an operator in ParseInfix (NOT for NOT IN, NOT LIKE, ...): these and
// kLikeWords.
constexpr std::array<std::string_view, 10> kInfixOperatorWords = {
    "OR", "AND", "IS", "ISNULL", "NOTNULL", "NOT", "BETWEEN", "IN", "AT", "COLLATE"};
constexpr KeywordSet<16> kInfixWords(JoinWords(kInfixOperatorWords, LikeWordNames()));

std::optional<LikeOp> LikeAt(const Parser& parser, std::size_t ahead) {
  for (const LikeWord& entry : kLikeWords) {
    if (parser.AtKeyword(entry.word, ahead)) return entry.op;
  }
  return std::nullopt;
}

}  // namespace

int BinaryPrecedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return kPrecOr;
    case BinaryOp::kAnd:
      return kPrecAnd;
    case BinaryOp::kEq:
    case BinaryOp::kNotEq:
    case BinaryOp::kLess:
    case BinaryOp::kLessEq:
    case BinaryOp::kGreater:
    case BinaryOp::kGreaterEq:
    case BinaryOp::kNullSafeEq:
      return kPrecCompare;
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
      return kPrecAdd;
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kIntegerDivide:
    case BinaryOp::kModulo:
      return kPrecMultiply;
    case BinaryOp::kPower:
      return kPrecPower;
    case BinaryOp::kConcat:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kShiftLeft:
    case BinaryOp::kShiftRight:
    case BinaryOp::kArrow:
    case BinaryOp::kLongArrow:
    case BinaryOp::kHashArrow:
    case BinaryOp::kHashLongArrow:
    case BinaryOp::kContains:
    case BinaryOp::kOverlaps:
    case BinaryOp::kTextMatch:
    case BinaryOp::kRegexMatch:
    case BinaryOp::kRegexNotMatch:
    case BinaryOp::kRegexIMatch:
    case BinaryOp::kRegexNotIMatch:
      return kPrecOther;
  }
  return kPrecOther;
}

std::string_view BinaryOpText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr:
      return "OR";
    case BinaryOp::kAnd:
      return "AND";
    case BinaryOp::kIntegerDivide:
      return "//";
    case BinaryOp::kNotEq:
      return "<>";
    case BinaryOp::kEq:
      return "=";
    case BinaryOp::kPower:
      return "^";
    case BinaryOp::kLess:
    case BinaryOp::kLessEq:
    case BinaryOp::kGreater:
    case BinaryOp::kGreaterEq:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kModulo:
    case BinaryOp::kConcat:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kShiftLeft:
    case BinaryOp::kShiftRight:
    case BinaryOp::kArrow:
    case BinaryOp::kLongArrow:
    case BinaryOp::kHashArrow:
    case BinaryOp::kHashLongArrow:
    case BinaryOp::kContains:
    case BinaryOp::kOverlaps:
    case BinaryOp::kTextMatch:
    case BinaryOp::kRegexMatch:
    case BinaryOp::kRegexNotMatch:
    case BinaryOp::kRegexIMatch:
    case BinaryOp::kRegexNotIMatch:
      break;
  }
  for (const OperatorToken& entry : kOperators) {
    if (entry.op == op) return entry.text;
  }
  return "?";
}

Result<ExprPtr> Parser::ParseExpression() { return ParseOperand(kPrecOr); }

Result<ExprPtr> Parser::ParseOperand(int min_precedence) {
  if (++depth_ > kMaxDepth) return Expected("a shallower expression (nesting is too deep)");
  STRATA_ASSIGN_OR_RETURN(ExprPtr left, ParsePrefix());
  while (true) {
    int precedence = kPrecLowest;
    bool done = false;
    // Peek the operator's precedence without consuming it.
    const std::size_t before = pos_;
    STRATA_ASSIGN_OR_RETURN(ExprPtr probe, ParseInfix(nullptr, &precedence, &done));
    pos_ = before;
    if (done || precedence < min_precedence) break;
    STRATA_ASSIGN_OR_RETURN(left, ParseInfix(std::move(left), &precedence, &done));
  }
  --depth_;
  return left;
}

Result<ExprPtr> Parser::ParsePrefix() {
  const Span span = Here();
  std::optional<UnaryOp> op;
  int operand_precedence = kPrecUnary;
  if (AtKeyword("NOT")) {
    op = UnaryOp::kNot;
    operand_precedence = kPrecNot;
  } else if (AtSymbol("-")) {
    op = UnaryOp::kMinus;
  } else if (AtSymbol("+")) {
    op = UnaryOp::kPlus;
  } else if (AtSymbol("~")) {
    op = UnaryOp::kBitNot;
  }
  if (!op) {
    STRATA_ASSIGN_OR_RETURN(ExprPtr primary, ParsePrimary());
    return ParsePostfix(std::move(primary));
  }
  Advance();
  auto unary = std::make_unique<Unary>(span);
  unary->op = *op;
  STRATA_ASSIGN_OR_RETURN(unary->operand, ParseOperand(operand_precedence));
  return ExprPtr(std::move(unary));
}

// With left == nullptr: only reports the precedence of the operator at the cursor (done = true
// when there is none) and may move the cursor (the caller restores it). Otherwise parses the
// operator and its right side.
Result<ExprPtr> Parser::ParseInfix(ExprPtr left, int* precedence_out, bool* done) {
  const bool probe = left == nullptr;
  const Span span = left ? left->span : Here();
  const Token& token = Peek();
  *done = false;
  // The operators spelled as words, tested below; any other token can only be a symbol.
  if (kInfixWords.Contains(token)) {
    if (AtKeyword("OR") || AtKeyword("AND")) {
      const BinaryOp op = AtKeyword("OR") ? BinaryOp::kOr : BinaryOp::kAnd;
      *precedence_out = BinaryPrecedence(op);
      if (probe) return ExprPtr();
      Advance();
      auto binary = std::make_unique<Binary>(span);
      binary->op = op;
      binary->left = std::move(left);
      STRATA_ASSIGN_OR_RETURN(binary->right, ParseOperand(*precedence_out + 1));
      return ExprPtr(std::move(binary));
    }
    if (AtKeyword("IS") || AtKeyword("ISNULL") || AtKeyword("NOTNULL")) {
      *precedence_out = kPrecIs;
      if (probe) return ExprPtr();
      return ParseIs(std::move(left), span);
    }
    const bool negated = AtKeyword("NOT");
    const std::size_t word = negated ? 1 : 0;
    if (AtKeyword("BETWEEN", word) || AtKeyword("IN", word) || LikeAt(*this, word)) {
      *precedence_out = kPrecLike;
      if (probe) return ExprPtr();
      if (negated) Advance();
      if (AcceptKeyword("BETWEEN")) return ParseBetweenRest(std::move(left), negated, span);
      if (AcceptKeyword("IN")) return ParseIn(std::move(left), negated, span);
      const LikeOp op = *LikeAt(*this, 0);
      Advance();
      if (op == LikeOp::kSimilarTo) STRATA_TRY(ExpectKeyword("TO"));
      return ParseLikeRest(std::move(left), op, negated, span);
    }
    if (AtKeyword("AT") && AtKeyword("TIME", 1) && AtKeyword("ZONE", 2)) {
      *precedence_out = kPrecAt;
      if (probe) return ExprPtr();
      Advance();
      Advance();
      Advance();
      auto at = std::make_unique<AtTimeZone>(span);
      at->value = std::move(left);
      STRATA_ASSIGN_OR_RETURN(at->zone, ParseOperand(kPrecAt + 1));
      return ExprPtr(std::move(at));
    }
    if (AtKeyword("COLLATE")) {
      *precedence_out = kPrecAt;
      if (probe) return ExprPtr();
      Advance();
      auto collate = std::make_unique<Collate>(span);
      collate->value = std::move(left);
      if (!AtAnyName() && Peek().kind != TokenKind::kString) return Expected("a collation");
      const std::string_view first = Advance().text;
      std::string_view last = first;
      // A schema-qualified collation (PostgreSQL: public.ci, "pg_catalog"."C"): the source text
      // from its first name to its last, as written.
      while (AtSymbol(".") && AtAnyName(1)) {
        Advance();
        last = Advance().text;
      }
      collate->collation = std::string_view(
          first.data(), static_cast<std::size_t>(last.data() + last.size() - first.data()));
      return ExprPtr(std::move(collate));
    }
  }
  std::optional<BinaryOp> op = SymbolOperator(token);
  if (!op) {
    *done = true;
    return ExprPtr();
  }
  // '//' (DuckDB integer division) lexes as two adjacent '/'.
  const bool integer_divide =
      token.text == "/" && IsSymbol(Peek(1), "/") && Peek(1).offset == token.offset + 1;
  if (integer_divide) op = BinaryOp::kIntegerDivide;
  *precedence_out = BinaryPrecedence(*op);
  if (probe) return ExprPtr();
  Advance();
  if (integer_divide) Advance();
  if (IsComparison(*op)) return ParseComparisonRest(std::move(left), *op, span);
  auto binary = std::make_unique<Binary>(span);
  binary->op = *op;
  binary->left = std::move(left);
  STRATA_ASSIGN_OR_RETURN(binary->right, ParseOperand(*precedence_out + 1));
  return ExprPtr(std::move(binary));
}

Result<ExprPtr> Parser::ParseComparisonRest(ExprPtr left, BinaryOp op, Span span) {
  const bool quantified =
      (AtKeyword("ANY") || AtKeyword("ALL") || AtKeyword("SOME")) && AtSymbol("(", 1);
  if (quantified) {
    auto node = std::make_unique<Quantified>(span);
    node->op = op;
    node->quantifier = AtKeyword("ANY") ? "ANY" : AtKeyword("ALL") ? "ALL" : "SOME";
    node->left = std::move(left);
    Advance();
    Advance();
    if (StartsQuery(0)) {
      STRATA_ASSIGN_OR_RETURN(node->query, ParseQuery());
    } else {
      STRATA_ASSIGN_OR_RETURN(node->right, ParseExpression());
    }
    STRATA_TRY(ExpectSymbol(")"));
    return ExprPtr(std::move(node));
  }
  auto binary = std::make_unique<Binary>(span);
  binary->op = op;
  binary->left = std::move(left);
  STRATA_ASSIGN_OR_RETURN(binary->right, ParseOperand(kPrecCompare + 1));
  return ExprPtr(std::move(binary));
}

Result<ExprPtr> Parser::ParseIs(ExprPtr left, Span span) {
  if (AtKeyword("ISNULL") || AtKeyword("NOTNULL")) {
    auto is = std::make_unique<Is>(span);
    is->negated = AtKeyword("NOTNULL");
    Advance();
    is->value = std::move(left);
    return ExprPtr(std::move(is));
  }
  Advance();
  const bool negated = AcceptKeyword("NOT");
  if (AcceptKeyword("DISTINCT")) {
    STRATA_TRY(ExpectKeyword("FROM"));
    auto distinct = std::make_unique<IsDistinct>(span);
    distinct->negated = negated;
    distinct->left = std::move(left);
    STRATA_ASSIGN_OR_RETURN(distinct->right, ParseOperand(kPrecIs + 1));
    return ExprPtr(std::move(distinct));
  }
  auto is = std::make_unique<Is>(span);
  is->negated = negated;
  is->value = std::move(left);
  if (AcceptKeyword("NULL")) {
    is->test = IsTest::kNull;
  } else if (AcceptKeyword("TRUE")) {
    is->test = IsTest::kTrue;
  } else if (AcceptKeyword("FALSE")) {
    is->test = IsTest::kFalse;
  } else if (AcceptKeyword("UNKNOWN")) {
    is->test = IsTest::kUnknown;
  } else {
    return Expected("NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS");
  }
  return ExprPtr(std::move(is));
}

Result<ExprPtr> Parser::ParseIn(ExprPtr left, bool negated, Span span) {
  STRATA_TRY(ExpectSymbol("("));
  if (AtSymbol(")")) return Expected("a value or a subquery in IN (...)");
  if (StartsQuery(0)) {
    auto in = std::make_unique<InSubquery>(span);
    in->negated = negated;
    in->value = std::move(left);
    STRATA_ASSIGN_OR_RETURN(in->query, ParseQuery());
    STRATA_TRY(ExpectSymbol(")"));
    return ExprPtr(std::move(in));
  }
  auto in = std::make_unique<InList>(span);
  in->negated = negated;
  in->value = std::move(left);
  if (!AtSymbol(")")) {
    STRATA_ASSIGN_OR_RETURN(in->list, ParseExpressionList());
  }
  STRATA_TRY(ExpectSymbol(")"));
  return ExprPtr(std::move(in));
}

Result<ExprPtr> Parser::ParseLikeRest(ExprPtr left, LikeOp op, bool negated, Span span) {
  auto like = std::make_unique<Like>(span);
  like->op = op;
  like->negated = negated;
  like->value = std::move(left);
  STRATA_ASSIGN_OR_RETURN(like->pattern, ParseOperand(kPrecLike + 1));
  if (AcceptKeyword("ESCAPE")) {
    STRATA_ASSIGN_OR_RETURN(like->escape, ParseOperand(kPrecLike + 1));
  }
  return ExprPtr(std::move(like));
}

Result<ExprPtr> Parser::ParseBetweenRest(ExprPtr left, bool negated, Span span) {
  auto between = std::make_unique<Between>(span);
  between->negated = negated;
  between->symmetric = dialect() == Dialect::kPostgres && AcceptKeyword("SYMMETRIC");  // PG only
  between->value = std::move(left);
  STRATA_ASSIGN_OR_RETURN(between->low, ParseOperand(kPrecLike + 1));
  STRATA_TRY(ExpectKeyword("AND"));
  STRATA_ASSIGN_OR_RETURN(between->high, ParseOperand(kPrecLike + 1));
  return ExprPtr(std::move(between));
}

Result<ExprPtr> Parser::ParsePostfix(ExprPtr value) {
  while (true) {
    if (AtSymbol("::")) {
      Advance();
      auto cast = std::make_unique<Cast>(value->span);
      cast->style = CastStyle::kDoubleColon;
      cast->value = std::move(value);
      STRATA_ASSIGN_OR_RETURN(cast->type, ParseDataType());
      value = std::move(cast);
    } else if (AtSymbol("[")) {
      STRATA_ASSIGN_OR_RETURN(value, ParseSubscript(std::move(value)));
    } else if (AtSymbol(".") && AtAnyName(1)) {
      Advance();
      auto field = std::make_unique<FieldAccess>(value->span);
      field->value = std::move(value);
      field->field = MakeIdentifier(Advance());
      value = std::move(field);
    } else if (AtSymbol(":") && no_colon_path_ == 0 &&
               (dialect_ == Dialect::kSnowflake || dialect_ == Dialect::kDatabricks)) {
      STRATA_ASSIGN_OR_RETURN(value, ParseJsonPath(std::move(value)));
    } else {
      return value;
    }
  }
}

Result<ExprPtr> Parser::ParseSubscript(ExprPtr value) {
  auto subscript = std::make_unique<Subscript>(value->span);
  subscript->value = std::move(value);
  Advance();
  ++no_colon_path_;
  if (dialect() == Dialect::kBigQuery && AtKeyword("OFFSET") && AtSymbol("(", 1)) {
    // BigQuery arr[OFFSET(0)] (like SAFE_OFFSET, ORDINAL): OFFSET is otherwise a reserved word.
    const Span span = Here();
    NodeVector<Identifier> name;
    name.push_back(MakeIdentifier(Advance()));
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<FunctionCall> call,
                            ParseFunctionCall(std::move(name), span));
    subscript->index = std::move(call);
  } else if (!AtSymbol(":")) {
    STRATA_ASSIGN_OR_RETURN(subscript->index, ParseExpression());
  }
  if (AcceptSymbol(":")) {
    subscript->slice = true;
    if (!AtSymbol("]")) {
      STRATA_ASSIGN_OR_RETURN(subscript->slice_end, ParseExpression());
    }
  }
  --no_colon_path_;
  STRATA_TRY(ExpectSymbol("]"));
  return ExprPtr(std::move(subscript));
}

Result<ExprPtr> Parser::ParseJsonPath(ExprPtr value) {
  auto path = std::make_unique<JsonPath>(value->span);
  path->value = std::move(value);
  Advance();
  JsonPath::Step first;
  STRATA_ASSIGN_OR_RETURN(first.key, ParseAnyName("a path element after ':'"));
  path->steps.push_back(std::move(first));
  while (true) {
    if (AtSymbol(".") && AtAnyName(1)) {
      Advance();
      JsonPath::Step step;
      step.key = MakeIdentifier(Advance());
      path->steps.push_back(std::move(step));
    } else if (AtSymbol("[")) {
      Advance();
      JsonPath::Step step;
      STRATA_ASSIGN_OR_RETURN(step.index, ParseExpression());
      STRATA_TRY(ExpectSymbol("]"));
      path->steps.push_back(std::move(step));
    } else {
      return ExprPtr(std::move(path));
    }
  }
}

}  // namespace strata::sql::internal
