// OutputText: one cell of the semantic answer as PostgreSQL's text output of the SQL column.
#include <cmath>
#include <string>

#include "serve/pg/translate.h"

namespace strata::serve::pg {
namespace {

// "2026-03-01T00:00:00+01:00" / "...Z": the local date, the local clock and the offset.
struct IsoParts {
  std::string date;    // "2026-03-01"
  std::string clock;   // "00:00:00"
  std::string offset;  // "+01:00", "Z"
};

std::optional<IsoParts> SplitIso(const std::string& text) {
  if (text.size() < 20 || text[10] != 'T' || text[4] != '-' || text[7] != '-' || text[13] != ':') {
    return std::nullopt;
  }
  for (const std::size_t at : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[at] < '0' || text[at] > '9') return std::nullopt;
  }
  return IsoParts{text.substr(0, 10), text.substr(11, 8), text.substr(19)};
}

// PostgreSQL writes an offset as "+01", "+05:30", "+00".
std::string PgOffset(const std::string& offset) {
  if (offset == "Z" || offset.size() < 3) return "+00";
  if (offset.size() == 6 && offset.substr(3) == ":00") return offset.substr(0, 3);
  return offset;
}

std::string TimeText(const SqlOutput& output, const std::string& text) {
  const bool time = output.form != SqlOutputForm::kValue || output.type == PgType::kTimestamptz;
  const std::optional<IsoParts> parts = time ? SplitIso(text) : std::nullopt;
  if (!parts) return text;
  const int month = std::stoi(parts->date.substr(5, 2));
  switch (output.form) {
    case SqlOutputForm::kValue:
      return parts->date + " " + parts->clock + PgOffset(parts->offset);
    case SqlOutputForm::kDate:
      return parts->date;
    case SqlOutputForm::kTimestamp:
      return parts->date + " " + parts->clock;
    case SqlOutputForm::kYear:
      return std::to_string(std::stoi(parts->date.substr(0, 4)));
    case SqlOutputForm::kQuarter:
      return std::to_string((month - 1) / 3 + 1);
    case SqlOutputForm::kMonth:
      return std::to_string(month);
  }
  return text;
}

bool IsIntegerType(PgType type) {
  return type == PgType::kInt2 || type == PgType::kInt4 || type == PgType::kInt8;
}

}  // namespace

std::optional<std::string> OutputText(const SqlOutput& output,
                                      const nlohmann::ordered_json& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_boolean()) return std::string(value.get<bool>() ? "t" : "f");
  if (value.is_number_float() && IsIntegerType(output.type)) {
    const double number = value.get<double>();
    if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 9.2e18) {
      return std::to_string(static_cast<long long>(number));
    }
  }
  if (value.is_number()) return value.dump();
  if (value.is_string()) return TimeText(output, value.get<std::string>());
  return value.dump();
}

}  // namespace strata::serve::pg
