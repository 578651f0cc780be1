// ASCII-only case folding for SQL names and keywords. Unlike std::tolower these never consult the
// locale, and bytes >= 0x80 (UTF-8) are left alone, so folding is the same on every machine.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace strata {

constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
constexpr char AsciiUpper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

// `text` with A-Z turned into a-z.
inline std::string AsciiLowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// True when a and b are equal ignoring the case of A-Z.
inline bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return AsciiLower(x) == AsciiLower(y); });
}

}  // namespace strata
