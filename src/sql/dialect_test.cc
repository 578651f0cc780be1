#include "sql/dialect.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::sql {
namespace {

constexpr Dialect kAllDialects[] = {Dialect::kDuckDb,     Dialect::kPostgres, Dialect::kSnowflake,
                                    Dialect::kDatabricks, Dialect::kBigQuery, Dialect::kRedshift,
                                    Dialect::kTrino};

TEST(DialectTest, NamesRoundTrip) {
  for (Dialect dialect : kAllDialects) {
    EXPECT_EQ(ParseDialect(DialectName(dialect)), dialect) << DialectName(dialect);
  }
  EXPECT_EQ(DialectName(Dialect::kDuckDb), "duckdb");
  EXPECT_EQ(DialectName(Dialect::kBigQuery), "bigquery");
  EXPECT_EQ(ParseDialect("postgres"), Dialect::kPostgres);
  EXPECT_EQ(ParseDialect("Postgres"), std::nullopt);
  EXPECT_EQ(ParseDialect("mysql"), std::nullopt);
  EXPECT_EQ(ParseDialect(""), std::nullopt);
}

TEST(DialectTest, QuoteIdentifierDoublesTheQuote) {
  EXPECT_EQ(QuoteIdentifier("orders", Dialect::kPostgres), "\"orders\"");
  EXPECT_EQ(QuoteIdentifier("a\"b", Dialect::kDuckDb), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdentifier("a`b", Dialect::kSnowflake), "\"a`b\"");
  EXPECT_EQ(QuoteIdentifier("a`b\\c", Dialect::kBigQuery), "`a\\`b\\\\c`");
  EXPECT_EQ(QuoteIdentifier("a`b", Dialect::kDatabricks), "`a``b`");
  EXPECT_EQ(QuoteIdentifier("a\"b", Dialect::kDatabricks), "`a\"b`");
  EXPECT_EQ(QuoteIdentifier("", Dialect::kTrino), "\"\"");
}

TEST(DialectTest, PlainIdentifiers) {
  EXPECT_TRUE(IsPlainIdentifier("stg_orders", Dialect::kPostgres));
  EXPECT_TRUE(IsPlainIdentifier("_x9", Dialect::kDuckDb));
  EXPECT_FALSE(IsPlainIdentifier("", Dialect::kDuckDb));
  EXPECT_FALSE(IsPlainIdentifier("9x", Dialect::kDuckDb));
  EXPECT_FALSE(IsPlainIdentifier("a-b", Dialect::kBigQuery));
  EXPECT_FALSE(IsPlainIdentifier("a b", Dialect::kTrino));
  EXPECT_FALSE(IsPlainIdentifier("caf\xc3\xa9", Dialect::kSnowflake));
  EXPECT_TRUE(IsPlainIdentifier(std::string(63, 'a'), Dialect::kPostgres));
  EXPECT_FALSE(IsPlainIdentifier(std::string(64, 'a'), Dialect::kPostgres));
  EXPECT_FALSE(IsPlainIdentifier(std::string(64, 'a'), Dialect::kRedshift));
  EXPECT_TRUE(IsPlainIdentifier(std::string(128, 'a'), Dialect::kSnowflake));
  EXPECT_FALSE(IsPlainIdentifier(std::string(129, 'a'), Dialect::kSnowflake));
}

TEST(DialectTest, QuoteStringPerDialect) {
  EXPECT_EQ(QuoteString("it's", Dialect::kPostgres), "'it''s'");
  EXPECT_EQ(QuoteString("a\\b", Dialect::kPostgres), "'a\\b'");
  EXPECT_EQ(QuoteString("a\\b", Dialect::kDuckDb), "'a\\b'");
  EXPECT_EQ(QuoteString("it's", Dialect::kTrino), "'it''s'");
  EXPECT_EQ(QuoteString("it's a\\b", Dialect::kSnowflake), "'it''s a\\\\b'");
  EXPECT_EQ(QuoteString("it's a\\b", Dialect::kRedshift), "'it''s a\\\\b'");
  EXPECT_EQ(QuoteString("it's a\\b", Dialect::kDatabricks), "'it\\'s a\\\\b'");
  EXPECT_EQ(QuoteString("it's a\\b", Dialect::kBigQuery), "'it\\'s a\\\\b'");
  EXPECT_EQ(QuoteString("a\nb\r", Dialect::kBigQuery), "'a\\nb\\r'");
  EXPECT_EQ(QuoteString("a\nb", Dialect::kPostgres), "'a\nb'");
  EXPECT_EQ(QuoteString("", Dialect::kDuckDb), "''");
}

}  // namespace
}  // namespace strata::sql
