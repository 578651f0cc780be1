#include "sql/placeholders.h"

#include <algorithm>

#include "sql/lexer.h"

namespace strata::sql {
namespace {

bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

bool IsPlaceholderName(std::string_view name) {
  return !name.empty() && IsNameStart(name[0]) && std::all_of(name.begin(), name.end(), IsNameChar);
}

// The placeholder name a token stands for, or "" when it is not a placeholder.
std::string_view PlaceholderName(const Token& token) {
  if (token.kind == TokenKind::kPlaceholder) return token.text.substr(1);
  if (token.kind != TokenKind::kString) return {};
  const std::string_view text = token.text;
  if (text.size() < 4 || text.front() != '\'' || text.back() != '\'' || text[1] != '@') return {};
  const std::string_view name = text.substr(2, text.size() - 3);
  return IsPlaceholderName(name) ? name : std::string_view();
}

}  // namespace

Result<std::string> SubstitutePlaceholders(std::string_view sql, Dialect dialect,
                                           const PlaceholderValues& values) {
  return SubstitutePlaceholders(sql, dialect, values, {});
}

Result<std::string> SubstitutePlaceholders(std::string_view sql, Dialect dialect,
                                           const PlaceholderValues& values,
                                           const PlaceholderValues& quoted_values) {
  STRATA_ASSIGN_OR_RETURN(const std::vector<Token> tokens, Lex(sql, dialect));
  std::string out;
  out.reserve(sql.size());
  // The replacement of `token`, or null to keep it.
  auto replacement = [&](const Token& token) -> const std::string* {
    const std::string_view name = PlaceholderName(token);
    if (name.empty()) return nullptr;
    if (token.kind == TokenKind::kString) {
      if (auto quoted = quoted_values.find(name); quoted != quoted_values.end()) {
        return &quoted->second;
      }
    }
    auto found = values.find(name);
    return found == values.end() ? nullptr : &found->second;
  };
  for (const Token& token : tokens) {
    const std::string* value = replacement(token);
    out += value != nullptr ? std::string_view(*value) : token.text;
  }
  return out;
}

Result<std::vector<PlaceholderUse>> FindPlaceholders(std::string_view sql, Dialect dialect) {
  STRATA_ASSIGN_OR_RETURN(const std::vector<Token> tokens, Lex(sql, dialect));
  std::vector<PlaceholderUse> uses;
  for (const Token& token : tokens) {
    const std::string_view name = PlaceholderName(token);
    if (name.empty()) continue;
    const bool seen = std::any_of(uses.begin(), uses.end(),
                                  [&](const PlaceholderUse& use) { return use.name == name; });
    if (!seen) uses.push_back({std::string(name), token.line, token.column});
  }
  return uses;
}

}  // namespace strata::sql
