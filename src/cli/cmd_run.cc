// strata plan / apply / run.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "base/hash.h"
#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "materialize/plan.h"
#include "materialize/runner.h"
#include "materialize/warehouse_catalog.h"
#include "warehouse/from_config.h"
#include "warehouse/registry.h"

namespace strata::cli {
namespace {

using nlohmann::json;

Result<materialize::Plan> MakePlan(Session& session, const CommonOptions& common,
                                   const RunCommandOptions& options) {
  STRATA_ASSIGN_OR_RETURN(sql::Dialect dialect, warehouse::DialectOf(session.warehouse));
  STRATA_ASSIGN_OR_RETURN(std::vector<const project::Model*> models,
                          project::SelectModels(session.project, common.models, common.filters));
  if (options.parallel < 1) {
    return MakeError(ErrorCode::kUsage, "--parallel must be at least 1",
                     "use --parallel 1 for serial runs");
  }
  materialize::PlanRequest request;
  request.models = std::move(models);
  request.selection = options.selection;
  request.warehouse = session.warehouse.name;
  request.parallel = options.parallel;
  request.full_refresh = options.full_refresh;
  request.now = SystemClock().Now();
  // Column types, so a plan refuses what `strata compile` refuses (E021/E022/E025). Closed again
  // before the run opens the warehouse: a DuckDB file takes one opener at a time.
  materialize::OpenedCatalog catalog =
      materialize::OpenCatalog(session.project.config, session.warehouse);
  // The statements follow the target's capabilities as it reports them (a Trino catalog's
  // connector decides MERGE, DELETE and transactions); without a connection, the dialect's. A
  // connection opened lazily (Trino's) that cannot reach the server counts as none.
  warehouse::Capabilities capabilities = warehouse::CapabilitiesOf(dialect);
  if (catalog.connection) {
    Result<warehouse::Capabilities> discovered =
        warehouse::DiscoverCapabilities(*catalog.connection, capabilities);
    if (discovered.ok()) {
      capabilities = *discovered;
    } else if (discovered.error().code == ErrorCode::kWarehouseConnection) {
      catalog.note = fmt::format("cannot reach warehouse \"{}\": {}", session.warehouse.name,
                                 discovered.error().message);
      catalog.catalog.reset();
      catalog.connection.reset();
    } else {
      return std::move(discovered).error();
    }
  }
  request.catalog = catalog.catalog.get();
  request.connection = catalog.connection.get();
  request.warehouse_absent = catalog.absent;
  if (!catalog.catalog && !catalog.absent) request.check_skipped = catalog.note;
  return materialize::BuildPlan(session.project, request, warehouse::Emitter(capabilities),
                                *session.store);
}

// What a warehouse name points to when a plan is made: its type and location (a DuckDB file's
// absolute path; a Trino coordinator's URL, catalog and schema; a server's DSN, read from its
// variable), hashed so no secret is stored. `apply` refuses a plan whose warehouse now points
// elsewhere, as it refuses another --warehouse.
std::string WarehouseLocationId(const project::ProjectConfig& project,
                                const project::WarehouseConfig& warehouse) {
  std::string location = warehouse.type + "\n";
  if (warehouse.type == "duckdb") {
    location += warehouse.path == ":memory:"
                    ? warehouse.path
                    : std::filesystem::weakly_canonical(project.root / warehouse.path).string();
  } else if (!warehouse.url.empty()) {
    location += warehouse.url + "\n" + warehouse.catalog + "\n" + warehouse.schema;
  } else if (!warehouse.dsn.empty()) {
    location += warehouse.dsn;
  } else if (const char* dsn = std::getenv(warehouse.dsn_env.c_str()); dsn != nullptr) {
    location += dsn;
  }
  return HexHash64(Hash64(location));
}

// Builds the plan and saves it in the state store (a run's plan can be inspected afterwards by
// its id); prints the error and returns nullopt on failure.
std::optional<materialize::Plan> MakeAndSavePlan(Session& session, const CommonOptions& common,
                                                 const RunCommandOptions& options) {
  Result<materialize::Plan> plan = MakePlan(session, common, options);
  Status saved = Status(OkStatus());
  if (plan.ok()) {
    json body = materialize::PlanToJson(*plan);
    body["warehouse_location"] = WarehouseLocationId(session.project.config, session.warehouse);
    saved = session.store->SavePlan(plan->plan_id, plan->created_at, DumpJson(body));
  } else {
    saved = Status(plan.error());
  }
  if (!saved.ok()) {
    PrintError(saved.error(), common.output);
    return std::nullopt;
  }
  return std::move(plan).value();
}

int Execute(Session& session, const CommonOptions& common, const materialize::Plan& plan,
            int parallel) {
  TerminalProgress progress(common.output == OutputFormat::kHuman && !common.quiet);
  materialize::RunOptions options;
  options.parallel = parallel;
  options.cancel = &CancelFlag();
  options.progress = &progress;
  options.command = common.command_line;
  const project::ProjectConfig& config = session.project.config;
  const project::WarehouseConfig& warehouse = session.warehouse;
  Result<materialize::RunReport> report = materialize::ExecutePlan(
      session.project, plan, [&] { return warehouse::OpenWarehouse(config, warehouse); },
      *session.store, options);
  progress.Clear();
  if (!report.ok()) {
    PrintError(report.error(), common.output);
    return CancelFlag().load() ? 130 : 1;
  }
  PrintRunReport(*report, common.output, common.quiet);
  return materialize::ExitCodeFor(*report);
}

void PrintPlan(const materialize::Plan& plan, const CommonOptions& common) {
  if (common.output == OutputFormat::kJson) {
    PrintJson(materialize::PlanToJson(plan));
    return;
  }
  std::vector<materialize::RunWarning> warnings;
  for (const materialize::PlanWarning& w : plan.warnings) {
    warnings.push_back({w.code, w.model, w.partition, w.message});
  }
  PrintWarnings(warnings);
  std::vector<std::vector<std::string>> rows;
  for (const materialize::PlannedModel& planned : plan.models) {
    std::string first = "-", last = "-";
    int partitions = 0;
    for (const materialize::PlannedBatch& batch : planned.batches) {
      partitions += static_cast<int>(batch.keys.size());
    }
    if (!planned.batches.empty()) {
      first = planned.batches.front().keys.front().ToString();
      last = planned.batches.back().keys.back().ToString();
    }
    rows.push_back({planned.model->name,
                    std::string(project::StrategyName(planned.model->strategy)),
                    std::to_string(partitions), std::to_string(planned.batches.size()), first, last,
                    planned.error ? "error: " + planned.error->message : "ok"});
  }
  std::cout << RenderTable(
      {"model", "strategy", "partitions", "batches", "first", "last", "status"}, rows);
  std::cout << fmt::format("\nplan {}\napply it with: strata apply {}\n", plan.plan_id,
                           plan.plan_id);
}

// As `strata run` would exit on the plan's errors: 0 when every model is planned, 2 when some
// model is refused (the others are planned and `apply` runs them), 1 when every model is.
int PlanExitCode(const materialize::Plan& plan) {
  const auto refused = std::count_if(plan.models.begin(), plan.models.end(),
                                     [](const materialize::PlannedModel& m) { return m.error; });
  if (refused == 0) return 0;
  return refused == static_cast<std::ptrdiff_t>(plan.models.size()) ? 1 : 2;
}

}  // namespace

int RunPlan(const CommonOptions& common, const RunCommandOptions& options) {
  std::optional<Session> session = OpenSession(common);
  if (!session) return 1;
  std::optional<materialize::Plan> plan = MakeAndSavePlan(*session, common, options);
  if (!plan) return 1;
  PrintPlan(*plan, common);
  return PlanExitCode(*plan);
}

int RunApply(const CommonOptions& common, const std::string& plan_id, std::optional<int> parallel) {
  std::optional<Session> session = OpenSession(common);
  if (!session) return 1;
  Result<std::optional<std::string>> body = session->store->LoadPlan(plan_id);
  if (!body.ok()) {
    PrintError(body.error(), common.output);
    return 1;
  }
  if (!body->has_value()) {
    PrintError(MakeError(ErrorCode::kPlanNotFound, fmt::format("no saved plan with id {}", plan_id),
                         "make one with `strata plan`; it prints the id"),
               common.output);
    return 1;
  }
  const json parsed = json::parse(**body, nullptr, /*allow_exceptions=*/false);
  Result<materialize::Plan> plan = materialize::PlanFromJson(parsed, session->project);
  if (!plan.ok()) {
    PrintError(plan.error(), common.output);
    return 1;
  }
  if (plan->warehouse != session->warehouse.name) {
    PrintError(MakeError(ErrorCode::kPlanStale,
                         fmt::format("plan {} was made for warehouse \"{}\", not \"{}\"", plan_id,
                                     plan->warehouse, session->warehouse.name),
                         fmt::format("pass --warehouse {}", plan->warehouse)),
               common.output);
    return 1;
  }
  const std::string location = WarehouseLocationId(session->project.config, session->warehouse);
  if (parsed.contains("warehouse_location") && parsed["warehouse_location"] != location) {
    PrintError(MakeError(ErrorCode::kPlanStale,
                         fmt::format("plan {} was made for warehouse \"{}\" at another location "
                                     "(its path or DSN changed since)",
                                     plan_id, plan->warehouse),
                         "make a new plan with `strata plan`"),
               common.output);
    return 1;
  }
  return Execute(*session, common, *plan, parallel.value_or(plan->parallel));
}

int RunRun(const CommonOptions& common, const RunCommandOptions& options) {
  std::optional<Session> session = OpenSession(common);
  if (!session) return 1;
  std::optional<materialize::Plan> plan = MakeAndSavePlan(*session, common, options);
  if (!plan) return 1;
  return Execute(*session, common, *plan, options.parallel);
}

}  // namespace strata::cli
