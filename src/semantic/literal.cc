#include "semantic/literal.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace strata::semantic {
namespace {

bool Digits(std::string_view text, std::size_t& i) {
  const std::size_t start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  return i > start;
}

// Whether number text (IsNumberText) reads as a finite double without overflow or underflow
// to zero. std::from_chars, unlike std::stod, reports both as an error code, never throws.
bool FitsADouble(std::string_view text) {
  double number = 0;
  const std::from_chars_result parsed =
      std::from_chars(text.data(), text.data() + text.size(), number);
  return parsed.ec == std::errc() && parsed.ptr == text.data() + text.size() &&
         std::isfinite(number);
}

}  // namespace

bool IsNumberText(std::string_view text) {
  if (text.empty() || text.size() > 40) return false;
  std::size_t i = 0;
  if (text[i] == '-') ++i;
  if (!Digits(text, i)) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!Digits(text, i)) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!Digits(text, i)) return false;
  }
  return i == text.size();
}

std::optional<UnixSeconds> ParseTimeText(std::string_view text) {
  const std::optional<TimeText> time = strata::ParseTimeText(text);
  if (!time) return std::nullopt;
  // A date, or a timestamp to the second; "2026-01-01T10" (an hour) is neither.
  if (time->precision != TimePrecision::kDay && time->precision != TimePrecision::kSecond) {
    return std::nullopt;
  }
  return ToUnixSeconds(time->civil);
}

std::optional<UnixSeconds> ParseTimeText(std::string_view text, const TimeZone& zone) {
  if (zone.is_utc()) return ParseTimeText(text);
  const std::optional<TimeText> time = strata::ParseTimeText(text);
  if (!time) return std::nullopt;
  if (time->precision != TimePrecision::kDay && time->precision != TimePrecision::kSecond) {
    return std::nullopt;
  }
  if (time->zulu) return ToUnixSeconds(time->civil);
  return zone.FirstInstantAtOrAfter(time->civil);
}

Result<std::string> RenderLiteral(const FilterValue& value, DimensionType type,
                                  sql::Dialect dialect, ErrorCode code, const TimeZone& zone) {
  switch (type) {
    case DimensionType::kString:
      // Warehouse client APIs take SQL as C strings: a NUL would cut the statement short.
      if (value.text.find('\0') != std::string::npos) {
        return MakeError(code, "a string value contains a NUL character");
      }
      return sql::QuoteString(value.text, dialect);
    case DimensionType::kNumber:
      if (value.kind == FilterValue::Kind::kBoolean || !IsNumberText(value.text)) {
        return MakeError(code, fmt::format("\"{}\" is not a number", value.text));
      }
      if (!FitsADouble(value.text)) {
        return MakeError(code,
                         fmt::format("\"{}\" is out of range: a number value must fit a double "
                                     "(at most about 1.8e308, and not so small that it reads as 0)",
                                     value.text),
                         "DuckDB would read it as infinity or zero and PostgreSQL would fail to "
                         "compare it; write a value inside that range");
      }
      return value.text;
    case DimensionType::kBoolean:
      if (value.text == "true") return std::string("TRUE");
      if (value.text == "false") return std::string("FALSE");
      return MakeError(code, fmt::format("\"{}\" is not true or false", value.text));
    case DimensionType::kTime:
      if (value.kind == FilterValue::Kind::kString) {
        if (std::optional<UnixSeconds> seconds = ParseTimeText(value.text, zone)) {
          return "TIMESTAMP " + sql::QuoteString(FormatSqlTimestamp(*seconds), dialect);
        }
      }
      return MakeError(code, fmt::format("\"{}\" is not a date or timestamp", value.text),
                       "write 2026-01-01 or 2026-01-01T10:00:00Z");
  }
  return MakeError(ErrorCode::kInternal, "unknown dimension type");
}

}  // namespace strata::semantic
