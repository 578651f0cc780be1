// strata rollups build / refresh / compact / status: builds the semantic model's rollups into the
// rollup store (rollup/builder.h) and shows what the store holds (rollup/status.h).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "project/did_you_mean.h"
#include "rollup/builder.h"
#include "rollup/compaction.h"
#include "rollup/status.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/from_config.h"

namespace strata::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson ErrorJson(const std::optional<Error>& error) {
  if (!error) return nullptr;
  return {{"code", std::string(ErrorCodeName(error->code))},
          {"message", error->message},
          {"hint", WithHintProject(error->hint)}};
}

OrderedJson PeriodJson(const rollup::PeriodOutcome& period) {
  return {
      {"period", period.label},
      {"start", period.start ? OrderedJson(FormatIso8601(*period.start)) : OrderedJson(nullptr)},
      {"end", period.end ? OrderedJson(FormatIso8601(*period.end)) : OrderedJson(nullptr)},
      {"null_time", period.null_time},
      {"status", period.status},
      {"rows", period.rows},
      {"bytes", period.bytes},
      {"duration_ms", period.duration_ms},
      {"error", ErrorJson(period.error)}};
}

OrderedJson BuildJson(const rollup::BuildReport& report) {
  OrderedJson rollups = OrderedJson::array();
  for (const rollup::RollupOutcome& outcome : report.rollups) {
    OrderedJson periods = OrderedJson::array();
    for (const rollup::PeriodOutcome& period : outcome.periods)
      periods.push_back(PeriodJson(period));
    rollups.push_back(
        {{"rollup", outcome.rollup},
         {"status", outcome.status},
         {"version", outcome.version},
         {"rows", outcome.rows},
         {"duration_ms", outcome.duration_ms},
         {"periods", periods},
         {"garbage", outcome.garbage},
         {"marker", outcome.marker ? OrderedJson(*outcome.marker) : OrderedJson(nullptr)},
         {"reason", outcome.reason},
         {"compacted_files", outcome.compacted_files},
         {"error", ErrorJson(outcome.error)}});
  }
  return {{"status", report.ok() ? "success" : "partial_failure"}, {"rollups", rollups}};
}

void PrintBuildHuman(const rollup::BuildReport& report) {
  std::vector<std::vector<std::string>> rows;
  for (const rollup::RollupOutcome& outcome : report.rollups) {
    int built = 0, appended = 0, kept = 0, failed = 0;
    std::uint64_t bytes = 0;
    for (const rollup::PeriodOutcome& period : outcome.periods) {
      built += period.status == "built";
      appended += period.status == "appended";
      kept += period.status == "kept";
      failed += period.status == "failed";
      bytes += period.bytes;
    }
    rows.push_back({outcome.rollup, outcome.status,
                    outcome.status == "skipped" ? outcome.reason
                    : appended > 0
                        ? fmt::format("{} built, {} appended, {} kept, {} failed", built, appended,
                                      kept, failed)
                        : fmt::format("{} built, {} kept, {} failed", built, kept, failed),
                    std::to_string(outcome.rows), std::to_string(bytes),
                    fmt::format("{:.0f} ms", outcome.duration_ms)});
  }
  std::cout << RenderTable({"rollup", "status", "periods", "rows", "bytes", "time"}, rows);
  for (const rollup::RollupOutcome& outcome : report.rollups) {
    if (outcome.error) PrintError(*outcome.error, OutputFormat::kHuman);
  }
}

void PrintStatusHuman(const std::vector<rollup::RollupStatus>& statuses) {
  std::vector<std::vector<std::string>> rows;
  for (const rollup::RollupStatus& status : statuses) {
    const rollup::Manifest* manifest = status.manifest ? &*status.manifest : nullptr;
    rows.push_back(
        {status.rollup, status.entity, status.state,
         manifest ? std::to_string(manifest->files.size()) : "-",
         manifest ? std::to_string(status.rows) : "-",
         manifest ? std::to_string(status.bytes) : "-", manifest ? manifest->built_at : "-",
         manifest && manifest->built_through ? FormatIso8601(*manifest->built_through) : "-",
         manifest && manifest->freshness_marker ? *manifest->freshness_marker : "-",
         status.last_refresh ? status.last_refresh->status + " " + status.last_refresh->at : "-"});
  }
  std::cout << RenderTable({"rollup", "entity", "state", "files", "rows", "bytes", "built_at",
                            "watermark", "marker", "last refresh"},
                           rows);
  // Why a rollup is damaged or unreadable: the table has no room for it.
  for (const rollup::RollupStatus& status : statuses) {
    if (!status.error.empty())
      std::cout << status.rollup << " (" << status.state << "): " << status.error << "\n";
  }
}

// The rollup engine (in-process DuckDB), or null after printing why it did not open.
std::unique_ptr<warehouse::Warehouse> OpenEngine(const CommonOptions& common) {
  Result<std::unique_ptr<warehouse::Warehouse>> engine = warehouse::OpenDuckDbEngine({});
  if (engine.ok()) return std::move(*engine);
  PrintError(engine.error(), common.output);
  return nullptr;
}

OrderedJson CompactJson(const std::vector<rollup::CompactionOutcome>& outcomes, bool ok) {
  OrderedJson list = OrderedJson::array();
  for (const rollup::CompactionOutcome& outcome : outcomes) {
    list.push_back({{"rollup", outcome.rollup},
                    {"status", outcome.status},
                    {"reason", outcome.reason},
                    {"merged_files", outcome.merged_files},
                    {"written_files", outcome.written_files},
                    {"version", outcome.version},
                    {"duration_ms", outcome.duration_ms},
                    {"garbage", outcome.garbage},
                    {"error", ErrorJson(outcome.error)}});
  }
  return {{"status", ok ? "success" : "partial_failure"}, {"rollups", list}};
}

void PrintCompactHuman(const std::vector<rollup::CompactionOutcome>& outcomes) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(outcomes.size());
  for (const rollup::CompactionOutcome& outcome : outcomes) {
    rows.push_back(
        {outcome.rollup, outcome.status,
         outcome.status == "compacted"
             ? fmt::format("{} files into {}", outcome.merged_files, outcome.written_files)
             : outcome.reason,
         fmt::format("{:.0f} ms", outcome.duration_ms)});
  }
  std::cout << RenderTable({"rollup", "status", "files", "time"}, rows);
  for (const rollup::CompactionOutcome& outcome : outcomes) {
    if (outcome.error) PrintError(*outcome.error, OutputFormat::kHuman);
  }
}

}  // namespace

int RunRollupsBuild(const CommonOptions& common, const RollupsBuildOptions& options) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  auto warehouse = warehouse::OpenWarehouse(loaded->project.config, loaded->warehouse,
                                            warehouse::AccessMode::kReadOnly);
  if (!warehouse.ok()) {
    PrintError(warehouse.error(), common.output);
    return 1;
  }
  std::unique_ptr<warehouse::Warehouse> engine = OpenEngine(common);
  if (engine == nullptr) return 1;
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  TerminalProgress progress(common.output == OutputFormat::kHuman && !common.quiet &&
                            ::isatty(STDERR_FILENO));
  rollup::BuildOptions build;
  build.rollups = options.rollups;
  build.full = options.full;
  build.parallel = options.parallel;
  build.due_only = options.due_only;
  build.cancel = &CancelFlag();
  build.progress = [&](const std::string&, const rollup::PeriodOutcome&, std::size_t done,
                       std::size_t total) {
    progress.OnProgress(static_cast<int>(done), static_cast<int>(total));
  };
  Result<rollup::BuildReport> report =
      rollup::BuildRollups(loaded->model, **warehouse, *engine, store, build);
  progress.Clear();
  if (!report.ok()) {
    PrintError(report.error(), common.output);
    return 1;
  }
  if (common.output == OutputFormat::kJson) {
    PrintJson(BuildJson(*report));
  } else {
    PrintBuildHuman(*report);
  }
  if (CancelFlag().load()) return 130;
  return report->ok() ? 0 : 2;
}

int RunRollupsCompact(const CommonOptions& common, const std::vector<std::string>& rollups) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  std::vector<std::string> names;
  for (const semantic::Rollup& rollup : loaded->model.rollups) names.push_back(rollup.name);
  for (const std::string& wanted : rollups) {
    if (std::find(names.begin(), names.end(), wanted) == names.end()) {
      PrintError(MakeError(ErrorCode::kConfig, fmt::format("no rollup named \"{}\"", wanted),
                           project::SuggestionHint(wanted, names)),
                 common.output);
      return 1;
    }
  }
  std::unique_ptr<warehouse::Warehouse> engine = OpenEngine(common);
  if (engine == nullptr) return 1;
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  const UnixSeconds now = SystemClock().Now();
  std::vector<rollup::CompactionOutcome> outcomes;
  for (const semantic::Rollup& rollup : loaded->model.rollups) {
    const bool named = std::find(rollups.begin(), rollups.end(), rollup.name) != rollups.end();
    if (!rollups.empty() && !named) continue;
    if (rollups.empty() && !(rollup.partition && rollup.partition->compact)) continue;
    outcomes.push_back(rollup::CompactRollup(loaded->model, rollup, *engine, store, now));
  }
  const bool ok = std::none_of(outcomes.begin(), outcomes.end(),
                               [](const rollup::CompactionOutcome& o) { return o.error; });
  if (common.output == OutputFormat::kJson) {
    PrintJson(CompactJson(outcomes, ok));
  } else {
    PrintCompactHuman(outcomes);
  }
  return ok ? 0 : 2;
}

int RunRollupsStatus(const CommonOptions& common) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  const std::vector<rollup::RollupStatus> statuses = rollup::StatusOf(loaded->model, store);
  if (common.output == OutputFormat::kJson) {
    OrderedJson list = OrderedJson::array();
    for (const rollup::RollupStatus& status : statuses) list.push_back(status.ToJson());
    PrintJson(OrderedJson{{"store", store.root().string()}, {"rollups", list}});
  } else {
    PrintStatusHuman(statuses);
  }
  return 0;
}

}  // namespace strata::cli
