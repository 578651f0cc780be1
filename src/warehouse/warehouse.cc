#include "warehouse/warehouse.h"

#include <fmt/format.h>

namespace strata::warehouse {

std::string ValueToString(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "NULL"; }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{}, value);
}

std::string TableName::ToString() const {
  std::string out;
  for (const std::string* part : {&catalog, &schema, &table}) {
    if (part->empty()) continue;
    if (!out.empty()) out += ".";
    out += *part;
  }
  return out;
}

}  // namespace strata::warehouse
