#include "sql/parser.h"

#include <gtest/gtest.h>

#include "sql/printer.h"

namespace strata::sql {
namespace {

std::string RoundTrip(std::string_view sql, Dialect dialect = Dialect::kDuckDb) {
  Result<StatementPtr> statement = ParseStatement(sql, dialect);
  if (!statement.ok()) return "ERROR: " + statement.error().message;
  return Print(**statement, dialect);
}

TEST(ParserTest, ParsesSimpleSelect) {
  EXPECT_EQ(RoundTrip("select a, b as c from t where x >= 1"),
            "SELECT a, b AS c FROM t WHERE x >= 1");
}

}  // namespace
}  // namespace strata::sql
