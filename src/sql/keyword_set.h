// A fixed set of upper-case keywords to test tokens against quickly. Most identifiers are not
// keywords, and one table lookup (length and first letter) rejects nearly all of them before any
// comparison.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/ascii.h"
#include "sql/lexer.h"

namespace strata::sql {

template <std::size_t N>
class KeywordSet {
 public:
  // REQUIRES: every word is 1..kMaxLength upper-case ASCII letters or '_'.
  constexpr explicit KeywordSet(std::array<std::string_view, N> words) : words_(words) {
    for (std::string_view word : words_) first_letters_[word.size()] |= LetterBit(word[0]);
  }

  // True when `token` is a kIdentifier equal to one of the words ignoring ASCII case.
  bool Contains(const Token& token) const {
    return token.kind == TokenKind::kIdentifier && Contains(token.text);
  }

  // True when `text` equals one of the words ignoring ASCII case.
  bool Contains(std::string_view text) const {
    if (text.empty() || text.size() > kMaxLength ||
        (first_letters_[text.size()] & LetterBit(text[0])) == 0) {
      return false;
    }
    for (std::string_view word : words_) {
      if (EqualsIgnoreAsciiCase(text, word)) return true;
    }
    return false;
  }

 private:
  static constexpr std::size_t kMaxLength = 16;

  static constexpr std::uint32_t LetterBit(char c) {
    c = AsciiUpper(c);
    if (c >= 'A' && c <= 'Z') return std::uint32_t{1} << (c - 'A');
    return c == '_' ? std::uint32_t{1} << 26 : 0;
  }

  std::array<std::string_view, N> words_;
  std::array<std::uint32_t, kMaxLength + 1> first_letters_{};
};

}  // namespace strata::sql
