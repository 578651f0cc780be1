#include "sql/placeholders.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::sql {
namespace {

using Values = std::map<std::string, std::string, std::less<>>;

const Values kWindow = {{"start_date", "'2026-04-07 00:00:00'"},
                        {"end_date", "'2026-04-08 00:00:00'"}};

std::string Substitute(std::string_view sql, Dialect dialect = Dialect::kDuckDb,
                       const Values& values = kWindow) {
  Result<std::string> out = SubstitutePlaceholders(sql, dialect, values);
  EXPECT_TRUE(out.ok()) << out.error().ToString();
  return out.ok() ? *out : "<error>";
}

TEST(PlaceholdersTest, ReplacesBothPlaceholdersEveryTime) {
  EXPECT_EQ(Substitute("select * from t where ts >= @start_date and ts < @end_date "
                       "and day <> @start_date"),
            "select * from t where ts >= '2026-04-07 00:00:00' and ts < '2026-04-08 00:00:00' "
            "and day <> '2026-04-07 00:00:00'");
}

TEST(PlaceholdersTest, ReplacesGluedToOperators) {
  EXPECT_EQ(Substitute("x>=@start_date AND(x<@end_date)"),
            "x>='2026-04-07 00:00:00' AND(x<'2026-04-08 00:00:00')");
}

TEST(PlaceholdersTest, ReplacesTheExactQuotedForm) {
  EXPECT_EQ(Substitute("where ts >= '@start_date'"), "where ts >= '2026-04-07 00:00:00'");
  EXPECT_EQ(Substitute("where ts >= '@start_date'", Dialect::kBigQuery),
            "where ts >= '2026-04-07 00:00:00'");
}

TEST(PlaceholdersTest, TheQuotedFormMayHaveItsOwnValue) {
  const Values typed = {{"start_date", "TIMESTAMP '2026-04-07 00:00:00'"}};
  Result<std::string> out =
      SubstitutePlaceholders("ts >= @start_date AND d = TIMESTAMP '@start_date' AND @end_date",
                             Dialect::kTrino, typed, kWindow);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  // The quoted form takes the quoted value; a name only among the quoted values is never used
  // for the bare form (@end_date stays).
  EXPECT_EQ(*out,
            "ts >= TIMESTAMP '2026-04-07 00:00:00' AND d = TIMESTAMP '2026-04-07 00:00:00' AND "
            "@end_date");
}

TEST(PlaceholdersTest, LeavesCommentsAndOtherStringsAlone) {
  const std::vector<std::string> untouched = {
      "-- @start_date\nselect 1",
      "/* from @start_date to @end_date */ select 1",
      "select '@start_date x'",
      "select 'x @start_date'",
      "select '@start_date''s'",
      "select E'@start_date'",
      "select $$ @start_date $$",
      "select $f$ '@start_date' $f$",
      "select @start_date_x, @start_datex, @Start_Date",
      "select \"@start_date\"",
      "select @@start_date",
      "select :start_date, $start_date",
      "select @other",
  };
  for (const std::string& sql : untouched) EXPECT_EQ(Substitute(sql), sql);
}

TEST(PlaceholdersTest, DoubleQuotedFormIsAStringNotAPlaceholderInBigQuery) {
  EXPECT_EQ(Substitute("select \"@start_date\"", Dialect::kBigQuery), "select \"@start_date\"");
  EXPECT_EQ(Substitute("select '''@start_date'''", Dialect::kBigQuery), "select '''@start_date'''");
}

TEST(PlaceholdersTest, DollarInIdentifiersKeepsTheLongerName) {
  // In postgres a$ continues a name, so @start_date$x is a different placeholder.
  EXPECT_EQ(Substitute("select @start_date$x", Dialect::kPostgres), "select @start_date$x");
  // In bigquery '$' is not a name character: the placeholder ends before it.
  EXPECT_EQ(Substitute("select @start_date$x", Dialect::kBigQuery),
            "select '2026-04-07 00:00:00'$x");
}

TEST(PlaceholdersTest, KeepsBytesAroundAndIsIdempotentWithoutValues) {
  const std::string sql = "select\r\n\t@start_date  -- end\n";
  EXPECT_EQ(Substitute(sql, Dialect::kSnowflake, {}), sql);
  EXPECT_EQ(Substitute(sql, Dialect::kSnowflake), "select\r\n\t'2026-04-07 00:00:00'  -- end\n");
}

TEST(PlaceholdersTest, LexErrorsPropagate) {
  Result<std::string> out =
      SubstitutePlaceholders("select '@start_date", Dialect::kDuckDb, kWindow);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::kSqlLex);
  Result<std::vector<PlaceholderUse>> uses = FindPlaceholders("/* @x", Dialect::kDuckDb);
  ASSERT_FALSE(uses.ok());
  EXPECT_EQ(uses.error().code, ErrorCode::kSqlLex);
}

TEST(PlaceholdersTest, FindsDistinctNamesInFirstUseOrder) {
  Result<std::vector<PlaceholderUse>> uses = FindPlaceholders(
      "-- @ignored\nselect @end_date,\n  '@start_date', @end_date, @start_date_x, '@no space'",
      Dialect::kPostgres);
  ASSERT_TRUE(uses.ok()) << uses.error().ToString();
  ASSERT_EQ(uses->size(), 3u);
  EXPECT_EQ((*uses)[0].name, "end_date");
  EXPECT_EQ((*uses)[0].line, 2);
  EXPECT_EQ((*uses)[0].column, 8);
  EXPECT_EQ((*uses)[1].name, "start_date");
  EXPECT_EQ((*uses)[1].line, 3);
  EXPECT_EQ((*uses)[1].column, 3);
  EXPECT_EQ((*uses)[2].name, "start_date_x");
  EXPECT_EQ((*uses)[2].line, 3);
  EXPECT_EQ((*uses)[2].column, 29);
}

TEST(PlaceholdersTest, FindsNothingInCommentsAndStrings) {
  Result<std::vector<PlaceholderUse>> uses =
      FindPlaceholders("select '@a b', $$@c$$ /* @d */ -- @e", Dialect::kSnowflake);
  ASSERT_TRUE(uses.ok());
  EXPECT_TRUE(uses->empty());
}

}  // namespace
}  // namespace strata::sql
