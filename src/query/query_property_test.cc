// Property tests over generated queries (a GCC-built stand-in for fuzzing the query JSON):
//  1. every query built from random members, grains, filters and filter groups (random ops and
//     values of every kind, hostile strings included), offsets and roles either plans — and then
//     runs on DuckDB over the example tables without a warehouse error — or fails with a
//     query-level code;
//  2. byte-mutated query texts never crash the parser or planner and fail only with codes.
// Deterministic (fixed seeds); a failure prints the query.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "query/query_engine.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::query {
namespace {

using nlohmann::json;

const std::vector<std::string> kDimensions = {
    "Order.status",         "Order.amount",           "Order.order_id", "Order.loaded_at",
    "Customer.region",      "Customer.segment",       "Customer.name",  "Order.customer.region",
    "Ticket.priority",      "Ticket.channel",         "Ticket.status",  "Ticket.customer.segment",
    "Customer.signup_date", "Customer.orders.status", "Order.stauts"};
const std::vector<std::string> kMeasures = {"Order.revenue",
                                            "Order.order_count",
                                            "Order.paid_revenue",
                                            "Order.avg_amount",
                                            "Order.min_amount",
                                            "Order.max_amount",
                                            "Order.customers",
                                            "Order.customer_id_approx",
                                            "Order.median_amount",
                                            "Order.p90_amount",
                                            "Order.average_order_value",
                                            "Order.paid_share",
                                            "Order.tickets_per_order",
                                            "Customer.customer_count",
                                            "Ticket.ticket_count",
                                            "Ticket.avg_resolution_hours",
                                            "Ticket.p95_resolution_hours"};
const std::vector<std::string> kTimes = {"Order.order_date", "Ticket.opened_date",
                                         "Customer.signup_date", "Order.loaded_at"};
const std::vector<std::string> kGrains = {"hour",    "day",  "week",           "month",
                                          "quarter", "year", "fiscal_quarter", "fiscal_year"};
const std::vector<std::string> kOps = {"equals", "not_equals", "gt",          "gte", "lt",
                                       "lte",    "contains",   "starts_with", "set", "not_set"};
const std::vector<json> kValues = {
    "paid", "north",      "it's",        "x'; DROP TABLE raw.orders; --",
    "%_\\", "2026-01-01", "2026-02-30",  "2026-01-01T10:00:00Z",
    12,     -3.5,         1e300,         true,
    "12",   "",           "\u00e9\u6f22"};
const std::vector<std::optional<std::string>> kRoles = {std::nullopt, "admin", "north_analyst",
                                                        "paid_orders_only", "nobody"};

class QueryPropertyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto outcome = semantic::LoadSemanticModel(
        {{"semantic/model.yml", semantic::testing::kExampleModelYaml}}, sql::Dialect::kDuckDb, 4);
    ASSERT_TRUE(outcome.errors.empty());
    model_ = std::move(*outcome.model);
    auto warehouse = warehouse::OpenDuckDb(":memory:");
    ASSERT_TRUE(warehouse.ok());
    warehouse_ = std::move(*warehouse);
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(*connection);
    ASSERT_TRUE(connection_->Execute(semantic::testing::kExampleTablesSql).ok());
  }

  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[std::uniform_int_distribution<std::size_t>(0, items.size() - 1)(random_)];
  }
  int Count(int max) { return std::uniform_int_distribution<int>(0, max)(random_); }

  json RandomQuery() {
    json query = json::object();
    for (int i = Count(3); i > 0; --i) query["measures"].push_back(Pick(kMeasures));
    for (int i = Count(2); i > 0; --i) query["dimensions"].push_back(Pick(kDimensions));
    for (int i = Count(1); i > 0; --i) {
      json time = {{"dimension", Pick(kTimes)}};
      if (Count(3) > 0) time["grain"] = Pick(kGrains);
      if (Count(1) > 0) time["range"] = {"2026-01-01", "2026-04-01"};
      query["time_dimensions"].push_back(time);
    }
    for (int i = Count(2); i > 0; --i) {
      const bool on_measures = Count(1) == 0;
      query["filters"].push_back(Count(2) == 0 ? RandomGroup(on_measures, 3)
                                               : RandomFilter(on_measures));
    }
    if (Count(3) == 0) query["limit"] = Count(5);
    if (Count(3) == 0) query["offset"] = Count(4);
    return query;
  }

  json RandomFilter(bool on_measures) {
    json filter = {{"member", on_measures ? Pick(kMeasures) : Pick(kDimensions)},
                   {"op", Pick(kOps)}};
    if (filter["op"] != "set" && filter["op"] != "not_set") filter["values"] = {Pick(kValues)};
    return filter;
  }

  // An and/or/not group `depth` levels deep at most, its filters on measures or on dimensions
  // (one in ten groups mixes both: refused).
  json RandomGroup(bool on_measures, int depth) {
    const int kind = Count(2);
    if (kind == 0)
      return {{"not",
               Count(depth) > 1 ? RandomGroup(on_measures, depth - 1) : RandomFilter(on_measures)}};
    json items = json::array();
    for (int i = Count(2) + 1; i > 0; --i) {
      const bool mixed = Count(9) == 0;
      items.push_back(Count(depth) > 1 ? RandomGroup(on_measures != mixed, depth - 1)
                                       : RandomFilter(on_measures != mixed));
    }
    return {{kind == 1 ? "or" : "and", items}};
  }

  std::mt19937_64 random_{20260401};
  semantic::SemanticModel model_;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
  std::unique_ptr<warehouse::Connection> connection_;
};

bool QueryLevel(ErrorCode code) {
  return code == ErrorCode::kQueryInvalid || code == ErrorCode::kAmbiguousPath ||
         code == ErrorCode::kFanOut || code == ErrorCode::kAccessDenied;
}

TEST_F(QueryPropertyTest, EveryPlannedQueryRuns) {
  int answered = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string text = RandomQuery().dump();
    const std::optional<std::string> role = Pick(kRoles);
    auto response =
        AnswerQuery(model_, *connection_, sql::Dialect::kDuckDb, text, {role, std::nullopt});
    if (response.ok()) {
      ++answered;
      continue;
    }
    EXPECT_TRUE(QueryLevel(response.error().code)) << text << " role " << role.value_or("-") << "\n"
                                                   << response.error().ToString();
  }
  // The generator must exercise the execution path, not only the errors.
  EXPECT_GT(answered, 60);
}

TEST_F(QueryPropertyTest, MutatedTextNeverCrashes) {
  const std::string seed =
      R"({"measures": ["Order.revenue", "Ticket.ticket_count"], "dimensions": ["Customer.region"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "month", "range": ["2026-01-01", "2026-07-01"]}], "filters": [{"member": "Order.status", "op": "equals", "values": ["paid"]}], "order": [{"member": "Order.revenue", "desc": true}], "limit": 5})";
  const std::string alphabet = "{}[]\",:.0123456789abcdefgOCTrx\\' -\x01\xff";
  for (int i = 0; i < 3000; ++i) {
    std::string text = seed;
    for (int edits = Count(3) + 1; edits > 0; --edits) {
      const std::size_t at =
          std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(random_);
      switch (Count(2)) {
        case 0:
          text[at] = Pick(std::vector<char>(alphabet.begin(), alphabet.end()));
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, Pick(std::vector<char>(alphabet.begin(), alphabet.end())));
      }
    }
    auto plan = PlanQuery(model_, sql::Dialect::kDuckDb, text, {});
    if (!plan.ok()) {
      EXPECT_TRUE(QueryLevel(plan.error().code)) << text << "\n" << plan.error().ToString();
    }
  }
}

}  // namespace
}  // namespace strata::query
