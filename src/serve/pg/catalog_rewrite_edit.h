// The pieces catalog_rewrite.cc and catalog_rewrite_select.cc share: a statement's tokens with
// their replacement texts. Private to the catalog's rewrite (catalog_rewrite.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/ascii.h"
#include "sql/lexer.h"

namespace strata::serve::pg {

using sql::Token;
using sql::TokenKind;

// The tokens of one statement with their replacement texts: a rewrite replaces texts (an empty
// text drops a token) and prefixes them, so offsets never shift.
struct Edit {
  std::vector<Token> tokens;
  std::vector<std::string> texts;
  std::vector<bool> dropped;
  std::vector<std::size_t> significant;  // indexes into tokens of the kept non-trivia tokens

  // Rebuilds `significant` after a pass dropped tokens.
  void Compact() {
    significant.clear();
    for (std::size_t index = 0; index < tokens.size(); ++index) {
      if (!sql::IsTrivia(tokens[index]) && !dropped[index]) significant.push_back(index);
    }
  }
  void Drop(std::size_t s) {
    texts[significant[s]].clear();
    dropped[significant[s]] = true;
  }

  const Token& At(std::size_t s) const { return tokens[significant[s]]; }
  std::string& TextAt(std::size_t s) { return texts[significant[s]]; }
  bool Keyword(std::size_t s, std::string_view upper) const {
    return s < significant.size() && sql::IsKeyword(At(s), upper);
  }
  bool Symbol(std::size_t s, std::string_view symbol) const {
    return s < significant.size() && sql::IsSymbol(At(s), symbol);
  }
  std::string Name(std::size_t s) const {
    return AsciiLowered(sql::IdentifierName(At(s), sql::Dialect::kPostgres));
  }
  bool IsName(std::size_t s, std::string_view lower) const {
    if (s >= significant.size()) return false;
    const TokenKind kind = At(s).kind;
    return (kind == TokenKind::kIdentifier || kind == TokenKind::kQuotedIdentifier) &&
           Name(s) == lower;
  }
};

// The closing parenthesis of the group opened at `open`, or npos.
inline std::size_t Matching(const Edit& edit, std::size_t open) {
  int depth = 0;
  for (std::size_t s = open; s < edit.significant.size(); ++s) {
    if (edit.Symbol(s, "(")) ++depth;
    if (edit.Symbol(s, ")") && --depth == 0) return s;
  }
  return std::string::npos;
}

// Names the top-level select list's unaliased items as PostgreSQL does (an unaliased call after
// its function, a literal ?column?, an unquoted name folded to lower case), and makes a bare
// output name in its ORDER BY the column's position (PostgreSQL resolves it to the output
// column first; DuckDB finds it ambiguous with a table's column). Runs on the statement as
// written, before the other rewrites.
void RewriteSelectList(Edit& edit);

}  // namespace strata::serve::pg
