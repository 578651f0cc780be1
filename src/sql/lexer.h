// A dialect-aware SQL lexer that loses nothing: whitespace and comments are tokens, so the token
// texts concatenated in order reproduce the input byte for byte. Placeholder substitution and
// reference rewriting edit SQL by replacing whole tokens and copying everything else.
//
// Lexical choices (per dialect; see internal/lex_rules.h for the table):
// - Quoted identifiers: "..." with "" doubling, except in databricks and bigquery where "..." is
//   a string and `...` (`` doubling; bigquery also \ escapes) is the quoted identifier.
// - '[' and ']' are always punctuation: duckdb, snowflake and trino use them for arrays and
//   subscripts, and none of our dialects has [bracketed identifiers].
// - Strings: '...' with '' doubling everywhere. Backslash escapes inside '...' in snowflake,
//   redshift, databricks and bigquery. E'...' (backslash escapes) in postgres and duckdb.
//   X'...', B'...', N'...' in every dialect. r'...' raw strings in bigquery and databricks;
//   b'...', rb'...', br'...' and triple-quoted '''...''' / """...""" in bigquery.
//   Dollar-quoted $$...$$ in postgres, duckdb and snowflake; $tag$...$tag$ in postgres and duckdb.
//   All of these are kString tokens.
// - Comments: -- to end of line (the newline is not part of the comment), // in snowflake,
//   /* */ (nesting in postgres and duckdb only).
// - Numbers: 12, 1.5, 1., .5, 1e10, 2.5E-3; 0x1F in postgres, duckdb, bigquery and trino.
// - Operators: longest match over :: <= >= <> != || -> ->> => := ** == << >> <=> @> @@ && #> #>>,
//   else one byte. Unknown bytes become one-byte kOperator tokens (the lexer never rejects a
//   character; the warehouse will).
// - @name (name = [A-Za-z_] then identifier characters) is a kPlaceholder; @@name a kVariable.
// - ?, $1, $name and :name are kParameter. "::" is a cast operator and ":=" an operator; a ':'
//   glued to a preceding identifier, number, ')' or ']' is an operator (snowflake/databricks
//   JSON paths a:b, slices x[a:b]), never a parameter.
// - Identifiers: [A-Za-z_ or any byte >= 0x80] then also digits (and '$' in postgres, duckdb,
//   snowflake, redshift). Keywords are kIdentifier tokens; test them with IsKeyword.
// - line counts '\n' only; column counts bytes; both are 1-based.
//
// All functions are pure and thread-safe; Lex allocates only the token vector.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/dialect.h"

namespace strata::sql {

enum class TokenKind {
  kIdentifier,        // unquoted name or keyword
  kQuotedIdentifier,  // "name" or `name`, quotes included in the text
  kString,            // any string literal, prefix and quotes included
  kNumber,
  kOperator,
  kPunctuation,   // ( ) [ ] { } , ; .
  kPlaceholder,   // @name, text includes the '@'
  kVariable,      // @@name system/session variable
  kParameter,     // ? $1 $name :name
  kLineComment,   // -- ... or // ... without the newline
  kBlockComment,  // /* ... */
  kWhitespace,
  kEnd,  // always the last token: empty text at offset == input size
};

struct Token {
  TokenKind kind;
  std::string_view text;  // a view into the lexed input
  std::size_t offset;     // byte offset of text in the input
  int line;               // 1-based
  int column;             // 1-based, in bytes
};

// Lexes all of `sql`. On success the last token is kEnd and concatenating every token's text
// gives back `sql` exactly. Token texts point into `sql`: the caller keeps `sql` alive while it
// uses the tokens.
// Errors: kSqlLex for an unterminated string, quoted identifier, block comment or dollar-quoted
// string; error.span has the line and column where that construct starts (file left empty for
// the caller to fill) and error.hint says how to close it.
Result<std::vector<Token>> Lex(std::string_view sql, Dialect dialect);

// True for a kIdentifier token whose text equals `upper_keyword` ignoring ASCII case.
// REQUIRES: upper_keyword is upper case.
// Inline with the length check first: parsers ask this for almost every token.
inline bool IsKeyword(const Token& token, std::string_view upper_keyword) {
  if (token.kind != TokenKind::kIdentifier || token.text.size() != upper_keyword.size()) {
    return false;
  }
  for (std::size_t i = 0; i < upper_keyword.size(); ++i) {
    char c = token.text[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != upper_keyword[i]) return false;
  }
  return true;
}

// True for a kPunctuation or kOperator token whose text is exactly `symbol`.
inline bool IsSymbol(const Token& token, std::string_view symbol) {
  if (token.text.size() != symbol.size()) return false;
  if (token.kind != TokenKind::kPunctuation && token.kind != TokenKind::kOperator) return false;
  for (std::size_t i = 0; i < symbol.size(); ++i) {
    if (token.text[i] != symbol[i]) return false;
  }
  return true;
}

// True for whitespace and comments (tokens with no meaning to a parser).
inline bool IsTrivia(const Token& token) {
  return token.kind == TokenKind::kWhitespace || token.kind == TokenKind::kLineComment ||
         token.kind == TokenKind::kBlockComment;
}

// The name a kIdentifier or kQuotedIdentifier token of `dialect` denotes, as written: quotes
// removed, doubled quote characters collapsed ("a""b" -> a"b) and, in bigquery, backslash escapes
// resolved (\` -> `, \\ -> \, \n -> newline; other \c -> c). No case folding.
// Other tokens: their text.
std::string IdentifierName(const Token& token, Dialect dialect);

}  // namespace strata::sql
