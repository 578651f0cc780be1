#include "semantic/internal/expressions.h"

#include <fmt/format.h>

#include <cctype>

#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/printer.h"
#include "sql/reserved_words.h"

namespace strata::semantic {
namespace {

Error Invalid(std::string message) {
  return MakeError(ErrorCode::kSemanticInvalid, std::move(message));
}

class MetricParser {
 public:
  explicit MetricParser(std::string_view text) : text_(text) {}

  Result<std::unique_ptr<MetricExpr>> Parse() {
    STRATA_ASSIGN_OR_RETURN(auto expr, Sum());
    SkipSpace();
    if (position_ != text_.size()) return Unexpected();
    return expr;
  }

 private:
  void SkipSpace() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) {
      ++position_;
    }
  }
  Error Unexpected() {
    if (position_ >= text_.size()) {
      return Invalid(fmt::format("metric expression \"{}\" ends too early", text_));
    }
    return Invalid(fmt::format("unexpected '{}' at column {} of metric expression \"{}\"",
                               text_[position_], position_ + 1, text_));
  }
  static std::unique_ptr<MetricExpr> Binary(char op, std::unique_ptr<MetricExpr> left,
                                            std::unique_ptr<MetricExpr> right) {
    auto node = std::make_unique<MetricExpr>();
    node->kind = MetricExpr::Kind::kBinary;
    node->op = op;
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }
  Result<std::unique_ptr<MetricExpr>> Sum() {
    STRATA_ASSIGN_OR_RETURN(auto left, Product());
    while (true) {
      SkipSpace();
      if (position_ >= text_.size() || (text_[position_] != '+' && text_[position_] != '-')) break;
      const char op = text_[position_++];
      STRATA_ASSIGN_OR_RETURN(auto right, Product());
      left = Binary(op, std::move(left), std::move(right));
    }
    return left;
  }
  Result<std::unique_ptr<MetricExpr>> Product() {
    STRATA_ASSIGN_OR_RETURN(auto left, Factor());
    while (true) {
      SkipSpace();
      if (position_ >= text_.size() || (text_[position_] != '*' && text_[position_] != '/')) break;
      const char op = text_[position_++];
      STRATA_ASSIGN_OR_RETURN(auto right, Factor());
      left = Binary(op, std::move(left), std::move(right));
    }
    return left;
  }
  std::string Word() {
    const std::size_t start = position_;
    while (
        position_ < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_')) {
      ++position_;
    }
    return std::string(text_.substr(start, position_ - start));
  }
  Result<std::unique_ptr<MetricExpr>> Factor() {
    SkipSpace();
    if (position_ >= text_.size()) return Unexpected();
    const char c = text_[position_];
    auto node = std::make_unique<MetricExpr>();
    if (c == '(') {
      ++position_;
      STRATA_ASSIGN_OR_RETURN(auto inner, Sum());
      SkipSpace();
      if (position_ >= text_.size() || text_[position_] != ')') return Unexpected();
      ++position_;
      return inner;
    }
    if (c == '-') {
      ++position_;
      STRATA_ASSIGN_OR_RETURN(auto inner, Factor());
      node->kind = MetricExpr::Kind::kNegate;
      node->left = std::move(inner);
      return node;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = position_;
      while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_])))
        ++position_;
      if (position_ < text_.size() && text_[position_] == '.') {
        ++position_;
        const std::size_t fraction = position_;
        while (position_ < text_.size() &&
               std::isdigit(static_cast<unsigned char>(text_[position_])))
          ++position_;
        if (position_ == fraction) return Unexpected();
      }
      node->kind = MetricExpr::Kind::kNumber;
      node->number = std::string(text_.substr(start, position_ - start));
      return node;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string first = Word();
      node->kind = MetricExpr::Kind::kMeasure;
      if (position_ < text_.size() && text_[position_] == '.') {
        ++position_;
        if (position_ >= text_.size() ||
            !(std::isalpha(static_cast<unsigned char>(text_[position_])) ||
              text_[position_] == '_')) {
          return Unexpected();
        }
        node->entity = std::move(first);
        node->measure = Word();
      } else {
        node->measure = std::move(first);
      }
      return node;
    }
    return Unexpected();
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

bool IsReservedToken(const sql::Token& token, sql::Dialect dialect) {
  return token.kind == sql::TokenKind::kIdentifier && sql::IsReservedWord(token.text, dialect);
}

// Whether an operand may start after `token`: after SELECT, a comma, '(' or an operator.
bool OperandMayFollow(const sql::Token& token) {
  return token.kind == sql::TokenKind::kPunctuation || token.kind == sql::TokenKind::kOperator ||
         sql::IsKeyword(token, "SELECT");
}

// The reserved word that made the parser stop at `at`, or "" when none did: the operand just
// before it (NOT in "SELECT not = 1", ALL in "SELECT all") or the word at `at` itself ("SELECT
// at"). A column named like a reserved word is then the likely cause, and quoting it the fix.
std::string_view ReservedWordAt(std::string_view text, const SourceSpan& at, sql::Dialect dialect) {
  Result<std::vector<sql::Token>> tokens = sql::Lex(text, dialect);
  if (!tokens.ok()) return "";
  std::vector<const sql::Token*> significant;
  for (const sql::Token& token : *tokens) {
    if (!sql::IsTrivia(token) && token.kind != sql::TokenKind::kEnd) significant.push_back(&token);
  }
  std::size_t stop = 0;
  while (stop < significant.size() &&
         (significant[stop]->line != at.line || significant[stop]->column != at.column)) {
    ++stop;
  }
  if (stop >= 2 && IsReservedToken(*significant[stop - 1], dialect) &&
      OperandMayFollow(*significant[stop - 2])) {
    return significant[stop - 1]->text;
  }
  if (stop < significant.size() && IsReservedToken(*significant[stop], dialect)) {
    return significant[stop]->text;
  }
  return "";
}

Result<sql::StatementPtr> ParseChecked(std::string_view text, sql::Dialect dialect) {
  auto statement = sql::ParseStatement(text, dialect);
  if (statement.ok()) return std::move(statement).value();
  Error error = Invalid(fmt::format("SQL does not parse: {}", statement.error().message));
  const std::optional<SourceSpan>& at = statement.error().span;
  const std::string_view word = at ? ReservedWordAt(text, *at, dialect) : "";
  if (!word.empty()) {
    error.hint = fmt::format("{0} is a reserved word in {1}; to name a column {0}, quote it: {2}",
                             word, sql::DialectName(dialect), sql::QuoteIdentifier(word, dialect));
  }
  return error;
}

}  // namespace

Result<std::string> CheckSqlExpression(std::string_view text, sql::Dialect dialect) {
  if (text.find(';') != std::string_view::npos) {
    return Invalid(fmt::format("expression \"{}\" must not contain ';'", text));
  }
  STRATA_ASSIGN_OR_RETURN(sql::StatementPtr statement,
                          ParseChecked("SELECT " + std::string(text), dialect));
  const sql::Query& query = *statement->query;
  const bool plain_query = !query.has_with && query.order_by.empty() && query.limit == nullptr &&
                           query.offset == nullptr && query.fetch == nullptr && !query.has_fetch &&
                           query.body->kind == sql::SetExprKind::kSelect;
  if (plain_query) {
    const sql::Select& select = query.body->As<sql::Select>();
    const bool single = select.items.size() == 1 && !select.items[0].alias &&
                        select.from == nullptr && select.where == nullptr && !select.has_group_by &&
                        select.having == nullptr && select.qualify == nullptr &&
                        select.windows.empty() && select.distinct == sql::Select::Distinct::kNone &&
                        select.top == nullptr;
    if (single) return sql::PrintExpr(*select.items[0].expr, dialect, dialect);
  }
  return Invalid(fmt::format("\"{}\" is not one SQL expression", text));
}

Result<std::string> CheckSqlQuery(std::string_view text, sql::Dialect dialect) {
  STRATA_ASSIGN_OR_RETURN(sql::StatementPtr statement, ParseChecked(text, dialect));
  return sql::Print(*statement, dialect);
}

Result<std::unique_ptr<MetricExpr>> ParseMetricExpr(std::string_view text) {
  return MetricParser(text).Parse();
}

bool IsMemberName(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

}  // namespace strata::semantic
