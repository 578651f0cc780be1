// strata rollups advise: the rollups that would answer a query (--query FILE) or the live
// queries of serve's access log (--from-log FILE), as YAML for the model's `rollups:` block
// (rollup/advisor.h, rollup/query_log.h).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "rollup/advisor.h"
#include "rollup/query_log.h"
#include "semantic/query.h"
#include "semantic/rollup_sql.h"
#include "warehouse/from_config.h"

namespace strata::cli {
namespace {

Result<std::string> ReadText(const std::string& path) {
  if (path == "-") {
    std::ostringstream text;
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kIo, "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void PrintAdviceHuman(const rollup::Advice& advice) {
  if (!advice.rollups.empty()) std::cout << rollup::RollupsYaml(advice.rollups);
  for (const rollup::UnansweredMember& member : advice.unanswerable) {
    std::cout << fmt::format("# not answered by a rollup: {} ({}): {}\n", member.member,
                             member.reason, member.detail);
  }
  if (advice.rollups.empty() && advice.unanswerable.empty()) {
    std::cout << "# no rollup to propose\n";
  }
}

int AdviseQuery(const CommonOptions& common, const RollupsAdviseOptions& options,
                const LoadedModel& loaded) {
  Result<std::string> text = ReadText(options.query_file);
  Result<semantic::SemanticQuery> query =
      text.ok() ? semantic::ParseQueryJson(*text) : Result<semantic::SemanticQuery>(text.error());
  rollup::AdviseOptions advise;
  advise.plan.role = options.role;
  advise.now = SystemClock().Now();
  Result<rollup::Advice> advice = query.ok() ? rollup::AdviseRollups(loaded.model, *query, advise)
                                             : Result<rollup::Advice>(query.error());
  if (!advice.ok()) {
    PrintError(advice.error(), common.output);
    return 1;
  }
  if (common.output == OutputFormat::kJson) {
    PrintJson(rollup::AdviceJson(*advice));
  } else {
    PrintAdviceHuman(*advice);
  }
  return 0;
}

std::optional<double> SingleNumber(const Result<warehouse::QueryResult>& result) {
  if (!result.ok() || result->columns.empty() || result->row_count() != 1) return std::nullopt;
  const warehouse::Value& value = result->columns[0].values[0];
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* u = std::get_if<std::uint64_t>(&value)) return static_cast<double>(*u);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}

// The stored rows of a proposal over its entity's rows, counted on the warehouse (each entity
// counted once). REQUIRES: `connection` outlives the function returned.
std::function<std::optional<double>(const semantic::Rollup&)> StoredShareOn(
    warehouse::Connection& connection, const LoadedModel& loaded) {
  auto entity_rows = std::make_shared<std::map<std::string, std::optional<double>>>();
  return [&connection, &loaded, entity_rows](const semantic::Rollup& rollup) {
    auto [cached, fresh] = entity_rows->try_emplace(rollup.entity);
    if (fresh) {
      Result<std::string> sql =
          semantic::PlanEntityRowCount(loaded.model, rollup.entity, loaded.dialect);
      if (sql.ok()) cached->second = SingleNumber(connection.Execute(*sql));
    }
    Result<semantic::RollupBuildPlan> plan =
        semantic::PlanRollupBuild(loaded.model, rollup, loaded.dialect, std::nullopt);
    if (!cached->second || !plan.ok()) return std::optional<double>();
    const std::optional<double> stored =
        SingleNumber(connection.Execute("SELECT COUNT(*) FROM (" + plan->sql + ") AS stored"));
    if (!stored) return std::optional<double>();
    return std::optional<double>(*stored / std::max(1.0, *cached->second));
  };
}

int AdviseLog(const CommonOptions& common, const RollupsAdviseOptions& options,
              const LoadedModel& loaded) {
  std::ifstream in(options.log_file, std::ios::binary);
  if (!in) {
    PrintError(MakeError(ErrorCode::kIo, "cannot read " + options.log_file,
                         "give the file strata serve's stderr (its access log) was written to"),
               common.output);
    return 1;
  }
  rollup::LogAdviceOptions advise;
  advise.top = options.top;
  advise.now = SystemClock().Now();
  // Sizes are estimated on the warehouse; without it every proposal counts as saving all the
  // live time it answers.
  auto warehouse = warehouse::OpenWarehouse(loaded.project.config, loaded.warehouse,
                                            warehouse::AccessMode::kReadOnly);
  Result<std::unique_ptr<warehouse::Connection>> connection =
      warehouse.ok() ? (*warehouse)->Connect()
                     : Result<std::unique_ptr<warehouse::Connection>>(warehouse.error());
  if (connection.ok()) {
    advise.stored_share = StoredShareOn(**connection, loaded);
  } else if (common.output == OutputFormat::kHuman) {
    std::cout << "# the warehouse is not readable (" << connection.error().message
              << "): rollup sizes are not estimated\n";
  }
  Result<rollup::LogAdvice> advice = rollup::AdviseFromLog(loaded.model, in, advise);
  if (!advice.ok()) {
    PrintError(advice.error(), common.output);
    return 1;
  }
  const nlohmann::json json = rollup::LogAdviceJson(*advice);
  if (common.output == OutputFormat::kJson) {
    PrintJson(json);
    return 0;
  }
  std::cout << fmt::format(
      "# {} live queries in the log ({} ms); {} no rollup can answer; {} only rollups too large "
      "to save time\n",
      advice->live_queries, advice->live_ms, advice->skipped, advice->too_large);
  std::cout << (advice->rollups.empty() ? "# no rollup to propose\n"
                                        : json["yaml"].get<std::string>());
  return 0;
}

}  // namespace

int RunRollupsAdvise(const CommonOptions& common, const RollupsAdviseOptions& options) {
  if (options.query_file.empty() == options.log_file.empty()) {
    PrintError(MakeError(ErrorCode::kUsage, "give either --query FILE or --from-log FILE",
                         "strata rollups advise --query q.json, or --from-log serve.log"),
               common.output);
    return 1;
  }
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  return options.query_file.empty() ? AdviseLog(common, options, *loaded)
                                    : AdviseQuery(common, options, *loaded);
}

}  // namespace strata::cli
