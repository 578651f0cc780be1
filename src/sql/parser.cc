#include "sql/parser.h"

#include <algorithm>
#include <array>
#include <initializer_list>

#include "sql/internal/parser_impl.h"
#include "sql/lexer.h"
#include "sql/reserved_words.h"

namespace strata::sql {
namespace internal {
namespace {

std::string_view Describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of input";
  return token.text;
}

}  // namespace

Parser::Parser(Statement& statement, std::vector<Token> tokens, Dialect dialect)
    : statement_(&statement), tokens_(std::move(tokens)), dialect_(dialect) {}

const Token& Parser::Advance() {
  const Token& token = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

bool Parser::AcceptKeyword(std::string_view upper) {
  if (!AtKeyword(upper)) return false;
  Advance();
  return true;
}

Status Parser::ExpectKeyword(std::string_view upper) {
  if (AcceptKeyword(upper)) return OkStatus();
  return Expected(upper);
}

bool Parser::AcceptSymbol(std::string_view symbol) {
  if (pending_angle_ > 0) {
    if (symbol != ">") return false;
    pending_angle_ = 0;
    Advance();
    return true;
  }
  if (!TokenIsSymbol(Peek(), symbol)) return false;
  Advance();
  return true;
}

Status Parser::ExpectSymbol(std::string_view symbol) {
  if (AcceptSymbol(symbol)) return OkStatus();
  return Expected("'" + std::string(symbol) + "'");
}

Status Parser::ExpectClosingAngle() {
  if (pending_angle_ > 0) {
    pending_angle_ = 0;
    Advance();
    return OkStatus();
  }
  if (IsSymbol(Peek(), ">>")) {
    pending_angle_ = 1;
    return OkStatus();
  }
  return ExpectSymbol(">");
}

Error Parser::Expected(std::string_view what) const { return ExpectedFound(what, false); }

Error Parser::ExpectedName(std::string_view what) const { return ExpectedFound(what, true); }

Error Parser::ExpectedFound(std::string_view what, bool name_expected) const {
  const Token& token = Peek();
  Span at = SpanOf(token);
  if (token.kind == TokenKind::kEnd && tokens_.size() > 1) {
    // Just after the last token, not past trailing newlines on an empty line.
    const Token& last = tokens_[tokens_.size() - 2];
    if (last.text.find('\n') == std::string_view::npos) {
      at = Span{last.line, last.column + static_cast<int>(last.text.size())};
    }
  }
  const std::string where =
      " at line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
  std::string found = "'" + std::string(Describe(token)) + "'";
  if (name_expected && token.kind == TokenKind::kIdentifier &&
      IsReservedWord(token.text, dialect_)) {
    found = "the reserved word " + found;
  }
  Error error = MakeError(ErrorCode::kSqlLex,
                          token.kind == TokenKind::kEnd
                              ? "expected " + std::string(what) + " but found end of input" + where
                              : "expected " + std::string(what) + " but found " + found + where);
  error.span = SourceSpan{"", at.line, at.column};
  error.hint = RenderCaret(*statement_->source, at.line, at.column);
  return error;
}

bool Parser::AtName(std::size_t ahead) const {
  const Token& token = Peek(ahead);
  if (token.kind == TokenKind::kQuotedIdentifier) return true;
  return token.kind == TokenKind::kIdentifier && !IsReservedWord(token.text, dialect_);
}

bool Parser::AtAnyName(std::size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kIdentifier || token.kind == TokenKind::kQuotedIdentifier;
}

Identifier Parser::MakeIdentifier(const Token& token) {
  Identifier identifier;
  identifier.span = SpanOf(token);
  if (token.kind != TokenKind::kQuotedIdentifier) {
    identifier.name = token.text;
    return identifier;
  }
  identifier.quoted = true;
  const std::string_view inner = token.text.substr(1, token.text.size() - 2);
  const char quote = token.text.front();
  const bool plain =
      inner.find(quote) == std::string_view::npos && inner.find('\\') == std::string_view::npos;
  if (plain) {
    identifier.name = inner;
  } else {
    identifier.name = statement_->names.emplace_back(IdentifierName(token, dialect_));
  }
  return identifier;
}

Result<Identifier> Parser::ParseName(std::string_view what) {
  if (!AtName()) return ExpectedName(what);
  return MakeIdentifier(Advance());
}

Result<Identifier> Parser::ParseAnyName(std::string_view what) {
  if (!AtAnyName()) return Expected(what);
  return MakeIdentifier(Advance());
}

Result<NodeVector<Identifier>> Parser::ParseQualifiedName(std::string_view what) {
  NodeVector<Identifier> parts;
  STRATA_ASSIGN_OR_RETURN(Identifier first, ParseName(what));
  parts.push_back(first);
  while (AtSymbol(".") && AtAnyName(1)) {
    Advance();
    parts.push_back(MakeIdentifier(Advance()));
  }
  return parts;
}

Result<NodeVector<Identifier>> Parser::ParseNameList() {
  STRATA_TRY(ExpectSymbol("("));
  NodeVector<Identifier> names;
  do {
    STRATA_ASSIGN_OR_RETURN(Identifier name, ParseAnyName("a column name"));
    names.push_back(name);
  } while (AcceptSymbol(","));
  STRATA_TRY(ExpectSymbol(")"));
  return names;
}

bool Parser::StartsQuery(std::size_t ahead) const {
  while (IsSymbol(Peek(ahead), "(")) ++ahead;
  return AtKeyword("SELECT", ahead) || AtKeyword("WITH", ahead) || AtKeyword("VALUES", ahead) ||
         (AtKeyword("FROM", ahead) && dialect_ == Dialect::kDuckDb);
}

namespace {

bool IsWord(const Token& token, std::string_view upper) { return IsKeyword(token, upper); }

bool AnyWordIs(const Identifier& word, std::initializer_list<std::string_view> uppers) {
  for (std::string_view upper : uppers) {
    if (word.name.size() != upper.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < upper.size() && same; ++i) {
      const char c = word.name[i];
      same = ((c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c) == upper[i];
    }
    if (same) return true;
  }
  return false;
}

}  // namespace

// Multi-word type names: DOUBLE PRECISION, CHARACTER VARYING, TIMESTAMP WITH[OUT] [LOCAL] TIME
// ZONE. Appends the continuation words after the first one.
static void AcceptTypeContinuation(Parser& parser, DataType& type) {
  // A copy: take() below grows type.words, which would leave a reference dangling.
  const Identifier head = type.words.front();
  auto is = [&](std::string_view upper) {
    if (head.quoted || head.name.size() != upper.size()) return false;
    for (std::size_t i = 0; i < upper.size(); ++i) {
      const char c = head.name[i];
      if (((c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c) != upper[i]) return false;
    }
    return true;
  };
  auto take = [&]() { type.words.push_back(parser.MakeIdentifier(parser.Advance())); };
  if (is("DOUBLE") && parser.AtKeyword("PRECISION")) take();
  if ((is("CHARACTER") || is("CHAR") || is("BIT")) && parser.AtKeyword("VARYING")) take();
  if ((is("TIMESTAMP") || is("TIME")) &&
      (parser.AtKeyword("WITH") || parser.AtKeyword("WITHOUT"))) {
    const bool local = parser.AtKeyword("LOCAL", 1);
    if (parser.AtKeyword("TIME", local ? 2 : 1) && parser.AtKeyword("ZONE", local ? 3 : 2)) {
      for (int i = 0; i < (local ? 4 : 3); ++i) take();
    }
  }
}

Result<DataType> Parser::ParseDataType() {
  DataType type;
  type.span = Here();
  STRATA_ASSIGN_OR_RETURN(Identifier first, ParseAnyName("a type name"));
  type.words.push_back(first);
  AcceptTypeContinuation(*this, type);
  // Only container types take <...> parameters; elsewhere '<' is a comparison (x::DATE < y).
  const bool container = !first.quoted && AnyWordIs(first, {"ARRAY", "STRUCT", "MAP", "RANGE"});
  const bool angle = container && AtSymbol("<");
  if (angle || AtSymbol("(")) {
    Advance();
    type.has_parameters = true;
    type.angle_brackets = angle;
    if (!(angle ? AtSymbol(">") : AtSymbol(")"))) {
      do {
        DataType::Parameter parameter;
        const Token& token = Peek();
        if (token.kind == TokenKind::kNumber || token.kind == TokenKind::kString) {
          parameter.type = std::make_unique<DataType>();
          parameter.type->span = SpanOf(token);
          parameter.type->words.push_back({token.text, false, SpanOf(token)});
          Advance();
        } else {
          const Token& next = Peek(1);
          const bool field = AtAnyName() && AtAnyName(1) && !IsWord(next, "PRECISION") &&
                             !IsWord(next, "VARYING") && !IsWord(next, "WITH") &&
                             !IsWord(next, "WITHOUT");
          if (field) parameter.field = MakeIdentifier(Advance());
          STRATA_ASSIGN_OR_RETURN(DataType inner, ParseDataType());
          parameter.type = std::make_unique<DataType>(std::move(inner));
        }
        type.parameters.push_back(std::move(parameter));
      } while (AcceptSymbol(","));
    }
    if (angle) {
      STRATA_TRY(ExpectClosingAngle());
    } else {
      STRATA_TRY(ExpectSymbol(")"));
    }
    if (!angle) AcceptTypeContinuation(*this, type);
  }
  while (pending_angle_ == 0 && AtSymbol("[")) {
    Advance();
    std::string_view size;
    if (Peek().kind == TokenKind::kNumber) size = Advance().text;
    STRATA_TRY(ExpectSymbol("]"));
    type.array_suffixes.push_back(size);
  }
  return type;
}

bool Parser::AtScriptEnd() {
  while (AcceptSymbol(";")) {
  }
  return Peek().kind == TokenKind::kEnd;
}

Result<QueryPtr> Parser::ParseStatementQuery() {
  if (!StartsQuery(0) && !AtKeyword("FROM")) {
    return Expected("a query (SELECT, WITH, VALUES or '(')");
  }
  STRATA_ASSIGN_OR_RETURN(QueryPtr query, ParseQuery());
  if (!AtSymbol(";") && Peek().kind != TokenKind::kEnd) {
    return Expected("';' or the end of the statement");
  }
  AcceptSymbol(";");
  return query;
}

}  // namespace internal

namespace {

StatementPtr NewStatement(std::shared_ptr<const std::string> source, Dialect dialect) {
  auto statement = std::make_unique<Statement>();
  statement->source = std::move(source);
  statement->dialect = dialect;
  return statement;
}

}  // namespace

Result<std::vector<StatementPtr>> ParseScript(std::string_view sql, Dialect dialect) {
  auto source = std::make_shared<const std::string>(sql);
  auto lexed = Lex(*source, dialect);
  if (!lexed.ok()) {
    Error error = std::move(lexed).error();
    if (error.span) {
      error.message += " at line " + std::to_string(error.span->line) + ", column " +
                       std::to_string(error.span->column);
      error.hint = RenderCaret(*source, error.span->line, error.span->column);
    }
    return error;
  }
  return ParseScriptTokens(source, *lexed, dialect);
}

Result<std::vector<StatementPtr>> ParseScriptTokens(
    const std::shared_ptr<const std::string>& source, const std::vector<Token>& tokens,
    Dialect dialect) {
  std::vector<Token> significant;
  significant.reserve(tokens.size());
  for (const Token& token : tokens) {
    if (!IsTrivia(token)) significant.push_back(token);
  }
  std::vector<StatementPtr> statements;
  StatementPtr current = NewStatement(source, dialect);
  internal::Parser parser(*current, std::move(significant), dialect);
  while (!parser.AtScriptEnd()) {
    current->span = parser.Here();
    STRATA_ASSIGN_OR_RETURN(current->query, parser.ParseStatementQuery());
    statements.push_back(std::move(current));
    current = NewStatement(source, dialect);
    parser.SetStatement(*current);
  }
  return statements;
}

Result<StatementPtr> ParseStatement(std::string_view sql, Dialect dialect) {
  STRATA_ASSIGN_OR_RETURN(std::vector<StatementPtr> statements, ParseScript(sql, dialect));
  if (statements.size() == 1) return std::move(statements.front());
  Error error =
      MakeError(ErrorCode::kSqlLex, statements.empty() ? "expected a query but found no statement"
                                                       : "expected one statement but found " +
                                                             std::to_string(statements.size()));
  if (statements.size() > 1) {
    const Span span = statements[1]->span;
    error.message += "; the second starts at line " + std::to_string(span.line) + ", column " +
                     std::to_string(span.column);
    error.span = SourceSpan{"", span.line, span.column};
    error.hint = RenderCaret(sql, span.line, span.column);
  }
  return error;
}

std::string RenderCaret(std::string_view sql, int line, int column) {
  if (line < 1) return "";
  std::size_t start = 0;
  for (int current = 1; current < line; ++current) {
    const std::size_t newline = sql.find('\n', start);
    if (newline == std::string_view::npos) return "";
    start = newline + 1;
  }
  std::size_t end = sql.find('\n', start);
  if (end == std::string_view::npos) end = sql.size();
  std::string_view text = sql.substr(start, end - start);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  std::string out(text);
  out += '\n';
  const std::size_t caret = std::min<std::size_t>(column < 1 ? 0 : column - 1, text.size());
  for (std::size_t i = 0; i < caret; ++i) out += text[i] == '\t' ? '\t' : ' ';
  out += '^';
  return out;
}

}  // namespace strata::sql
