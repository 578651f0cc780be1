// --missing planning benchmark: a 10-year hourly model (first_partition 2016-01-01T00, now fixed
// at 2026-01-01T00: 87,673 partitions, the hour containing now included) whose state store holds
// 80,000 Computed partitions written with UpsertPartitions; the other 7,673 are spread evenly.
//
//   missing_planning [--dir DIR] [--reps N] [--strata PATH_TO_STRATA]
//
// Measures, median of N repetitions in this process:
//   baseline   store.ComputedKeys(model)                                  (reading the keys)
//   planning   store.ComputedKeys + materialize::SelectPartitions(--missing)   (the hot path)
// and prints planning / baseline (target: planning < 50 ms). Peak RSS (getrusage ru_maxrss) is
// read after each phase; the state file is written by a forked child so its cost is not counted.
// For context it also times BuildPlan (selection + the SQL of every batch) and PlanToJson, and,
// with --strata, the whole `strata plan --missing --output json` process. The CLI plans against
// the real clock, so for that ratio the in-process planning is repeated with the same `now`.
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "base/partition.h"
#include "base/time.h"
#include "materialize/plan.h"
#include "materialize/selection.h"
#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/emitter.h"

extern char** environ;

namespace {

using namespace strata;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr const char* kModel = "fct_hourly_events";
constexpr int kComputed = 80000;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "missing_planning: " << message << "\n";
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

long PeakRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

double MedianMs(int reps, const std::function<void()>& body) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = Clock::now();
    body();
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times.size() % 2 ? times[times.size() / 2]
                          : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

void WriteProject(const fs::path& dir) {
  WriteFile(dir / "strata.toml",
            "[project]\nname = \"missing_bench\"\n\n[warehouse]\ntype = \"duckdb\"\n"
            "path = \"warehouse.duckdb\"\n");
  WriteFile(dir / "models" / (std::string(kModel) + ".toml"),
            fmt::format("name = \"{}\"\n\n[[sources]]\nschema = \"raw\"\ntable = \"events\"\n\n"
                        "[strategy]\ntype = \"time_interval\"\ntime_column = \"event_hour\"\n"
                        "granularity = \"hour\"\nfirst_partition = \"2016-01-01T00\"\n\n"
                        "[target]\nschema = \"marts\"\ntable = \"{}\"\n",
                        kModel, kModel));
  WriteFile(dir / "models" / (std::string(kModel) + ".sql"),
            "SELECT\n    DATE_TRUNC('hour', ts) AS event_hour,\n    customer_id,\n"
            "    COUNT(*) AS event_count,\n    SUM(amount) AS revenue\nFROM events\n"
            "WHERE ts >= @start_date\n  AND ts <  @end_date\nGROUP BY 1, 2\n");
}

// Writes 80,000 Computed records (in one UpsertPartitions call) into a new state store.
void WriteState(const std::string& state_path, UnixSeconds now) {
  fs::remove(state_path);
  fs::remove(state_path + "-wal");
  fs::remove(state_path + "-shm");
  auto store = Check(state::StateStore::Open(state_path), "open state store");
  const PartitionKey first = Check(PartitionKey::Parse("2016-01-01T00", Grain::kHour), "parse");
  const PartitionKey last = PartitionKey::Containing(Grain::kHour, now);
  const std::vector<PartitionKey> all = first.RangeTo(last);
  const std::size_t total = all.size(), missing = total - kComputed;
  std::vector<state::PartitionRecord> records;
  for (std::size_t i = 0; i < total; ++i) {
    if ((i + 1) * missing / total != i * missing / total) continue;  // an evenly spread gap
    state::PartitionRecord record;
    record.model_name = kModel;
    record.partition_key = all[i].ToString();
    record.status = state::PartitionStatus::kComputed;
    record.computed_at = all[i].window().end + 600;
    record.row_count = 1000 + static_cast<std::int64_t>(i % 97);
    record.duration_ms = 40;
    record.run_id = "run_20260101T000000Z_000001";
    record.checksum = 0x9e3779b97f4a7c15ULL * (i + 1);
    record.start = all[i].window().start;
    record.end = all[i].window().end;
    records.push_back(std::move(record));
  }
  if (records.size() != static_cast<std::size_t>(kComputed)) Die("wrong record count");
  const auto start = Clock::now();
  Check(store->UpsertPartitions(records), "UpsertPartitions");
  std::cout << fmt::format(
      "setup: {} partitions from 2016-01-01T00 through {}, {} Computed "
      "written in one UpsertPartitions call in {:.0f} ms\n",
      total, last.ToString(), records.size(),
      std::chrono::duration<double, std::milli>(Clock::now() - start).count());
}

// Runs `argv` with stdout to `out_path`; returns wall milliseconds (dies on a non-zero exit).
double RunProcess(const std::vector<std::string>& args, const std::string& out_path) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const auto start = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    Die("cannot start " + args[0]);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  posix_spawn_file_actions_destroy(&actions);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    Die(args[0] + " failed; output in " + out_path);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir;
  std::string strata_binary;
  int reps = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dir" && i + 1 < argc)
      dir = argv[++i];
    else if (arg == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--strata" && i + 1 < argc)
      strata_binary = fs::absolute(argv[++i]).string();
    else
      Die("usage: missing_planning [--dir DIR] [--reps N] [--strata PATH]");
  }
  const bool temp_dir = dir.empty();
  if (temp_dir) {
    char pattern[] = "/tmp/strata-missing.XXXXXX";
    if (mkdtemp(pattern) == nullptr) Die("mkdtemp");
    dir = pattern;
  }
  const UnixSeconds now =
      Check(PartitionKey::Parse("2026-01-01T00", Grain::kHour), "parse").start();

  WriteProject(dir);
  project::LoadOutcome loaded = project::LoadProject(dir);
  if (!loaded.project) Die("cannot load the project: " + loaded.errors.front().ToString());
  const project::Project& project = *loaded.project;
  const std::string state_path = project.config.state_path.string();

  // The state file is written by a child process so this process's peak RSS is planning only.
  std::cout.flush();
  const pid_t child = fork();
  if (child == 0) {
    WriteState(state_path, now);
    std::cout.flush();
    _exit(0);
  }
  int child_status = 0;
  waitpid(child, &child_status, 0);
  if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) Die("setup failed");

  const project::Model& model = project.models.front();
  auto store = Check(state::StateStore::Open(state_path), "open state store");
  materialize::SelectionOptions missing;
  missing.missing = true;
  const long rss_start = PeakRssKb();

  // Warm-up (SQLite page cache, allocator), then the baseline: reading the keys alone.
  std::size_t key_count = Check(store->ComputedKeys(kModel), "ComputedKeys").size();
  const double baseline_ms = MedianMs(
      reps, [&] { key_count = Check(store->ComputedKeys(kModel), "ComputedKeys").size(); });
  const long rss_baseline = PeakRssKb();

  std::size_t selected = 0;
  const double planning_ms = MedianMs(reps, [&] {
    const std::vector<std::string> keys = Check(store->ComputedKeys(kModel), "ComputedKeys");
    selected =
        Check(materialize::SelectPartitions(model, missing, now, keys), "SelectPartitions").size();
  });
  const long rss_planning = PeakRssKb();
  const std::vector<std::string> keys = Check(store->ComputedKeys(kModel), "ComputedKeys");
  const double select_only_ms = MedianMs(reps, [&] {
    selected =
        Check(materialize::SelectPartitions(model, missing, now, keys), "SelectPartitions").size();
  });

  // Context: the whole plan (selection + compiling every batch's SQL) and its JSON.
  const warehouse::Emitter emitter(sql::Dialect::kDuckDb);
  materialize::PlanRequest request;
  request.models = {&model};
  request.selection = missing;
  request.now = now;
  std::size_t json_bytes = 0;
  const double build_plan_ms = MedianMs(
      reps, [&] { Check(materialize::BuildPlan(project, request, emitter, *store), "BuildPlan"); });
  const materialize::Plan plan =
      Check(materialize::BuildPlan(project, request, emitter, *store), "BuildPlan");
  const double to_json_ms =
      MedianMs(reps, [&] { json_bytes = materialize::PlanToJson(plan).dump().size(); });
  const long rss_build_plan = PeakRssKb();

  std::cout << fmt::format(
      "\n== --missing planning: hourly model, 2016-01-01T00 .. now 2026-01-01T00, {} Computed keys "
      "read, {} partitions selected; median of {} reps ({} cores)\n",
      key_count, selected, reps, std::thread::hardware_concurrency());
  std::cout << fmt::format("baseline  ComputedKeys alone                    {:8.2f} ms\n",
                           baseline_ms);
  std::cout << fmt::format(
      "planning  ComputedKeys + SelectPartitions       {:8.2f} ms   (target < 50 ms: {})\n",
      planning_ms, planning_ms < 50 ? "met" : "NOT MET");
  std::cout << fmt::format("          of which SelectPartitions alone       {:8.2f} ms\n",
                           select_only_ms);
  std::cout << fmt::format("ratio planning / baseline                     {:8.3f}\n",
                           planning_ms / baseline_ms);
  std::cout << fmt::format(
      "peak RSS: {:.1f} MiB after load+open, {:.1f} MiB after baseline, {:.1f} MiB after planning "
      "(+{:.1f} MiB for keys + selection)\n",
      rss_start / 1024.0, rss_baseline / 1024.0, rss_planning / 1024.0,
      (rss_planning - rss_start) / 1024.0);
  std::cout << fmt::format(
      "context: BuildPlan (selection + SQL of {} batches)  {:8.2f} ms  ({:.2f}x planning)\n",
      plan.models.front().batches.size(), build_plan_ms, build_plan_ms / planning_ms);
  std::cout << fmt::format("context: PlanToJson().dump() ({:.1f} MB)             {:8.2f} ms\n",
                           json_bytes / 1e6, to_json_ms);
  std::cout << fmt::format("peak RSS after BuildPlan + JSON: {:.1f} MiB\n",
                           rss_build_plan / 1024.0);

  if (!strata_binary.empty()) {
    // The CLI plans against the real clock: repeat the in-process planning with the same now.
    const UnixSeconds real_now = SystemClock().Now();
    const double planning_real_ms = MedianMs(reps, [&] {
      const std::vector<std::string> k = Check(store->ComputedKeys(kModel), "ComputedKeys");
      selected =
          Check(materialize::SelectPartitions(model, missing, real_now, k), "SelectPartitions")
              .size();
    });
    request.now = real_now;
    const double build_real_ms = MedianMs(reps, [&] {
      Check(materialize::BuildPlan(project, request, emitter, *store), "BuildPlan");
    });
    // The CLI's path after loading the project, phase by phase (cmd_run.cc RunPlan): BuildPlan
    // (which also serializes the plan once to hash its id), the saved body, SavePlan, the printout.
    const materialize::Plan real_plan =
        Check(materialize::BuildPlan(project, request, emitter, *store), "BuildPlan");
    std::string body;
    const double body_ms =
        MedianMs(reps, [&] { body = materialize::PlanToJson(real_plan).dump(); });
    const double save_ms = MedianMs(reps, [&] {
      Check(store->SavePlan(real_plan.plan_id, real_plan.created_at, body), "SavePlan");
    });
    std::size_t printed_bytes = 0;
    const double print_ms =
        MedianMs(reps, [&] { printed_bytes = materialize::PlanToJson(real_plan).dump(2).size(); });
    const std::string out = (dir / "plan-missing.json").string();
    const int cli_reps = std::max(3, reps / 2);
    const double cli_ms = MedianMs(cli_reps, [&] {
      RunProcess(
          {strata_binary, "plan", "--missing", "--output", "json", "--project", dir.string()}, out);
    });
    std::cout << fmt::format(
        "\n== CLI: strata plan --missing --output json (real now {}: {} partitions selected), "
        "median of {}\n",
        FormatIso8601(real_now), selected, cli_reps);
    std::cout << fmt::format("in-process planning (same now)                {:8.2f} ms\n",
                             planning_real_ms);
    std::cout << fmt::format("in-process BuildPlan (same now)               {:8.2f} ms\n",
                             build_real_ms);
    std::cout << fmt::format(
        "strata plan --missing --output json           {:8.2f} ms   ({:.1f} MB of JSON)\n", cli_ms,
        fs::file_size(out) / 1e6);
    std::cout << fmt::format(
        "  in-process phases of the CLI path: BuildPlan {:.1f} + PlanToJson().dump() {:.1f} + "
        "SavePlan ({:.1f} MB) {:.1f} + PlanToJson().dump(2) ({:.1f} MB) {:.1f} = {:.1f} ms\n",
        build_real_ms, body_ms, body.size() / 1e6, save_ms, printed_bytes / 1e6, print_ms,
        build_real_ms + body_ms + save_ms + print_ms);
    std::cout << fmt::format("ratio CLI / in-process planning               {:8.2f}\n",
                             cli_ms / planning_real_ms);
    std::cout << fmt::format("ratio CLI / in-process BuildPlan              {:8.2f}\n",
                             cli_ms / build_real_ms);
  }
  if (temp_dir) fs::remove_all(dir);
  return 0;
}
