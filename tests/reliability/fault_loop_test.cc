// The fault loop (STYLE.md, after SQLite): for N = 1, 2, ... a multi-model, multi-partition
// backfill runs with warehouse call N failing; a resumed run (`--missing`, no faults) must then
// reach exactly the end state of a clean run — equal tables (so no duplicates), every partition
// Computed with the clean run's row counts and checksums, no InProgress left. The loop ends when
// a faulted run finishes without reaching call N. Every fault kind is covered: before or after the
// real call, retryable (a lost connection) or not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "fault_injecting_warehouse.h"
#include "materialize/plan.h"
#include "materialize/runner.h"
#include "sqlite_fault_vfs.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/from_config.h"

namespace strata::testing {
namespace {

constexpr UnixSeconds kNow = 1775476800;  // 2026-04-06T12:00:00Z: --missing = 04-01 .. 04-06

const std::map<std::string, std::string> kFiles = {
    {"strata.toml",
     "[warehouse]\ntype = \"duckdb\"\npath = \"warehouse.duckdb\"\n"
     "[run]\nmax_retries = 2\nretry_base_ms = 1\n"},
    {"models/stg_orders.toml",
     "name = \"stg_orders\"\n[[sources]]\nschema = \"raw\"\ntable = \"orders\"\n"
     "[target]\nschema = \"raw\"\ntable = \"stg_orders\"\n"},
    {"models/stg_orders.sql", "SELECT order_id, customer_id, amount, order_at FROM orders\n"},
    {"models/fct_daily.toml",
     "name = \"fct_daily\"\ndepends_on = [\"stg_orders\"]\n[strategy]\ntype = \"time_interval\"\n"
     "time_column = \"order_date\"\ngranularity = \"day\"\nfirst_partition = \"2026-04-01\"\n"
     "[target]\nschema = \"marts\"\ntable = \"fct_daily\"\n"},
    {"models/fct_daily.sql",
     "SELECT DATE_TRUNC('day', order_at) AS order_date, customer_id, COUNT(*) AS n,\n"
     "       SUM(amount) AS revenue\nFROM stg_orders\n"
     "WHERE order_at >= @start_date AND order_at < @end_date\nGROUP BY 1, 2\n"},
    {"models/fct_rollup.toml",
     "name = \"fct_rollup\"\ndepends_on = [\"fct_daily\"]\n[strategy]\ntype = \"time_interval\"\n"
     "time_column = \"order_date\"\ngranularity = \"day\"\nbatch_size = 2\n"
     "first_partition = \"2026-04-01\"\n[target]\nschema = \"marts\"\ntable = \"fct_rollup\"\n"},
    {"models/fct_rollup.sql",
     "SELECT order_date, SUM(n) AS n, SUM(revenue) AS revenue FROM fct_daily\n"
     "WHERE order_date >= @start_date AND order_date < @end_date GROUP BY 1\n"},
    {"models/customer_totals.toml",
     "name = \"customer_totals\"\ndepends_on = [\"fct_daily\"]\n"
     "[target]\nschema = \"marts\"\ntable = \"customer_totals\"\n"},
    {"models/customer_totals.sql",
     "SELECT customer_id, SUM(revenue) AS revenue FROM fct_daily GROUP BY 1\n"},
};

const char* const kTables[] = {"raw.stg_orders", "marts.fct_daily", "marts.fct_rollup",
                               "marts.customer_totals"};

struct EndState {
  std::map<std::string, std::vector<std::string>> tables;  // rows as text, sorted
  std::vector<std::string> partitions;                     // model/key/status/rows/checksum
  bool operator==(const EndState&) const = default;
};

// Records each retry wait instead of sleeping: the runner's backoff goes through the clock.
class RecordingClock final : public Clock {
 public:
  UnixSeconds Now() const override { return SystemClock().Now(); }
  bool Wait(std::int64_t millis, const std::atomic<bool>& cancel) const override {
    waited += millis;
    return !cancel.load();
  }
  mutable std::atomic<std::int64_t> waited{0};
};

class FaultLoopTest : public ::testing::TestWithParam<int> {
 public:  // FaultLoop() below drives these
  std::filesystem::path MakeProject(const std::string& name) {
    std::filesystem::path root = std::filesystem::temp_directory_path() /
                                 ("strata_fault_loop_" + std::to_string(::getpid()) + "_" +
                                  std::to_string(GetParam()) + "_" + name);
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "models");
    for (const auto& [path, text] : kFiles) std::ofstream(root / path) << text;
    auto duck = warehouse::OpenDuckDb((root / "warehouse.duckdb").string());
    EXPECT_TRUE(duck.ok());
    auto connection = (*duck)->Connect();
    EXPECT_TRUE(connection.ok());
    for (const char* sql :
         {"CREATE SCHEMA raw",
          "CREATE TABLE raw.orders AS SELECT i AS order_id, 1 + i % 7 AS customer_id, "
          "CAST(1 + i % 13 AS DECIMAL(10, 2)) AS amount, "
          "TIMESTAMP '2026-04-01' + to_seconds(i * 2711) AS order_at FROM range(180) t(i)"}) {
      EXPECT_TRUE((*connection)->Execute(sql).ok()) << sql;
    }
    roots_.push_back(root);
    return root;
  }
  void TearDown() override {
    for (const auto& root : roots_) std::filesystem::remove_all(root);
  }

  // A `--missing` plan, made as the CLI makes it: through a connection to the warehouse (the state
  // check, and the warehouse's own functions, which decide whether a model fuses), closed before
  // the run opens the warehouse.
  Result<materialize::Plan> PlanMissing(const project::Project& project, state::StateStore& store) {
    materialize::PlanRequest request;
    for (const project::Model& model : project.models) request.models.push_back(&model);
    request.selection.missing = true;
    request.now = kNow;
    STRATA_ASSIGN_OR_RETURN(auto opened,
                            warehouse::OpenWarehouse(project.config, project.config.warehouse));
    STRATA_ASSIGN_OR_RETURN(auto connection, opened->Connect());
    request.connection = connection.get();
    return materialize::BuildPlan(project, request, warehouse::Emitter(sql::Dialect::kDuckDb),
                                  store);
  }

  // One `--missing` run without warehouse faults; an error (a state store that cannot even be
  // opened or record the run's start) is returned, not failed on.
  Result<materialize::RunReport> TryRun(const std::filesystem::path& root) {
    project::LoadOutcome loaded = project::LoadProject(root);
    EXPECT_TRUE(loaded.project.has_value());
    const project::Project& project = *loaded.project;
    STRATA_ASSIGN_OR_RETURN(auto store,
                            state::StateStore::Open(project.config.state_path.string()));
    STRATA_ASSIGN_OR_RETURN(materialize::Plan plan, PlanMissing(project, *store));
    materialize::RunOptions options;
    options.parallel = GetParam();
    options.clock = &clock_;
    return materialize::ExecutePlan(
        project, plan,
        [&] { return warehouse::OpenWarehouse(project.config, project.config.warehouse); }, *store,
        options);
  }

  // One `--missing` run; `faults` null runs without injection.
  materialize::RunReport Run(const std::filesystem::path& root, FaultPlan* faults) {
    project::LoadOutcome loaded = project::LoadProject(root);
    EXPECT_TRUE(loaded.project.has_value());
    const project::Project& project = *loaded.project;
    auto store = state::StateStore::Open(project.config.state_path.string());
    EXPECT_TRUE(store.ok());
    auto plan = PlanMissing(project, **store);
    EXPECT_TRUE(plan.ok());
    materialize::RunOptions options;
    options.parallel = GetParam();
    options.clock = &clock_;
    auto report = materialize::ExecutePlan(
        project, *plan,
        [&]() -> Result<std::unique_ptr<warehouse::Warehouse>> {
          STRATA_ASSIGN_OR_RETURN(
              auto inner, warehouse::OpenWarehouse(project.config, project.config.warehouse));
          if (faults == nullptr) return inner;
          return WrapWithFaults(std::move(inner), *faults);
        },
        **store, options);
    EXPECT_TRUE(report.ok()) << report.error().ToString();
    return report.ok() ? std::move(report).value() : materialize::RunReport{};
  }

  EndState Read(const std::filesystem::path& root) {
    EndState state;
    auto duck = warehouse::OpenDuckDb((root / "warehouse.duckdb").string());
    EXPECT_TRUE(duck.ok());
    auto connection = (*duck)->Connect();
    for (const char* table : kTables) {
      auto result = (*connection)->Execute(std::string("SELECT * FROM ") + table + " ORDER BY ALL");
      EXPECT_TRUE(result.ok()) << table << ": " << result.error().ToString();
      if (!result.ok()) continue;
      std::vector<std::string>& rows = state.tables[table];
      for (std::size_t r = 0; r < result->row_count(); ++r) {
        std::string row;
        for (const auto& column : result->columns)
          row += warehouse::ValueToString(column.values[r]) + "|";
        rows.push_back(row);
      }
    }
    auto store = state::StateStore::Open((root / "models/.strata-state.db").string());
    auto partitions = (*store)->ListPartitions(std::nullopt, std::nullopt);
    for (const state::PartitionRecord& p : *partitions) {
      state.partitions.push_back(p.model_name + "/" + p.partition_key + "/" +
                                 std::string(state::PartitionStatusName(p.status)) + "/" +
                                 std::to_string(p.row_count) + "/" +
                                 std::to_string(p.checksum.value_or(0)));
    }
    return state;
  }

 protected:  // the tests read the clock
  std::vector<std::filesystem::path> roots_;
  RecordingClock clock_;
};

// What one fault loop covers and found.
struct LoopTotals {
  int runs_with_failures = 0;
  int retried = 0;
  std::int64_t backoff_ms = 0;  // reported in the faulted runs' retries
  std::int64_t last_call = 0;
};

// For N = 1, 2, ...: fail call N with kind(N); `check` sees each faulted run's report; the
// resumed run must reach the clean end state. Ends once four runs in a row never reach call N.
template <typename Kind, typename Check>
LoopTotals FaultLoop(FaultLoopTest& test, const EndState& clean, Kind kind, Check check) {
  LoopTotals totals;
  int completed_without_fault = 0;
  for (std::int64_t n = 1; completed_without_fault < 4; ++n) {
    EXPECT_LT(n, 2000) << "the loop does not terminate";
    if (n >= 2000) break;
    FaultPlan faults;
    faults.fail_at = n;
    kind(n, faults);
    const std::filesystem::path root = test.MakeProject("n");
    const materialize::RunReport faulted = test.Run(root, &faults);
    if (!faults.fired) {
      ++completed_without_fault;  // one per fault kind past the last call
      EXPECT_EQ(faulted.status, materialize::RunStatus::kSuccess);
      continue;
    }
    totals.last_call = n;
    if (faulted.status != materialize::RunStatus::kSuccess) ++totals.runs_with_failures;
    for (const auto& m : faulted.materializations) {
      totals.retried += static_cast<int>(m.retries.size());
      for (const auto& retry : m.retries) totals.backoff_ms += retry.backoff_ms;
    }
    check(n, faulted);
    const materialize::RunReport resumed = test.Run(root, nullptr);
    EXPECT_EQ(resumed.status, materialize::RunStatus::kSuccess) << "fault at call " << n;
    const EndState state = test.Read(root);
    EXPECT_EQ(state.partitions, clean.partitions) << "fault at call " << n;
    EXPECT_EQ(state.tables, clean.tables) << "fault at call " << n;
    if (::testing::Test::HasFailure()) break;
  }
  return totals;
}

TEST_P(FaultLoopTest, EveryFailedCallIsRepairedByTheNextRun) {
  const std::filesystem::path clean_root = MakeProject("clean");
  ASSERT_EQ(Run(clean_root, nullptr).status, materialize::RunStatus::kSuccess);
  const EndState clean = Read(clean_root);
  ASSERT_EQ(clean.partitions.size(), 12u);  // 6 days x 2 time_interval models
  ASSERT_FALSE(clean.tables.at("marts.fct_rollup").empty());

  const ErrorCode codes[] = {ErrorCode::kWarehouse, ErrorCode::kWarehouseConnection};
  const FaultTiming timings[] = {FaultTiming::kBeforeCall, FaultTiming::kAfterCall};
  const LoopTotals totals = FaultLoop(
      *this, clean,
      [&](std::int64_t n, FaultPlan& faults) {
        faults.code = codes[n % 2];
        faults.timing = timings[(n / 2) % 2];
      },
      [](std::int64_t, const materialize::RunReport&) {});
  std::cout << "fault loop (parallel " << GetParam() << "): " << totals.last_call
            << " calls failed one at a time; " << totals.runs_with_failures << " runs broke, "
            << totals.retried << " attempts retried; every resumed run matched the clean run\n";
  // The loop reached both outcomes: runs a fault broke and runs that retried past one.
  EXPECT_GT(totals.runs_with_failures, 0);
  EXPECT_GT(totals.retried, 0);
  // The backoffs were waited through the run's clock (none slept for real). Not compared with
  // the reported sum: a batch's retries are reported once per key of the batch, and a model
  // setup's retries are in no materialization.
  EXPECT_GT(totals.backoff_ms, 0);
  EXPECT_GT(clock_.waited.load(), 0);
}

// ENOSPC at every write point the wrapper reaches: from call N on, every call fails with
// kWarehouseStorage (before the real call, or after it: a COMMIT that landed). The run must stop
// with its report (never an error, never a retry), account for every planned partition, and the
// resumed run must equal a clean run.
TEST_P(FaultLoopTest, AFullDiskStopsTheRunAndTheNextRunRepairsIt) {
  const std::filesystem::path clean_root = MakeProject("clean");
  ASSERT_EQ(Run(clean_root, nullptr).status, materialize::RunStatus::kSuccess);
  const EndState clean = Read(clean_root);
  const FaultTiming timings[] = {FaultTiming::kBeforeCall, FaultTiming::kAfterCall};
  const LoopTotals totals = FaultLoop(
      *this, clean,
      [&](std::int64_t n, FaultPlan& faults) {
        faults.code = ErrorCode::kWarehouseStorage;
        faults.timing = timings[n % 2];
        faults.sticky = true;
      },
      [](std::int64_t n, const materialize::RunReport& report) {
        EXPECT_NE(report.status, materialize::RunStatus::kSuccess) << "fault at call " << n;
        bool named = false;
        for (const auto& error : report.errors) named |= error.code == "WarehouseStorage";
        EXPECT_TRUE(named) << "fault at call " << n;
        for (const auto& m : report.materializations) {
          EXPECT_TRUE(m.retries.empty()) << "a storage error was retried at call " << n;
        }
        for (const auto& s : report.partition_summaries) {
          EXPECT_EQ(s.partitions_succeeded + s.partitions_failed + s.partitions_skipped,
                    s.partitions_planned)
              << s.model << ", fault at call " << n;
        }
      });
  std::cout << "full-disk fault loop (parallel " << GetParam() << "): from each of "
            << totals.last_call << " calls on, every call failed; " << totals.runs_with_failures
            << " runs stopped; every resumed run matched the clean run\n";
  EXPECT_GT(totals.runs_with_failures, 0);
  EXPECT_EQ(totals.retried, 0);
}

// ENOSPC under the state store: from its Nth write-ahead-log write on, every write fails (the
// state writer's InProgress rows, a worker's held results, the run's own rows). The run stops
// with its report, or refuses before it starts with a state-store error; it reports no failure
// twice and accounts for every planned partition; and the resumed run, with room again, reaches
// the clean end state (so no partition was left Computed without its rows: --missing would skip
// it and the tables would differ).
TEST_P(FaultLoopTest, AFullStateStoreStopsTheRunAndTheNextRunRepairsIt) {
  SqliteFaults& faults = InstallSqliteFaultVfs();
  const std::filesystem::path clean_root = MakeProject("clean");
  ASSERT_EQ(Run(clean_root, nullptr).status, materialize::RunStatus::kSuccess);
  const EndState clean = Read(clean_root);
  int stopped = 0, refused = 0, completed = 0;
  std::int64_t n = 1;
  for (; completed < 2 && n < 2000; ++n) {
    const std::filesystem::path root = MakeProject("state");
    faults.Arm(n);
    Result<materialize::RunReport> faulted = TryRun(root);
    const bool fired = faults.fired.load();
    faults.Arm(0);
    if (!fired) {
      ++completed;
      ASSERT_TRUE(faulted.ok()) << faulted.error().ToString();
      EXPECT_EQ(faulted->status, materialize::RunStatus::kSuccess);
      continue;
    }
    if (!faulted.ok()) {
      ++refused;
      EXPECT_TRUE(faulted.error().code == ErrorCode::kIo ||
                  faulted.error().code == ErrorCode::kStateStore)
          << "fault at write " << n << ": " << faulted.error().ToString();
    } else {
      ++stopped;
      EXPECT_NE(faulted->status, materialize::RunStatus::kSuccess) << "fault at write " << n;
      std::set<std::tuple<std::string, std::string, std::string>> reported;
      for (const auto& error : faulted->errors) {
        if (!error.partition) continue;
        const std::string first_line = error.message.substr(0, error.message.find('\n'));
        EXPECT_TRUE(reported.emplace(error.model, *error.partition, first_line).second)
            << "reported twice at write " << n << ": " << error.model << " " << *error.partition
            << ": " << error.message;
      }
      for (const auto& summary : faulted->partition_summaries) {
        EXPECT_EQ(
            summary.partitions_succeeded + summary.partitions_failed + summary.partitions_skipped,
            summary.partitions_planned)
            << summary.model << ", fault at write " << n;
      }
    }
    const materialize::RunReport resumed = Run(root, nullptr);
    EXPECT_EQ(resumed.status, materialize::RunStatus::kSuccess) << "fault at write " << n;
    const EndState state = Read(root);
    EXPECT_EQ(state.partitions, clean.partitions) << "fault at write " << n;
    EXPECT_EQ(state.tables, clean.tables) << "fault at write " << n;
    if (::testing::Test::HasFailure()) break;
  }
  std::cout << "state-store fault loop (parallel " << GetParam() << "): from each of " << n - 1
            << " write-ahead-log writes on, every write failed; " << stopped << " runs stopped, "
            << refused << " refused before starting; every resumed run matched the clean run\n";
  EXPECT_GT(stopped, 0);
}

INSTANTIATE_TEST_SUITE_P(Serial, FaultLoopTest, ::testing::Values(1));
INSTANTIATE_TEST_SUITE_P(Parallel, FaultLoopTest, ::testing::Values(3));

}  // namespace
}  // namespace strata::testing
