#include "warehouse/emitter.h"

#include <gtest/gtest.h>

namespace strata::warehouse {
namespace {

Window DayWindow(std::string_view key) {
  return PartitionKey::Parse(key, Grain::kDay)->window();
}

TEST(EmitterTest, DuckDbOverwriteHasTheSeedShape) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  auto statements = emitter.Overwrite({"warehouse", "marts", "fct_daily_orders"}, "order_date",
                                      DayWindow("2026-04-07"), "SELECT 1");
  ASSERT_TRUE(statements.ok());
  EXPECT_EQ(statements->begin, "BEGIN TRANSACTION");
  EXPECT_EQ(statements->delete_window,
            "DELETE FROM \"marts\".\"fct_daily_orders\"\n"
            "WHERE \"order_date\" >= '2026-04-07 00:00:00' AND \"order_date\" < '2026-04-08 00:00:00'");
  EXPECT_EQ(statements->insert, "INSERT INTO \"marts\".\"fct_daily_orders\" BY NAME\nSELECT 1");
  EXPECT_EQ(statements->commit, "COMMIT");
}

TEST(EmitterTest, QuotesHostileIdentifiers) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  EXPECT_EQ(emitter.QualifiedName({"", "my\"schema", "t; DROP TABLE x"}),
            "\"my\"\"schema\".\"t; DROP TABLE x\"");
}

TEST(EmitterTest, BootstrapNeverReplaces) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  auto statements = emitter.Bootstrap({"", "marts", "fct"}, "SELECT 1 AS x");
  ASSERT_TRUE(statements.ok());
  ASSERT_EQ(statements->size(), 2u);
  EXPECT_EQ((*statements)[0], "CREATE SCHEMA IF NOT EXISTS \"marts\"");
  EXPECT_EQ((*statements)[1].rfind("CREATE TABLE \"marts\".\"fct\" AS", 0), 0u);
  EXPECT_EQ((*statements)[1].find("OR REPLACE"), std::string::npos);
}

TEST(EmitterTest, UnsupportedDialectsSaySo) {
  const Emitter emitter(sql::Dialect::kSnowflake);
  auto statements = emitter.Overwrite({"", "marts", "fct"}, "d", DayWindow("2026-04-07"), "SELECT 1");
  ASSERT_FALSE(statements.ok());
  EXPECT_EQ(statements.error().code, ErrorCode::kWarehouseUnsupported);
}

}  // namespace
}  // namespace strata::warehouse
