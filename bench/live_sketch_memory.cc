// Peak memory of a live count_distinct_approx: the sketch query's rows (one per distinct value
// per group) fetched whole and then folded into per-group HLLs (the path before issue 39 item 4:
// Connection::Execute) against folded while they stream (Connection::ExecuteStreamed), each in a
// child process of its own whose peak RSS (getrusage ru_maxrss) is read by the parent.
//
//   live_sketch_memory [--values N] [--groups G] [--reps K] [--postgres DSN]
//
// The table `sketch_bench_facts` (N rows: v = 0..N-1, g = v % G) is made first, in a DuckDB file
// in a temporary folder, or on the PostgreSQL server of DSN. Then, per repetition, one child per
// mode runs the sketch query's shape (SELECT g, v ... WHERE v IS NOT NULL GROUP BY 1, 2):
//   engine     SELECT count(*) over that query: what the warehouse itself holds (DuckDB's hash
//              table is in this process; PostgreSQL's is in the server's)
//   fetch_all  Execute, then the fold
//   streamed   ExecuteStreamed, folding each batch
// and prints each mode's median peak RSS, fetch_all / streamed, and the estimates (equal).
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "base/hll.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/postgres/postgres_warehouse.h"

namespace {

using namespace strata;
using warehouse::QueryResult;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "live_sketch_memory: " << message << "\n";
  std::_Exit(1);
}

struct Options {
  std::int64_t values = 10'000'000;
  std::int64_t groups = 3;
  int reps = 3;
  std::string postgres;  // a DSN, or empty for DuckDB
  std::string duckdb_path;
};

std::unique_ptr<warehouse::Connection> Connect(const Options& options, bool read_only) {
  Result<std::unique_ptr<warehouse::Warehouse>> opened =
      options.postgres.empty()
          ? warehouse::OpenDuckDb(options.duckdb_path, read_only
                                                           ? warehouse::AccessMode::kReadOnly
                                                           : warehouse::AccessMode::kReadWrite)
          : warehouse::OpenPostgres({options.postgres, std::nullopt});
  if (!opened.ok()) Die(opened.error().ToString());
  static std::unique_ptr<warehouse::Warehouse> warehouse;  // lives as long as the child
  warehouse = std::move(*opened);
  Result<std::unique_ptr<warehouse::Connection>> connection = warehouse->Connect();
  if (!connection.ok()) Die(connection.error().ToString());
  return std::move(*connection);
}

void MakeTable(const Options& options) {
  auto connection = Connect(options, /*read_only=*/false);
  const std::string series = options.postgres.empty()
                                 ? fmt::format("range({}) AS t(v)", options.values)
                                 : fmt::format("generate_series(0, {}) AS v", options.values - 1);
  for (const std::string& sql :
       {std::string("DROP TABLE IF EXISTS sketch_bench_facts"),
        fmt::format("CREATE TABLE sketch_bench_facts AS SELECT v % {} AS g, v FROM {}",
                    options.groups, series)}) {
    if (auto done = connection->Execute(sql); !done.ok()) Die(done.error().ToString());
  }
}

const char* const kSketchSql =
    "SELECT g AS d0, v AS v FROM sketch_bench_facts WHERE v IS NOT NULL GROUP BY 1, 2";

// The fold of Estimates() in src/query/query_engine.cc: one HLL per group key.
void Fold(const QueryResult& rows, std::map<std::string, HyperLogLog>& sketches) {
  for (std::size_t row = 0; row < rows.row_count(); ++row) {
    const warehouse::Value& value = rows.columns[1].values[row];
    if (std::holds_alternative<std::monostate>(value)) continue;
    sketches[warehouse::ValueToString(rows.columns[0].values[row])].Add(
        warehouse::ValueToString(value));
  }
}

// Runs one mode; returns the sum of the groups' estimates (the engine mode: the row count).
double RunMode(const Options& options, const std::string& mode) {
  auto connection = Connect(options, /*read_only=*/true);
  std::map<std::string, HyperLogLog> sketches;
  if (mode == "engine") {
    auto counted = connection->Execute(fmt::format("SELECT count(*) FROM ({}) AS q", kSketchSql));
    if (!counted.ok()) Die(counted.error().ToString());
    return static_cast<double>(std::get<std::int64_t>(counted->columns[0].values[0]));
  }
  if (mode == "fetch_all") {
    auto rows = connection->Execute(kSketchSql);
    if (!rows.ok()) Die(rows.error().ToString());
    Fold(*rows, sketches);
  } else {
    Status streamed = connection->ExecuteStreamed(kSketchSql, [&](const QueryResult& batch) {
      Fold(batch, sketches);
      return OkStatus();
    });
    if (!streamed.ok()) Die(streamed.error().ToString());
  }
  double total = 0;
  for (const auto& [key, hll] : sketches) total += hll.Estimate();
  return total;
}

struct Measured {
  long peak_kib = 0;
  double seconds = 0;
  double answer = 0;
};

// Runs `work` in a child process; its peak RSS, wall time and the number it printed.
template <typename Work>
Measured InChild(Work work) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) Die("pipe failed");
  const auto started = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child < 0) Die("fork failed");
  if (child == 0) {
    ::close(pipe_ends[0]);
    const std::string answer = fmt::format("{}", work());
    if (::write(pipe_ends[1], answer.data(), answer.size()) < 0) std::_Exit(2);
    std::_Exit(0);
  }
  ::close(pipe_ends[1]);
  char buffer[64] = {};
  const ssize_t read = ::read(pipe_ends[0], buffer, sizeof buffer - 1);
  ::close(pipe_ends[0]);
  int status = 0;
  rusage usage{};
  if (::wait4(child, &status, 0, &usage) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0 || read <= 0) {
    Die("a measured child failed");
  }
  return {usage.ru_maxrss,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
          std::strtod(buffer, nullptr)};
}

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--values")
      options.values = std::stoll(value);
    else if (flag == "--groups")
      options.groups = std::stoll(value);
    else if (flag == "--reps")
      options.reps = std::stoi(value);
    else if (flag == "--postgres")
      options.postgres = value;
    else
      Die("unknown flag " + flag);
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = Parse(argc, argv);
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / fmt::format("live_sketch_memory_{}", ::getpid());
  std::filesystem::create_directories(folder);
  options.duckdb_path = (folder / "facts.duckdb").string();
  InChild([&] {
    MakeTable(options);
    return 0.0;
  });
  const std::vector<std::string> modes = {"engine", "fetch_all", "streamed"};
  std::map<std::string, std::vector<Measured>> runs;
  for (int rep = 0; rep < options.reps; ++rep) {
    for (const std::string& mode : modes) {
      runs[mode].push_back(InChild([&] { return RunMode(options, mode); }));
    }
  }
  std::filesystem::remove_all(folder);
  std::map<std::string, Measured> median;
  fmt::print("{} values in {} groups on {}, median of {}\n", options.values, options.groups,
             options.postgres.empty() ? "DuckDB" : "PostgreSQL", options.reps);
  for (const std::string& mode : modes) {
    std::vector<Measured>& all = runs[mode];
    std::sort(all.begin(), all.end(),
              [](const Measured& a, const Measured& b) { return a.peak_kib < b.peak_kib; });
    median[mode] = all[all.size() / 2];
    fmt::print("  {:<10} peak RSS {:>8.1f} MiB  {:>7.2f} s  answer {:.0f}\n", mode,
               median[mode].peak_kib / 1024.0, median[mode].seconds, median[mode].answer);
  }
  fmt::print("fetch_all / streamed peak RSS: {:.2f}x\n",
             static_cast<double>(median["fetch_all"].peak_kib) / median["streamed"].peak_kib);
  return 0;
}
