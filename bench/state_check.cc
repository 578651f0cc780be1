// The state check's cost (materialize/state_check.h): before every plan, each time_interval
// model's Computed partitions are compared with one grouped count of its target.
//
//   state_check [--dir DIR] [--days N] [--rows-per-day R] [--reps K]
//
// Builds a DuckDB file with a day-grain table of N days x R rows (default 100 x 20,000, the size
// of the 100-day backfill benchmark) and N Computed records in a state store, then measures,
// median of K repetitions in this process:
//   check      ListPartitions(Computed) + CheckComputedPartitions (what planning adds)
//   rebuild    one partition rewritten: BEGIN; DELETE the day; INSERT its R rows; COMMIT
// and prints check / rebuild: the check's cost in partitions' worth of backfill work.
#include "materialize/state_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "state/state_store.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/emitter.h"

namespace {

using namespace strata;
namespace fs = std::filesystem;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "state_check: " << message << "\n";
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, const char* what) {
  if (!result.ok()) Die(fmt::format("{}: {}", what, result.error().ToString()));
  return std::move(result).value();
}

double MedianMs(int reps, const std::function<void()>& body) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string DayRows(int day, int rows_per_day) {
  const int step = 86400 / rows_per_day;
  return fmt::format(
      "SELECT t AS event_date, hash(t) AS v, (epoch(t) % 97)::INTEGER AS customer_id "
      "FROM generate_series(TIMESTAMP '2026-01-01' + INTERVAL {} DAY, "
      "TIMESTAMP '2026-01-01' + INTERVAL {} DAY - INTERVAL 1 SECOND, INTERVAL {} SECOND) AS g(t)",
      day, day + 1, step);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = fs::temp_directory_path() / "strata_state_check_bench";
  int days = 100, rows_per_day = 20000, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--dir")
      dir = argv[i + 1];
    else if (flag == "--days")
      days = std::atoi(argv[i + 1]);
    else if (flag == "--rows-per-day")
      rows_per_day = std::atoi(argv[i + 1]);
    else if (flag == "--reps")
      reps = std::atoi(argv[i + 1]);
    else
      Die("unknown flag " + flag);
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto warehouse = Check(warehouse::OpenDuckDb((dir / "warehouse.duckdb").string()), "open");
  auto connection = Check(warehouse->Connect(), "connect");
  Check(connection->Execute("CREATE SCHEMA marts"), "schema");
  Check(connection->Execute("CREATE TABLE marts.events AS " + DayRows(0, rows_per_day)), "table");
  for (int day = 1; day < days; ++day) {
    Check(connection->Execute("INSERT INTO marts.events " + DayRows(day, rows_per_day)), "insert");
  }
  Check(connection->Execute("CHECKPOINT"), "checkpoint");

  auto store = Check(state::StateStore::Open((dir / "state.db").string()), "state store");
  project::Model model;
  model.name = "events";
  model.target = {"", "marts", "events"};
  model.time_interval.emplace();
  model.time_interval->time_column = "event_date";
  model.time_interval->granularity = Grain::kDay;
  const PartitionKey first = Check(PartitionKey::Parse("2026-01-01", Grain::kDay), "key");
  std::vector<state::PartitionRecord> records;
  PartitionKey key = first;
  for (int day = 0; day < days; ++day, key = key.Next()) {
    state::PartitionRecord record;
    record.model_name = model.name;
    record.partition_key = key.ToString();
    record.status = state::PartitionStatus::kComputed;
    record.row_count = 86399 / (86400 / rows_per_day) + 1;  // generate_series includes its end
    record.start = key.window().start;
    record.end = key.window().end;
    records.push_back(record);
  }
  if (Status upserted = store->UpsertPartitions(records); !upserted.ok()) Die("state upsert");
  const warehouse::Emitter emitter(sql::Dialect::kDuckDb);

  std::size_t disagreements = 0;
  const double check_ms = MedianMs(reps, [&] {
    auto computed =
        Check(store->ListPartitions(model.name, state::PartitionStatus::kComputed), "list");
    disagreements =
        Check(materialize::CheckComputedPartitions(*connection, emitter, model, computed), "check")
            .size();
  });
  if (disagreements != 0)
    Die(fmt::format("{} partitions disagree on a clean table", disagreements));
  int day = 0;
  const double rebuild_ms = MedianMs(reps, [&] {
    const std::string start = fmt::format("TIMESTAMP '2026-01-01' + INTERVAL {} DAY", day);
    const std::string end = fmt::format("TIMESTAMP '2026-01-01' + INTERVAL {} DAY", day + 1);
    Check(connection->Execute("BEGIN TRANSACTION"), "begin");
    Check(connection->Execute(fmt::format(
              "DELETE FROM marts.events WHERE event_date >= {} AND event_date < {}", start, end)),
          "delete");
    Check(connection->Execute("INSERT INTO marts.events " + DayRows(day, rows_per_day)), "insert");
    Check(connection->Execute("COMMIT"), "commit");
    day = (day + 1) % days;
  });
  std::cout << fmt::format(
      "state check: {} days x {} rows ({} rows), median of {}\n"
      "  check   (ListPartitions + CheckComputedPartitions)  {:8.2f} ms\n"
      "  rebuild (one partition: BEGIN; DELETE; INSERT; COMMIT) {:8.2f} ms\n"
      "  ratio check / rebuild: {:.2f}\n",
      days, rows_per_day, std::int64_t{days} * rows_per_day, reps, check_ms, rebuild_ms,
      check_ms / rebuild_ms);
  fs::remove_all(dir);
  return 0;
}
