// End-to-end `strata query` latency on the example data (issue 5) against the same SQL run
// directly through the DuckDB C API, both as whole processes timed from outside (what a user or
// a script calling the CLI waits for).
//
//   query_latency --strata PATH [--project DIR] [--reps N]
//   query_latency exec DB SQL_FILE        (the baseline child: open, run, fetch every row)
//
// Without --project, `strata init --example` creates one in a temp folder. For each query the
// driver runs `strata query --output json` once to learn the SQL it sends (meta.sql), then
// alternates N timed runs of strata and N of the baseline child on that SQL. Queries with
// count_distinct_approx are left out: their live path fetches (group, value) rows and builds
// sketches client-side, so there is no single equivalent SQL statement. Prints per-query medians
// and the median of the per-query ratios.
#include <duckdb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "query_latency: " << message << "\n";
  std::exit(1);
}

int ExecBaseline(const std::string& db_path, const std::string& sql_file) {
  std::ifstream in(sql_file);
  std::stringstream text;
  text << in.rdbuf();
  duckdb_database database;
  duckdb_connection connection;
  char* error = nullptr;
  duckdb_config config = nullptr;
  duckdb_create_config(&config);
  if (duckdb_open_ext(db_path.c_str(), &database, config, &error) == DuckDBError) {
    Die(std::string("cannot open ") + db_path + ": " + (error ? error : ""));
  }
  duckdb_destroy_config(&config);
  if (duckdb_connect(database, &connection) == DuckDBError) Die("cannot connect");
  duckdb_result result;
  if (duckdb_query(connection, text.str().c_str(), &result) == DuckDBError) {
    Die(std::string("query failed: ") + duckdb_result_error(&result));
  }
  // Fetch every value as text, as a client printing the answer would.
  std::size_t bytes = 0;
  const idx_t columns = duckdb_column_count(&result);
  const idx_t rows = duckdb_row_count(&result);
  for (idx_t r = 0; r < rows; ++r) {
    for (idx_t c = 0; c < columns; ++c) {
      char* value = duckdb_value_varchar(&result, c, r);
      if (value != nullptr) {
        bytes += std::char_traits<char>::length(value);
        duckdb_free(value);
      }
    }
  }
  std::printf("%llu rows %zu bytes\n", static_cast<unsigned long long>(rows), bytes);
  duckdb_destroy_result(&result);
  duckdb_disconnect(&connection);
  duckdb_close(&database);
  return 0;
}

// Runs argv, capturing stdout; returns (exit status, stdout, wall seconds).
struct Child {
  int status = 0;
  std::string out;
  double seconds = 0;
};

Child Run(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) Die("pipe");
  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  Child child;
  char buffer[65536];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) child.out.append(buffer, n);
  close(pipe_fds[0]);
  waitpid(pid, &child.status, 0);
  child.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return child;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

const char* const kQueries[] = {
    R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})",
    R"({"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Customer.region"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]})",
    R"({"measures": ["Order.average_order_value"], "dimensions": ["Customer.segment"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "week",
                             "range": ["2026-01-05", "2026-04-06"]}]})",
    R"({"measures": ["Order.revenue", "Ticket.ticket_count"], "dimensions": ["Customer.region"]})",
    R"({"measures": ["Order.median_amount", "Order.p90_amount"], "dimensions": ["Order.status"]})",
    R"({"measures": ["Order.customers"], "dimensions": ["Customer.region"],
        "filters": [{"member": "Order.status", "op": "equals", "values": ["paid", "shipped"]}]})",
    R"({"measures": ["Order.paid_revenue", "Order.revenue", "Order.paid_share"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_quarter"}]})",
    R"({"measures": ["Ticket.avg_resolution_hours"], "dimensions": ["Ticket.priority", "Customer.region"],
        "filters": [{"member": "Ticket.ticket_count", "op": "gt", "values": [100]}],
        "order": [{"member": "Ticket.avg_resolution_hours", "desc": true}], "limit": 10})",
};

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark may die on an unexpected exception.
int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "exec") return ExecBaseline(argv[2], argv[3]);
  std::string strata, project;
  int reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--strata")
      strata = argv[i + 1];
    else if (flag == "--project")
      project = argv[i + 1];
    else if (flag == "--reps")
      reps = std::atoi(argv[i + 1]);
    else
      Die("unknown flag " + flag);
  }
  if (strata.empty()) Die("usage: query_latency --strata PATH [--project DIR] [--reps N]");
  strata = fs::absolute(strata).string();
  const std::string self = fs::canonical("/proc/self/exe").string();
  bool temporary = false;
  if (project.empty()) {
    project =
        (fs::temp_directory_path() / ("strata-query-latency-" + std::to_string(getpid()))).string();
    temporary = true;
    std::cout << "creating the example project in " << project << " ...\n" << std::flush;
    if (Run({strata, "init", project, "--example", "--quiet"}).status != 0)
      Die("strata init failed");
  }
  const std::string db = (fs::path(project) / "warehouse.duckdb").string();
  const std::string sql_file = (fs::path(project) / "query_latency.sql").string();
  std::vector<double> ratios;
  std::cout << "query  strata p50 (ms)  duckdb C API p50 (ms)  ratio  rows\n";
  int index = 0;
  for (const char* query : kQueries) {
    ++index;
    const std::vector<std::string> strata_argv = {strata,     "query", "--project", project,
                                                  "--output", "json",  query};
    Child first = Run(strata_argv);
    if (first.status != 0)
      Die("strata query failed for query " + std::to_string(index) + ":\n" + first.out);
    const nlohmann::json answer = nlohmann::json::parse(first.out);
    std::ofstream(sql_file) << answer["meta"]["sql"].get<std::string>();
    const std::vector<std::string> baseline_argv = {self, "exec", db, sql_file};
    std::vector<double> strata_times, baseline_times;
    for (int rep = 0; rep < reps; ++rep) {
      Child s = Run(strata_argv);
      Child b = Run(baseline_argv);
      if (s.status != 0 || b.status != 0) Die("a timed run failed");
      strata_times.push_back(s.seconds * 1000);
      baseline_times.push_back(b.seconds * 1000);
    }
    const double s50 = Median(strata_times), b50 = Median(baseline_times);
    ratios.push_back(s50 / b50);
    std::printf("%5d  %15.1f  %21.1f  %5.2f  %zu\n", index, s50, b50, s50 / b50,
                answer["rows"].size());
  }
  std::printf("median ratio strata / DuckDB C API over %zu queries: %.2f (%d reps each)\n",
              ratios.size(), Median(ratios), reps);
  fs::remove(sql_file);
  if (temporary) fs::remove_all(project);
  return 0;
}
