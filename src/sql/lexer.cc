#include "sql/lexer.h"

#include <algorithm>
#include <array>
#include <optional>

#include "sql/internal/lex_rules.h"

namespace strata::sql {
namespace {

using internal::LexRules;

constexpr std::size_t kFailed = std::string_view::npos;

// Longest first, so the first prefix match is the longest.
constexpr std::array<std::string_view, 23> kMultiCharOperators = {
    "->>", "#>>", "<=>", "!~*", "::", "<=", ">=", "<>", "!=", "||", "->", "=>",
    ":=",  "**",  "==",  "<<",  ">>", "@>", "&&", "#>", "@@", "!~", "~*"};

// Byte classes, one table lookup each (the lexer asks these for every byte it reads).
enum ByteClass : unsigned char {
  kSpaceByte = 1,            // ' ' \t \n \r \f \v
  kDigitByte = 2,            // 0-9
  kIdentifierStartByte = 4,  // A-Z a-z _ and every byte >= 0x80
  kPunctuationByte = 8,      // ( ) [ ] { } , ; .
  kLetterByte = 16,          // A-Z a-z
};

constexpr std::array<unsigned char, 256> MakeByteClasses() {
  std::array<unsigned char, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    unsigned char bits = 0;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      bits |= kSpaceByte;
    }
    if (c >= '0' && c <= '9') bits |= kDigitByte;
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (letter) bits |= kLetterByte;
    if (letter || c == '_' || c >= 0x80) bits |= kIdentifierStartByte;
    for (const char p : std::string_view("()[]{},;.")) {
      if (c == p) bits |= kPunctuationByte;
    }
    classes[static_cast<std::size_t>(c)] = bits;
  }
  return classes;
}
constexpr std::array<unsigned char, 256> kByteClasses = MakeByteClasses();

bool HasClass(char c, unsigned char bits) {
  return (kByteClasses[static_cast<unsigned char>(c)] & bits) != 0;
}
bool IsDigit(char c) { return HasClass(c, kDigitByte); }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsAsciiLetter(char c) { return HasClass(c, kLetterByte); }
bool IsIdentifierStart(char c) { return HasClass(c, kIdentifierStartByte); }
bool IsSpace(char c) { return HasClass(c, kSpaceByte); }
bool IsPunctuation(char c) { return HasClass(c, kPunctuationByte); }
char ToUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// The byte a backslash escape \c stands for.
char UnescapedChar(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    default:
      return c;
  }
}

// How the body of a string literal is read.
struct StringStyle {
  bool backslash = false;  // a backslash makes the next byte ordinary
};

// The end offset and kind of one scanned token; end == kFailed after an error.
struct Scanned {
  TokenKind kind;
  std::size_t end;
};

class Lexer {
 public:
  Lexer(std::string_view sql, Dialect dialect) : sql_(sql), rules_(internal::RulesFor(dialect)) {}

  Result<std::vector<Token>> Run() {
    tokens_.reserve(sql_.size() / 3 + 2);
    while (pos_ < sql_.size()) {
      const Scanned scanned = Scan(pos_);
      if (scanned.end == kFailed) return std::move(*error_);
      Push(scanned);
    }
    tokens_.push_back({TokenKind::kEnd, sql_.substr(pos_, 0), pos_, line_, column_});
    return std::move(tokens_);
  }

 private:
  char Peek(std::size_t at) const { return at < sql_.size() ? sql_[at] : '\0'; }

  void Push(Scanned scanned) {
    const std::string_view text = sql_.substr(pos_, scanned.end - pos_);
    tokens_.push_back({scanned.kind, text, pos_, line_, column_});
    pos_ = scanned.end;
    if (!MaySpanLines(scanned.kind)) {
      column_ += static_cast<int>(text.size());
      return;
    }
    const std::size_t last_newline = text.rfind('\n');
    if (last_newline == std::string_view::npos) {
      column_ += static_cast<int>(text.size());
      return;
    }
    line_ += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    column_ = static_cast<int>(text.size() - last_newline);
  }

  // Tokens that can hold a newline; every other kind is one line, so its column count is its size.
  static bool MaySpanLines(TokenKind kind) {
    return kind == TokenKind::kWhitespace || kind == TokenKind::kBlockComment ||
           kind == TokenKind::kString || kind == TokenKind::kQuotedIdentifier;
  }

  // Records an error for the construct starting at pos_ (every scan starts there).
  Scanned Fail(std::string message, std::string hint) {
    Error error = MakeError(ErrorCode::kSqlLex, std::move(message), std::move(hint));
    error.span = SourceSpan{"", line_, column_};
    error_ = std::move(error);
    return {TokenKind::kEnd, kFailed};
  }

  std::size_t SkipWhile(std::size_t at, bool (*predicate)(char)) const {
    while (at < sql_.size() && predicate(sql_[at])) ++at;
    return at;
  }

  std::size_t SkipIdentifierChars(std::size_t at) const {
    while (at < sql_.size()) {
      const char c = sql_[at];
      if (!HasClass(c, kIdentifierStartByte | kDigitByte) &&
          !(c == '$' && rules_.dollar_in_identifiers)) {
        break;
      }
      ++at;
    }
    return at;
  }

  // True when the previous token ends at `at` and is an operand ('a:b', 'x[1:2]', 't.5').
  bool GluedToOperand(std::size_t at) const {
    if (tokens_.empty()) return false;
    const Token& last = tokens_.back();
    if (last.offset + last.text.size() != at) return false;
    switch (last.kind) {
      case TokenKind::kIdentifier:
      case TokenKind::kQuotedIdentifier:
      case TokenKind::kNumber:
      case TokenKind::kParameter:
        return true;
      case TokenKind::kPunctuation:
        return last.text == ")" || last.text == "]";
      case TokenKind::kString:
      case TokenKind::kOperator:
      case TokenKind::kPlaceholder:
      case TokenKind::kVariable:
      case TokenKind::kLineComment:
      case TokenKind::kBlockComment:
      case TokenKind::kWhitespace:
      case TokenKind::kEnd:
        return false;
    }
    return false;
  }

  Scanned Scan(std::size_t at) {
    const char c = sql_[at];
    const char next = Peek(at + 1);
    if (IsSpace(c)) return {TokenKind::kWhitespace, SkipWhile(at, IsSpace)};
    // Words are most tokens; no other branch below starts with a letter, '_' or a byte >= 0x80.
    if (IsIdentifierStart(c)) return ScanWord(at);
    if ((c == '-' && next == '-') || (c == '/' && next == '/' && rules_.slash_comments)) {
      return {TokenKind::kLineComment, LineEnd(at)};
    }
    if (c == '/' && next == '*') return ScanBlockComment(at);
    if (c == '\'') return ScanString(at, PlainStyle());
    if (c == '"') {
      if (rules_.double_quote_strings) return ScanString(at, PlainStyle());
      return ScanQuotedIdentifier(at, false);
    }
    if (c == '`' && rules_.backtick_identifiers) {
      return ScanQuotedIdentifier(at, rules_.backtick_backslash);
    }
    if (IsDigit(c) || (c == '.' && IsDigit(next) && !GluedToOperand(at))) return ScanNumber(at);
    if (c == '$') return ScanDollar(at);
    if (c == '@') return ScanAtSign(at);
    if (c == '?') return {TokenKind::kParameter, at + 1};
    if (c == ':') return ScanColon(at);
    if (IsPunctuation(c)) return {TokenKind::kPunctuation, at + 1};
    return ScanOperator(at);
  }

  std::size_t LineEnd(std::size_t at) const {
    const std::size_t newline = sql_.find('\n', at);
    return newline == std::string_view::npos ? sql_.size() : newline;
  }

  Scanned ScanBlockComment(std::size_t at) {
    int depth = 0;
    std::size_t i = at;
    while (i + 1 < sql_.size()) {
      if (sql_[i] == '/' && sql_[i + 1] == '*' && (depth == 0 || rules_.nested_comments)) {
        ++depth;
        i += 2;
      } else if (sql_[i] == '*' && sql_[i + 1] == '/') {
        i += 2;
        if (--depth == 0) return {TokenKind::kBlockComment, i};
      } else {
        ++i;
      }
    }
    return Fail("unterminated block comment",
                rules_.nested_comments ? "close it with */ (comments nest: every /* needs a */)"
                                       : "close it with */");
  }

  StringStyle PlainStyle() const { return {rules_.backslash_escapes}; }

  // A string literal whose body starts at the quote at `quote_at`; the token starts at pos_
  // (before any prefix letters).
  Scanned ScanString(std::size_t quote_at, StringStyle style) {
    const char quote = sql_[quote_at];
    if (rules_.triple_quotes && Peek(quote_at + 1) == quote && Peek(quote_at + 2) == quote) {
      return ScanTripleQuoted(quote_at, style);
    }
    std::size_t i = quote_at + 1;
    while (i < sql_.size()) {
      const char c = sql_[i];
      if ((c == '\\' && style.backslash) || (c == quote && Peek(i + 1) == quote)) {
        i += 2;  // a backslash escape or a doubled quote
      } else if (c == quote) {
        return {TokenKind::kString, i + 1};
      } else {
        ++i;
      }
    }
    return Fail("unterminated string literal", std::string("close it with ") + quote + "; write " +
                                                   quote + quote +
                                                   " for a quote inside the string");
  }

  Scanned ScanTripleQuoted(std::size_t quote_at, StringStyle style) {
    const char quote = sql_[quote_at];
    std::size_t i = quote_at + 3;
    while (i < sql_.size()) {
      if (sql_[i] == '\\' && style.backslash) {
        i += 2;
      } else if (sql_[i] == quote && Peek(i + 1) == quote && Peek(i + 2) == quote) {
        return {TokenKind::kString, i + 3};
      } else {
        ++i;
      }
    }
    return Fail("unterminated triple-quoted string literal",
                std::string("close it with ") + quote + quote + quote);
  }

  Scanned ScanQuotedIdentifier(std::size_t at, bool backslash) {
    const char quote = sql_[at];
    std::size_t i = at + 1;
    while (i < sql_.size()) {
      const char c = sql_[i];
      if ((c == '\\' && backslash) || (c == quote && Peek(i + 1) == quote)) {
        i += 2;  // a backslash escape or a doubled quote
      } else if (c == quote) {
        return {TokenKind::kQuotedIdentifier, i + 1};
      } else {
        ++i;
      }
    }
    return Fail("unterminated quoted identifier", std::string("close it with ") + quote +
                                                      "; write " + quote + quote +
                                                      " for a quote inside the name");
  }

  Scanned ScanNumber(std::size_t at) {
    if (rules_.hex_numbers && sql_[at] == '0' && (ToUpper(Peek(at + 1)) == 'X') &&
        IsHexDigit(Peek(at + 2))) {
      return {TokenKind::kNumber, SkipWhile(at + 2, IsHexDigit)};
    }
    std::size_t i = SkipWhile(at, IsDigit);
    if (Peek(i) == '.' && Peek(i + 1) != '.') i = SkipWhile(i + 1, IsDigit);
    if (ToUpper(Peek(i)) == 'E') {
      std::size_t exponent = i + 1;
      if (Peek(exponent) == '+' || Peek(exponent) == '-') ++exponent;
      if (IsDigit(Peek(exponent))) i = SkipWhile(exponent, IsDigit);
    }
    return {TokenKind::kNumber, i};
  }

  // Whether `prefix` (1 or 2 ASCII letters) before `quote` starts a string, and how it reads.
  std::optional<StringStyle> PrefixStyle(std::string_view prefix, char quote) const {
    const char first = ToUpper(prefix[0]);
    if (prefix.size() == 2) {
      const char second = ToUpper(prefix[1]);
      const bool raw_bytes = (first == 'R' && second == 'B') || (first == 'B' && second == 'R');
      if (raw_bytes && rules_.bytes_prefixes) return StringStyle{rules_.raw_backslash_skips};
      return std::nullopt;
    }
    if (first == 'E' && rules_.e_strings && quote == '\'') return StringStyle{true};
    if (first == 'R' && rules_.raw_strings) return StringStyle{rules_.raw_backslash_skips};
    if (first == 'X' || first == 'B' || first == 'N') return PlainStyle();
    return std::nullopt;
  }

  Scanned ScanWord(std::size_t at) {
    std::size_t letters = 0;
    while (letters < 2 && IsAsciiLetter(Peek(at + letters))) ++letters;
    const char quote = Peek(at + letters);
    if (letters > 0 && (quote == '\'' || (quote == '"' && rules_.double_quote_strings))) {
      if (auto style = PrefixStyle(sql_.substr(at, letters), quote)) {
        return ScanString(at + letters, *style);
      }
    }
    return {TokenKind::kIdentifier, SkipIdentifierChars(at)};
  }

  Scanned ScanDollar(std::size_t at) {
    if (rules_.dollar_quotes) {
      std::size_t tag_end = at + 1;
      if (rules_.dollar_tags && IsIdentifierStart(Peek(tag_end))) {
        while (IsIdentifierStart(Peek(tag_end)) || IsDigit(Peek(tag_end))) ++tag_end;
      }
      if (Peek(tag_end) == '$') return ScanDollarQuoted(at, tag_end + 1);
    }
    if (IsDigit(Peek(at + 1))) return {TokenKind::kParameter, SkipWhile(at + 1, IsDigit)};
    if (IsIdentifierStart(Peek(at + 1))) {
      std::size_t i = at + 1;
      while (IsIdentifierStart(Peek(i)) || IsDigit(Peek(i))) ++i;
      return {TokenKind::kParameter, i};
    }
    return {TokenKind::kOperator, at + 1};
  }

  // The delimiter is sql_[at, body).
  Scanned ScanDollarQuoted(std::size_t at, std::size_t body) {
    const std::string_view delimiter = sql_.substr(at, body - at);
    const std::size_t close = sql_.find(delimiter, body);
    if (close == std::string_view::npos) {
      return Fail("unterminated dollar-quoted string " + std::string(delimiter),
                  "close it with " + std::string(delimiter));
    }
    return {TokenKind::kString, close + delimiter.size()};
  }

  Scanned ScanAtSign(std::size_t at) {
    const char next = Peek(at + 1);
    if (next == '@' && IsIdentifierStart(Peek(at + 2))) {
      return {TokenKind::kVariable, SkipIdentifierChars(at + 2)};
    }
    if (IsAsciiLetter(next) || next == '_') {
      return {TokenKind::kPlaceholder, SkipIdentifierChars(at + 1)};
    }
    return ScanOperator(at);
  }

  Scanned ScanColon(std::size_t at) {
    const char next = Peek(at + 1);
    if (next == ':' || next == '=') return {TokenKind::kOperator, at + 2};
    if (IsIdentifierStart(next) && !GluedToOperand(at)) {
      return {TokenKind::kParameter, SkipIdentifierChars(at + 1)};
    }
    return {TokenKind::kOperator, at + 1};
  }

  Scanned ScanOperator(std::size_t at) const {
    const std::string_view rest = sql_.substr(at);
    for (std::string_view op : kMultiCharOperators) {
      if (op[0] == rest[0] && rest.substr(0, op.size()) == op) {
        return {TokenKind::kOperator, at + op.size()};
      }
    }
    return {TokenKind::kOperator, at + 1};
  }

  std::string_view sql_;
  LexRules rules_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  std::vector<Token> tokens_;
  std::optional<Error> error_;
};

}  // namespace

Result<std::vector<Token>> Lex(std::string_view sql, Dialect dialect) {
  return Lexer(sql, dialect).Run();
}

std::string IdentifierName(const Token& token, Dialect dialect) {
  if (token.kind != TokenKind::kQuotedIdentifier || token.text.size() < 2) {
    return std::string(token.text);
  }
  const bool backslash = internal::RulesFor(dialect).backtick_backslash;
  const char quote = token.text.front();
  const std::string_view body = token.text.substr(1, token.text.size() - 2);
  std::string name;
  name.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    const bool has_next = i + 1 < body.size();
    if (backslash && body[i] == '\\' && has_next) {
      name += UnescapedChar(body[++i]);
      continue;
    }
    name += body[i];
    if (body[i] == quote && has_next && body[i + 1] == quote) ++i;
  }
  return name;
}

}  // namespace strata::sql
