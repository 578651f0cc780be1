// Rollup-hit queries over `strata serve` against one `strata query` process per query.
//
//   build/bench/serve/serve_bench build/src/cli/strata [--http 2000] [--cli 40] [--clients 4]
//                                 [--wrk 10] [--connections 16]
//
// Builds the small project of tests/e2e/test_serve.py in a temp folder (600 orders in DuckDB, the
// rollup daily_orders built), starts `strata serve --port 0` on it (the JWT secret in
// STRATA_E2E_JWT_SECRET, an HS256 token signed here with OpenSSL's HMAC) and times, for one
// rollup-hit query (revenue by status, answered from daily_orders: meta.rollup.used is checked on
// every answer):
//
//   http_1     --http requests one after another on one keep-alive connection (httplib::Client)
//   http_N     the same number spread over --clients threads, one keep-alive connection each
//   cli        --cli runs of `strata query --output json` (a process per query: start, load the
//              project and model, open the engine, answer, exit), after the server has stopped
//
// It prints requests/s for each and the ratios http_1/cli, http_N/cli and http_N/http_1, and
// exits 1 on any wrong answer. A baseline in the same run, as every benchmark here (current
// figures: docs/benchmarks.md's table; every run: docs/benchmarks-history.md, "10. The query
// port"); absolute numbers on a shared 2-core machine are noise. This
// is a latency/overhead comparison, not the issue's load test (wrk and 16 clients), which
// follows it; the wrk runs also print the server's CPU time per request (/proc/PID/stat),
// steadier than the rate on a shared machine, and its resident memory after the run (VmRSS).
#include <duckdb.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSecretEnv = "STRATA_E2E_JWT_SECRET";
constexpr const char* kSecret = "e2e-serve-secret-that-is-long-enough-0123456789";
constexpr const char* kRollup = "daily_orders";
constexpr const char* kQuery = R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})";
constexpr int kWarmRequests = 50;
constexpr int kStartTimeoutSeconds = 60;
constexpr std::size_t kKeptLogLines = 40;

// tests/e2e/test_serve.py's MODEL_YAML, verbatim.
constexpr const char* kModelYaml = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: order_date, type: time, sql: order_at }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: customers, agg: count_distinct, sql: customer_id }
    metrics:
      - { name: average_order_value, expr: revenue / order_count }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: region, type: string }
      - { name: segment, type: string }
    measures:
      - { name: customer_count, agg: count }
  - name: Slow
    table: raw.slow
    primary_key: id
    dimensions:
      - { name: id, type: number }
      - { name: bucket, type: number }
    measures:
      - { name: digest_sum, agg: sum, sql: digest }
  - name: Endless
    table: raw.endless
    dimensions:
      - { name: bucket, type: number }
    measures:
      - { name: digest_sum, agg: sum, sql: digest }

rollups:
  - name: daily_orders
    entity: Order
    dimensions:
      - status
      - { name: order_date, grain: day }
      - customer.region
    measures: [revenue, order_count]
    partition:
      by: month

data_roles:
  - name: admin
    access: all
  - name: north_analyst
    access:
      - { entity: Order, row_filter: { member: customer.region, op: equals, values: [north] } }
      - { entity: Customer, row_filter: { member: region, op: equals, values: [north] } }
  - name: paid_only
    access:
      - { entity: Order, row_filter: { member: status, op: equals, values: [paid] } }
)";

// tests/e2e/test_serve.py's make_warehouse: 30 customers, 600 orders, the slow and endless views
// (defined, never queried here).
constexpr const char* kWarehouseSql[] = {
    "CREATE SCHEMA raw",
    "CREATE TABLE raw.customers (customer_id INTEGER, region VARCHAR, segment VARCHAR)",
    "INSERT INTO raw.customers SELECT c, ['north', 'south', 'east'][1 + c % 3], "
    "CASE WHEN c % 2 = 1 THEN 'smb' ELSE 'enterprise' END FROM range(1, 31) t(c)",
    "CREATE TABLE raw.orders (order_id INTEGER, customer_id INTEGER, status VARCHAR, "
    "amount DECIMAL(12, 2), order_at TIMESTAMP)",
    "INSERT INTO raw.orders SELECT i, 1 + (i * 7) % 30, ['paid', 'shipped', 'refunded'][1 + i % "
    "3], "
    "CAST(10 + (i * 37) % 500 AS DECIMAL(12, 2)) / 4, "
    "TIMESTAMP '2026-01-01' + INTERVAL (i * 7) HOUR FROM range(1, 601) t(i)",
    "CREATE VIEW raw.slow AS SELECT r AS id, r % 3 AS bucket, "
    "hash(md5(CAST(r AS VARCHAR))) % 1000 AS digest FROM range(10000000) t(r)",
    "CREATE VIEW raw.endless AS SELECT r % 3 AS bucket, "
    "hash(md5(CAST(r AS VARCHAR))) % 1000 AS digest FROM range(100000000000) t(r)",
};

struct Options {
  std::string strata;
  int http = 2000;
  int cli = 40;
  int clients = 4;
  int wrk_seconds = 10;  // 0: no wrk runs
  int connections = 16;  // wrk's
};

Options ParseArgs(int argc, char** argv) {
  const std::string usage =
      "usage: serve_bench STRATA_BIN [--http 2000] [--cli 40] [--clients 4] [--wrk 10] "
      "[--connections 16]";
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 && options.strata.empty()) {
      options.strata = fs::absolute(arg).string();
      continue;
    }
    if (i + 1 >= argc) throw std::runtime_error(usage);
    const int value = std::stoi(argv[++i]);
    if (arg == "--http") {
      options.http = value;
    } else if (arg == "--cli") {
      options.cli = value;
    } else if (arg == "--clients") {
      options.clients = value;
    } else if (arg == "--wrk") {
      options.wrk_seconds = value;
    } else if (arg == "--connections") {
      options.connections = value;
    } else {
      throw std::runtime_error(usage);
    }
  }
  if (options.strata.empty() || options.http < 1 || options.cli < 1 || options.clients < 1 ||
      options.wrk_seconds < 0 || options.connections < 1) {
    throw std::runtime_error(usage);
  }
  return options;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Timed(const std::function<void()>& function) {
  const Clock::time_point started = Clock::now();
  function();
  return SecondsSince(started);
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// ----- the project
// --------------------------------------------------------------------------------

void MakeWarehouse(const fs::path& path) {
  duckdb_database database = nullptr;
  duckdb_connection connection = nullptr;
  if (duckdb_open(path.c_str(), &database) == DuckDBError) {
    throw std::runtime_error("cannot open " + path.string());
  }
  duckdb_connect(database, &connection);
  std::string error;
  for (const char* sql : kWarehouseSql) {
    duckdb_result result;
    if (duckdb_query(connection, sql, &result) == DuckDBError) {
      error = std::string(duckdb_result_error(&result)) + "\n" + sql;
    }
    duckdb_destroy_result(&result);
    if (!error.empty()) break;
  }
  duckdb_disconnect(&connection);
  duckdb_close(&database);
  if (!error.empty()) throw std::runtime_error("warehouse: " + error);
}

// The project's strata.toml; `cache_bytes` is [serve] result_cache_bytes (0: no result cache).
std::string StrataToml(long cache_bytes) {
  return fmt::format(
      "[project]\nname = \"serve\"\n\n[warehouse]\ntype = \"duckdb\"\npath = "
      "\"warehouse.duckdb\"\n\n[serve]\njwt_secret_env = \"{}\"\nmax_concurrent_queries = 4\n"
      "max_queued_queries = 64\nresult_cache_bytes = {}\n",
      kSecretEnv, cache_bytes);
}

// ----- child processes
// ----------------------------------------------------------------------------

std::vector<char*> CArgs(const std::vector<std::string>& args) {
  std::vector<char*> pointers;
  pointers.reserve(args.size() + 1);
  // posix_spawn takes char* const*; the strings outlive the call and are not written.
  for (const std::string& arg : args) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// The environment of this process plus the JWT secret (which the server reads).
std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
  env.push_back(std::string(kSecretEnv) + "=" + kSecret);
  return env;
}

// Spawns `args` with `out_fd` as its stdout and `err_fd` as its stderr (-1: /dev/null).
pid_t Spawn(const std::vector<std::string>& args, int out_fd, int err_fd,
            const std::vector<std::string>& env) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  for (const auto& [fd, target] : {std::pair{out_fd, STDOUT_FILENO}, {err_fd, STDERR_FILENO}}) {
    if (fd < 0) {
      posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0);
    } else {
      posix_spawn_file_actions_adddup2(&actions, fd, target);
    }
  }
  std::vector<char*> argv = CArgs(args);
  std::vector<char*> envp = CArgs(env);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start " + args[0] + ": " + strerror(error));
  return pid;
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[65536];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs `args` to the end and returns its stdout; throws on a non-zero exit.
std::string RunCaptured(const std::vector<std::string>& args) {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe");
  const pid_t pid = Spawn(args, out[1], -1, ChildEnvironment());
  close(out[1]);
  std::string text = ReadAll(out[0]);
  close(out[0]);
  const int code = Wait(pid);
  if (code != 0) throw std::runtime_error(fmt::format("{} {} exited {}", args[0], args[1], code));
  return text;
}

// Throws unless `body` is an answer from the rollup; returns its meta.duration_ms (the time the
// server spent in query::Answer).
double CheckAnswer(const std::string& body) {
  const nlohmann::json answer = nlohmann::json::parse(body, nullptr, false);
  const nlohmann::json::json_pointer used("/meta/rollup/used");
  if (answer.is_discarded() || !answer.contains(used) || answer.at(used) != kRollup) {
    throw std::runtime_error("not answered from " + std::string(kRollup) + ": " +
                             body.substr(0, 400));
  }
  return answer.at("meta").at("duration_ms").get<double>();
}

// ----- the server
// ---------------------------------------------------------------------------------

// `strata serve --port 0` on a project; the port comes from the "listening" log line. Its stderr
// (the access log) is drained by a thread so the server never blocks on a full pipe.
class Server {
 public:
  Server(const std::string& strata, const fs::path& root) {
    int err[2];
    if (pipe(err) != 0) throw std::runtime_error("pipe");
    pid_ = Spawn({strata, "serve", "--project", root.string(), "--port", "0"}, -1, err[1],
                 ChildEnvironment());
    close(err[1]);
    reader_ = std::thread([this, fd = err[0]] { Read(fd); });
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() { Stop(); }

  pid_t pid() const { return pid_; }

  // Waits for the "listening" line; throws if the server exits or takes too long.
  int WaitForPort() {
    std::unique_lock lock(mutex_);
    const bool ready = changed_.wait_for(lock, std::chrono::seconds(kStartTimeoutSeconds),
                                         [this] { return port_.has_value() || closed_; });
    if (!ready || !port_) throw std::runtime_error("strata serve did not start:\n" + Lines());
    return *port_;
  }

  // SIGTERM, then waits for the drain and the exit; returns the exit code (once).
  int Stop() {
    if (pid_ <= 0) return 0;
    kill(pid_, SIGTERM);
    const int code = Wait(pid_);
    pid_ = 0;
    reader_.join();
    return code;
  }

 private:
  void Read(int fd) {
    std::string pending;
    char buffer[65536];
    ssize_t n = 0;
    while ((n = read(fd, buffer, sizeof buffer)) > 0) {
      pending.append(buffer, static_cast<size_t>(n));
      std::size_t newline = 0;
      while ((newline = pending.find('\n')) != std::string::npos) {
        OnLine(pending.substr(0, newline));
        pending.erase(0, newline + 1);
      }
    }
    close(fd);
    const std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

  void OnLine(const std::string& line) {
    const std::lock_guard lock(mutex_);
    lines_.push_back(line);
    if (lines_.size() > kKeptLogLines) lines_.pop_front();
    if (port_) return;
    const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    if (event.is_object() && event.value("event", "") == "listening") {
      port_ = event.at("port").get<int>();
      changed_.notify_all();
    }
  }

  std::string Lines() const {
    std::string text;
    for (const std::string& line : lines_) text += line + "\n";
    return text;
  }

  pid_t pid_ = 0;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> lines_;
  std::optional<int> port_;
  bool closed_ = false;
};

// ----- the token
// ----------------------------------------------------------------------------------

std::string Base64Url(const unsigned char* data, std::size_t size) {
  std::string text(4 * ((size + 2) / 3) + 1, '\0');
  const int length =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()), data, static_cast<int>(size));
  text.resize(static_cast<std::size_t>(length));
  while (!text.empty() && text.back() == '=') text.pop_back();
  for (char& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return text;
}

std::string Base64Url(const std::string& text) {
  return Base64Url(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

// An HS256 JWT for `role`, valid for ten minutes, signed with kSecret.
std::string Token(const std::string& role) {
  const nlohmann::json header = {{"alg", "HS256"}, {"typ", "JWT"}};
  const nlohmann::json claims = {{"role", role}, {"exp", std::time(nullptr) + 600}};
  const std::string signing_input = Base64Url(header.dump()) + "." + Base64Url(claims.dump());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  const std::string secret = kSecret;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), digest,
       &digest_size);
  return signing_input + "." + Base64Url(digest, digest_size);
}

// ----- the measurements
// ---------------------------------------------------------------------------

// `count` POST /v1/query one after another on one keep-alive connection; throws on a wrong answer.
// Returns the sum of the answers' meta.duration_ms.
double HttpRun(int port, int count, const std::string& token) {
  httplib::Client client("127.0.0.1", port);
  client.set_keep_alive(true);
  // cpp-httplib writes the headers and the body in two sends; without TCP_NODELAY Nagle's
  // algorithm holds the body until the server's delayed ACK (~40 ms a request).
  client.set_tcp_nodelay(true);
  client.set_read_timeout(60, 0);
  const httplib::Headers headers = {{"Authorization", "Bearer " + token}};
  double answer_ms = 0;
  for (int i = 0; i < count; ++i) {
    const httplib::Result result = client.Post("/v1/query", headers, kQuery, "application/json");
    if (!result) throw std::runtime_error("request failed: " + httplib::to_string(result.error()));
    if (result->status != 200) {
      throw std::runtime_error(fmt::format("status {}: {}", result->status, result->body));
    }
    answer_ms += CheckAnswer(result->body);
  }
  return answer_ms;
}

// HttpRun(per_client) in `clients` threads at once; rethrows the first failure.
void HttpThreads(int port, int clients, int per_client, const std::string& token) {
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  threads.reserve(failures.size());
  for (std::exception_ptr& failure : failures) {
    threads.emplace_back([&failure, port, per_client, &token] {
      try {
        HttpRun(port, per_client, token);
      } catch (...) {
        failure = std::current_exception();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

void CliRuns(const std::string& strata, const fs::path& root, int count) {
  for (int i = 0; i < count; ++i) {
    CheckAnswer(RunCaptured({strata, "query", kQuery, "--project", root.string(), "--role", "admin",
                             "--output", "json"}));
  }
}

// ----- wrk: the issue's load test (Debian's wrk, 2 threads, --connections keep-alive connections)
// -----------------------------------------------------------------------------------------------

struct WrkRun {
  double requests_per_second = 0;
  double server_cpu_ms = 0;  // the server's user + system CPU time during the run, per request
  long server_rss_kib = 0;   // the server's resident memory right after the run (VmRSS)
  std::string p50, p99;      // wrk --latency's percentiles, as it prints them ("1.23ms")
  long requests = 0;
  long non_2xx = 0;           // "Non-2xx or 3xx responses"
  std::string socket_errors;  // wrk's "Socket errors" line; empty when none
};

std::string WrkPath() {
  for (const char* candidate : {"/usr/bin/wrk", "/usr/local/bin/wrk"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  throw std::runtime_error("wrk is not installed (apt-get install wrk), or pass --wrk 0");
}

// wrk's Lua configuration: every request is the rollup-hit query with the token.
std::string WrkScript(const std::string& token) {
  return fmt::format(
      "wrk.method = \"POST\"\nwrk.body = [[{}]]\n"
      "wrk.headers[\"Content-Type\"] = \"application/json\"\n"
      "wrk.headers[\"Authorization\"] = \"Bearer {}\"\n",
      kQuery, token);
}

// The text after `label` on the line that starts with it (leading blanks ignored).
std::optional<std::string> WrkField(const std::string& output, const std::string& label) {
  std::size_t line_start = 0;
  while (line_start < output.size()) {
    std::size_t line_end = output.find('\n', line_start);
    if (line_end == std::string::npos) line_end = output.size();
    std::string line = output.substr(line_start, line_end - line_start);
    line.erase(0, line.find_first_not_of(' '));
    if (line.rfind(label, 0) == 0) {
      std::string value = line.substr(label.size());
      value.erase(0, value.find_first_not_of(' '));
      return value;
    }
    line_start = line_end + 1;
  }
  return std::nullopt;
}

WrkRun ParseWrk(const std::string& output) {
  WrkRun run;
  const std::optional<std::string> rate = WrkField(output, "Requests/sec:");
  const std::optional<std::string> p50 = WrkField(output, "50%");
  const std::optional<std::string> p99 = WrkField(output, "99%");
  if (!rate || !p50 || !p99) throw std::runtime_error("unexpected wrk output:\n" + output);
  run.requests_per_second = std::stod(*rate);
  run.p50 = *p50;
  run.p99 = *p99;
  // "  123456 requests in 10.00s, 45.67MB read"
  const std::size_t total = output.find(" requests in ");
  if (total != std::string::npos) {
    const std::size_t begin = output.find_last_of(" \n", total - 1) + 1;
    run.requests = std::stol(output.substr(begin, total - begin));
  }
  if (const auto non_2xx = WrkField(output, "Non-2xx or 3xx responses:")) {
    run.non_2xx = std::stol(*non_2xx);
  }
  if (const auto errors = WrkField(output, "Socket errors:")) run.socket_errors = *errors;
  return run;
}

// The user + system CPU seconds `pid` has used so far (/proc/PID/stat's utime and stime).
double CpuSeconds(pid_t pid) {
  std::ifstream file(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t name_end = text.rfind(')');  // the command name may hold blanks
  if (name_end == std::string::npos) throw std::runtime_error("unreadable /proc stat");
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {  // field 3 is the state
    if (index == 14) utime = std::stol(field);
    if (index == 15) stime = std::stol(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The resident memory of `pid` in KiB (/proc/PID/status's VmRSS).
long RssKib(pid_t pid) {
  std::ifstream file(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  throw std::runtime_error("no VmRSS in /proc status");
}

WrkRun RunWrk(const Options& options, int port, pid_t server, const fs::path& script) {
  const double cpu_before = CpuSeconds(server);
  const std::string output =
      RunCaptured({WrkPath(), "-t", "2", "-c", std::to_string(options.connections), "-d",
                   std::to_string(options.wrk_seconds) + "s", "--latency", "-s", script.string(),
                   fmt::format("http://127.0.0.1:{}/v1/query", port)});
  WrkRun run = ParseWrk(output);
  if (run.requests > 0) run.server_cpu_ms = 1000 * (CpuSeconds(server) - cpu_before) / run.requests;
  run.server_rss_kib = RssKib(server);
  if (run.non_2xx > 0) {
    throw std::runtime_error(fmt::format("wrk saw {} non-2xx answers:\n{}", run.non_2xx, output));
  }
  return run;
}

// ----- the runs
// ----------------------------------------------------------------------------------

struct Seconds {
  double http_1 = 0;
  double http_n = 0;
  double cli = 0;
  double answer_ms = 0;  // the sum of meta.duration_ms over http_1's answers
  std::optional<WrkRun> wrk_uncached, wrk_cached;
};

// `strata serve` on `root` with [serve] result_cache_bytes = `cache_bytes`, for `run(port)`;
// exit 0 checked.
void WithServer(const Options& options, const fs::path& root, long cache_bytes,
                const std::function<void(int port, pid_t pid)>& run) {
  WriteFile(root / "strata.toml", StrataToml(cache_bytes));
  Server server(options.strata, root);
  const int port = server.WaitForPort();
  run(port, server.pid());
  const int code = server.Stop();
  if (code != 0) throw std::runtime_error(fmt::format("strata serve exited {}", code));
}

Seconds Measure(const Options& options, const fs::path& root, int per_client) {
  Seconds seconds;
  const std::string token = Token("admin");
  // Without the result cache: every request is answered by query::Answer on the rollup.
  WithServer(options, root, 0, [&](int port, pid_t) {
    HttpRun(port, kWarmRequests, token);  // warm: engine connections, manifests, page cache
    seconds.http_1 = Timed([&] { seconds.answer_ms = HttpRun(port, options.http, token); });
    seconds.http_n = Timed([&] { HttpThreads(port, options.clients, per_client, token); });
  });
  if (options.wrk_seconds > 0) {
    const fs::path script = root / "wrk_post.lua";
    WriteFile(script, WrkScript(token));
    WithServer(options, root, 0, [&](int port, pid_t pid) {
      HttpRun(port, kWarmRequests, token);
      seconds.wrk_uncached = RunWrk(options, port, pid, script);
      HttpRun(port, 1, token);  // still answering, and right
    });
    WithServer(options, root, 64L << 20, [&](int port, pid_t pid) {
      HttpRun(port, kWarmRequests, token);  // the first is a miss, the rest hits
      seconds.wrk_cached = RunWrk(options, port, pid, script);
      HttpRun(port, 1, token);
    });
  }
  // After the servers have stopped: they hold the DuckDB file, and would compete for the cores.
  seconds.cli = Timed([&] { CliRuns(options.strata, root, options.cli); });
  return seconds;
}

void ReportWrk(const Options& options, const std::string& label, const WrkRun& run) {
  fmt::print(
      "{:<18} {:10.1f} req/s  p50 {:>9} p99 {:>9}  server CPU {:.3f} ms/request  RSS {} MiB  "
      "({} requests, {} connections, {} s{})\n",
      label, run.requests_per_second, run.p50, run.p99, run.server_cpu_ms,
      run.server_rss_kib / 1024, run.requests, options.connections, options.wrk_seconds,
      run.socket_errors.empty() ? "" : ", socket errors: " + run.socket_errors);
}

void Report(const Options& options, int per_client, const Seconds& seconds) {
  const double http_1 = options.http / seconds.http_1;
  const double http_n = per_client * options.clients / seconds.http_n;
  const double cli = options.cli / seconds.cli;
  const std::string many = fmt::format("http_{}", options.clients);
  const double http_1_ms = 1000 * seconds.http_1 / options.http;
  const double answer_ms = seconds.answer_ms / options.http;
  fmt::print("http_1   {:10.1f} req/s  ({} requests, 1 connection)\n", http_1, options.http);
  fmt::print("{:<8} {:10.1f} req/s  ({} requests, {} connections)\n", many, http_n,
             per_client * options.clients, options.clients);
  fmt::print("cli      {:10.1f} req/s  ({} processes)\n", cli, options.cli);
  fmt::print("ratio http_1 / cli      {:8.1f}x\n", http_1 / cli);
  fmt::print("ratio {:<6} / cli      {:8.1f}x\n", many, http_n / cli);
  fmt::print("ratio {:<6} / http_1   {:8.2f}x\n", many, http_n / http_1);
  fmt::print(
      "http_1 round trip {:.3f} ms, query::Answer in the server {:.3f} ms: "
      "ratio {:.2f}x\n",
      http_1_ms, answer_ms, http_1_ms / answer_ms);
  if (seconds.wrk_uncached && seconds.wrk_cached) {
    ReportWrk(options, "wrk no cache", *seconds.wrk_uncached);
    ReportWrk(options, "wrk result cache", *seconds.wrk_cached);
    fmt::print("ratio wrk cache / no cache {:8.2f}x\n",
               seconds.wrk_cached->requests_per_second / seconds.wrk_uncached->requests_per_second);
  }
}

// A temp folder removed on scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "serve_bench_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void MakeProject(const std::string& strata, const fs::path& root) {
  fs::create_directories(root / "semantic");
  fs::create_directories(root / "models");
  WriteFile(root / "semantic" / "model.yml", kModelYaml);
  WriteFile(root / "strata.toml", StrataToml(0));
  MakeWarehouse(root / "warehouse.duckdb");
  RunCaptured({strata, "rollups", "build", "--project", root.string(), "--output", "json"});
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = ParseArgs(argc, argv);
    const TempDir folder;
    MakeProject(options.strata, folder.path());
    const int per_client = options.http / options.clients;
    Report(options, per_client, Measure(options, folder.path(), per_client));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "serve_bench: " << error.what() << "\n";
    return 1;
  }
}
