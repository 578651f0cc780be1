// The parser's private class, split over parser.cc (cursor, names, types, errors),
// parse_select.cc (queries), parse_from.cc (FROM), parse_expression.cc (operators) and
// parse_primary.cc (operands). Private to sql/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "sql/ast.h"
#include "sql/lexer.h"

namespace strata::sql::internal {

// The parser's names for IsKeyword / IsSymbol (lexer.h, inline).
inline bool TokenIsKeyword(const Token& token, std::string_view upper) {
  return IsKeyword(token, upper);
}
inline bool TokenIsSymbol(const Token& token, std::string_view symbol) {
  return IsSymbol(token, symbol);
}

// Binary operator binding strength, loosest first (PostgreSQL's order).
enum Precedence : int {
  kPrecLowest = 0,
  kPrecOr,
  kPrecAnd,
  kPrecNot,
  kPrecIs,
  kPrecCompare,
  kPrecLike,   // BETWEEN, IN, LIKE and friends
  kPrecOther,  // ||, ->, bitwise and other operators
  kPrecAdd,
  kPrecMultiply,
  kPrecPower,
  kPrecAt,  // AT TIME ZONE, COLLATE
  kPrecUnary,
};

// Precedence of a binary operator when printed (used by the printer to add parentheses).
int BinaryPrecedence(BinaryOp op);
// The canonical text of a binary operator ("AND", "<>", "||").
std::string_view BinaryOpText(BinaryOp op);

// The error of the two attempts of a backtracking parse that got further into the input.
Error LaterError(Error a, Error b);

// Parses one statement at a time from trivia-free tokens (the last one kEnd).
class Parser {
 public:
  Parser(Statement& statement, std::vector<Token> tokens, Dialect dialect);

  // Names that need storage (escaped quoted identifiers) go into `statement` from now on.
  void SetStatement(Statement& statement) { statement_ = &statement; }
  // Skips ';' separators; true when only kEnd is left.
  bool AtScriptEnd();
  // One query statement up to ';' or the end (the ';' is consumed).
  Result<QueryPtr> ParseStatementQuery();

  // --- cursor (parser.cc)
  const Token& Peek(std::size_t ahead = 0) const {
    const std::size_t at = pos_ + ahead < tokens_.size() ? pos_ + ahead : tokens_.size() - 1;
    return tokens_[at];
  }
  const Token& Advance();
  bool AtKeyword(std::string_view upper, std::size_t ahead = 0) const {
    return TokenIsKeyword(Peek(ahead), upper);
  }
  bool AcceptKeyword(std::string_view upper);
  Status ExpectKeyword(std::string_view upper);
  bool AtSymbol(std::string_view symbol, std::size_t ahead = 0) const {
    if (ahead == 0 && pending_angle_ > 0) return symbol == ">";
    return TokenIsSymbol(Peek(ahead), symbol);
  }
  bool AcceptSymbol(std::string_view symbol);
  Status ExpectSymbol(std::string_view symbol);
  // Accepts '>' also as the first half of a '>>' token (nested ARRAY<STRUCT<...>>).
  Status ExpectClosingAngle();
  static Span SpanOf(const Token& token) { return {token.line, token.column}; }
  Span Here() const { return SpanOf(Peek()); }
  Error Expected(std::string_view what) const;
  // Expected() where a name may stand: a reserved word found there is called one ("found the
  // reserved word 'at'"), since quoting it is the likely fix.
  Error ExpectedName(std::string_view what) const;
  Error ExpectedFound(std::string_view what, bool name_expected) const;
  // A token that can be a name: an identifier the dialect does not reserve (reserved_words.h) or
  // a quoted identifier.
  bool AtName(std::size_t ahead = 0) const;
  // Any identifier (reserved or not) or quoted identifier: names after '.', AS, etc.
  bool AtAnyName(std::size_t ahead = 0) const;
  Identifier MakeIdentifier(const Token& token);
  Result<Identifier> ParseName(std::string_view what);                       // AtName
  Result<Identifier> ParseAnyName(std::string_view what);                    // AtAnyName
  Result<NodeVector<Identifier>> ParseNameList();                            // ( a, b, ... )
  Result<NodeVector<Identifier>> ParseQualifiedName(std::string_view what);  // a[.b[.c]]
  Result<DataType> ParseDataType();
  // True when the tokens from `ahead` on start a query after any number of '('.
  bool StartsQuery(std::size_t ahead) const;

  // --- queries (parse_select.cc)
  Result<QueryPtr> ParseQuery();
  Result<Cte> ParseCte();
  Result<SetExprPtr> ParseSetExpr(int min_precedence);
  Result<SetExprPtr> ParseSetOperand();
  Result<SetExprPtr> ParseSelect();
  Result<SetExprPtr> ParseValues();
  Status ParseSelectTail(Select& select);
  Status ParseSelectList(Select& select);
  Status ParseGroupBy(Select& select);
  Status ParseNamedWindows(Select& select);
  Status ParseQueryTail(Query& query);
  Status ParseLimitOffset(Query& query);
  Status ParseLimitCount(Query& query);
  Result<std::vector<OrderItem>> ParseOrderByList();
  Result<NodeVector<ExprPtr>> ParseExpressionList();
  Result<SelectItem> ParseSelectItem();
  Result<std::optional<Identifier>> ParseOptionalAlias();

  // --- FROM (parse_from.cc)
  Result<TableRefPtr> ParseFrom();
  Result<TableRefPtr> ParseJoinChain();
  Result<TableRefPtr> ParseJoinRight(TableRefPtr left);
  Result<TableRefPtr> ParseTablePrimary();
  Result<TableRefPtr> ParseParenthesizedTable();  // memoizes failures (failed_parentheses_)
  Result<TableRefPtr> ParseParenthesizedTableUncached();
  // At "(": when a query follows, tries "( query )" and returns the query (positioned after the
  // ')'). Otherwise returns null with the position restored and, if a query was attempted, its
  // error in *query_error, so the caller can fall back and report whichever attempt got further.
  QueryPtr TryParenthesizedQuery(std::optional<Error>* query_error);
  // Runs parse() unless it already failed at this position for `key`; remembers a failure.
  template <typename T, typename Parse>
  Result<T> MemoizingFailures(std::size_t key, Parse&& parse) {
    if (auto failed = failed_parentheses_.find(key); failed != failed_parentheses_.end()) {
      return failed->second;
    }
    Result<T> result = parse();
    if (!result.ok()) failed_parentheses_.emplace(key, result.error());
    return result;
  }
  Result<TableRefPtr> ParseNamedOrFunctionTable(bool lateral, Span span);
  Result<TableRefPtr> ParseLateral();
  // Snowflake's "MATCH_CONDITION (" after an ASOF-joined table (never a table alias there).
  bool AtMatchCondition() const;
  bool AtLateralView() const;  // Databricks LATERAL VIEW
  Result<TableRefPtr> ParseLateralView(TableRefPtr left);
  bool AtJoin() const;
  Result<TableRefPtr> ParseTableSuffixes(TableRefPtr table);
  Status ParseTableAlias(TableRef& table);
  Result<std::unique_ptr<TableSample>> ParseTableSample();
  Result<ExprPtr> ParsePythonLambda();
  Result<TableRefPtr> ParsePivot(TableRefPtr source);
  Result<TableRefPtr> ParseUnpivot(TableRefPtr source);
  Result<std::vector<SelectItem>> ParseAliasedList();

  // --- operators (parse_expression.cc)
  Result<ExprPtr> ParseExpression();
  Result<ExprPtr> ParseOperand(int min_precedence);
  Result<ExprPtr> ParsePrefix();
  Result<ExprPtr> ParseInfix(ExprPtr left, int* precedence_out, bool* done);
  Result<ExprPtr> ParseIs(ExprPtr left, Span span);
  Result<ExprPtr> ParseIn(ExprPtr left, bool negated, Span span);
  Result<ExprPtr> ParseLikeRest(ExprPtr left, LikeOp op, bool negated, Span span);
  Result<ExprPtr> ParseBetweenRest(ExprPtr left, bool negated, Span span);
  Result<ExprPtr> ParseComparisonRest(ExprPtr left, BinaryOp op, Span span);
  Result<ExprPtr> ParsePostfix(ExprPtr value);
  Result<ExprPtr> ParseSubscript(ExprPtr value);
  Result<ExprPtr> ParseJsonPath(ExprPtr value);

  // --- operands (parse_primary.cc, parse_function.cc)
  Result<ExprPtr> ParsePrimary();
  Result<ExprPtr> ParseKeywordPrimary(bool* handled);
  Result<ExprPtr> ParseParenthesized();  // memoizes failures (failed_parentheses_)
  Result<ExprPtr> ParseParenthesizedUncached();
  Result<ExprPtr> ParseNameOrCall();
  Result<ExprPtr> ParseStar(NodeVector<Identifier> qualifier, Span span);
  Result<ExprPtr> ParseCase();
  Result<ExprPtr> ParseCast(CastStyle style);
  Result<ExprPtr> ParseInterval();
  Result<ExprPtr> ParseArray(bool keyword);
  Result<ExprPtr> ParseBraceStruct();
  Result<ExprPtr> ParseStructKeyword();
  Result<ExprPtr> ParseMap();
  Result<ExprPtr> ParseKeywordFunction(std::string_view name);
  Result<ExprPtr> ParseKeywordFunctionParts(std::string_view name, Span span);
  // A type of `words` words (TIMESTAMP, or TIMESTAMP WITH TIME ZONE) then a string.
  Result<ExprPtr> ParseTypedLiteral(int words = 1);
  Result<std::unique_ptr<FunctionCall>> ParseFunctionCall(NodeVector<Identifier> name, Span span);
  Status ParseFunctionArguments(FunctionCall& call);
  Result<ExprPtr> ParseFunctionArgument();
  Status ParseFunctionModifiers(FunctionCall& call);
  Result<WindowSpec> ParseWindowSpec();
  Result<WindowFrame> ParseWindowFrame();
  Result<FrameBound> ParseFrameBound();
  Result<ExprPtr> ParseGrouping(Grouping::Kind kind);

 private:
  Statement* statement_;
  std::vector<Token> tokens_;
  Dialect dialect_;

 public:
  Dialect dialect() const { return dialect_; }

 private:
  std::size_t pos_ = 0;
  int pending_angle_ = 0;  // a '>>' half-consumed by ExpectClosingAngle
  int no_colon_path_ = 0;  // > 0 while ':' separates things (slices, struct keys)
  int depth_ = 0;          // nesting guard against stack exhaustion
  // Where a parenthesized expression (even keys) or table (odd keys) already failed to parse.
  // "(" is tried as a query and then as an expression/join; without this, nested failing
  // parentheses were re-parsed on both paths at every level: exponential time (fuzzer finding).
  std::unordered_map<std::size_t, Error> failed_parentheses_;
};

}  // namespace strata::sql::internal
