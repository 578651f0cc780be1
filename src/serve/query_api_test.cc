// QueryApi without sockets: routes and their statuses, authentication against a fixed clock,
// roles, and that POST /v1/query answers exactly what query::Answer answers (the transport only
// translates). Over the example model and its small DuckDB tables.
#include "serve/query_api.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "query/query_engine.h"
#include "rollup/builder.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "serve/jwt.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::serve {
namespace {

using nlohmann::json;

constexpr std::string_view kSecret = "query-api-test-secret-32-bytes-long";
constexpr UnixSeconds kNow = 1'800'000'000;

std::string TokenFor(const std::string& claims) {
  return "Bearer " + SignHs256(R"({"alg":"HS256","typ":"JWT"})", "{" + claims + "}", kSecret);
}

class QueryApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("strata_query_api_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    {
      auto warehouse = warehouse::OpenDuckDb((root_ / "w.duckdb").string());
      ASSERT_TRUE(warehouse.ok());
      auto connection = (*warehouse)->Connect();
      ASSERT_TRUE(connection.ok());
      ASSERT_TRUE((*connection)->Execute(semantic::testing::kExampleTablesSql).ok());
    }
    project_.root = root_;
    project_.rollup_store_dir = root_ / "store";
    warehouse_.name = "default";
    warehouse_.type = "duckdb";
    warehouse_.path = "w.duckdb";
    auto outcome = semantic::LoadSemanticModel(
        {{"semantic/model.yml", semantic::testing::kExampleModelYaml}}, sql::Dialect::kDuckDb, 4);
    ASSERT_TRUE(outcome.errors.empty());
    model_ = std::move(*outcome.model);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::unique_ptr<QueryApi> Api(const project::WarehouseConfig* warehouse = nullptr) {
    return std::make_unique<QueryApi>(Config(warehouse));
  }
  ApiConfig Config(const project::WarehouseConfig* warehouse = nullptr) {
    ApiConfig config;
    config.project = &project_;
    config.warehouse = warehouse != nullptr ? warehouse : &warehouse_;
    config.model = &model_;
    config.jwt_secret = std::string(kSecret);
    config.clock = &clock_;
    return config;
  }

  static ApiRequest Request(std::string method, std::string path, std::string authorization = "",
                            std::string body = "") {
    ApiRequest request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.authorization = std::move(authorization);
    request.body = std::move(body);
    request.received_millis = MonotonicMillis();
    return request;
  }

  static std::string CodeOf(const ApiResponse& response) {
    return json::parse(response.body)["error"]["code"].get<std::string>();
  }

  std::filesystem::path root_;
  project::ProjectConfig project_;
  project::WarehouseConfig warehouse_;
  semantic::SemanticModel model_;
  FixedClock clock_{kNow};
};

TEST_F(QueryApiTest, UnknownRoutesAndControlRoutesAre404) {
  auto api = Api();
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"POST", "/v1/hooks/rollups/rebuild"},
                                                        {"GET", "/v1/rollups"},
                                                        {"GET", "/v1/rollups/jobs/1"},
                                                        {"GET", "/playground/none.js"},
                                                        {"POST", "/v1/query/"}}) {
    SCOPED_TRACE(method + " " + path);
    const ApiResponse response = api->Handle(Request(method, path, TokenFor(R"("role":"admin")")));
    EXPECT_EQ(response.status, 404);
    EXPECT_EQ(CodeOf(response), "RouteNotFound");
    EXPECT_FALSE(json::parse(response.body)["error"]["hint"].is_null());
  }
}

TEST_F(QueryApiTest, ThePlaygroundIsServedUnlessTurnedOff) {
  auto api = Api();
  EXPECT_EQ(api->Handle(Request("POST", "/")).status, 405);
  ApiConfig config = Config();
  config.limits.playground = false;
  QueryApi off(config);
  for (const char* path : {"/", "/playground/index.html"}) {
    const ApiResponse response = off.Handle(Request("GET", path));
    EXPECT_EQ(response.status, 404) << path;
    EXPECT_EQ(CodeOf(response), "RouteNotFound");
  }
}

TEST_F(QueryApiTest, AnotherMethodIs405WithAllow) {
  auto api = Api();
  const ApiResponse get_query = api->Handle(Request("GET", "/v1/query"));
  EXPECT_EQ(get_query.status, 405);
  EXPECT_EQ(get_query.allow, "POST");
  EXPECT_EQ(CodeOf(get_query), "MethodNotAllowed");
  EXPECT_EQ(api->Handle(Request("DELETE", "/v1/meta")).status, 405);
  EXPECT_EQ(api->Handle(Request("HEAD", "/healthz")).status, 200);
}

TEST_F(QueryApiTest, HealthAndReadinessNeedNoToken) {
  auto api = Api();
  EXPECT_EQ(api->Handle(Request("GET", "/healthz")).status, 200);
  EXPECT_EQ(api->Handle(Request("GET", "/readyz")).status, 200);
  project::WarehouseConfig missing = warehouse_;
  missing.path = "missing.duckdb";
  auto unready = Api(&missing);
  const ApiResponse response = unready->Handle(Request("GET", "/readyz"));
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(CodeOf(response), "WarehouseConnection");
  // Without [serve] expose_sql the warehouse's own text (its file here) is for the log only.
  EXPECT_EQ(response.body.find("missing.duckdb"), std::string::npos) << response.body;
  ASSERT_TRUE(response.detail.has_value());
  EXPECT_NE(response.detail->find("missing.duckdb"), std::string::npos) << *response.detail;
  EXPECT_EQ(unready->Handle(Request("GET", "/healthz")).status, 200);
}

TEST_F(QueryApiTest, QueryAnswersWhatQueryAnswerAnswers) {
  auto api = Api();
  const std::string query =
      R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"],
          "order": [{"member": "Customer.region"}]})";
  const ApiResponse response =
      api->Handle(Request("POST", "/v1/query", TokenFor(R"("role":"north_analyst")"), query));
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(response.role, "north_analyst");
  EXPECT_EQ(response.rollup, "live");

  auto warehouse =
      warehouse::OpenDuckDb((root_ / "w.duckdb").string(), warehouse::AccessMode::kReadOnly);
  ASSERT_TRUE(warehouse.ok());
  auto connection = (*warehouse)->Connect();
  ASSERT_TRUE(connection.ok());
  auto direct = query::AnswerQuery(model_, **connection, sql::Dialect::kDuckDb, query,
                                   {std::string("north_analyst"), std::nullopt});
  ASSERT_TRUE(direct.ok()) << direct.error().ToString();
  const json body = json::parse(response.body);
  const json expected = json::parse(direct->ToJson().dump());
  EXPECT_EQ(body["columns"], expected["columns"]);
  EXPECT_EQ(body["rows"], expected["rows"]);
  // The role's row filter applied: only the north region.
  ASSERT_EQ(body["rows"].size(), 1U);
  EXPECT_EQ(body["rows"][0][0], "north");
}

TEST_F(QueryApiTest, TokensAreCheckedAgainstTheClock) {
  auto api = Api();
  const std::string query = R"({"measures": ["Order.revenue"]})";
  auto status_with = [&](const std::string& authorization) {
    return api->Handle(Request("POST", "/v1/query", authorization, query)).status;
  };
  EXPECT_EQ(status_with(""), 401);
  EXPECT_EQ(status_with("Basic YWRtaW46YWRtaW4="), 401);
  EXPECT_EQ(status_with(TokenFor(R"("role":"admin","exp":)" + std::to_string(kNow - 60))), 401);
  EXPECT_EQ(status_with(TokenFor(R"("role":"admin","nbf":)" + std::to_string(kNow + 60))), 401);
  EXPECT_EQ(status_with(TokenFor(R"("sub":"admin")")), 401);
  EXPECT_EQ(status_with(TokenFor(R"("role":"admin","exp":)" + std::to_string(kNow + 60))), 200);
  clock_.Set(kNow + 120);
  EXPECT_EQ(status_with(TokenFor(R"("role":"admin","exp":)" + std::to_string(kNow + 60))), 401);
}

TEST_F(QueryApiTest, RolesAreRefusedWith403AndBadQueriesWith400) {
  auto api = Api();
  const ApiResponse unknown = api->Handle(Request(
      "POST", "/v1/query", TokenFor(R"("role":"guest")"), R"({"measures": ["Order.revenue"]})"));
  EXPECT_EQ(unknown.status, 403);
  EXPECT_EQ(CodeOf(unknown), "AccessDenied");
  const ApiResponse denied =
      api->Handle(Request("POST", "/v1/query", TokenFor(R"("role":"paid_orders_only")"),
                          R"({"measures": ["Ticket.ticket_count"]})"));
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(CodeOf(denied), "AccessDenied");
  for (const char* body : {"", "{", R"({"measures": ["Order.revnue"]})", "[1]"}) {
    SCOPED_TRACE(body);
    const ApiResponse bad =
        api->Handle(Request("POST", "/v1/query", TokenFor(R"("role":"admin")"), body));
    EXPECT_EQ(bad.status, 400);
    EXPECT_EQ(CodeOf(bad), "QueryInvalid");
  }
}

TEST_F(QueryApiTest, MetaListsWhatTheTokensRoleMayRead) {
  auto api = Api();
  const ApiResponse meta =
      api->Handle(Request("GET", "/v1/meta", TokenFor(R"("role":"paid_orders_only")")));
  ASSERT_EQ(meta.status, 200) << meta.body;
  const json body = json::parse(meta.body);
  ASSERT_EQ(body["entities"].size(), 1U);
  EXPECT_EQ(body["entities"][0]["name"], "Order");
  EXPECT_EQ(body["data_roles"], json::array({"paid_orders_only"}));
  EXPECT_EQ(api->Handle(Request("GET", "/v1/meta")).status, 401);
  EXPECT_EQ(api->Handle(Request("GET", "/v1/meta", TokenFor(R"("role":"guest")"))).status, 403);
}

// [serve] expose_sql = false (the default): no meta.sql, no table in GET /v1/meta, and a
// warehouse failure answered by code and members, its text (without the row filter's value)
// for the log only. expose_sql = true: the answer `strata query` gives.
TEST_F(QueryApiTest, WithoutExposeSqlNothingNamesHowTheModelIsStored) {
  const std::string north = TokenFor(R"("role":"north_analyst")");
  const std::string query = R"({"measures": ["Ticket.ticket_count"]})";
  auto hidden = Api();
  ASSERT_FALSE(Config().limits.expose_sql);
  const ApiResponse answer = hidden->Handle(Request("POST", "/v1/query", north, query));
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_FALSE(json::parse(answer.body)["meta"].contains("sql")) << answer.body;
  const ApiResponse meta = hidden->Handle(Request("GET", "/v1/meta", north));
  ASSERT_EQ(meta.status, 200);
  EXPECT_EQ(meta.body.find("raw."), std::string::npos) << meta.body;
  {
    auto warehouse = warehouse::OpenDuckDb((root_ / "w.duckdb").string());
    ASSERT_TRUE(warehouse.ok());
    auto connection = (*warehouse)->Connect();
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE((*connection)->Execute("ALTER TABLE raw.tickets RENAME TO tickets_gone").ok());
  }
  ApiConfig exposed_config = Config();
  exposed_config.limits.expose_sql = true;
  auto failing = Api();
  const ApiResponse failed = failing->Handle(Request("POST", "/v1/query", north, query));
  EXPECT_EQ(failed.status, 502) << failed.body;
  EXPECT_EQ(failed.error_code, "WarehouseCatalog");
  EXPECT_EQ(failed.body.find("tickets"), std::string::npos) << failed.body;
  EXPECT_EQ(failed.body.find("'north'"), std::string::npos) << failed.body;
  EXPECT_NE(failed.body.find("Ticket.ticket_count"), std::string::npos) << failed.body;
  ASSERT_TRUE(failed.reference && failed.detail);
  EXPECT_NE(failed.body.find(*failed.reference), std::string::npos);
  EXPECT_NE(failed.detail->find("tickets"), std::string::npos) << *failed.detail;
  EXPECT_EQ(failed.detail->find("north"), std::string::npos) << *failed.detail;
  QueryApi exposed(exposed_config);
  const ApiResponse with_sql =
      exposed.Handle(Request("POST", "/v1/query", north, R"({"measures": ["Order.revenue"]})"));
  ASSERT_EQ(with_sql.status, 200) << with_sql.body;
  EXPECT_NE(json::parse(with_sql.body)["meta"]["sql"].get<std::string>().find("'north'"),
            std::string::npos);
  const ApiResponse shown = exposed.Handle(Request("POST", "/v1/query", north, query));
  EXPECT_EQ(shown.status, 502);
  EXPECT_NE(shown.body.find("tickets"), std::string::npos) << shown.body;
  EXPECT_FALSE(shown.detail.has_value());
  EXPECT_NE(exposed.Handle(Request("GET", "/v1/meta", north)).body.find("raw.orders"),
            std::string::npos);
}

// The rows and meta of a POST /v1/query body, without meta.duration_ms.
json WithoutDurationMs(const std::string& body) {
  json document = json::parse(body);
  document["meta"].erase("duration_ms");
  return document;
}

TEST_F(QueryApiTest, RollupAnswersAreCachedUntilARollupIsPublishedAgain) {
  auto warehouse = warehouse::OpenDuckDb((root_ / "w.duckdb").string());
  ASSERT_TRUE(warehouse.ok());
  auto engine = warehouse::OpenDuckDbEngine({});
  ASSERT_TRUE(engine.ok());
  const rollup::RollupStore store(project_.rollup_store_dir);
  // Built as of 2026-07-01: the build_range (365 days) holds every order, whatever today is.
  FixedClock built_at{1'782'864'000};
  const auto build = [&] {
    rollup::BuildOptions options;
    options.full = true;
    options.clock = &built_at;
    auto report = rollup::BuildRollups(model_, **warehouse, **engine, store, options);
    ASSERT_TRUE(report.ok() && report->ok());
  };
  build();
  ApiConfig config = Config();
  config.open_warehouse = [&]() -> Result<warehouse::Warehouse*> { return warehouse->get(); };
  QueryApi api(config);
  const std::string admin = TokenFor(R"("role":"admin")");
  // Inside the rollup's build_range and before its live tail (the month it was built in).
  const std::string query = R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
      "time_dimensions": [{"dimension": "Order.order_date", "range": ["2026-01-01", "2026-06-30"]}],
      "order": [{"member": "Order.status"}]})";
  const auto ask = [&](const std::string& token, const std::string& body) {
    return api.Handle(Request("POST", "/v1/query", token, body));
  };
  const ApiResponse first = ask(admin, query);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.rollup, "monthly_order_summary") << first.body;
  EXPECT_EQ(first.cache, "miss");
  // The same query written otherwise is the same entry, answered with the same rows and meta.
  const ApiResponse again = ask(admin, R"({"order":[{"member":"Order.status"}],
      "time_dimensions":[{"range":["2026-01-01","2026-06-30"],"dimension":"Order.order_date"}],
      "dimensions":["Order.status"],"measures":["Order.revenue"]})");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.cache, "hit");
  EXPECT_EQ(again.rollup, "monthly_order_summary");
  EXPECT_EQ(again.role, "admin");
  EXPECT_EQ(WithoutDurationMs(again.body), WithoutDurationMs(first.body));
  EXPECT_TRUE(json::parse(again.body)["meta"]["duration_ms"].is_number());
  // Another role has its own entry, with its row filter applied.
  const ApiResponse north = ask(TokenFor(R"("role":"north_analyst")"), query);
  ASSERT_EQ(north.status, 200) << north.body;
  EXPECT_EQ(north.cache, "miss");
  EXPECT_NE(json::parse(north.body)["rows"], json::parse(first.body)["rows"]);

  // New data, then a rebuild: the next answer is the new one, never the cached one.
  auto connection = (*warehouse)->Connect();
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE((*connection)->Execute("UPDATE raw.orders SET amount = amount * 3").ok());
  const ApiResponse before_rebuild = ask(admin, query);
  EXPECT_EQ(before_rebuild.cache, "hit");  // the rollup still holds what it held
  build();
  const ApiResponse rebuilt = ask(admin, query);
  ASSERT_EQ(rebuilt.status, 200) << rebuilt.body;
  EXPECT_EQ(rebuilt.cache, "miss");
  auto live = query::AnswerQuery(model_, **connection, sql::Dialect::kDuckDb, query, {});
  ASSERT_TRUE(live.ok()) << live.error().ToString();
  EXPECT_EQ(json::parse(rebuilt.body)["rows"], json::parse(live->ToJson().dump())["rows"]);
  EXPECT_NE(json::parse(rebuilt.body)["rows"], json::parse(first.body)["rows"]);
  EXPECT_EQ(ask(admin, query).cache, "hit");

  // An answer that read the live tail (the month the rollup was built in) from the warehouse,
  // live answers (no rollup of Ticket) and refusals are never stored.
  const std::string with_tail = R"({"measures": ["Order.revenue"],
      "time_dimensions": [{"dimension": "Order.order_date", "range": ["2026-01-01", "2026-07-31"]}]})";
  const ApiResponse tail = ask(admin, with_tail);
  ASSERT_EQ(tail.status, 200) << tail.body;
  EXPECT_EQ(tail.rollup, "monthly_order_summary");
  EXPECT_EQ(json::parse(tail.body)["meta"]["rollup"]["live_tail"], true) << tail.body;
  EXPECT_EQ(tail.cache, "bypass");
  EXPECT_EQ(ask(admin, with_tail).cache, "bypass");
  const std::string tickets = R"({"measures": ["Ticket.ticket_count"]})";
  EXPECT_EQ(ask(admin, tickets).cache, "bypass");
  EXPECT_EQ(ask(admin, tickets).cache, "bypass");
  EXPECT_EQ(ask(admin, R"({"measures": ["Order.nope"]})").status, 400);
  const ResultCache::Stats stats = api.CacheStats();
  EXPECT_EQ(stats.hits, 3U);
  EXPECT_EQ(stats.stale, 1U);
  EXPECT_EQ(stats.entries, 2U);

  // result_cache_bytes = 0: every answer is computed.
  config.limits.result_cache_bytes = 0;
  QueryApi uncached(config);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(uncached.Handle(Request("POST", "/v1/query", admin, query)).cache, "off");
  }
}

TEST_F(QueryApiTest, TheEngineSharesDuckDbsCoresWithTheWorkers) {
  auto defaults = warehouse::OpenDuckDbEngine({});
  ASSERT_TRUE(defaults.ok());
  auto connection = (*defaults)->Connect();
  ASSERT_TRUE(connection.ok());
  auto threads = (*connection)->Execute("SELECT CAST(current_setting('threads') AS BIGINT)");
  ASSERT_TRUE(threads.ok());
  const auto cores = static_cast<unsigned>(std::get<std::int64_t>(threads->columns[0].values[0]));
  for (const std::uint32_t workers : {1U, 256U}) {
    ApiConfig config = Config();
    config.limits.max_concurrent_queries = workers;
    const QueryApi api(config);
    EXPECT_EQ(api.engine_threads(), EngineThreadsFor(cores, workers)) << workers;
  }
}

TEST(EngineThreadsForTest, TheCoresAreSharedByTheConcurrentQueries) {
  EXPECT_EQ(EngineThreadsFor(2, 4), 1);  // more queries than cores: one thread each
  EXPECT_EQ(EngineThreadsFor(4, 4), 1);
  // 4 calling threads and 12 background workers: 16 threads when every worker is busy.
  EXPECT_EQ(EngineThreadsFor(16, 4), 13);
  EXPECT_EQ(EngineThreadsFor(8, 1), 8);  // one query at a time gets every core
  EXPECT_EQ(EngineThreadsFor(0, 1), 1);  // cores unknown
  EXPECT_EQ(EngineThreadsFor(4, 256), 1);
}

TEST(HttpStatusOfTest, WarehouseFailuresAre502AndTheRestFollowTheCatalogue) {
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kWarehouseCatalog, "x")), 502);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kWarehouse, "x")), 502);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kWarehouseConnection, "x")), 503);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kQueryInvalid, "x")), 400);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kUnauthenticated, "x")), 401);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kAccessDenied, "x")), 403);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kOverloaded, "x")), 503);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kRequestTooLarge, "x")), 413);
  EXPECT_EQ(HttpStatusOf(MakeError(ErrorCode::kInternal, "x")), 500);
}

}  // namespace
}  // namespace strata::serve
