#include "serve/pg/sql_tables.h"

#include <gtest/gtest.h>

#include "semantic/loader.h"
#include "semantic/testing/example_model.h"

namespace strata::serve::pg {
namespace {

semantic::SemanticModel ExampleModel() {
  semantic::SemanticLoadOutcome outcome = semantic::LoadSemanticModel(
      {{"model.yml", semantic::testing::kExampleModelYaml}}, sql::Dialect::kDuckDb, 4);
  EXPECT_TRUE(outcome.errors.empty()) << outcome.errors.front().ToString();
  return std::move(*outcome.model);
}

std::vector<std::string> Names(const SqlTable& table) {
  std::vector<std::string> names;
  for (const SqlColumn& column : table.columns) names.push_back(column.name);
  return names;
}

TEST(SqlTablesTest, EveryEntityWithoutRole) {
  const std::vector<SqlTable> tables = TablesFor(ExampleModel(), std::nullopt);
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].name, "Order");
  EXPECT_EQ(tables[1].name, "Customer");
  EXPECT_EQ(tables[2].name, "Ticket");
  // Dimensions, then the to-one paths' dimensions, then measures, then metrics.
  EXPECT_EQ(Names(tables[0]), (std::vector<std::string>{"order_id",
                                                        "status",
                                                        "amount",
                                                        "order_date",
                                                        "loaded_at",
                                                        "customer__customer_id",
                                                        "customer__name",
                                                        "customer__region",
                                                        "customer__segment",
                                                        "customer__signup_date",
                                                        "revenue",
                                                        "order_count",
                                                        "paid_revenue",
                                                        "avg_amount",
                                                        "min_amount",
                                                        "max_amount",
                                                        "customers",
                                                        "customer_id_approx",
                                                        "median_amount",
                                                        "p90_amount",
                                                        "average_order_value",
                                                        "paid_share",
                                                        "tickets_per_order"}));
  // Customer's relationships are one_to_many: no path columns.
  EXPECT_EQ(tables[1].Find("customer__region"), nullptr);
  EXPECT_EQ(tables[0].count_star, "order_count");
}

TEST(SqlTablesTest, ColumnsCarryMembersKindsAndTypes) {
  const std::vector<SqlTable> tables = TablesFor(ExampleModel(), std::nullopt);
  const SqlTable& order = tables[0];
  const SqlColumn* region = order.Find("customer__region");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->member, "Order.customer.region");
  EXPECT_EQ(region->kind, SqlColumnKind::kDimension);
  EXPECT_EQ(region->type, PgType::kText);
  EXPECT_EQ(order.Find("order_date")->kind, SqlColumnKind::kTimeDimension);
  EXPECT_EQ(order.Find("order_date")->type, PgType::kTimestamptz);
  EXPECT_EQ(order.Find("amount")->type, PgType::kNumeric);
  EXPECT_EQ(order.Find("order_count")->type, PgType::kInt8);
  EXPECT_EQ(order.Find("customers")->type, PgType::kInt8);
  EXPECT_EQ(order.Find("customers")->agg, semantic::Aggregation::kCountDistinct);
  EXPECT_EQ(order.Find("revenue")->type, PgType::kNumeric);
  EXPECT_EQ(order.Find("average_order_value")->kind, SqlColumnKind::kMetric);
  EXPECT_EQ(order.Find("average_order_value")->type, PgType::kNumeric);
  EXPECT_TRUE(order.Find("average_order_value")->in_star);
  EXPECT_FALSE(order.Find("tickets_per_order")->in_star);  // reads Ticket's measure
}

TEST(SqlTablesTest, FindIsExactThenCaseInsensitive) {
  const std::vector<SqlTable> tables = TablesFor(ExampleModel(), std::nullopt);
  EXPECT_EQ(FindTable(tables, "Order"), &tables[0]);
  EXPECT_EQ(FindTable(tables, "order"), &tables[0]);
  EXPECT_EQ(FindTable(tables, "ORDER"), &tables[0]);
  EXPECT_EQ(FindTable(tables, "Orders"), nullptr);
  EXPECT_EQ(tables[0].Find("STATUS"), tables[0].Find("status"));
  EXPECT_EQ(tables[0].Find("Customer__Region")->name, "customer__region");

  SqlTable twins;
  twins.columns.push_back({"orderDate", "E.orderDate"});
  twins.columns.push_back({"orderdate", "E.orderdate"});
  EXPECT_EQ(twins.Find("orderDate")->member, "E.orderDate");
  EXPECT_EQ(twins.Find("orderdate")->member, "E.orderdate");
  EXPECT_EQ(twins.Find("ORDERDATE"), nullptr);  // two case-insensitive matches, none exact
}

TEST(SqlTablesTest, RoleSeesOnlyWhatItMayRead) {
  const semantic::SemanticModel model = ExampleModel();
  EXPECT_EQ(TablesFor(model, "admin").size(), 3u);
  EXPECT_EQ(TablesFor(model, "north_analyst").size(), 3u);
  EXPECT_TRUE(TablesFor(model, "no_such_role").empty());

  // paid_orders_only reads Order alone: no Customer table, no customer__ columns and no metric
  // that reads Ticket.
  const std::vector<SqlTable> paid = TablesFor(model, "paid_orders_only");
  ASSERT_EQ(paid.size(), 1u);
  EXPECT_EQ(paid[0].name, "Order");
  EXPECT_EQ(paid[0].Find("customer__region"), nullptr);
  EXPECT_EQ(paid[0].Find("tickets_per_order"), nullptr);
  EXPECT_NE(paid[0].Find("average_order_value"), nullptr);
  EXPECT_EQ(FindTable(paid, "Customer"), nullptr);
}

}  // namespace
}  // namespace strata::serve::pg
