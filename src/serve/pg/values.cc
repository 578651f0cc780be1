#include "serve/pg/values.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "base/time.h"

namespace strata::serve::pg {
namespace {

// PostgreSQL's epoch for date and timestamp binaries: 2000-01-01, in Unix seconds and days.
constexpr std::int64_t kPgEpochSeconds = 946684800;
constexpr std::int64_t kPgEpochDays = 10957;

Error NotOfType(std::string_view text, PgType type) {
  return MakeError(ErrorCode::kInternal,
                   fmt::format("the value \"{}\" is not a {}", text, PgTypeName(type)));
}

// A time as the answers and PostgreSQL's text write it: "YYYY-MM-DD", or that and
// (T|' ')HH:MM:SS, then optional fractional digits and an optional offset (Z, ±HH, ±HH:MM).
struct WireTime {
  CivilTime civil;
  bool has_time = false;
  std::int64_t micros = 0;  // the fraction of the second
  std::string fraction;     // its digits as written (for the text forms)
  std::optional<int> offset_seconds;
};

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int Number(std::string_view digits) {
  int value = 0;
  for (const char c : digits) value = value * 10 + (c - '0');
  return value;
}

std::optional<int> ParseOffset(std::string_view text) {
  if (text == "Z") return 0;
  if (text.size() < 3 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  const int sign = text[0] == '-' ? -1 : 1;
  const std::string_view hours = text.substr(1, 2);
  std::string_view minutes = "00";
  if (text.size() == 6 && text[3] == ':') {
    minutes = text.substr(4, 2);
  } else if (text.size() != 3) {
    return std::nullopt;
  }
  if (!AllDigits(hours) || !AllDigits(minutes)) return std::nullopt;
  return sign * (Number(hours) * 3600 + Number(minutes) * 60);
}

std::optional<WireTime> ParseWireTime(std::string_view text) {
  WireTime time;
  if (text.size() == 10) {
    std::optional<TimeText> date = ParseTimeText(text);
    if (!date || date->precision != TimePrecision::kDay) return std::nullopt;
    time.civil = date->civil;
    return time;
  }
  if (text.size() < 19) return std::nullopt;
  std::string head(text.substr(0, 19));
  head[10] = 'T';
  std::optional<TimeText> parsed = ParseTimeText(head);
  if (!parsed || parsed->precision != TimePrecision::kSecond) return std::nullopt;
  time.civil = parsed->civil;
  time.has_time = true;
  std::string_view rest = text.substr(19);
  if (!rest.empty() && rest[0] == '.') {
    std::size_t digits = 1;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    time.fraction = std::string(rest.substr(1, digits - 1));
    if (time.fraction.empty() || time.fraction.size() > 9) return std::nullopt;
    std::string six = time.fraction.substr(0, std::min<std::size_t>(6, time.fraction.size()));
    six.resize(6, '0');
    time.micros = Number(six);
    rest = rest.substr(digits);
  }
  if (!rest.empty()) {
    time.offset_seconds = ParseOffset(rest);
    if (!time.offset_seconds) return std::nullopt;
  }
  return time;
}

std::string DateText(const CivilTime& civil) {
  return fmt::format("{:04}-{:02}-{:02}", civil.year, civil.month, civil.day);
}

std::string ClockText(const WireTime& time) {
  std::string text = fmt::format("{} {:02}:{:02}:{:02}", DateText(time.civil), time.civil.hour,
                                 time.civil.minute, time.civil.second);
  std::string fraction = time.fraction;
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) text += "." + fraction;
  return text;
}

void PutInt16(std::string& out, std::int16_t value) {
  const auto bits = static_cast<std::uint16_t>(value);
  out.push_back(static_cast<char>(bits >> 8));
  out.push_back(static_cast<char>(bits & 0xff));
}
void PutInt32(std::string& out, std::int32_t value) {
  const auto bits = static_cast<std::uint32_t>(value);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(bits >> shift));
}
void PutInt64(std::string& out, std::int64_t value) {
  const auto bits = static_cast<std::uint64_t>(value);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(bits >> shift));
}
std::uint64_t GetBigEndian(std::string_view bytes) {
  std::uint64_t value = 0;
  for (const char c : bytes) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  if (text.empty()) return std::nullopt;
  bool negative = false;
  std::size_t index = 0;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    index = 1;
  }
  if (index == text.size() || text.size() - index > 19) return std::nullopt;
  std::uint64_t magnitude = 0;
  for (; index < text.size(); ++index) {
    if (text[index] < '0' || text[index] > '9') return std::nullopt;
    magnitude = magnitude * 10 + static_cast<std::uint64_t>(text[index] - '0');
  }
  const std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
  if (magnitude > limit) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

std::optional<double> ParseDouble(std::string_view text) {
  const std::string copy(text);
  if (copy == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (copy == "Infinity") return std::numeric_limits<double>::infinity();
  if (copy == "-Infinity") return -std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

// PostgreSQL's shortest-exact float text (extra_float_digits 1, the default since 12).
std::string DoubleText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", value);
}

// The binary NUMERIC of a plain decimal: ndigits, weight, sign, dscale, then base-10000 digits.
std::string NumericBinary(const std::string& plain) {
  std::string_view text = plain;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative || (!text.empty() && text[0] == '+')) text.remove_prefix(1);
  const std::size_t point = text.find('.');
  std::string integer(text.substr(0, point));
  std::string fraction(point == std::string_view::npos ? "" : text.substr(point + 1));
  const auto dscale = static_cast<std::int16_t>(fraction.size());
  while (integer.size() % 4 != 0) integer.insert(integer.begin(), '0');
  while (fraction.size() % 4 != 0) fraction.push_back('0');
  std::vector<std::int16_t> digits;
  for (std::size_t i = 0; i < integer.size(); i += 4) {
    digits.push_back(static_cast<std::int16_t>(Number(std::string_view(integer).substr(i, 4))));
  }
  for (std::size_t i = 0; i < fraction.size(); i += 4) {
    digits.push_back(static_cast<std::int16_t>(Number(std::string_view(fraction).substr(i, 4))));
  }
  int weight = static_cast<int>(integer.size() / 4) - 1;
  std::size_t first = 0;
  while (first < digits.size() && digits[first] == 0) {
    ++first;
    --weight;
  }
  std::size_t last = digits.size();
  while (last > first && digits[last - 1] == 0) --last;
  std::string out;
  const auto count = static_cast<std::int16_t>(last - first);
  PutInt16(out, count);
  PutInt16(out, static_cast<std::int16_t>(count == 0 ? 0 : weight));
  PutInt16(out, static_cast<std::int16_t>(negative && count > 0 ? 0x4000 : 0));
  PutInt16(out, dscale);
  for (std::size_t i = first; i < last; ++i) PutInt16(out, digits[i]);
  return out;
}

std::string NumericText(std::string_view bytes) {
  const auto count = static_cast<std::int16_t>(GetBigEndian(bytes.substr(0, 2)));
  const auto weight = static_cast<std::int16_t>(GetBigEndian(bytes.substr(2, 2)));
  const auto sign = static_cast<std::uint16_t>(GetBigEndian(bytes.substr(4, 2)));
  const auto dscale = static_cast<std::int16_t>(GetBigEndian(bytes.substr(6, 2)));
  if (sign == 0xC000) return "NaN";
  if (sign == 0xD000) return "Infinity";
  if (sign == 0xF000) return "-Infinity";
  std::string integer;
  std::string fraction;
  for (int group = 0; group <= std::max<int>(weight, 0) || group < count; ++group) {
    const int value =
        group < count ? static_cast<std::int16_t>(GetBigEndian(bytes.substr(8 + 2 * group, 2))) : 0;
    const int position = weight - group;  // the power of 10000 of this group
    if (position >= 0) {
      integer += fmt::format("{:04}", value);
    } else {
      if (group >= count && static_cast<int>(fraction.size()) >= dscale) break;
      fraction += fmt::format("{:04}", value);
    }
  }
  // Groups between the point and a first digit group with a negative weight are zeros.
  if (weight < -1) fraction.insert(0, 4 * static_cast<std::size_t>(-1 - weight), '0');
  while (integer.size() > 1 && integer[0] == '0') integer.erase(0, 1);
  if (integer.empty()) integer = "0";
  fraction.resize(static_cast<std::size_t>(std::max<int>(dscale, 0)), '0');
  std::string text = (sign == 0x4000 ? "-" : "") + integer;
  if (!fraction.empty()) text += "." + fraction;
  return text;
}

}  // namespace

std::optional<std::string> PlainDecimal(std::string_view number) {
  std::string_view text = number;
  std::string sign;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    if (text[0] == '-') sign = "-";
    text.remove_prefix(1);
  }
  int exponent = 0;
  if (const std::size_t e = text.find_first_of("eE"); e != std::string_view::npos) {
    const std::optional<std::int64_t> value = ParseInteger(text.substr(e + 1));
    if (!value || *value > 400 || *value < -400) return std::nullopt;
    exponent = static_cast<int>(*value);
    text = text.substr(0, e);
  }
  const std::size_t point = text.find('.');
  std::string integer(text.substr(0, point));
  std::string fraction(point == std::string_view::npos ? "" : text.substr(point + 1));
  if ((integer.empty() && fraction.empty()) || (!integer.empty() && !AllDigits(integer)) ||
      (!fraction.empty() && !AllDigits(fraction))) {
    return std::nullopt;
  }
  for (; exponent > 0; --exponent) {
    integer.push_back(fraction.empty() ? '0' : fraction[0]);
    if (!fraction.empty()) fraction.erase(0, 1);
  }
  for (; exponent < 0; ++exponent) {
    fraction.insert(fraction.begin(), integer.empty() ? '0' : integer.back());
    if (!integer.empty()) integer.pop_back();
  }
  while (integer.size() > 1 && integer[0] == '0') integer.erase(0, 1);
  if (integer.empty()) integer = "0";
  return sign + integer + (fraction.empty() ? "" : "." + fraction);
}

bool HasBinaryForm(PgType type) {
  switch (type) {
    case PgType::kBool:
    case PgType::kInt2:
    case PgType::kInt4:
    case PgType::kInt8:
    case PgType::kOid:
    case PgType::kFloat4:
    case PgType::kFloat8:
    case PgType::kNumeric:
    case PgType::kDate:
    case PgType::kTimestamp:
    case PgType::kTimestamptz:
    case PgType::kText:
    case PgType::kVarchar:
    case PgType::kBpchar:
    case PgType::kName:
    case PgType::kChar:
    case PgType::kUnknown:
      return true;
    case PgType::kBytea:
    case PgType::kRegproc:
    case PgType::kTime:
    case PgType::kInterval:
    case PgType::kRegclass:
    case PgType::kTextArray:
    case PgType::kInt2Array:
    case PgType::kOidArray:
      return false;
  }
  return false;
}

Result<std::string> BinaryFromText(std::string_view text, PgType type) {
  std::string out;
  switch (type) {
    case PgType::kBool:
      if (text != "t" && text != "f" && text != "true" && text != "false")
        return NotOfType(text, type);
      out.push_back(text[0] == 't' ? 1 : 0);
      return out;
    case PgType::kInt2:
    case PgType::kInt4:
    case PgType::kInt8:
    case PgType::kOid: {
      const std::optional<std::int64_t> value = ParseInteger(text);
      if (!value) return NotOfType(text, type);
      if (type == PgType::kInt2) {
        PutInt16(out, static_cast<std::int16_t>(*value));
      } else if (type == PgType::kInt8) {
        PutInt64(out, *value);
      } else {
        PutInt32(out, static_cast<std::int32_t>(*value));
      }
      return out;
    }
    case PgType::kFloat4:
    case PgType::kFloat8: {
      const std::optional<double> value = ParseDouble(text);
      if (!value) return NotOfType(text, type);
      if (type == PgType::kFloat4) {
        PutInt32(out, std::bit_cast<std::int32_t>(static_cast<float>(*value)));
      } else {
        PutInt64(out, std::bit_cast<std::int64_t>(*value));
      }
      return out;
    }
    case PgType::kNumeric: {
      std::optional<std::string> plain = PlainDecimal(text);
      if (!plain) return NotOfType(text, type);
      return NumericBinary(*plain);
    }
    case PgType::kDate:
    case PgType::kTimestamp:
    case PgType::kTimestamptz: {
      std::optional<WireTime> time = ParseWireTime(text);
      if (!time) return NotOfType(text, type);
      const UnixSeconds local = ToUnixSeconds(time->civil);
      if (type == PgType::kDate) {
        PutInt32(out, static_cast<std::int32_t>(local / 86400 - kPgEpochDays));
        return out;
      }
      const UnixSeconds instant =
          type == PgType::kTimestamptz ? local - time->offset_seconds.value_or(0) : local;
      PutInt64(out, (instant - kPgEpochSeconds) * 1000000 + time->micros);
      return out;
    }
    case PgType::kBytea:
    case PgType::kName:
    case PgType::kRegproc:
    case PgType::kText:
    case PgType::kUnknown:
    case PgType::kVarchar:
    case PgType::kChar:
    case PgType::kBpchar:
    case PgType::kTime:
    case PgType::kInterval:
    case PgType::kRegclass:
    case PgType::kTextArray:
    case PgType::kInt2Array:
    case PgType::kOidArray:
      // Text types' binary form is their text; the others have no binary form here and are
      // declared in text by the catalog (a client asking binary for them gets the text).
      return std::string(text);
  }
  return std::string(text);
}

Result<std::string> TextFromBinary(std::string_view bytes, PgType type) {
  const auto expect = [&](std::size_t size) -> Status {
    if (bytes.size() == size) return OkStatus();
    return MakeError(ErrorCode::kProtocolViolation,
                     fmt::format("a binary {} parameter has {} bytes, not {}", PgTypeName(type),
                                 bytes.size(), size));
  };
  switch (type) {
    case PgType::kBool:
      STRATA_TRY(expect(1));
      return std::string(bytes[0] != 0 ? "t" : "f");
    case PgType::kInt2:
      STRATA_TRY(expect(2));
      return fmt::format("{}", static_cast<std::int16_t>(GetBigEndian(bytes)));
    case PgType::kInt4:
      STRATA_TRY(expect(4));
      return fmt::format("{}", static_cast<std::int32_t>(GetBigEndian(bytes)));
    case PgType::kOid:
      STRATA_TRY(expect(4));
      return fmt::format("{}", static_cast<std::uint32_t>(GetBigEndian(bytes)));
    case PgType::kInt8:
      STRATA_TRY(expect(8));
      return fmt::format("{}", static_cast<std::int64_t>(GetBigEndian(bytes)));
    case PgType::kFloat4:
      STRATA_TRY(expect(4));
      return DoubleText(std::bit_cast<float>(static_cast<std::uint32_t>(GetBigEndian(bytes))));
    case PgType::kFloat8:
      STRATA_TRY(expect(8));
      return DoubleText(std::bit_cast<double>(GetBigEndian(bytes)));
    case PgType::kNumeric: {
      if (bytes.size() < 8) STRATA_TRY(expect(8));
      const auto count = static_cast<std::int16_t>(GetBigEndian(bytes.substr(0, 2)));
      if (count < 0) STRATA_TRY(expect(8));
      STRATA_TRY(expect(8 + 2 * static_cast<std::size_t>(count)));
      return NumericText(bytes);
    }
    case PgType::kDate: {
      STRATA_TRY(expect(4));
      const auto days = static_cast<std::int32_t>(GetBigEndian(bytes));
      return DateText(ToCivil((static_cast<std::int64_t>(days) + kPgEpochDays) * 86400));
    }
    case PgType::kTimestamp:
    case PgType::kTimestamptz: {
      STRATA_TRY(expect(8));
      const auto micros = static_cast<std::int64_t>(GetBigEndian(bytes));
      const std::int64_t seconds = micros >= 0 ? micros / 1000000 : -((-micros + 999999) / 1000000);
      WireTime time;
      time.civil = ToCivil(seconds + kPgEpochSeconds);
      const std::int64_t fraction = micros - seconds * 1000000;
      if (fraction != 0) time.fraction = fmt::format("{:06}", fraction);
      return ClockText(time) + (type == PgType::kTimestamptz ? "+00" : "");
    }
    case PgType::kText:
    case PgType::kVarchar:
    case PgType::kBpchar:
    case PgType::kName:
    case PgType::kUnknown:
    case PgType::kChar:
      return std::string(bytes);
    case PgType::kBytea:
    case PgType::kRegproc:
    case PgType::kTime:
    case PgType::kInterval:
    case PgType::kRegclass:
    case PgType::kTextArray:
    case PgType::kInt2Array:
    case PgType::kOidArray:
      break;
  }
  return MakeError(
      ErrorCode::kSqlUnsupported,
      fmt::format("a binary parameter of type {} is not read by the SQL port", PgTypeName(type)),
      "send it in text format");
}

}  // namespace strata::serve::pg
