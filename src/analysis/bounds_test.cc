#include "analysis/bounds.h"

#include <gtest/gtest.h>

#include "sql/parser.h"

namespace strata::analysis {
namespace {

TEST(BoundsTest, SeedExampleIsBounded) {
  const BoundsReport report = AnalyzeModelSql(
      "SELECT DATE_TRUNC('day', order_at) AS order_date, COUNT(*) FROM stg_orders\n"
      "WHERE order_at >= @start_date AND order_at < @end_date GROUP BY 1",
      sql::Dialect::kDuckDb);
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(report.warnings.empty());
}

TEST(BoundsTest, MissingBoundPointsAtTheUnboundedSourceWithACaret) {
  const BoundsReport report = AnalyzeModelSql(
      "SELECT * FROM a WHERE ts >= @start_date AND ts < @end_date\n"
      "UNION ALL\n"
      "SELECT * FROM b WHERE ts >= @start_date",
      sql::Dialect::kDuckDb);
  EXPECT_TRUE(report.start.bounded);
  EXPECT_FALSE(report.start.diagnostic.has_value());
  ASSERT_FALSE(report.end.bounded);
  ASSERT_TRUE(report.end.diagnostic.has_value());
  const BoundsDiagnostic& diagnostic = *report.end.diagnostic;
  EXPECT_EQ(diagnostic.code, "E024");
  EXPECT_EQ(diagnostic.line, 3);
  EXPECT_EQ(diagnostic.column, 15);
  EXPECT_NE(diagnostic.message.find("@end_date"), std::string::npos);
  EXPECT_NE(diagnostic.message.find("UNION branch 2 of 2"), std::string::npos);
  EXPECT_EQ(diagnostic.caret, "SELECT * FROM b WHERE ts >= @start_date\n              ^");
}

TEST(BoundsTest, InclusiveBetweenWarns) {
  const BoundsReport report = AnalyzeModelSql(
      "SELECT * FROM t WHERE ts BETWEEN @start_date AND @end_date", sql::Dialect::kDuckDb);
  EXPECT_TRUE(report.ok());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0].code, "W024");
  EXPECT_EQ(report.warnings[0].column, 23);
}

TEST(BoundsTest, InclusiveEndComparisonWarns) {
  const BoundsReport report = AnalyzeModelSql(
      "SELECT * FROM t WHERE ts >= @start_date AND ts <= @end_date", sql::Dialect::kDuckDb);
  EXPECT_TRUE(report.ok());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0].code, "W024");
  EXPECT_EQ(report.warnings[0].column, 45);
  // Mirrored, it is the same comparison; a strict end and `<=` on the start say nothing.
  EXPECT_EQ(AnalyzeModelSql("SELECT * FROM t WHERE ts >= @start_date AND @end_date >= ts",
                            sql::Dialect::kDuckDb)
                .warnings.size(),
            1u);
  EXPECT_TRUE(AnalyzeModelSql("SELECT * FROM t WHERE ts >= @start_date AND ts < @end_date",
                              sql::Dialect::kDuckDb)
                  .warnings.empty());
}

TEST(BoundsTest, ScriptsOfSeveralStatementsFailClosed) {
  Result<std::vector<sql::StatementPtr>> script =
      sql::ParseScript("SELECT * FROM t WHERE ts >= @start_date AND ts < @end_date; SELECT 1",
                       sql::Dialect::kDuckDb);
  ASSERT_TRUE(script.ok());
  const BoundsReport report = AnalyzeBounds(*script);
  EXPECT_FALSE(report.start.bounded);
  EXPECT_FALSE(report.end.bounded);
  EXPECT_EQ(report.start.diagnostic->column, 61);
  EXPECT_TRUE(AnalyzeBounds(std::vector<sql::StatementPtr>{}).start.diagnostic.has_value());
}

TEST(BoundsTest, ParseErrorsFailClosedWithTheParserPosition) {
  const BoundsReport report = AnalyzeModelSql("SELECT * FROM", sql::Dialect::kDuckDb);
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.start.diagnostic->line, 1);
  EXPECT_EQ(report.start.diagnostic->column, 14);
  EXPECT_FALSE(report.end.diagnostic->caret.empty());
}

TEST(BoundsTest, AnalyzesAParsedStatement) {
  Result<sql::StatementPtr> statement = sql::ParseStatement(
      "WITH o AS (SELECT * FROM t WHERE ts >= @start_date AND ts < @end_date) SELECT * FROM O",
      sql::Dialect::kPostgres);
  ASSERT_TRUE(statement.ok());
  EXPECT_TRUE(AnalyzeBounds(**statement).ok());
}

}  // namespace
}  // namespace strata::analysis
