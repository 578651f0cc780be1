// The client's HTTP behaviour against a loopback server that replays pages recorded from Trino
// 476 (tests/data/trino/): retries, cancellation, the transaction and session headers. What only
// a real coordinator can show (real queries, a real syntax error, START TRANSACTION) is in
// tests/trino/.
#include "warehouse/trino/trino_client.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace strata::warehouse::trino {
namespace {

using Json = nlohmann::json;

Json Recorded(const std::string& name) {
  std::ifstream in(std::string(STRATA_TRINO_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

// A loopback server; each test installs its handlers and reads what was requested.
class ReplayServer {
 public:
  ReplayServer() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ReplayServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  httplib::Server& server() { return server_; }
  void Log(const httplib::Request& request) {
    std::lock_guard lock(mutex_);
    requests_.push_back(request.method + " " + request.path);
    headers_.push_back(request.headers);
  }
  std::vector<std::string> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<httplib::Headers> headers() {
    std::lock_guard lock(mutex_);
    return headers_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> requests_;
  std::vector<httplib::Headers> headers_;
};

// A page of `recorded` whose nextUri (if any) points at `next_path` on `server`.
std::string PageText(Json page, ReplayServer& server, const std::string& next_path) {
  if (next_path.empty()) {
    page.erase("nextUri");
  } else {
    page["nextUri"] = server.url() + next_path;
  }
  return page.dump();
}

ClientSettings SettingsFor(const ReplayServer& server) {
  ClientSettings settings;
  settings.url = server.url();
  settings.user = "strata";
  settings.catalog = "iceberg";
  settings.schema = "a";
  settings.retry_seconds = 5;
  return settings;
}

TEST(TrinoClientTest, FollowsNextUriAndReadsRowsFromEveryPage) {
  ReplayServer replay;
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("queued_page.json"), replay, "/q/1"),
                         "application/json");
  });
  replay.server().Get("/q/1", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("types_page.json"), replay, "/q/2"), "application/json");
  });
  replay.server().Get("/q/2", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("finished_page.json"), replay, ""), "application/json");
  });
  Client client(SettingsFor(replay));
  auto result = client.Execute("SELECT ...");
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(result->row_count(), 1U);
  EXPECT_EQ(result->columns.size(), 16U);
  EXPECT_EQ((std::vector<std::string>{"POST /v1/statement", "GET /q/1", "GET /q/2"}),
            replay.requests());
  auto first = replay.headers().at(0);
  EXPECT_EQ(first.find("X-Trino-User")->second, "strata");
  EXPECT_EQ(first.find("X-Trino-Catalog")->second, "iceberg");
  EXPECT_EQ(first.find("X-Trino-Schema")->second, "a");
  EXPECT_EQ(first.find("X-Trino-Time-Zone")->second, "UTC");
  EXPECT_EQ(first.find("X-Trino-Client-Capabilities")->second, "PARAMETRIC_DATETIME");
  EXPECT_EQ(first.find("X-Trino-Transaction-Id")->second, "NONE");
  EXPECT_EQ(first.count("Authorization"), 0U);
}

TEST(TrinoClientTest, Answers503AreRetriedThenTheQueryRuns) {
  ReplayServer replay;
  std::atomic<int> posts{0};
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    if (++posts <= 2) {
      response.status = 503;
      return;
    }
    response.set_content(PageText(Recorded("insert_page.json"), replay, ""), "application/json");
  });
  Client client(SettingsFor(replay));
  auto result = client.Execute("INSERT ...");
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(result->rows_changed, 1);
  EXPECT_EQ(posts.load(), 3);
}

TEST(TrinoClientTest, RetriesEndWithARetryableConnectionError) {
  ReplayServer replay;
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.status = 502;
  });
  ClientSettings settings = SettingsFor(replay);
  settings.retry_seconds = 0.5;
  Client client(settings);
  auto result = client.Execute("SELECT 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_TRUE(result.error().retryable());
  EXPECT_GE(replay.requests().size(), 2U);
}

TEST(TrinoClientTest, ATrinoErrorPageIsItsCodedError) {
  ReplayServer replay;
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("queued_page.json"), replay, "/q/1"),
                         "application/json");
  });
  replay.server().Get("/q/1", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("syntax_error_page.json"), replay, ""),
                         "application/json");
  });
  Client client(SettingsFor(replay));
  auto result = client.Execute("SELEC 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseSyntax);
}

// The page a coordinator gives when its scheduler has no active worker (seen in CI when the
// test server's node had not yet announced itself): the recorded syntax-error page with the
// error of Trino's StandardErrorCode.NO_NODES_AVAILABLE.
Json NoNodesPage() {
  Json page = Recorded("syntax_error_page.json");
  page["error"] = Json{{"message", "No nodes available to run query"},
                       {"errorCode", 65541},
                       {"errorName", "NO_NODES_AVAILABLE"},
                       {"errorType", "INTERNAL_ERROR"}};
  return page;
}

TEST(TrinoClientTest, AStatementThatFoundNoNodesIsSubmittedAgain) {
  ReplayServer replay;
  std::atomic<int> posts{0};
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    if (++posts <= 2) {
      response.set_content(PageText(NoNodesPage(), replay, ""), "application/json");
      return;
    }
    response.set_content(PageText(Recorded("types_page.json"), replay, ""), "application/json");
  });
  Client client(SettingsFor(replay));
  auto result = client.Execute("SELECT ...");
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(result->row_count(), 1U);
  EXPECT_EQ(posts.load(), 3);
}

TEST(TrinoClientTest, NoNodesForLongerThanTheRetryTimeIsARetryableErrorWithAHint) {
  ReplayServer replay;
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(NoNodesPage(), replay, ""), "application/json");
  });
  ClientSettings settings = SettingsFor(replay);
  settings.retry_seconds = 0.5;
  Client client(settings);
  auto result = client.Execute("SELECT 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_TRUE(result.error().retryable());
  EXPECT_NE(result.error().message.find("NO_NODES_AVAILABLE"), std::string::npos);
  EXPECT_NE(result.error().hint.find("system.runtime.nodes"), std::string::npos);
  EXPECT_GE(replay.requests().size(), 2U);
}

TEST(TrinoClientTest, NoNodesInsideATransactionIsNotSubmittedAgain) {
  ReplayServer replay;
  std::atomic<int> posts{0};
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    if (++posts == 1) {
      response.set_header("X-Trino-Started-Transaction-Id", "tx-1");
      response.set_content(PageText(Recorded("finished_page.json"), replay, ""),
                           "application/json");
      return;
    }
    response.set_content(PageText(NoNodesPage(), replay, ""), "application/json");
  });
  Client client(SettingsFor(replay));
  ASSERT_TRUE(client.Execute("START TRANSACTION").ok());
  auto result = client.Execute("DELETE ...");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_EQ(posts.load(), 2);
}

TEST(TrinoClientTest, InterruptCancelsTheQueryOnTheServer) {
  ReplayServer replay;
  std::atomic<bool> deleted{false};
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("queued_page.json"), replay, "/q/1"),
                         "application/json");
  });
  replay.server().Get("/q/1", [&](const auto& request, auto& response) {
    replay.Log(request);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    response.set_content(PageText(Recorded("queued_page.json"), replay, "/q/1"),
                         "application/json");
  });
  replay.server().Delete("/q/1", [&](const auto& request, auto&) {
    replay.Log(request);
    deleted = true;
  });
  Client client(SettingsFor(replay));
  std::thread interrupter([&] {
    while (replay.requests().size() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    client.Interrupt();
  });
  auto result = client.Execute("SELECT forever");
  interrupter.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseInterrupted);
  EXPECT_TRUE(deleted.load());
}

TEST(TrinoClientTest, ASinkErrorStopsAndCancelsTheQuery) {
  ReplayServer replay;
  std::atomic<bool> deleted{false};
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    response.set_content(PageText(Recorded("types_page.json"), replay, "/q/1"), "application/json");
  });
  replay.server().Delete("/q/1", [&](const auto&, auto&) { deleted = true; });
  Client client(SettingsFor(replay));
  auto result = client.Run("SELECT ...", [](const auto&, auto&) -> Status {
    return MakeError(ErrorCode::kQueryInvalid, "too many rows");
  });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kQueryInvalid);
  EXPECT_TRUE(deleted.load());
}

TEST(TrinoClientTest, KeepsTheTransactionAndSessionTrinoHandsOver) {
  ReplayServer replay;
  std::atomic<int> posts{0};
  replay.server().Post("/v1/statement", [&](const auto& request, auto& response) {
    replay.Log(request);
    int n = ++posts;
    if (n == 1) response.set_header("X-Trino-Started-Transaction-Id", "tx-1");
    if (n == 2) response.set_header("X-Trino-Set-Session", "query_max_run_time=2h%201m");
    if (n == 3) response.set_header("X-Trino-Clear-Transaction-Id", "true");
    response.set_content(PageText(Recorded("finished_page.json"), replay, ""), "application/json");
  });
  ClientSettings settings = SettingsFor(replay);
  settings.session["join_distribution_type"] = "BROADCAST";
  Client client(settings);
  ASSERT_TRUE(client.Execute("START TRANSACTION").ok());
  EXPECT_TRUE(client.in_transaction());
  ASSERT_TRUE(client.Execute("SET SESSION query_max_run_time = '2h 1m'").ok());
  ASSERT_TRUE(client.Execute("COMMIT").ok());
  EXPECT_FALSE(client.in_transaction());
  ASSERT_TRUE(client.Execute("SELECT 1").ok());
  auto headers = replay.headers();
  ASSERT_EQ(headers.size(), 4U);
  EXPECT_EQ(headers[0].find("X-Trino-Transaction-Id")->second, "NONE");
  EXPECT_EQ(headers[1].find("X-Trino-Transaction-Id")->second, "tx-1");
  EXPECT_EQ(headers[2].find("X-Trino-Transaction-Id")->second, "tx-1");
  EXPECT_EQ(headers[3].find("X-Trino-Transaction-Id")->second, "NONE");
  std::vector<std::string> sessions;
  auto [begin, end] = headers[3].equal_range("X-Trino-Session");
  for (auto it = begin; it != end; ++it) sessions.push_back(it->second);
  std::sort(sessions.begin(), sessions.end());
  // cpp-httplib percent-decodes header values: "2h%201m" on the wire arrives as "2h 1m".
  EXPECT_EQ(
      (std::vector<std::string>{"join_distribution_type=BROADCAST", "query_max_run_time=2h 1m"}),
      sessions);
}

TEST(TrinoClientTest, ARefusedConnectionIsARetryableConnectionError) {
  // A port bound and closed again without listening: nothing accepts there.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  int port = ntohs(address.sin_port);
  close(fd);
  ClientSettings settings;
  settings.url = "http://127.0.0.1:" + std::to_string(port);
  settings.user = "strata";
  Client client(settings);
  auto result = client.Execute("SELECT 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseConnection);
  EXPECT_NE(result.error().hint.find("[warehouse] url"), std::string::npos);
}

TEST(TrinoClientTest, AServerThatNeverAnswersTimesOutAsAConnectionError) {
  ReplayServer replay;
  replay.server().Post("/v1/statement", [&](const auto& request, auto&) {
    replay.Log(request);
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  });
  ClientSettings settings = SettingsFor(replay);
  settings.request_timeout_seconds = 1;
  Client client(settings);
  auto result = client.Execute("SELECT 1");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kWarehouseConnection);
}

TEST(TrinoClientTest, SettingsProblemsAreConfigErrorsNamingTheKey) {
  ClientSettings good;
  good.url = "https://trino.example.com:8443";
  good.user = "strata";
  good.password = "secret";
  EXPECT_FALSE(SettingsProblem(good).has_value());

  ClientSettings plain = good;
  plain.url = "http://127.0.0.1:8080";
  auto problem = SettingsProblem(plain);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->code, ErrorCode::kConfig);
  EXPECT_NE(problem->message.find("password_env"), std::string::npos);

  for (const char* url :
       {"127.0.0.1:8080", "http://", "http://host/path", "ftp://host", "http://user@host"}) {
    ClientSettings bad = good;
    bad.password.reset();
    bad.url = url;
    ASSERT_TRUE(SettingsProblem(bad).has_value()) << url;
  }
  ClientSettings no_user = good;
  no_user.user.clear();
  EXPECT_TRUE(SettingsProblem(no_user).has_value());
  ClientSettings bad_property = good;
  bad_property.session["x; y"] = "1";
  EXPECT_TRUE(SettingsProblem(bad_property).has_value());
}

}  // namespace
}  // namespace strata::warehouse::trino
