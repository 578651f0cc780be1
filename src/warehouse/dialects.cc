#include "warehouse/dialects.h"

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

namespace strata::warehouse {
namespace {

using sql::Dialect;

constexpr std::array<DialectCapabilities, 7> kCapabilities = {{
    // dialect             connector typed_literals catalog_schema session_transactions
    {Dialect::kDuckDb, true, false, false, true},
    {Dialect::kPostgres, true, false, false, true},
    {Dialect::kSnowflake, false, false, true, true},
    {Dialect::kDatabricks, false, false, true, false},
    {Dialect::kBigQuery, false, true, true, false},
    {Dialect::kRedshift, false, false, false, true},
    {Dialect::kTrino, false, true, true, false},
}};

constexpr bool InEnumOrder() {
  for (std::size_t i = 0; i < kCapabilities.size(); ++i) {
    if (static_cast<std::size_t>(kCapabilities[i].dialect) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "one row per sql::Dialect, in the enum's order");
static_assert(static_cast<std::size_t>(Dialect::kTrino) + 1 == kCapabilities.size(),
              "a dialect was added to sql::Dialect: give it a row here");

}  // namespace

std::span<const DialectCapabilities> AllDialectCapabilities() { return kCapabilities; }

const DialectCapabilities& CapabilitiesOf(sql::Dialect dialect) {
  return kCapabilities[static_cast<std::size_t>(dialect)];
}

std::string ConnectorDialectNames() {
  std::vector<std::string_view> names;
  for (const DialectCapabilities& row : kCapabilities) {
    if (row.connector) names.push_back(sql::DialectName(row.dialect));
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace strata::warehouse
