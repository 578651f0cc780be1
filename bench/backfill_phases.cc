// Where a serial backfill's time goes: the `strata run` path in-process, with the warehouse
// wrapped so every statement is timed by kind. Used by bench/backfill.sh after the main
// measurement (it is a profile, not the benchmark: the ratios come from whole processes).
//
//   backfill_phases PROJECT_DIR BASE_DUCKDB [REPS]
//
// Each repetition copies BASE_DUCKDB (raw.events only) to the project's warehouse file, deletes
// the state store, then does what `strata run --from 2025-01-01 --to 2025-12-31 --parallel 1`
// does: load the project, open the state store, BuildPlan, SavePlan, ExecutePlan, render the
// report as JSON. It prints the median milliseconds of each phase and of each kind of statement,
// plus the state-store writes the runner makes, replayed alone on a fresh store.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "materialize/plan.h"
#include "materialize/run_report.h"
#include "materialize/runner.h"
#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/from_config.h"

namespace {

using namespace strata;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double Ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "backfill_phases: " << message << "\n";
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, const char* what) {
  if (!result.ok()) Die(fmt::format("{}: {}", what, result.error().ToString()));
  return std::move(result).value();
}
void Check(const Status& status, const char* what) {
  if (!status.ok()) Die(fmt::format("{}: {}", what, status.error().ToString()));
}

using Phases = std::map<std::string, double>;

std::string KindOf(std::string_view sql) {
  if (sql.starts_with("BEGIN")) return "sql.begin";
  if (sql.starts_with("DELETE")) return "sql.delete";
  if (sql.starts_with("INSERT")) return "sql.insert";
  if (sql.starts_with("COMMIT")) return "sql.commit";
  if (sql.starts_with("ROLLBACK")) return "sql.rollback";
  if (sql.starts_with("SELECT count(*) AS row_count")) return "sql.stats";
  return "sql.other";
}

class TimedConnection final : public warehouse::Connection {
 public:
  TimedConnection(std::unique_ptr<warehouse::Connection> inner, Phases& phases, std::mutex& mutex)
      : inner_(std::move(inner)), phases_(phases), mutex_(mutex) {}
  Result<warehouse::QueryResult> Execute(std::string_view sql) override {
    const std::string kind = KindOf(sql);
    const auto start = Started(kind);
    auto result = inner_->Execute(sql);
    Add(kind, start);
    return result;
  }
  // An insert that returns its rows' keys and hashes: the insert and its statistics in one.
  Result<warehouse::FoldedRows> ExecuteFolded(std::string_view sql, std::size_t keys) override {
    const auto start = Started("sql.insert+stats");
    auto result = inner_->ExecuteFolded(sql, keys);
    Add("sql.insert+stats", start);
    return result;
  }
  void Interrupt() override { inner_->Interrupt(); }
  Result<bool> TableExists(const warehouse::TableName& name) override {
    const auto start = Started("sql.table_exists");
    auto result = inner_->TableExists(name);
    Add("sql.table_exists", start);
    return result;
  }
  Result<std::vector<warehouse::Column>> DescribeTable(const warehouse::TableName& name) override {
    return inner_->DescribeTable(name);
  }
  Result<std::vector<std::string>> UserFunctionNames() override {
    return inner_->UserFunctionNames();
  }

 private:
  // Now; also adds the time since this connection's previous statement ended to
  // "gap.<previous kind> > <kind>": strata's own work between two statements.
  Clock::time_point Started(const std::string& kind) {
    const auto now = Clock::now();
    if (!last_kind_.empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      phases_["gap." + last_kind_.substr(4) + " > " + kind.substr(4)] +=
          std::chrono::duration<double, std::milli>(now - last_end_).count();
    }
    return now;
  }
  void Add(const std::string& kind, Clock::time_point start) {
    last_end_ = Clock::now();
    last_kind_ = kind;
    std::lock_guard<std::mutex> lock(mutex_);
    phases_[kind] += std::chrono::duration<double, std::milli>(last_end_ - start).count();
  }
  std::unique_ptr<warehouse::Connection> inner_;
  Clock::time_point last_end_;
  std::string last_kind_;  // of the previous statement; empty before the first
  Phases& phases_;
  std::mutex& mutex_;
};

class TimedWarehouse final : public warehouse::Warehouse {
 public:
  TimedWarehouse(std::unique_ptr<warehouse::Warehouse> inner, Phases& phases, std::mutex& mutex)
      : inner_(std::move(inner)), phases_(phases), mutex_(mutex) {}
  sql::Dialect dialect() const override { return inner_->dialect(); }
  Result<std::unique_ptr<warehouse::Connection>> Connect() override {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, inner_->Connect());
    return std::unique_ptr<warehouse::Connection>(
        new TimedConnection(std::move(connection), phases_, mutex_));
  }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<warehouse::Warehouse> inner_;
  Phases& phases_;
  std::mutex& mutex_;
};

void RemoveState(const fs::path& state_path) {
  for (const char* suffix : {"", "-wal", "-shm", ".lock"}) fs::remove(state_path.string() + suffix);
}

Phases OneRun(const fs::path& project_dir, const fs::path& base) {
  Phases phases;
  std::mutex mutex;
  {  // setup, untimed: a fresh warehouse copy and no state store
    project::LoadOutcome setup = project::LoadProject(project_dir);
    if (!setup.project) Die("cannot load the project: " + setup.errors.front().ToString());
    const project::WarehouseConfig config =
        Check(project::SelectWarehouse(setup.project->config, ""), "warehouse");
    const fs::path db = setup.project->config.root / config.path;
    fs::remove(db.string() + ".wal");
    fs::copy_file(base, db, fs::copy_options::overwrite_existing);
    RemoveState(setup.project->config.state_path);
  }
  const auto total = Clock::now();
  auto t = Clock::now();
  project::LoadOutcome loaded = project::LoadProject(project_dir);
  if (!loaded.project) Die("cannot load the project: " + loaded.errors.front().ToString());
  const project::Project& project = *loaded.project;
  phases["load_project"] = Ms(t);
  const project::WarehouseConfig warehouse_config =
      Check(project::SelectWarehouse(project.config, ""), "warehouse");

  t = Clock::now();
  auto store = Check(state::StateStore::Open(project.config.state_path.string()), "state store");
  phases["state.open"] = Ms(t);

  t = Clock::now();
  materialize::PlanRequest request;
  request.models = Check(project::SelectModels(project, {}, {}), "models");
  request.selection.from = "2025-01-01";
  request.selection.to = "2025-12-31";
  request.parallel = 1;
  request.now = SystemClock().Now();
  const sql::Dialect dialect = Check(warehouse::DialectOf(warehouse_config), "dialect");
  // As the CLI plans: through a connection (the state check, and the warehouse's own functions,
  // which decide whether a model fuses), closed before the run opens the warehouse.
  std::unique_ptr<warehouse::Warehouse> planning =
      Check(warehouse::OpenWarehouse(project.config, warehouse_config), "open for planning");
  std::unique_ptr<warehouse::Connection> planning_connection =
      Check(planning->Connect(), "connect for planning");
  request.connection = planning_connection.get();
  const materialize::Plan plan =
      Check(materialize::BuildPlan(project, request, warehouse::Emitter(dialect), *store), "plan");
  planning_connection.reset();
  planning.reset();
  phases["plan.build"] = Ms(t);
  t = Clock::now();
  Check(store->SavePlan(plan.plan_id, plan.created_at, materialize::PlanToJson(plan).dump()),
        "save");
  phases["plan.save"] = Ms(t);

  materialize::RunOptions options;
  options.parallel = 1;
  options.command = "backfill_phases";
  double open_ms = 0;
  t = Clock::now();
  const materialize::RunReport report = Check(
      materialize::ExecutePlan(
          project, plan,
          [&]() -> Result<std::unique_ptr<warehouse::Warehouse>> {
            const auto start = Clock::now();
            STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Warehouse> inner,
                                    warehouse::OpenWarehouse(project.config, warehouse_config));
            open_ms = Ms(start);
            return std::unique_ptr<warehouse::Warehouse>(
                new TimedWarehouse(std::move(inner), phases, mutex));
          },
          *store, options),
      "run");
  // ExecutePlan returns after closing the warehouse (the checkpoint on close is inside).
  phases["execute.total"] = Ms(t);
  phases["execute.open_warehouse"] = open_ms;
  if (report.status != materialize::RunStatus::kSuccess) Die("the run did not succeed");
  t = Clock::now();
  const std::string rendered = materialize::RunReportToJson(report).dump(2);
  phases["report.json"] = Ms(t);
  double sql = 0;
  for (const auto& [name, ms] : phases) {
    if (name.starts_with("sql.")) sql += ms;
  }
  phases["sql.all"] = sql;
  phases["execute.outside_sql (state writes, threads, close+checkpoint)"] =
      phases["execute.total"] - sql - open_ms;
  phases["total"] = Ms(total);
  return phases;
}

// The state-store writes of a 365-partition serial run, alone, on a fresh store: per batch one
// transaction with the InProgress rows of the batch and the result rows of the one before
// (DeferredState in run_context.h), then the last result. The run makes them on its state
// writer's thread while the warehouse statements run, so they are not on its critical path.
double StateWritesAlone(const fs::path& dir) {
  const fs::path path = dir / "state-writes-only.db";
  RemoveState(path);
  auto store = Check(state::StateStore::Open(path.string()), "state store");
  const auto start = Clock::now();
  state::RunRecord run{"run_x", 1, 0, "running", "bench", 1};
  Check(store->BeginRun(run), "BeginRun");
  PartitionKey key = Check(PartitionKey::Parse("2025-01-01", Grain::kDay), "key");
  PartitionKey previous = key;
  const auto record_of = [](const PartitionKey& k, state::PartitionStatus status) {
    state::PartitionRecord record;
    record.model_name = "fct_daily_events";
    record.partition_key = k.ToString();
    record.run_id = "run_x";
    record.start = k.window().start;
    record.end = k.window().end;
    record.status = status;
    if (status == state::PartitionStatus::kComputed) {
      record.row_count = 5000;
      record.checksum = 42;
    }
    return record;
  };
  const auto history_of = [](const state::PartitionRecord& r) {
    return state::RunPartitionRecord{
        "run_x", r.model_name, r.partition_key, r.status, r.row_count, 0, "", 1};
  };
  std::vector<state::PartitionRecord> records;
  std::vector<state::RunPartitionRecord> history;
  for (int i = 0; i <= 365; ++i, previous = key, key = key.Next()) {
    if (i > 0) records.push_back(record_of(previous, state::PartitionStatus::kComputed));
    if (i < 365) records.push_back(record_of(key, state::PartitionStatus::kInProgress));
    for (const state::PartitionRecord& r : records) history.push_back(history_of(r));
    Check(store->RecordPartitionResults(records, history), "record");
    records.clear();
    history.clear();
  }
  Check(store->FinishRun("run_x", "success", 2), "FinishRun");
  const double ms = Ms(start);
  RemoveState(path);
  return ms;
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark may die on an unexpected exception.
int main(int argc, char** argv) {
  if (argc < 3) Die("usage: backfill_phases PROJECT_DIR BASE_DUCKDB [REPS]");
  const fs::path project_dir = fs::absolute(argv[1]);
  const fs::path base = fs::absolute(argv[2]);
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  std::map<std::string, std::vector<double>> samples;
  for (int i = 0; i < reps; ++i) {
    for (const auto& [name, ms] : OneRun(project_dir, base)) samples[name].push_back(ms);
    samples["state.writes_alone (366 transactions, off the critical path)"].push_back(
        StateWritesAlone(project_dir));
  }
  std::cout << fmt::format(
      "in-process strata run --parallel 1, phases in ms (median of {}; "
      "sql.* are sums over all statements of that kind):\n",
      reps);
  for (auto& [name, values] : samples) {
    std::sort(values.begin(), values.end());
    const double median = values.size() % 2
                              ? values[values.size() / 2]
                              : (values[values.size() / 2 - 1] + values[values.size() / 2]) / 2;
    std::cout << fmt::format("   {:<66} {:9.1f}   ({:.2f} per partition)\n", name, median,
                             median / 365);
  }
  return 0;
}
