#include "serve/pg/statement_text.h"

#include <fmt/format.h>

#include <cctype>

#include "sql/lexer.h"

namespace strata::serve::pg {
namespace {

using sql::Token;
using sql::TokenKind;

// The significant tokens of `sql` (no trivia, no kEnd).
Result<std::vector<Token>> Significant(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, sql::Lex(sql, sql::Dialect::kPostgres));
  std::vector<Token> out;
  for (const Token& token : tokens) {
    if (!sql::IsTrivia(token) && token.kind != TokenKind::kEnd) out.push_back(token);
  }
  return out;
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// A cursor's name as PostgreSQL resolves it: a quoted name as written, else folded.
std::optional<std::string> NameOf(const Token& token) {
  if (token.kind == TokenKind::kQuotedIdentifier) {
    std::string name;
    for (std::size_t i = 1; i + 1 < token.text.size(); ++i) {
      name.push_back(token.text[i]);
      if (token.text[i] == '"') ++i;  // "" inside a quoted name is one quote
    }
    return name;
  }
  if (token.kind != TokenKind::kIdentifier) return std::nullopt;
  std::string name(token.text);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

Error Malformed(std::string_view what, std::string_view sql) {
  return MakeError(ErrorCode::kSqlLex,
                   fmt::format("syntax error in {}: \"{}\"", what, sql.substr(0, 200)),
                   "see PostgreSQL's documentation of the statement");
}

}  // namespace

Result<std::vector<std::string>> SplitStatements(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, sql::Lex(sql, sql::Dialect::kPostgres));
  std::vector<std::string> statements;
  std::size_t start = 0;
  bool significant = false;
  const auto flush = [&](std::size_t end) {
    if (significant) {
      std::string_view text = sql.substr(start, end - start);
      while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
      while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
      statements.emplace_back(text);
    }
    significant = false;
  };
  for (const Token& token : tokens) {
    if (token.kind == TokenKind::kEnd) break;
    if (token.kind == TokenKind::kPunctuation && token.text == ";") {
      flush(token.offset);
      start = token.offset + 1;
      continue;
    }
    if (!sql::IsTrivia(token)) significant = true;
  }
  flush(sql.size());
  return statements;
}

std::string FirstKeyword(std::string_view sql) {
  Result<std::vector<Token>> tokens = Significant(sql);
  if (!tokens.ok() || tokens->empty()) return "";
  const Token& first = tokens->front();
  if (first.kind == TokenKind::kPunctuation && first.text == "(") return "(";
  return Upper(first.text);
}

Result<DeclareCursor> ParseDeclareCursor(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Significant(sql));
  DeclareCursor cursor;
  if (tokens.size() < 4 || !sql::IsKeyword(tokens[0], "DECLARE")) return Malformed("DECLARE", sql);
  std::optional<std::string> name = NameOf(tokens[1]);
  if (!name) return Malformed("DECLARE", sql);
  cursor.name = *name;
  std::size_t index = 2;
  for (; index < tokens.size() && !sql::IsKeyword(tokens[index], "CURSOR"); ++index) {
    const Token& token = tokens[index];
    if (sql::IsKeyword(token, "BINARY")) {
      cursor.binary = true;
    } else if (sql::IsKeyword(token, "SCROLL")) {
      const bool no = index > 2 && sql::IsKeyword(tokens[index - 1], "NO");
      if (!no) {
        return MakeError(ErrorCode::kSqlUnsupported,
                         "a SCROLL cursor is not supported by the SQL port",
                         "declare it NO SCROLL (the default) and FETCH forward");
      }
    } else if (!sql::IsKeyword(token, "ASENSITIVE") && !sql::IsKeyword(token, "INSENSITIVE") &&
               !sql::IsKeyword(token, "NO")) {
      return Malformed("DECLARE", sql);
    }
  }
  ++index;  // CURSOR
  while (index < tokens.size() &&
         (sql::IsKeyword(tokens[index], "WITH") || sql::IsKeyword(tokens[index], "WITHOUT") ||
          sql::IsKeyword(tokens[index], "HOLD"))) {
    if (sql::IsKeyword(tokens[index], "WITH")) cursor.hold = true;
    ++index;
  }
  if (index + 1 >= tokens.size() || !sql::IsKeyword(tokens[index], "FOR")) {
    return Malformed("DECLARE", sql);
  }
  cursor.query = std::string(sql.substr(tokens[index + 1].offset));
  return cursor;
}

Result<FetchCursor> ParseFetchCursor(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Significant(sql));
  FetchCursor fetch;
  if (tokens.size() < 2) return Malformed("FETCH", sql);
  fetch.move = sql::IsKeyword(tokens[0], "MOVE");
  if (!fetch.move && !sql::IsKeyword(tokens[0], "FETCH")) return Malformed("FETCH", sql);
  fetch.count = 1;
  std::size_t index = 1;
  const auto read_count = [&]() -> Status {
    if (index >= tokens.size() - 1) return OkStatus();
    const Token& token = tokens[index];
    if (sql::IsKeyword(token, "ALL")) {
      fetch.count = std::nullopt;
      ++index;
    } else if (token.kind == TokenKind::kNumber) {
      const std::string digits(token.text);
      if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 18) {
        return Malformed("FETCH", sql);
      }
      fetch.count = std::stoll(digits);
      ++index;
    }
    return OkStatus();
  };
  const Token& direction = tokens[index];
  if (sql::IsKeyword(direction, "NEXT")) {
    ++index;
  } else if (sql::IsKeyword(direction, "FORWARD")) {
    ++index;
    STRATA_TRY(read_count());
  } else if (sql::IsKeyword(direction, "PRIOR") || sql::IsKeyword(direction, "BACKWARD") ||
             sql::IsKeyword(direction, "ABSOLUTE") || sql::IsKeyword(direction, "RELATIVE") ||
             sql::IsKeyword(direction, "FIRST") || sql::IsKeyword(direction, "LAST") ||
             sql::IsSymbol(direction, "-")) {
    return MakeError(
        ErrorCode::kSqlUnsupported,
        fmt::format("FETCH {} is not supported by the SQL port", Upper(direction.text)),
        "cursors move forward only: FETCH [FORWARD] n | ALL | NEXT");
  } else {
    STRATA_TRY(read_count());
  }
  if (index < tokens.size() &&
      (sql::IsKeyword(tokens[index], "FROM") || sql::IsKeyword(tokens[index], "IN"))) {
    ++index;
  }
  if (index + 1 != tokens.size()) return Malformed("FETCH", sql);
  std::optional<std::string> name = NameOf(tokens[index]);
  if (!name) return Malformed("FETCH", sql);
  fetch.name = *name;
  return fetch;
}

Result<std::optional<std::string>> ParseCloseCursor(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Significant(sql));
  if (tokens.size() != 2 || !sql::IsKeyword(tokens[0], "CLOSE")) return Malformed("CLOSE", sql);
  if (sql::IsKeyword(tokens[1], "ALL")) return std::optional<std::string>();
  std::optional<std::string> name = NameOf(tokens[1]);
  if (!name) return Malformed("CLOSE", sql);
  return name;
}

std::optional<std::string> DeallocatedName(std::string_view sql) {
  Result<std::vector<Token>> tokens = Significant(sql);
  if (!tokens.ok() || tokens->size() < 2) return std::nullopt;
  std::size_t index = 1;
  if (sql::IsKeyword((*tokens)[index], "PREPARE")) ++index;
  if (index >= tokens->size() || sql::IsKeyword((*tokens)[index], "ALL")) return std::nullopt;
  const Token& name = (*tokens)[index];
  if (name.kind == TokenKind::kQuotedIdentifier) return NameOf(name);
  return std::string(name.text);
}

TransactionEnd TransactionEndOf(std::string_view sql) {
  Result<std::vector<Token>> tokens = Significant(sql);
  if (!tokens.ok()) return TransactionEnd::kEnd;
  for (std::size_t index = 1; index < tokens->size(); ++index) {
    if (sql::IsKeyword((*tokens)[index], "TO")) return TransactionEnd::kToSavepoint;
    if (sql::IsKeyword((*tokens)[index], "CHAIN") && index >= 2 &&
        sql::IsKeyword((*tokens)[index - 1], "AND") &&
        !sql::IsKeyword((*tokens)[index - 2], "NO")) {
      return TransactionEnd::kAndChain;
    }
  }
  return TransactionEnd::kEnd;
}

Result<int> ParameterCount(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, Significant(sql));
  int highest = 0;
  for (const Token& token : tokens) {
    if (token.kind != TokenKind::kParameter || token.text.size() < 2 || token.text[0] != '$') {
      continue;
    }
    const std::string_view digits = token.text.substr(1);
    if (digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
      continue;
    }
    highest = std::max(highest, std::stoi(std::string(digits)));
  }
  if (highest > 65535) {
    return MakeError(ErrorCode::kSqlUnsupported,
                     fmt::format("${} is beyond the protocol's 65,535 parameters", highest),
                     "bind at most 65,535 parameters");
  }
  return highest;
}

}  // namespace strata::serve::pg
