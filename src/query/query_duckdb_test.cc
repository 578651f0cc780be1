// AnswerQuery against a real in-memory DuckDB holding the example tables: multi-entity
// correctness (no fan-out), data roles, grains, approximate distinct counts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "query/query_engine.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::query {
namespace {

using nlohmann::json;

class QueryDuckDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto outcome =
        semantic::LoadSemanticModel({{"semantic/model.yml", semantic::testing::kExampleModelYaml}},
                                    sql::Dialect::kDuckDb, /*fiscal_year_start_month=*/4);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
    model_ = std::move(*outcome.model);
    auto warehouse = warehouse::OpenDuckDb(":memory:");
    ASSERT_TRUE(warehouse.ok());
    warehouse_ = std::move(*warehouse);
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(*connection);
    ASSERT_TRUE(connection_->Execute(semantic::testing::kExampleTablesSql).ok());
  }

  json Rows(const std::string& query, const std::optional<std::string>& role = std::nullopt) {
    auto response =
        AnswerQuery(model_, *connection_, sql::Dialect::kDuckDb, query, {role, std::nullopt});
    EXPECT_TRUE(response.ok()) << (response.ok() ? "" : response.error().ToString());
    if (!response.ok()) return json();
    return json::parse(response->ToJson()["rows"].dump());
  }

  ErrorCode Code(const std::string& query, const std::optional<std::string>& role = std::nullopt) {
    auto response =
        AnswerQuery(model_, *connection_, sql::Dialect::kDuckDb, query, {role, std::nullopt});
    EXPECT_FALSE(response.ok());
    return response.ok() ? ErrorCode::kInternal : response.error().code;
  }

  semantic::SemanticModel model_;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
  std::unique_ptr<warehouse::Connection> connection_;
};

TEST_F(QueryDuckDbTest, SingleEntityByStatus) {
  const json rows =
      Rows(R"({"measures": ["Order.revenue", "Order.order_count", "Order.average_order_value"],
                             "dimensions": ["Order.status"]})");
  EXPECT_EQ(rows, json::parse(R"([["paid", 142.0, 5, 28.4], ["shipped", 30.0, 1, 30.0]])"));
}

// max_rows caps an answer without truncating it: over the cap is kQueryInvalid with a hint; a
// query whose own limit is within the cap, or whose answer fits, is answered whole.
TEST_F(QueryDuckDbTest, MaxRowsRefusesALargerAnswerAndNeverTruncates) {
  const std::string by_status =
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})";
  const std::size_t statuses = Rows(by_status).size();
  ASSERT_GE(statuses, 2u);
  const auto answer = [&](const std::string& text, std::int64_t max_rows) {
    return AnswerQuery(model_, *connection_, sql::Dialect::kDuckDb, text, {std::nullopt, max_rows});
  };
  const auto over = answer(by_status, static_cast<std::int64_t>(statuses) - 1);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, ErrorCode::kQueryInvalid);
  EXPECT_NE(over.error().hint.find("limit"), std::string::npos) << over.error().hint;
  const auto fits = answer(by_status, static_cast<std::int64_t>(statuses));
  ASSERT_TRUE(fits.ok()) << fits.error().ToString();
  EXPECT_EQ(fits->rows.size(), statuses);
  const auto limited =
      answer(R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"], "limit": 2})", 2);
  ASSERT_TRUE(limited.ok()) << limited.error().ToString();
  EXPECT_EQ(limited->rows.size(), 2u);
}

TEST_F(QueryDuckDbTest, ResponseShape) {
  auto response = AnswerQuery(
      model_, *connection_, sql::Dialect::kDuckDb,
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"], "limit": 1})", {});
  ASSERT_TRUE(response.ok()) << response.error().ToString();
  const json out = json::parse(response->ToJson().dump());
  EXPECT_EQ(response->ToJson().dump().rfind("{\"columns\":", 0), 0u);
  EXPECT_EQ(out["columns"], json::parse(R"([{"name": "Order.status", "type": "string"},
                                             {"name": "Order.revenue", "type": "number"}])"));
  EXPECT_EQ(out["rows"].size(), 1u);
  EXPECT_EQ(out["meta"]["rollup"]["missed"],
            json::parse(R"([{"rollup": "monthly_order_summary", "reason": "not_built"}])"));
  EXPECT_TRUE(out["meta"]["sql"].is_string());
  EXPECT_TRUE(out["meta"]["duration_ms"].is_number());
  // The query port without [serve] expose_sql: the same document without the SQL.
  const json hidden = json::parse(response->ToJson(false).dump());
  EXPECT_FALSE(hidden["meta"].contains("sql"));
  EXPECT_EQ(hidden["meta"]["rollup"], out["meta"]["rollup"]);
  EXPECT_EQ(hidden["rows"], out["rows"]);
}

TEST_F(QueryDuckDbTest, JoinedDimensionThroughManyToOne) {
  const json rows = Rows(R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"]})");
  EXPECT_EQ(rows, json::parse(R"([["north", 65.0], ["south", 100.0], [null, 7.0]])"));
}

// Customer 1 has 3 orders and 2 tickets: a raw join would report 6 orders and 6 tickets.
TEST_F(QueryDuckDbTest, MultiEntityDoesNotFanOut) {
  const json rows =
      Rows(R"({"measures": ["Order.order_count", "Ticket.ticket_count", "Order.tickets_per_order"],
                             "dimensions": ["Customer.region"]})");
  EXPECT_EQ(rows,
            json::parse(R"([["north", 4, 2, 0.5], ["south", 1, 1, 1.0], [null, 1, 1, 1.0]])"));
}

TEST_F(QueryDuckDbTest, MultiEntityWithoutDimensions) {
  const json rows = Rows(
      R"({"measures": ["Order.order_count", "Ticket.ticket_count", "Customer.customer_count"]})");
  EXPECT_EQ(rows, json::parse(R"([[6, 4, 4]])"));
}

TEST_F(QueryDuckDbTest, MeasureFilterAppliesAfterAggregation) {
  const json rows = Rows(R"({"measures": ["Order.revenue"], "dimensions": ["Customer.name"],
                             "filters": [{"member": "Order.revenue", "op": "gt", "values": [50]}]})");
  EXPECT_EQ(rows, json::parse(R"([["Ann", 60.0], ["Cid", 100.0]])"));
}

TEST_F(QueryDuckDbTest, FilteredMeasureAndDivisionByZeroIsNull) {
  const json rows = Rows(
      R"({"measures": ["Order.paid_revenue", "Order.paid_share"], "dimensions": ["Order.status"]})");
  EXPECT_EQ(rows, json::parse(R"([["paid", 142.0, 1.0], ["shipped", null, null]])"));
}

TEST_F(QueryDuckDbTest, MonthGrainAndRange) {
  const json rows = Rows(R"({"measures": ["Order.revenue"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "month", "range": ["2026-02-01", "2026-05-01"]}]})");
  EXPECT_EQ(rows, json::parse(R"([["2026-02-01T00:00:00Z", 20.0], ["2026-03-01T00:00:00Z", 5.0],
                                  ["2026-04-01T00:00:00Z", 30.0]])"));
}

// fiscal_year_start_month = 4: 2026-03-31 is in the fiscal year starting 2025-04-01.
TEST_F(QueryDuckDbTest, FiscalGrains) {
  EXPECT_EQ(Rows(R"({"measures": ["Order.order_count"],
                     "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_year"}]})"),
            json::parse(R"([["2025-04-01T00:00:00Z", 4], ["2026-04-01T00:00:00Z", 2]])"));
  EXPECT_EQ(Rows(R"({"measures": ["Order.order_count"],
                     "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_quarter"}]})"),
            json::parse(R"([["2026-01-01T00:00:00Z", 4], ["2026-04-01T00:00:00Z", 2]])"));
}

TEST_F(QueryDuckDbTest, IsoWeekStartsMonday) {
  // 2026-01-10 is a Saturday: its ISO week starts Monday 2026-01-05.
  EXPECT_EQ(
      Rows(
          R"({"measures": ["Order.order_count"], "filters": [{"member": "Order.order_id", "op": "equals", "values": [1]}],
                     "time_dimensions": [{"dimension": "Order.order_date", "grain": "week"}]})"),
      json::parse(R"([["2026-01-05T00:00:00Z", 1]])"));
}

TEST_F(QueryDuckDbTest, StringValuesAreLiteralsNotSql) {
  EXPECT_EQ(Rows(R"({"measures": ["Order.order_count"],
                     "filters": [{"member": "Order.status", "op": "equals", "values": ["paid' OR '1'='1"]}]})"),
            json::parse(R"([[0]])"));
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"],
                     "filters": [{"member": "Order.order_id", "op": "equals", "values": ["1 OR 1=1"]}]})"),
            ErrorCode::kQueryInvalid);
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"],
                     "filters": [{"member": "Order.status", "op": "equals", "values": ["paid\u0000' OR 1=1"]}]})"),
            ErrorCode::kQueryInvalid);
}

TEST_F(QueryDuckDbTest, PercentilesAndApproximateDistinct) {
  const json rows =
      Rows(R"({"measures": ["Order.median_amount", "Order.customers", "Order.customer_id_approx"],
                             "dimensions": ["Order.status"]})");
  EXPECT_EQ(rows, json::parse(R"([["paid", 10.0, 4, 4], ["shipped", 30.0, 1, 1]])"));
}

// Forwards to a real connection and records the most rows it ever handed over at once: a whole
// result from Execute, or one batch of a streamed one. With `interrupt_after_rows`, interrupts
// itself once it has handed over that many rows of one statement: a deadline that passes while
// the rows are being folded.
class RowCountingConnection final : public warehouse::Connection {
 public:
  explicit RowCountingConnection(warehouse::Connection& inner,
                                 std::optional<std::size_t> interrupt_after_rows = std::nullopt)
      : inner_(inner), interrupt_after_rows_(interrupt_after_rows) {}
  Result<warehouse::QueryResult> Execute(std::string_view sql) override {
    Result<warehouse::QueryResult> result = inner_.Execute(sql);
    if (result.ok()) Record(result->row_count(), result->row_count());
    return result;
  }
  Status ExecuteStreamed(std::string_view sql, const warehouse::RowBatchSink& sink) override {
    std::size_t rows = 0;
    return inner_.ExecuteStreamed(sql, [&](const warehouse::QueryResult& batch) {
      rows += batch.row_count();
      Record(batch.row_count(), rows);
      return sink(batch);
    });
  }
  void Interrupt() override { inner_.Interrupt(); }
  Result<bool> TableExists(const warehouse::TableName& name) override {
    return inner_.TableExists(name);
  }
  Result<std::vector<warehouse::Column>> DescribeTable(const warehouse::TableName& name) override {
    return inner_.DescribeTable(name);
  }
  Result<std::vector<std::string>> UserFunctionNames() override {
    return inner_.UserFunctionNames();
  }
  std::size_t most_rows_at_once() const { return most_rows_at_once_; }

 private:
  void Record(std::size_t at_once, std::size_t of_statement) {
    most_rows_at_once_ = std::max(most_rows_at_once_, at_once);
    if (interrupt_after_rows_ && of_statement >= *interrupt_after_rows_) Interrupt();
  }
  warehouse::Connection& inner_;
  std::optional<std::size_t> interrupt_after_rows_;
  std::size_t most_rows_at_once_ = 0;
};

// A live count_distinct_approx folds its sketch query's rows as they stream: the rows held at
// once never exceed one batch (DuckDB's vector size), though the query returns one row per
// distinct value, far more than that. Instrumented, not timed.
TEST_F(QueryDuckDbTest, ApproximateDistinctFoldsStreamedBatches) {
  constexpr int kCustomers = 50000;
  ASSERT_TRUE(connection_
                  ->Execute(fmt::format("INSERT INTO raw.orders SELECT 100 + i, 100 + i, 'north', "
                                        "'paid', 1.00, TIMESTAMP '2026-01-10 08:00:00', "
                                        "TIMESTAMP '2026-01-10 09:00:00' FROM range({}) t(i)",
                                        kCustomers))
                  .ok());
  RowCountingConnection counting(*connection_);
  auto response =
      AnswerQuery(model_, counting, sql::Dialect::kDuckDb,
                  R"({"measures": ["Order.customer_id_approx"], "dimensions": ["Order.status"]})",
                  {std::nullopt, std::nullopt});
  ASSERT_TRUE(response.ok()) << response.error().ToString();
  const json rows = json::parse(response->ToJson()["rows"].dump());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "paid");
  EXPECT_NEAR(rows[0][1].get<double>(), kCustomers + 4, 0.05 * kCustomers);
  EXPECT_EQ(rows[1], json::parse(R"(["shipped", 1])"));
  EXPECT_GT(counting.most_rows_at_once(), 0u);
  EXPECT_LE(counting.most_rows_at_once(), warehouse::kMaxStreamBatchRows);
}

// A deadline that passes while the sketch query's rows are folded stops the answer: the fold
// reads the rows as they stream, so the interrupt stops the statement before its next batch.
TEST_F(QueryDuckDbTest, AnInterruptDuringTheSketchFoldStopsTheAnswer) {
  ASSERT_TRUE(connection_
                  ->Execute("INSERT INTO raw.orders SELECT 100 + i, 100 + i, 'north', 'paid', "
                            "1.00, TIMESTAMP '2026-01-10 08:00:00', TIMESTAMP '2026-01-10 "
                            "09:00:00' FROM range(50000) t(i)")
                  .ok());
  RowCountingConnection interrupted(*connection_, /*interrupt_after_rows=*/3000);
  auto response =
      AnswerQuery(model_, interrupted, sql::Dialect::kDuckDb,
                  R"({"measures": ["Order.customer_id_approx"], "dimensions": ["Order.status"]})",
                  {std::nullopt, std::nullopt});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().code, ErrorCode::kWarehouseInterrupted) << response.error().ToString();
}

TEST_F(QueryDuckDbTest, RoleRowFiltersApplyThroughJoinsAndInEveryPartial) {
  const json rows = Rows(R"({"measures": ["Order.order_count", "Ticket.ticket_count"],
                             "dimensions": ["Customer.segment"]})",
                         "north_analyst");
  EXPECT_EQ(rows, json::parse(R"([["ent", 1, null], ["smb", 3, 2]])"));
  EXPECT_EQ(Rows(R"({"measures": ["Customer.customer_count"]})", "north_analyst"),
            json::parse("[[2]]"));
}

TEST_F(QueryDuckDbTest, RoleWithoutAccessToAnEntityIsRefused) {
  EXPECT_EQ(Rows(R"({"measures": ["Order.order_count"]})", "paid_orders_only"),
            json::parse("[[5]]"));
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"], "dimensions": ["Customer.region"]})",
                 "paid_orders_only"),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"],
                     "filters": [{"member": "Customer.region", "op": "equals", "values": ["north"]}]})",
                 "paid_orders_only"),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(Code(R"({"measures": ["Ticket.ticket_count"]})", "paid_orders_only"),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"]})", "nobody"), ErrorCode::kAccessDenied);
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"]})", std::string()),
            ErrorCode::kAccessDenied);
  EXPECT_EQ(Rows(R"({"measures": ["Ticket.ticket_count"]})", "admin"), json::parse("[[4]]"));
}

// A number filter value must fit a double: DuckDB reads 1e999 as infinity and PostgreSQL fails
// to cast it, so the query is refused before it reaches the warehouse, naming member and value.
TEST_F(QueryDuckDbTest, NumberFilterValueBeyondADoubleIsQueryInvalid) {
  for (const char* value : {R"("1e999")", R"("-1e999")", R"("1e-999")"}) {
    SCOPED_TRACE(value);
    auto response = AnswerQuery(model_, *connection_, sql::Dialect::kDuckDb,
                                fmt::format(R"({{"measures": ["Order.order_count"],
                        "filters": [{{"member": "Order.amount", "op": "gt", "values": [{}]}}]}})",
                                            value),
                                {});
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().code, ErrorCode::kQueryInvalid);
    const std::string text = response.error().ToString();
    EXPECT_NE(text.find("Order.amount"), std::string::npos) << text;
    EXPECT_NE(text.find(json::parse(value).get<std::string>()), std::string::npos) << text;
  }
  // The largest doubles still pass.
  EXPECT_EQ(Rows(R"({"measures": ["Order.order_count"],
                     "filters": [{"member": "Order.amount", "op": "lt", "values": ["1.7e308"]}]})"),
            json::parse("[[6]]"));
}

// A number member whose column holds text (a VARCHAR, a PostgreSQL NUMERIC) beyond a double or
// an int64: integers up to uint64 stay exact, anything beyond a double is returned as its text.
TEST_F(QueryDuckDbTest, NumberCellsBeyondADoubleAreReturnedAsText) {
  ASSERT_TRUE(connection_
                  ->Execute("CREATE OR REPLACE TABLE raw.orders AS SELECT row_number() OVER () "
                            "AS order_id, 1 AS customer_id, 'paid' AS status, v AS amount, "
                            "TIMESTAMP '2026-01-01 00:00:00' AS order_at, "
                            "TIMESTAMP '2026-01-01 00:00:00' AS loaded_at FROM (VALUES "
                            "('1e999'), ('-1e999'), ('1e-999'), ('12345678901234567890'), "
                            "('-9223372036854775808'), ('2.5')) t(v)")
                  .ok());
  const json rows = Rows(R"({"dimensions": ["Order.order_id", "Order.amount"],
                             "order": [{"member": "Order.order_id"}]})");
  EXPECT_EQ(rows, json::parse(R"([[1, "1e999"], [2, "-1e999"], [3, "1e-999"],
                                  [4, 12345678901234567890], [5, -9223372036854775808],
                                  [6, 2.5]])"));
}

TEST_F(QueryDuckDbTest, FanOutAndUnknownMembersAreErrors) {
  EXPECT_EQ(Code(R"({"measures": ["Customer.customer_count"], "dimensions": ["Order.status"]})"),
            ErrorCode::kFanOut);
  EXPECT_EQ(Code(R"({"measures": ["Order.revenue"], "dimensions": ["Order.stauts"]})"),
            ErrorCode::kQueryInvalid);
}

// SQL our parser accepts but the warehouse refuses (here a bare reserved word, which the loader
// now refuses: the model is changed after loading) names the member whose SQL caused it.
TEST_F(QueryDuckDbTest, WarehouseSyntaxErrorNamesTheMember) {
  semantic::Entity& order = model_.entities[0];
  ASSERT_EQ(order.name, "Order");
  for (semantic::Dimension& dimension : order.dimensions) {
    if (dimension.name == "status") dimension.sql = "at";
  }
  auto response = AnswerQuery(model_, *connection_, sql::Dialect::kDuckDb,
                              R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})",
                              {std::nullopt, std::nullopt});
  ASSERT_FALSE(response.ok());
  const Error& error = response.error();
  EXPECT_EQ(error.code, ErrorCode::kWarehouseSyntax);
  EXPECT_NE(error.message.find("dimension Order.status (semantic/model.yml:31)"), std::string::npos)
      << error.ToString();
  EXPECT_NE(error.hint.find("quoted"), std::string::npos) << error.ToString();
}

}  // namespace
}  // namespace strata::query

namespace strata::query {
namespace {

// Order 4 is at 2026-03-31 23:59:59 UTC, already April in Berlin; order 6 at 2026-05-01 00:00 UTC
// (02:00 in Berlin). Buckets, ranges and time values follow the query's zone.
TEST_F(QueryDuckDbTest, TimezoneMakesGrainsRangesAndValuesLocal) {
  const std::string by_month =
      R"({"measures": ["Order.order_count"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}])";
  EXPECT_EQ(Rows(by_month + "}"), json::parse(R"([["2026-01-01T00:00:00Z", 2],
      ["2026-02-01T00:00:00Z", 1], ["2026-03-01T00:00:00Z", 1], ["2026-04-01T00:00:00Z", 1],
      ["2026-05-01T00:00:00Z", 1]])"));
  EXPECT_EQ(Rows(by_month + R"(, "timezone": "Europe/Berlin"})"),
            json::parse(R"([["2026-01-01T00:00:00+01:00", 2], ["2026-02-01T00:00:00+01:00", 1],
                            ["2026-04-01T00:00:00+02:00", 2], ["2026-05-01T00:00:00+02:00", 1]])"));
  const std::string april =
      R"({"measures": ["Order.order_count"], "time_dimensions": [{"dimension": "Order.order_date", "range": ["2026-04-01", "2026-05-01"]}])";
  EXPECT_EQ(Rows(april + "}"), json::parse("[[1]]"));
  EXPECT_EQ(Rows(april + R"(, "timezone": "Europe/Berlin"})"), json::parse("[[2]]"));
  EXPECT_EQ(Rows(R"({"dimensions": ["Order.order_date"], "timezone": "Europe/Berlin",
                     "filters": [{"member": "Order.order_id", "op": "equals", "values": [4]}]})"),
            json::parse(R"([["2026-04-01T01:59:59+02:00"]])"));
  // A filter value without Z is Berlin's wall clock; with Z it is UTC.
  const std::string after = R"({"measures": ["Order.order_count"], "timezone": "Europe/Berlin",
      "filters": [{"member": "Order.order_date", "op": "gte", "values": [")";
  EXPECT_EQ(Rows(after + R"(2026-05-01 01:00:00"]}]})"), json::parse("[[1]]"));
  EXPECT_EQ(Rows(after + R"(2026-05-01T01:00:00Z"]}]})"), json::parse("[[0]]"));
  EXPECT_EQ(Code(R"({"measures": ["Order.order_count"], "timezone": "Moon/Base"})"),
            ErrorCode::kInvalidTimeZone);
}

}  // namespace
}  // namespace strata::query
