#include "sql/printer.h"

#include <gtest/gtest.h>

#include "sql/parser.h"

namespace strata::sql {
namespace {

std::string Convert(std::string_view sql, Dialect from, Dialect to) {
  Result<StatementPtr> statement = ParseStatement(sql, from);
  if (!statement.ok()) return "ERROR: " + statement.error().message;
  return Print(**statement, to);
}

TEST(PrinterTest, QuotesIdentifiersForTheTargetDialect) {
  EXPECT_EQ(Convert("SELECT \"Order Id\", plain FROM \"s\".\"t\"", Dialect::kPostgres,
                    Dialect::kBigQuery),
            "SELECT `Order Id`, plain FROM `s`.`t`");
  EXPECT_EQ(Convert("SELECT `a b` FROM t", Dialect::kDatabricks, Dialect::kSnowflake),
            "SELECT \"a b\" FROM t");
}

TEST(PrinterTest, RewritesStringsForTheTargetDialect) {
  EXPECT_EQ(Convert("SELECT \"it's\"", Dialect::kBigQuery, Dialect::kPostgres), "SELECT 'it''s'");
  EXPECT_EQ(Convert("SELECT 'a''b'", Dialect::kDuckDb, Dialect::kDatabricks), "SELECT 'a\\'b'");
}

TEST(PrinterTest, FollowsTargetSpellings) {
  EXPECT_EQ(Convert("SELECT a::INT FROM t", Dialect::kDuckDb, Dialect::kTrino),
            "SELECT CAST(a AS INT) FROM t");
  EXPECT_EQ(Convert("SELECT * EXCLUDE (a) FROM t", Dialect::kDuckDb, Dialect::kBigQuery),
            "SELECT * EXCEPT (a) FROM t");
  EXPECT_EQ(Convert("SELECT 1 UNION SELECT 2", Dialect::kDuckDb, Dialect::kBigQuery),
            "SELECT 1 UNION DISTINCT SELECT 2");
}

TEST(PrinterTest, NestedMinusSignsNeverBecomeAComment) {
  // "- -1" printed as "--1" would start a line comment and swallow the rest of the line.
  for (Dialect dialect : {Dialect::kDuckDb, Dialect::kPostgres, Dialect::kSnowflake}) {
    const std::string printed =
        Convert("SELECT a FROM t WHERE y = - -1 AND z = - - -x", dialect, dialect);
    EXPECT_EQ(printed, "SELECT a FROM t WHERE y = - -1 AND z = - - -x");
    EXPECT_EQ(Convert(printed, dialect, dialect), printed);
  }
}

TEST(PrinterTest, ParenthesizesLooserOperandsOfProgrammaticTrees) {
  Result<StatementPtr> statement = ParseStatement("SELECT a - b", Dialect::kDuckDb);
  ASSERT_TRUE(statement.ok());
  auto& item = const_cast<ExprPtr&>(statement.value()->query->body->As<Select>().items[0].expr);
  auto& minus = static_cast<Binary&>(*item);
  auto sum = std::make_unique<Binary>(Span{});
  sum->op = BinaryOp::kSubtract;
  sum->left = std::move(minus.right);
  auto column = std::make_unique<ColumnRef>(Span{});
  column->parts.push_back(Identifier{"c", false, {}});
  sum->right = std::move(column);
  minus.right = std::move(sum);
  EXPECT_EQ(Print(**statement, Dialect::kDuckDb), "SELECT a - (b - c)");
}

}  // namespace
}  // namespace strata::sql
