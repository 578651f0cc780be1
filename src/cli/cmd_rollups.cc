// strata rollups build / refresh / status: builds the semantic model's rollups into the rollup
// store (rollup/builder.h) and shows what the store holds (rollup/status.h).
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "materialize/warehouse_factory.h"
#include "rollup/builder.h"
#include "rollup/status.h"
#include "warehouse/duckdb/duckdb_engine.h"

namespace strata::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson ErrorJson(const std::optional<Error>& error) {
  if (!error) return nullptr;
  return {{"code", std::string(ErrorCodeName(error->code))},
          {"message", error->message},
          {"hint", error->hint}};
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
         {"error", ErrorJson(outcome.error)}});
  }
  return {{"status", report.ok() ? "success" : "partial_failure"}, {"rollups", rollups}};
}

void PrintBuildHuman(const rollup::BuildReport& report) {
  std::vector<std::vector<std::string>> rows;
  for (const rollup::RollupOutcome& outcome : report.rollups) {
    int built = 0, kept = 0, failed = 0;
    std::uint64_t bytes = 0;
    for (const rollup::PeriodOutcome& period : outcome.periods) {
      built += period.status == "built";
      kept += period.status == "kept";
      failed += period.status == "failed";
      bytes += period.bytes;
    }
    rows.push_back({outcome.rollup, outcome.status,
                    outcome.status == "skipped"
                        ? outcome.reason
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
    rows.push_back({status.rollup, status.entity, status.state,
                    manifest ? std::to_string(manifest->files.size()) : "-",
                    manifest ? std::to_string(status.rows) : "-",
                    manifest ? std::to_string(status.bytes) : "-",
                    manifest ? manifest->built_at : "-",
                    manifest && manifest->freshness_marker ? *manifest->freshness_marker : "-"});
  }
  std::cout << RenderTable(
      {"rollup", "entity", "state", "files", "rows", "bytes", "built_at", "marker"}, rows);
}

}  // namespace

int RunRollupsBuild(const CommonOptions& common, const RollupsBuildOptions& options) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  auto warehouse = materialize::OpenWarehouse(loaded->project.config, loaded->warehouse,
                                              warehouse::AccessMode::kReadOnly);
  if (!warehouse.ok()) {
    PrintError(warehouse.error(), common.output);
    return 1;
  }
  auto engine = warehouse::OpenDuckDbEngine({});
  if (!engine.ok()) {
    PrintError(engine.error(), common.output);
    return 1;
  }
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
      rollup::BuildRollups(loaded->model, **warehouse, **engine, store, build);
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
