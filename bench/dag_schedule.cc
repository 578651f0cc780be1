// DAG backfill benchmark (issue 4): 20 time_interval models x 365 daily partitions with
// diamond-shaped dependencies on embedded DuckDB, run in-process exactly as `strata run --from
// 2025-01-01 --to 2025-12-31` runs them, once with partition-level scheduling (a partition waits
// only for the upstream partitions it overlaps) and once with a whole-model barrier (each model's
// partitions all done before any child starts). Same plan, same data, same process.
//
//   dag_schedule [--rows N] [--rounds R] [--parallel P] [--work DIR]
//
// The source grows over the year (late days hold more rows than early ones), as real event data
// does. Each measurement starts from a fresh copy of the source warehouse and no state store;
// rounds alternate the order of the two modes. Prints the medians and barrier / partition (> 1
// means partition-level scheduling is faster), and checks that both end with the same
// per-partition checksums.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "materialize/plan.h"
#include "materialize/runner.h"
#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/from_config.h"

namespace {

using namespace strata;
namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;

constexpr int kModels = 20;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "dag_schedule: " << message << "\n";
  std::exit(1);
}
template <typename T>
T Check(Result<T> result, const char* what) {
  if (!result.ok()) Die(fmt::format("{}: {}", what, result.error().ToString()));
  return std::move(result).value();
}

// Model i's upstream models: a chain of diamonds. 0 reads the source; in each group of three
// after it, two siblings read the group's head and the next head reads both siblings:
// 0 -> {1, 2} -> 3 -> {4, 5} -> 6 -> ... -> 18 -> 19.
std::vector<int> Upstream(int i) {
  if (i == 0) return {};
  if (i % 3 == 0) return {i - 2, i - 1};
  const int head = i - (i % 3 == 1 ? 1 : 2);
  return {head};
}

std::string ModelSql(int i) {
  const std::vector<int> up = Upstream(i);
  if (up.empty()) {
    return "SELECT DATE_TRUNC('day', event_at) AS day, customer_id % 500 AS bucket,\n"
           "       count(*) AS events, sum(amount) AS amount\nFROM events\n"
           "WHERE event_at >= @start_date AND event_at < @end_date\nGROUP BY 1, 2\n";
  }
  std::string sql = "SELECT day, bucket, sum(events) AS events, sum(amount) AS amount\nFROM (\n";
  for (std::size_t k = 0; k < up.size(); ++k) {
    sql += fmt::format(
        "  {}SELECT day, bucket, events, amount FROM m{:02d}\n"
        "  WHERE day >= @start_date AND day < @end_date\n",
        k == 0 ? "" : "UNION ALL\n  ", up[k]);
  }
  return sql + ") AS u\nGROUP BY 1, 2\n";
}

void WriteProject(const fs::path& dir) {
  fs::create_directories(dir / "models");
  std::ofstream(dir / "strata.toml") << "[project]\nname = \"dag_bench\"\n[warehouse]\ntype = "
                                        "\"duckdb\"\npath = \"warehouse.duckdb\"\n";
  for (int i = 0; i < kModels; ++i) {
    const std::string name = fmt::format("m{:02d}", i);
    std::string toml = fmt::format("name = \"{}\"\n", name);
    const std::vector<int> up = Upstream(i);
    if (!up.empty()) {
      toml += "depends_on = [";
      for (std::size_t k = 0; k < up.size(); ++k)
        toml += fmt::format("{}\"m{:02d}\"", k ? ", " : "", up[k]);
      toml += "]\n";
    } else {
      toml += "[[sources]]\nschema = \"raw\"\ntable = \"events\"\n";
    }
    toml +=
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"day\"\ngranularity = \"day\"\n"
        "[target]\nschema = \"marts\"\ntable = \"" +
        name + "\"\n";
    std::ofstream(dir / "models" / (name + ".toml")) << toml;
    std::ofstream(dir / "models" / (name + ".sql")) << ModelSql(i);
  }
}

void MakeSource(const fs::path& path, long rows) {
  auto duck = Check(warehouse::OpenDuckDb(path.string()), "open source");
  auto connection = Check(duck->Connect(), "connect");
  Check(connection->Execute("CREATE SCHEMA raw"), "schema");
  // sqrt spacing: the density of events grows linearly over the year.
  Check(connection->Execute(
            fmt::format("CREATE TABLE raw.events AS SELECT i AS event_id, CAST(hash(i) % 100000 AS "
                        "BIGINT) AS customer_id, "
                        "CAST((hash(i, 'a') % 10000) / 100 AS DECIMAL(12, 2)) AS amount, "
                        "TIMESTAMP '2025-01-01' + to_microseconds(CAST(sqrt(i / {0}.0) * "
                        "31535999999999 AS BIGINT)) "
                        "AS event_at FROM range({0}) t(i)",
                        rows)),
        "source rows");
}

struct Outcome {
  double seconds = 0;
  int retries = 0;
  std::map<std::string, std::uint64_t> checksums;
};

Outcome RunOnce(const fs::path& dir, const fs::path& source, materialize::Schedule schedule,
                int parallel) {
  fs::copy_file(source, dir / "warehouse.duckdb", fs::copy_options::overwrite_existing);
  fs::remove(dir / "warehouse.duckdb.wal");
  for (const char* suffix : {"", "-wal", "-shm", ".lock"}) {
    fs::remove((dir / "models/.strata-state.db").string() + suffix);
  }
  const auto started = SteadyClock::now();
  project::LoadOutcome loaded = project::LoadProject(dir);
  if (!loaded.project) Die("load: " + loaded.errors.front().ToString());
  const project::Project& project = *loaded.project;
  auto store = Check(state::StateStore::Open(project.config.state_path.string()), "state");
  materialize::PlanRequest request;
  request.models = Check(project::SelectModels(project, {}, {}), "models");
  request.selection.from = "2025-01-01";
  request.selection.to = "2025-12-31";
  request.parallel = parallel;
  request.now = SystemClock().Now();
  auto plan = Check(
      materialize::BuildPlan(project, request, warehouse::Emitter(sql::Dialect::kDuckDb), *store),
      "plan");
  materialize::RunOptions options;
  options.parallel = parallel;
  options.schedule = schedule;
  auto report =
      Check(materialize::ExecutePlan(
                project, plan,
                [&] { return warehouse::OpenWarehouse(project.config, project.config.warehouse); },
                *store, options),
            "run");
  Outcome outcome;
  outcome.seconds = std::chrono::duration<double>(SteadyClock::now() - started).count();
  if (report.status != materialize::RunStatus::kSuccess) Die("the run did not succeed");
  for (const auto& m : report.materializations) {
    outcome.retries += static_cast<int>(m.retries.size());
    outcome.checksums[m.model + "/" + m.partition_key.value_or("")] = m.checksum.value_or(0);
  }
  return outcome;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  long rows = 3'000'000;
  int rounds = 3, parallel = 4;
  fs::path work;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rows")
      rows = std::atol(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (flag == "--parallel")
      parallel = std::atoi(argv[i + 1]);
    else if (flag == "--work")
      work = argv[i + 1];
    else
      Die("unknown flag " + flag);
  }
  const bool temporary = work.empty();
  if (temporary) work = fs::temp_directory_path() / fmt::format("strata-dag-bench-{}", ::getpid());
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path dir = work / "project";
  WriteProject(dir);
  MakeSource(work / "source.duckdb", rows);

  std::vector<double> partition_times, barrier_times;
  std::map<std::string, std::uint64_t> reference;
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      const bool barrier = (round + k) % 2 == 1;
      Outcome outcome = RunOnce(
          dir, work / "source.duckdb",
          barrier ? materialize::Schedule::kModelBarrier : materialize::Schedule::kPartition,
          parallel);
      if (reference.empty()) reference = outcome.checksums;
      if (outcome.checksums != reference) {
        int shown = 0;
        for (const auto& [key, checksum] : outcome.checksums) {
          auto found = reference.find(key);
          if ((found == reference.end() || found->second != checksum) && shown++ < 5) {
            std::cerr << "differs: " << key << "\n";
          }
        }
        Die(fmt::format("the two schedules wrote different partitions ({} vs {})",
                        outcome.checksums.size(), reference.size()));
      }
      (barrier ? barrier_times : partition_times).push_back(outcome.seconds);
      std::cout << fmt::format("round {} {:>9}: {:.2f} s ({} transient conflicts retried)\n",
                               round + 1, barrier ? "barrier" : "partition", outcome.seconds,
                               outcome.retries);
    }
  }
  const double partition = Median(partition_times), barrier = Median(barrier_times);
  std::cout << fmt::format(
      "dag_schedule: {} models x 365 partitions ({} tasks), {} source rows, --parallel {}\n"
      "  partition-level scheduling {:.2f} s, whole-model barrier {:.2f} s (medians of {})\n"
      "  barrier / partition = {:.3f}; identical checksums for all {} partitions\n",
      kModels, kModels * 365, rows, parallel, partition, barrier, rounds, barrier / partition,
      reference.size());
  if (temporary) fs::remove_all(work);
  return 0;
}
