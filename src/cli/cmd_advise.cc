// strata rollups advise: the rollups that would answer a query (--query FILE) or the live
// queries of serve's access log (--from-log FILE), as YAML for the model's `rollups:` block
// (rollup/advisor.h, rollup/query_log.h).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "rollup/advisor.h"
#include "rollup/query_log.h"
#include "semantic/query.h"

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
  std::cout << fmt::format("# {} live queries in the log ({} ms); {} no rollup can answer\n",
                           advice->live_queries, advice->live_ms, advice->skipped);
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
