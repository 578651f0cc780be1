// The rollup advisor (rollup/advisor.h) over the example model: what it proposes, what it names
// as unanswerable, and the property that matters — for random queries, the advised rollups,
// added to the model and built, answer the query (meta.rollup.used names them) with the live
// answer, for every role. Real DuckDB tables (the example's small ones) and a real store.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "query/query_engine.h"
#include "rollup/advisor.h"
#include "rollup/builder.h"
#include "rollup/query_log.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::rollup {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// 2026-06-15T00:00:00Z: the example's orders (January to May 2026) are inside a year's window.
constexpr UnixSeconds kNow = 1'781'481'600;

// The example model without its rollups, then `rollups` (a `rollups:` block, or "").
std::string ModelWith(const std::string& rollups) {
  const std::string text = semantic::testing::kExampleModelYaml;
  const std::size_t start = text.find("\nrollups:\n");
  const std::size_t end = text.find("\ndata_roles:");
  return text.substr(0, start + 1) + rollups + text.substr(end);
}

class RollupAdviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("strata-advice-test-{}", ::getpid());
    fs::remove_all(root_);
    auto warehouse = warehouse::OpenDuckDb(":memory:");
    ASSERT_TRUE(warehouse.ok());
    warehouse_ = std::move(*warehouse);
    auto connection = warehouse_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(*connection);
    ASSERT_TRUE(connection_->Execute(semantic::testing::kExampleTablesSql).ok());
    auto engine = warehouse::OpenDuckDbEngine({});
    ASSERT_TRUE(engine.ok());
    engine_ = std::move(*engine);
    auto engine_connection = engine_->Connect();
    ASSERT_TRUE(engine_connection.ok());
    engine_connection_ = std::move(*engine_connection);
    Load("");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Load(const std::string& rollups) {
    auto outcome =
        semantic::LoadSemanticModel({{"model.yml", ModelWith(rollups)}}, sql::Dialect::kDuckDb, 4);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString() << "\n" << rollups;
    model_ = std::move(*outcome.model);
  }

  Result<Advice> Advise(const json& query, const std::optional<std::string>& role = std::nullopt) {
    Result<semantic::SemanticQuery> parsed = semantic::ParseQueryJson(query.dump());
    if (!parsed.ok()) return parsed.error();
    AdviseOptions options;
    options.plan.role = role;
    options.now = kNow;
    return AdviseRollups(model_, *parsed, options);
  }

  Result<query::QueryResponse> Ask(const json& query, const std::optional<std::string>& role,
                                   bool routed) {
    query::QueryContext context;
    context.dialect = sql::Dialect::kDuckDb;
    context.live = [this]() -> Result<warehouse::Connection*> { return connection_.get(); };
    if (routed) {
      context.store = &*store_;
      context.engine = engine_connection_.get();
    }
    return query::Answer(model_, context, query.dump(), {role, std::nullopt});
  }

  // Adds the advice to the model, builds it into a new store, and checks that the query is
  // answered from it with the live answer.
  void ExpectAdviceAnswers(const json& query, const std::optional<std::string>& role,
                           const Advice& advice) {
    const std::string yaml = RollupsYaml(advice.rollups);
    SCOPED_TRACE(query.dump() + " role " + role.value_or("-") + "\n" + yaml);
    Load(yaml);
    store_.emplace(root_ / fmt::format("store{}", builds_++));
    FixedClock clock(kNow);
    BuildOptions options;
    options.clock = &clock;
    auto report = BuildRollups(model_, *warehouse_, *engine_, *store_, options);
    ASSERT_TRUE(report.ok()) << report.error().ToString();
    for (const RollupOutcome& outcome : report->rollups) {
      ASSERT_FALSE(outcome.error) << outcome.rollup << ": " << outcome.error->ToString();
    }
    auto live = Ask(query, role, false);
    auto routed = Ask(query, role, true);
    ASSERT_TRUE(live.ok()) << live.error().ToString();
    ASSERT_TRUE(routed.ok()) << routed.error().ToString();
    std::vector<std::string> names;
    for (const semantic::Rollup& rollup : advice.rollups) names.push_back(rollup.name);
    std::vector<std::string> used = routed->used;
    std::sort(names.begin(), names.end());
    std::sort(used.begin(), used.end());
    EXPECT_EQ(used, names);
    for (const query::RollupMiss& miss : routed->missed) {
      ADD_FAILURE() << miss.rollup << " missed: " << miss.reason << " " << miss.detail;
    }
    const json want = json::parse(live->ToJson()["rows"].dump());
    const json got = json::parse(routed->ToJson()["rows"].dump());
    ASSERT_EQ(want.size(), got.size()) << "live " << want << "\nrollup " << got;
    for (std::size_t r = 0; r < want.size(); ++r) {
      for (std::size_t c = 0; c < want[r].size(); ++c) {
        const json& a = want[r][c];
        const json& b = got[r][c];
        if (a.is_number() && b.is_number()) {
          EXPECT_NEAR(a.get<double>(), b.get<double>(),
                      1e-9 * std::max(1.0, std::abs(a.get<double>())));
        } else {
          EXPECT_EQ(a, b) << "row " << r << " col " << c;
        }
      }
    }
    Load("");
  }

  fs::path root_;
  int builds_ = 0;
  std::unique_ptr<warehouse::Warehouse> warehouse_, engine_;
  std::unique_ptr<warehouse::Connection> connection_, engine_connection_;
  semantic::SemanticModel model_;
  std::optional<RollupStore> store_;
};

TEST_F(RollupAdviceTest, ProposesTheQuerysMembersAtItsGrainWithARangeWindow) {
  const json query = {
      {"measures", {"Order.revenue", "Order.average_order_value", "Order.p90_amount"}},
      {"dimensions", {"Order.status"}},
      {"time_dimensions",
       {{{"dimension", "Order.order_date"},
         {"grain", "month"},
         {"range", {"2026-01-01", "2026-04-01"}}}}}};
  auto advice = Advise(query);
  ASSERT_TRUE(advice.ok()) << advice.error().ToString();
  ASSERT_TRUE(advice->answers);
  ASSERT_EQ(advice->rollups.size(), 1U);
  const semantic::Rollup& rollup = advice->rollups[0];
  EXPECT_EQ(rollup.name, "order_by_status_order_date_month");
  EXPECT_EQ(rollup.entity, "Order");
  ASSERT_EQ(rollup.dimensions.size(), 2U);
  EXPECT_EQ(rollup.dimensions[0].path, "status");
  EXPECT_EQ(rollup.dimensions[1].path, "order_date");
  EXPECT_EQ(rollup.dimensions[1].grain, "month");
  // The metric's measures are stored; the percentile with a sketch.
  EXPECT_EQ(rollup.measures, (std::vector<std::string>{"revenue", "order_count", "p90_amount"}));
  EXPECT_EQ(rollup.sketches, std::vector<std::string>{"p90_amount"});
  ASSERT_TRUE(rollup.partition);
  EXPECT_EQ(rollup.partition->by, "year");
  ASSERT_TRUE(rollup.build_range);
  EXPECT_EQ(rollup.build_range->dimension, "order_date");
  // 2026-01-01 .. 2026-06-15: 165 days, and one more.
  EXPECT_EQ(rollup.build_range->days, 166U);
  ExpectAdviceAnswers(query, std::nullopt, *advice);
}

TEST_F(RollupAdviceTest, ARangeOffTheGrainsBoundariesIsStoredFiner) {
  const json query = {{"measures", {"Order.order_count"}},
                      {"time_dimensions",
                       {{{"dimension", "Order.order_date"},
                         {"grain", "month"},
                         {"range", {"2026-01-10", "2026-04-02"}}}}}};
  auto advice = Advise(query);
  ASSERT_TRUE(advice.ok() && advice->answers);
  EXPECT_EQ(advice->rollups[0].dimensions[0].grain, "day");
  EXPECT_EQ(advice->rollups[0].partition->by, "month");
  ExpectAdviceAnswers(query, std::nullopt, *advice);
}

TEST_F(RollupAdviceTest, AnExactDistinctCountIsNamedWhenItCannotBeAnswered) {
  // Filtered by a member it does not group by: stored groups are finer than the query's.
  const json filtered = {
      {"measures", {"Order.customers", "Order.revenue"}},
      {"dimensions", {"Order.status"}},
      {"filters", {{{"member", "Customer.region"}, {"op", "equals"}, {"values", {"north"}}}}}};
  auto advice = Advise(filtered);
  ASSERT_TRUE(advice.ok()) << advice.error().ToString();
  EXPECT_FALSE(advice->answers);
  ASSERT_EQ(advice->unanswerable.size(), 1U);
  EXPECT_EQ(advice->unanswerable[0].member, "Order.customers");
  EXPECT_EQ(advice->unanswerable[0].reason, "not_additive");
  EXPECT_EQ(advice->rollups[0].measures, std::vector<std::string>{"revenue"});
  // Grouped exactly as stored, it is answered (one stored row per group).
  const json grouped = {{"measures", {"Order.customers"}}, {"dimensions", {"Order.status"}}};
  auto exact = Advise(grouped);
  ASSERT_TRUE(exact.ok() && exact->answers);
  ExpectAdviceAnswers(grouped, std::nullopt, *exact);
}

TEST_F(RollupAdviceTest, AQueryOverSeveralEntitiesGetsOneRollupPerEntity) {
  const json query = {{"measures", {"Order.revenue", "Ticket.ticket_count"}},
                      {"dimensions", {"Customer.region"}}};
  auto advice = Advise(query);
  ASSERT_TRUE(advice.ok() && advice->answers) << (advice.ok() ? "" : advice.error().ToString());
  ASSERT_EQ(advice->rollups.size(), 2U);
  EXPECT_EQ(advice->rollups[0].entity, "Order");
  EXPECT_EQ(advice->rollups[0].dimensions[0].path, "customer.region");
  EXPECT_EQ(advice->rollups[1].entity, "Ticket");
  ExpectAdviceAnswers(query, std::nullopt, *advice);
  // A distinct count cannot join across entities: nothing is proposed.
  auto distinct = Advise({{"measures", {"Order.customer_id_approx", "Ticket.ticket_count"}},
                          {"dimensions", {"Customer.region"}}});
  ASSERT_TRUE(distinct.ok());
  EXPECT_TRUE(distinct->rollups.empty());
  ASSERT_EQ(distinct->unanswerable.size(), 1U);
  EXPECT_EQ(distinct->unanswerable[0].reason, "distinct_across_entities");
}

TEST_F(RollupAdviceTest, ARowFilterMemberIsNeverAddedUnlessTheQueryNamesIt) {
  const json by_status = {{"measures", {"Order.revenue"}}, {"dimensions", {"Order.status"}}};
  auto advice = Advise(by_status, "north_analyst");
  ASSERT_TRUE(advice.ok());
  EXPECT_FALSE(advice->answers);
  ASSERT_EQ(advice->unanswerable.size(), 1U);
  EXPECT_EQ(advice->unanswerable[0].reason, "row_security");
  EXPECT_EQ(advice->unanswerable[0].member, "Order");
  const std::string text = AdviceJson(*advice).dump();
  EXPECT_EQ(text.find("region"), std::string::npos) << text;
  EXPECT_EQ(text.find("north"), std::string::npos) << text;
  // Named by the query, it is stored, and the role's queries are answered.
  const json by_region = {{"measures", {"Order.revenue"}},
                          {"dimensions", {"Order.status", "Customer.region"}}};
  auto named = Advise(by_region, "north_analyst");
  ASSERT_TRUE(named.ok() && named->answers);
  ExpectAdviceAnswers(by_region, "north_analyst", *named);
}

TEST_F(RollupAdviceTest, AMemberTheRoleMayNotReadIsRefused) {
  auto advice = Advise({{"measures", {"Ticket.ticket_count"}}}, "paid_orders_only");
  ASSERT_FALSE(advice.ok());
  EXPECT_EQ(advice.error().code, ErrorCode::kAccessDenied);
}

TEST_F(RollupAdviceTest, AZonedQueryGetsARollupInItsZone) {
  const json query = {{"measures", {"Order.revenue"}},
                      {"time_dimensions", {{{"dimension", "Order.order_date"}, {"grain", "day"}}}},
                      {"timezone", "America/New_York"}};
  auto advice = Advise(query);
  ASSERT_TRUE(advice.ok() && advice->answers);
  EXPECT_EQ(advice->rollups[0].timezone.name(), "America/New_York");
  EXPECT_NE(RollupsYaml(advice->rollups).find("timezone: America/New_York"), std::string::npos);
  ExpectAdviceAnswers(query, std::nullopt, *advice);
}

TEST_F(RollupAdviceTest, TheLoggedShapeHoldsNoValue) {
  const json query = {
      {"measures", {"Order.revenue"}},
      {"dimensions", {"Order.status"}},
      {"time_dimensions",
       {{{"dimension", "Order.order_date"},
         {"grain", "day"},
         {"range", {"2026-01-01", "2026-02-01"}}}}},
      {"filters",
       {{{"member", "Order.status"}, {"op", "equals"}, {"values", {"secret-status"}}},
        {{"or",
          {{{"member", "Order.amount"}, {"op", "gt"}, {"values", {123456}}},
           {{"member", "Order.loaded_at"}, {"op", "gte"}, {"values", {"2026-01-05"}}}}}}}}};
  auto parsed = semantic::ParseQueryJson(query.dump());
  ASSERT_TRUE(parsed.ok());
  const json shape = QueryShapeJson(model_, *parsed);
  const std::string text = shape.dump();
  for (const char* value : {"secret-status", "123456", "2026-01-01", "2026-02-01", "2026-01-05"}) {
    EXPECT_EQ(text.find(value), std::string::npos) << value << " in " << text;
  }
  EXPECT_EQ(shape["time_dimensions"][0]["range"], "month");
  EXPECT_EQ(shape["filters"][1]["or"][1]["aligned"], "week");
  // Read back, the shape plans as the query does and gets the same rollup (no build range).
  auto rebuilt = QueryFromShape(model_, shape);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().ToString();
  AdviseOptions options;
  options.now = kNow;
  options.build_range = false;
  auto from_shape = AdviseRollups(model_, *rebuilt, options);
  auto from_query = AdviseRollups(model_, *parsed, options);
  ASSERT_TRUE(from_shape.ok() && from_query.ok());
  EXPECT_EQ(RollupsYaml(from_shape->rollups), RollupsYaml(from_query->rollups));
}

TEST_F(RollupAdviceTest, TheLogAdviceRanksByTheLiveTimeItWouldSave) {
  const auto line = [&](const json& query, const std::string& role, int ms,
                        const std::string& rollup = "live") {
    auto parsed = semantic::ParseQueryJson(query.dump());
    EXPECT_TRUE(parsed.ok());
    return json{
        {"event", "request"},   {"api", "query"},   {"method", "POST"},
        {"route", "/v1/query"}, {"role", role},     {"status", 200},
        {"duration_ms", ms},    {"rollup", rollup}, {"query", QueryShapeJson(model_, *parsed)}}
        .dump();
  };
  const json by_status = {{"measures", {"Order.revenue"}}, {"dimensions", {"Order.status"}}};
  const json by_status_month = {
      {"measures", {"Order.order_count"}},
      {"dimensions", {"Order.status"}},
      {"time_dimensions", {{{"dimension", "Order.order_date"}, {"grain", "month"}}}}};
  const json tickets = {{"measures", {"Ticket.ticket_count"}}, {"dimensions", {"Ticket.channel"}}};
  std::ostringstream log;
  for (int i = 0; i < 3; ++i) log << line(by_status, "admin", 100) << "\n";
  log << line(by_status_month, "admin", 250) << "\n";
  log << line(tickets, "admin", 500) << "\n";
  log << line(tickets, "admin", 5, "monthly_order_summary") << "\n";  // not live: ignored
  log << "not json\n{\"event\":\"listening\"}\n";
  std::istringstream in(log.str());
  LogAdviceOptions options;
  options.now = kNow;
  options.top = 2;
  auto advice = AdviseFromLog(model_, in, options);
  ASSERT_TRUE(advice.ok()) << advice.error().ToString();
  EXPECT_EQ(advice->live_queries, 5);
  EXPECT_EQ(advice->live_ms, 1050);
  ASSERT_EQ(advice->rollups.size(), 2U);
  // The tickets rollup saves 500 ms; then by status (three queries, 300 ms) before by status
  // and month (250 ms), which does not store revenue and so answers only its own query.
  EXPECT_EQ(advice->rollups[0].rollup.entity, "Ticket");
  EXPECT_EQ(advice->rollups[0].live_ms, 500);
  EXPECT_EQ(advice->rollups[1].live_ms, 300);
  EXPECT_EQ(advice->rollups[1].queries, 3);
  const std::string yaml = LogAdviceJson(*advice)["yaml"].get<std::string>();
  EXPECT_NE(yaml.find("# would have answered 3 live queries"), std::string::npos) << yaml;

  // With sizes: a rollup storing half its entity's rows saves nothing (reading a stored row
  // costs kStoredRowCost warehouse rows) and is not proposed; the others save the rest.
  std::istringstream again(log.str());
  options.stored_share = [](const semantic::Rollup& rollup) -> std::optional<double> {
    return rollup.entity == "Ticket" ? 0.5 : 0.1;
  };
  auto sized = AdviseFromLog(model_, again, options);
  ASSERT_TRUE(sized.ok());
  ASSERT_EQ(sized->rollups.size(), 2U);
  EXPECT_EQ(sized->too_large, 1);
  EXPECT_EQ(sized->rollups[0].live_ms, 300);
  EXPECT_EQ(sized->rollups[0].saved_ms, 210);  // 300 * (1 - 3 * 0.1)
  EXPECT_EQ(sized->rollups[1].live_ms, 250);
  EXPECT_EQ(sized->rollups[1].stored_share, 0.1);
}

// Random queries over the example model, for random roles: whatever the advice says answers,
// does — from the advised rollups, with the live answer.
TEST_F(RollupAdviceTest, PropertyTheAdviceAnswersTheQuery) {
  std::mt19937 random(20261207);
  const std::vector<std::string> order_measures = {
      "revenue",    "order_count", "paid_revenue",  "avg_amount",         "min_amount",
      "max_amount", "customers",   "median_amount", "customer_id_approx", "average_order_value",
      "paid_share"};
  const std::vector<std::string> dimensions = {"Order.status", "Customer.region",
                                               "Customer.segment"};
  const std::vector<std::string> grains = {"day",     "week", "month",
                                           "quarter", "year", "fiscal_quarter"};
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"2026-01-01", "2026-04-01"}, {"2026-01-05", "2026-02-02"}, {"2026-02-01", "2026-06-01"}};
  const std::vector<std::optional<std::string>> roles = {std::nullopt, "admin", "north_analyst",
                                                         "paid_orders_only"};
  int answered = 0;
  int refused = 0, unanswerable = 0;
  for (int q = 0; q < 160; ++q) {
    json query = {{"measures", json::array()}, {"dimensions", json::array()}};
    for (const std::string& m : order_measures) {
      if (random() % 5 == 0) query["measures"].push_back("Order." + m);
    }
    if (query["measures"].empty()) query["measures"].push_back("Order.revenue");
    if (random() % 4 == 0) query["measures"].push_back("Ticket.ticket_count");
    for (const std::string& d : dimensions) {
      if (random() % 3 == 0) query["dimensions"].push_back(d);
    }
    if (random() % 3 != 0) {
      json time = {{"dimension", "Order.order_date"}, {"grain", grains[random() % grains.size()]}};
      if (random() % 2) {
        const auto& [from, to] = ranges[random() % ranges.size()];
        time["range"] = {from, to};
      }
      query["time_dimensions"] = json::array({time});
    }
    if (random() % 3 == 0) {
      query["filters"] = json::array(
          {{{"member", "Order.status"}, {"op", "equals"}, {"values", {"paid", "shipped"}}}});
    }
    if (random() % 4 == 0) query["timezone"] = "Europe/Berlin";
    const std::optional<std::string>& role = roles[random() % roles.size()];
    auto advice = Advise(query, role);
    if (!advice.ok()) {
      // Refused exactly when the query itself is (a role that may not read it, a fan-out).
      auto live = Ask(query, role, false);
      ASSERT_FALSE(live.ok()) << query.dump() << ": " << advice.error().ToString();
      EXPECT_EQ(advice.error().code, live.error().code) << query.dump();
      ++refused;
      continue;
    }
    if (!advice->answers) {
      for (const UnansweredMember& member : advice->unanswerable) {
        EXPECT_TRUE(member.reason == "not_additive" || member.reason == "row_security" ||
                    member.reason == "distinct_across_entities")
            << query.dump() << ": " << member.reason << " " << member.detail;
      }
      ++unanswerable;
      continue;
    }
    ++answered;
    ExpectAdviceAnswers(query, role, *advice);
  }
  EXPECT_GE(answered, 50) << "too few answerable queries for the property to mean much (" << refused
                          << " refused, " << unanswerable << " unanswerable)";
}

}  // namespace
}  // namespace strata::rollup
