// AnswerQuery against a real PostgreSQL server (scripts/pg_test_server.sh) holding the example
// tables: the same answers as DuckDB for the shapes whose SQL differs or could differ between
// the two (combined partials, percentiles, string ops, fiscal grains, numeric results).
// Skips only when the PostgreSQL server binaries are not installed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>

#include "query/query_engine.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "warehouse/postgres/postgres_warehouse.h"
#include "warehouse/postgres/testing/pg_test_server.h"

namespace strata::query {
namespace {

using nlohmann::json;

using TestServer = warehouse::testing::PgTestServerState;
TestServer& Server() { return warehouse::testing::PgTestServer(); }

const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new warehouse::testing::PgTestEnvironment);

class QueryPostgresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Server().state == TestServer::State::kNoBinaries)
      GTEST_SKIP() << "PostgreSQL server binaries are not installed";
    ASSERT_EQ(Server().state, TestServer::State::kRunning);
    auto outcome = semantic::LoadSemanticModel(
        {{"semantic/model.yml", semantic::testing::kExampleModelYaml}}, sql::Dialect::kPostgres, 4);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
    model_ = std::move(*outcome.model);
    auto opened = warehouse::OpenPostgres({Server().dsn, std::nullopt});
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    warehouse_ = std::move(*opened);
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(*connection);
    std::string tables = semantic::testing::kExampleTablesSql;
    const std::string duckdb_double = "resolution_hours DOUBLE)";
    tables.replace(tables.find(duckdb_double), duckdb_double.size(),
                   "resolution_hours DOUBLE PRECISION)");
    ASSERT_TRUE(connection_->Execute("DROP SCHEMA IF EXISTS raw CASCADE").ok());
    auto created = connection_->Execute(tables);
    ASSERT_TRUE(created.ok()) << created.error().ToString();
  }

  json Rows(const std::string& query, const std::optional<std::string>& role = std::nullopt) {
    auto response =
        AnswerQuery(model_, *connection_, sql::Dialect::kPostgres, query, {role, std::nullopt});
    EXPECT_TRUE(response.ok()) << (response.ok() ? "" : response.error().ToString());
    if (!response.ok()) return json();
    return json::parse(response->ToJson()["rows"].dump());
  }

  semantic::SemanticModel model_;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
  std::unique_ptr<warehouse::Connection> connection_;
};

TEST_F(QueryPostgresTest, SingleEntityMetricsAndNumericResults) {
  EXPECT_EQ(
      Rows(
          R"({"measures": ["Order.revenue", "Order.order_count", "Order.average_order_value", "Order.paid_share"],
                     "dimensions": ["Order.status"]})"),
      json::parse(R"([["paid", 142.0, 5, 28.4, 1.0], ["shipped", 30.0, 1, 30.0, null]])"));
}

TEST_F(QueryPostgresTest, MultiEntityDoesNotFanOut) {
  EXPECT_EQ(
      Rows(R"({"measures": ["Order.order_count", "Ticket.ticket_count", "Order.tickets_per_order"],
                     "dimensions": ["Customer.region"]})"),
      json::parse(R"([["north", 4, 2, 0.5], ["south", 1, 1, 1.0], [null, 1, 1, 1.0]])"));
  EXPECT_EQ(
      Rows(
          R"({"measures": ["Order.order_count", "Ticket.ticket_count", "Customer.customer_count"]})"),
      json::parse(R"([[6, 4, 4]])"));
}

TEST_F(QueryPostgresTest, GrainsPercentilesAndApproximateDistinct) {
  EXPECT_EQ(Rows(R"({"measures": ["Order.order_count"],
                     "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_quarter"}]})"),
            json::parse(R"([["2026-01-01T00:00:00Z", 4], ["2026-04-01T00:00:00Z", 2]])"));
  EXPECT_EQ(
      Rows(R"({"measures": ["Order.median_amount", "Order.customers", "Order.customer_id_approx"],
                     "dimensions": ["Order.status"]})"),
      json::parse(R"([["paid", 10.0, 4, 4], ["shipped", 30.0, 1, 1]])"));
}

TEST_F(QueryPostgresTest, StringOpsMeasureFiltersAndRoles) {
  EXPECT_EQ(Rows(R"({"measures": ["Order.revenue"], "dimensions": ["Customer.name"],
                     "filters": [{"member": "Customer.segment", "op": "starts_with", "values": ["sm"]},
                                 {"member": "Customer.name", "op": "contains", "values": ["n", "i"]},
                                 {"member": "Order.revenue", "op": "gt", "values": [50]}]})"),
            json::parse(R"([["Ann", 60.0], ["Cid", 100.0]])"));
  EXPECT_EQ(
      Rows(
          R"({"measures": ["Order.order_count", "Ticket.ticket_count"], "dimensions": ["Customer.segment"]})",
          "north_analyst"),
      json::parse(R"([["ent", 1, null], ["smb", 3, 2]])"));
}

}  // namespace
}  // namespace strata::query
