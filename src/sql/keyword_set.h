// A fixed set of upper-case keywords to test tokens against quickly. Most identifiers are not
// keywords, and one table lookup (length and first letter) rejects nearly all of them before any
// comparison.
#pragma once

#include <algorithm>
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
    // By length, so a lookup compares only the words of the text's length.
    std::sort(words_.begin(), words_.end(),
              [](std::string_view a, std::string_view b) { return a.size() < b.size(); });
    std::size_t next = 0;
    for (std::size_t length = 0; length < first_of_length_.size(); ++length) {
      while (next < N && words_[next].size() < length) ++next;
      first_of_length_[length] = next;
    }
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
    for (std::size_t i = first_of_length_[text.size()]; i < first_of_length_[text.size() + 1];
         ++i) {
      if (EqualsIgnoreAsciiCase(text, words_[i])) return true;
    }
    return false;
  }

 private:
  static constexpr std::size_t kMaxLength = 20;

  static constexpr std::uint32_t LetterBit(char c) {
    c = AsciiUpper(c);
    if (c >= 'A' && c <= 'Z') return std::uint32_t{1} << (c - 'A');
    return c == '_' ? std::uint32_t{1} << 26 : 0;
  }

  std::array<std::string_view, N> words_;
  std::array<std::uint32_t, kMaxLength + 1> first_letters_{};
  // words_[first_of_length_[n], first_of_length_[n + 1]) are the words of n letters.
  std::array<std::size_t, kMaxLength + 2> first_of_length_{};
};

// The words of `a` then those of `b`: a set built from lists that are also used on their own.
template <std::size_t A, std::size_t B>
constexpr std::array<std::string_view, A + B> JoinWords(const std::array<std::string_view, A>& a,
                                                        const std::array<std::string_view, B>& b) {
  std::array<std::string_view, A + B> joined{};
  std::copy(a.begin(), a.end(), joined.begin());
  std::copy(b.begin(), b.end(), joined.begin() + A);
  return joined;
}

}  // namespace strata::sql
