// Values of the SQL (literals, typed literals, casts of literals, $n and the to_timestamp /
// to_date calls Superset sends) as filter values in their JSON form: never SQL text.
#include <fmt/format.h>

#include <charconv>

#include "base/ascii.h"
#include "base/time.h"
#include "semantic/literal.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg::internal {
namespace {

using semantic::DimensionType;

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

std::string TypeWords(const sql::DataType& type) {
  std::string text;
  for (const sql::Identifier& word : type.words) {
    text += (text.empty() ? "" : " ") + AsciiLowered(word.name);
  }
  return text;
}

bool IsTimeType(const std::string& type) {
  return type == "date" || type == "timestamp" || type == "timestamptz" ||
         type == "timestamp with time zone" || type == "timestamp without time zone";
}

PgType ParameterType(const Term& term) {
  switch (term.value_type) {
    case DimensionType::kString:
      return PgType::kText;
    case DimensionType::kBoolean:
      return PgType::kBool;
    case DimensionType::kTime:
      return PgType::kTimestamptz;
    case DimensionType::kNumber:
      return term.type == PgType::kInt8 ? PgType::kInt8 : PgType::kNumeric;
  }
  return PgType::kText;
}

Result<Json> NumberJson(std::string_view text) {
  if (!semantic::IsNumberText(text)) {
    return Invalid(fmt::format("invalid input syntax for type numeric: \"{}\"", text));
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception&) {
    return Invalid(fmt::format("the number {} is out of range", text));
  }
}

std::optional<bool> BooleanText(std::string_view text) {
  const std::string lower = AsciiLowered(text);
  for (const char* yes : {"t", "true", "y", "yes", "on", "1"}) {
    if (lower == yes) return true;
  }
  for (const char* no : {"f", "false", "n", "no", "off", "0"}) {
    if (lower == no) return false;
  }
  return std::nullopt;
}

// A string (a literal's value or a bound parameter's text) compared with `term`.
Result<Json> FromText(const std::string& text, const Term& term) {
  switch (term.value_type) {
    case DimensionType::kString:
      return Json(text);
    case DimensionType::kNumber:
      return NumberJson(text);
    case DimensionType::kBoolean:
      if (const std::optional<bool> value = BooleanText(text)) return Json(*value);
      return Invalid(fmt::format("invalid input syntax for type boolean: \"{}\"", text));
    case DimensionType::kTime: {
      STRATA_ASSIGN_OR_RETURN(std::string time, TimeValueText(text));
      return Json(std::move(time));
    }
  }
  return Invalid("unknown value type");
}

Error Mismatch(const Term& term, std::string_view what) {
  return Invalid(fmt::format("{} cannot be compared with \"{}\", a {} member", what, term.member,
                             semantic::DimensionTypeName(term.value_type)));
}

Result<Json> ParameterValue(const sql::Parameter& parameter, const Term& term, Context& context) {
  std::size_t n = 0;
  const std::string_view text = parameter.text;
  const auto [end, error] = std::from_chars(text.data() + std::min<std::size_t>(1, text.size()),
                                            text.data() + text.size(), n);
  if (text.size() < 2 || text[0] != '$' || error != std::errc() ||
      end != text.data() + text.size() || n == 0) {
    return Unsupported(fmt::format("the parameter {}", text), "write $1, $2, ...");
  }
  context.NoteParameter(n, ParameterType(term));
  if (!context.options->parameters) return Json(nullptr);
  const auto& values = *context.options->parameters;
  if (n > values.size()) return Invalid(fmt::format("there is no parameter ${}", n));
  if (!values[n - 1]) {
    return Unsupported(fmt::format("a comparison with NULL (${})", n), "write col IS NULL");
  }
  return FromText(*values[n - 1], term);
}

Result<Json> LiteralValue(const sql::Literal& literal, const Term& term) {
  switch (literal.literal_kind) {
    case sql::LiteralKind::kString: {
      STRATA_ASSIGN_OR_RETURN(const std::string text, StringLiteralValue(literal.text));
      return FromText(text, term);
    }
    case sql::LiteralKind::kNumber:
      if (term.value_type != DimensionType::kNumber) return Mismatch(term, literal.text);
      return NumberJson(literal.text);
    case sql::LiteralKind::kTrue:
    case sql::LiteralKind::kFalse:
      if (term.value_type != DimensionType::kBoolean) return Mismatch(term, literal.text);
      return Json(literal.literal_kind == sql::LiteralKind::kTrue);
    case sql::LiteralKind::kNull:
      return Unsupported("a comparison with NULL (never true)", "write col IS NULL");
  }
  return Invalid("unknown literal");
}

// to_timestamp('2026-01-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US') and
// to_date('2026-01-01', 'YYYY-MM-DD'), as Superset writes them.
Result<Json> ToTimeCall(const sql::FunctionCall& call, const Term& term) {
  const std::string name = AsciiLowered(call.name.back().name);
  const auto string_arg = [&](std::size_t i) -> Result<std::string> {
    const sql::Expr& arg = Unnest(*call.args[i]);
    if (arg.kind != sql::ExprKind::kLiteral ||
        arg.As<sql::Literal>().literal_kind != sql::LiteralKind::kString) {
      return Unsupported(fmt::format("{}() of something else than string literals", name));
    }
    return StringLiteralValue(arg.As<sql::Literal>().text);
  };
  if (call.args.size() != 2 || !term.IsTime()) {
    return Unsupported(fmt::format("the function {}() as a value", name),
                       "compare with a literal: col >= '2026-01-01'");
  }
  STRATA_ASSIGN_OR_RETURN(const std::string text, string_arg(0));
  STRATA_ASSIGN_OR_RETURN(const std::string format, string_arg(1));
  const bool known = name == "to_date"
                         ? format == "YYYY-MM-DD"
                         : format == "YYYY-MM-DD HH24:MI:SS.US" ||
                               format == "YYYY-MM-DD HH24:MI:SS" || format == "YYYY-MM-DD";
  if (!known) {
    return Unsupported(fmt::format("{}() with the format '{}'", name, format),
                       "the ISO formats 'YYYY-MM-DD' and 'YYYY-MM-DD HH24:MI:SS[.US]' are read");
  }
  STRATA_ASSIGN_OR_RETURN(std::string time, TimeValueText(text));
  if (name == "to_date") time = time.substr(0, 10);
  return Json(std::move(time));
}

// "HH:MM[:SS]" at `text`; the number of bytes read, 0 when it is not one.
std::size_t ReadClock(std::string_view text, std::string& out) {
  const auto digits = [&](std::size_t at) {
    return at + 1 < text.size() && IsAsciiDigit(text[at]) && IsAsciiDigit(text[at + 1]);
  };
  if (!digits(0) || text.size() < 5 || text[2] != ':' || !digits(3)) return 0;
  out = std::string(text.substr(0, 5));
  if (text.size() >= 8 && text[5] == ':' && digits(6)) {
    out += std::string(text.substr(5, 3));
    return 8;
  }
  out += ":00";
  return 5;
}

// "Z", "+05", "+0530", "+05:30", "-04:00" at `text` as seconds east of UTC.
std::optional<int> ReadOffset(std::string_view text) {
  if (text == "Z" || text == "z" || text == "UTC") return 0;
  if (text.size() < 3 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  const auto two = [&](std::size_t at) -> std::optional<int> {
    if (at + 1 >= text.size() || !IsAsciiDigit(text[at]) || !IsAsciiDigit(text[at + 1])) {
      return std::nullopt;
    }
    return (text[at] - '0') * 10 + (text[at + 1] - '0');
  };
  const std::optional<int> hours = two(1);
  std::optional<int> minutes = 0;
  if (text.size() == 5) {
    minutes = two(3);
  } else if (text.size() == 6 && text[3] == ':') {
    minutes = two(4);
  } else if (text.size() != 3) {
    return std::nullopt;
  }
  if (!hours || !minutes || *hours > 15 || *minutes > 59) return std::nullopt;
  const int seconds = *hours * 3600 + *minutes * 60;
  return text[0] == '-' ? -seconds : seconds;
}

}  // namespace

Result<std::string> StringLiteralValue(std::string_view token) {
  if (token.size() >= 2 && token.front() == '\'' && token.back() == '\'') {
    std::string out;
    for (std::size_t i = 1; i + 1 < token.size(); ++i) {
      out += token[i];
      if (token[i] == '\'') ++i;  // '' is one quote
    }
    return out;
  }
  if (token.size() >= 2 && token.front() == '$') {
    const std::size_t tag_end = token.find('$', 1);
    if (tag_end != std::string_view::npos && token.size() >= 2 * (tag_end + 1)) {
      return std::string(token.substr(tag_end + 1, token.size() - 2 * (tag_end + 1)));
    }
  }
  return Unsupported(fmt::format("the string literal {}", token),
                     "write a standard string literal: 'text' (quotes doubled inside)");
}

Result<std::string> TimeValueText(std::string_view text) {
  const auto invalid = [&]() {
    return Invalid(fmt::format("invalid input syntax for a date or timestamp: \"{}\"", text),
                   "write 2026-01-01, 2026-01-01 10:00:00 or 2026-01-01 10:00:00+00");
  };
  std::string_view rest = text;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  if (rest.size() < 10) return invalid();
  const std::string date(rest.substr(0, 10));
  const std::optional<TimeText> parsed_date = ParseTimeText(date);
  if (!parsed_date || parsed_date->precision != TimePrecision::kDay) return invalid();
  rest.remove_prefix(10);
  if (rest.empty()) return date;
  if (rest.front() != ' ' && rest.front() != 'T') return invalid();
  rest.remove_prefix(1);
  std::string clock;
  const std::size_t clock_size = ReadClock(rest, clock);
  if (clock_size == 0) return invalid();
  rest.remove_prefix(clock_size);
  if (!rest.empty() && rest.front() == '.') {
    std::size_t digits = 1;
    while (digits < rest.size() && IsAsciiDigit(rest[digits])) {
      if (rest[digits] != '0') {
        return Unsupported(fmt::format("the time {} with a fraction of a second", text),
                           "Strata's times are whole seconds: write 10:00:00");
      }
      ++digits;
    }
    rest.remove_prefix(digits);
  }
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const std::optional<TimeText> parsed = ParseTimeText(date + " " + clock);
  if (!parsed) return invalid();
  if (rest.empty()) return date + " " + clock;
  const std::optional<int> offset = ReadOffset(rest);
  if (!offset) return invalid();
  return FormatIso8601(ToUnixSeconds(parsed->civil) - *offset);
}

Result<Json> FilterValue(const sql::Expr& expr, const Term& term, Context& context) {
  const sql::Expr& value = Unnest(expr);
  if (value.kind == sql::ExprKind::kParameter) {
    return ParameterValue(value.As<sql::Parameter>(), term, context);
  }
  if (value.kind == sql::ExprKind::kLiteral) return LiteralValue(value.As<sql::Literal>(), term);
  if (value.kind == sql::ExprKind::kUnary) {
    const auto& unary = value.As<sql::Unary>();
    const sql::Expr& operand = Unnest(*unary.operand);
    if (unary.op == sql::UnaryOp::kMinus && operand.kind == sql::ExprKind::kLiteral &&
        operand.As<sql::Literal>().literal_kind == sql::LiteralKind::kNumber) {
      if (term.value_type != DimensionType::kNumber) return Mismatch(term, "a number");
      return NumberJson("-" + std::string(operand.As<sql::Literal>().text));
    }
  }
  if (value.kind == sql::ExprKind::kTypedLiteral) {
    const auto& typed = value.As<sql::TypedLiteral>();
    const std::string type = TypeWords(typed.type);
    if (!IsTimeType(type)) return Unsupported(fmt::format("a {} literal", type));
    if (!term.IsTime()) return Mismatch(term, "a " + type);
    STRATA_ASSIGN_OR_RETURN(const std::string text, StringLiteralValue(typed.text));
    STRATA_ASSIGN_OR_RETURN(std::string time, TimeValueText(text));
    if (type == "date" && time.size() != 10)
      return Invalid(fmt::format("\"{}\" is not a date", text));
    return Json(std::move(time));
  }
  if (value.kind == sql::ExprKind::kCast) {
    // A cast of a value to the member's kind of type: '2026-01-01'::date, CAST(5 AS numeric).
    const auto& cast = value.As<sql::Cast>();
    const std::string type = TypeWords(cast.type);
    const bool fits = term.IsTime() ? IsTimeType(type)
                      : term.value_type == DimensionType::kString
                          ? type == "text" || type == "varchar" || type == "character varying"
                      : term.value_type == DimensionType::kBoolean
                          ? type == "boolean" || type == "bool"
                          : type == "numeric" || type == "decimal" || type == "integer" ||
                                type == "int" || type == "bigint" || type == "int4" ||
                                type == "int8" || type == "double precision" || type == "float8" ||
                                type == "real";
    if (!fits) return Unsupported(fmt::format("a value cast to {}", type));
    STRATA_ASSIGN_OR_RETURN(Json inner, FilterValue(*cast.value, term, context));
    if (type == "date" && inner.is_string() && inner.get<std::string>().size() != 10) {
      return Unsupported("a timestamp cast to date as a value", "write the date: '2026-01-01'");
    }
    return inner;
  }
  if (value.kind == sql::ExprKind::kFunction) {
    const std::string name = AsciiLowered(value.As<sql::FunctionCall>().name.back().name);
    if (name == "to_timestamp" || name == "to_date") {
      return ToTimeCall(value.As<sql::FunctionCall>(), term);
    }
  }
  return Unsupported(fmt::format("{} as a value", ConstructName(value)),
                     "compare a column with a literal or a parameter: status = 'paid', "
                     "order_date >= '2026-01-01', revenue > $1");
}

Result<std::optional<Json>> CountValue(const sql::Expr& expr, std::string_view clause,
                                       Context& context) {
  const sql::Expr& value = Unnest(expr);
  const auto count = [&](std::string_view text) -> Result<std::optional<Json>> {
    std::int64_t n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (error != std::errc() || end != text.data() + text.size() || n < 0) {
      return Invalid(fmt::format("{} must be an integer >= 0, not {}", clause, text));
    }
    return std::optional<Json>(Json(n));
  };
  if (value.kind == sql::ExprKind::kLiteral) {
    const auto& literal = value.As<sql::Literal>();
    if (literal.literal_kind == sql::LiteralKind::kNull) return std::optional<Json>();
    if (literal.literal_kind == sql::LiteralKind::kNumber) return count(literal.text);
  }
  if (value.kind == sql::ExprKind::kParameter) {
    const std::string_view text = value.As<sql::Parameter>().text;
    std::size_t n = 0;
    std::from_chars(text.data() + std::min<std::size_t>(1, text.size()), text.data() + text.size(),
                    n);
    if (context.options->parameters && n >= 1 && n <= context.options->parameters->size() &&
        !(*context.options->parameters)[n - 1]) {
      context.NoteParameter(n, PgType::kInt8);
      return std::optional<Json>();  // LIMIT NULL: no limit
    }
    Term number;
    number.type = PgType::kInt8;
    number.value_type = DimensionType::kNumber;
    STRATA_ASSIGN_OR_RETURN(const Json bound,
                            ParameterValue(value.As<sql::Parameter>(), number, context));
    if (bound.is_null()) return std::optional<Json>(Json(nullptr));
    return count(bound.dump());
  }
  return Unsupported(fmt::format("{} {}", clause, ConstructName(value)),
                     fmt::format("write {} 100 or {} $1", clause, clause));
}

}  // namespace strata::serve::pg::internal
