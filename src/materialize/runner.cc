#include "materialize/runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "materialize/internal/run_context.h"
#include "materialize/model_sql.h"
#include "warehouse/registry.h"

namespace strata::materialize {

void RunContext::Progress(int finished) {
  std::lock_guard<std::mutex> lock(mutex);
  done += finished;
  if (options.progress != nullptr) options.progress->OnProgress(done, total);
}

void RunContext::AddError(const std::string& model, std::optional<std::string> partition,
                          const Error& error) {
  std::lock_guard<std::mutex> lock(mutex);
  report.errors.push_back(
      {model, std::move(partition), std::string(error.reported_code()), error.ToString()});
}

Result<warehouse::Connection*> RunContext::ConnectionFor(std::size_t worker) {
  if (!connections[worker]) {
    STRATA_ASSIGN_OR_RETURN(connections[worker], warehouse.Connect());
  }
  return connections[worker].get();
}

Result<warehouse::Capabilities> RunContext::TargetCapabilities(warehouse::Connection& connection) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (discovered) return *discovered;
  }
  // Discovered outside the lock: a round trip to the warehouse. Two workers may both ask; both
  // learn the same.
  STRATA_ASSIGN_OR_RETURN(warehouse::Capabilities capabilities,
                          warehouse::DiscoverCapabilities(connection, emitter.capabilities()));
  std::lock_guard<std::mutex> lock(mutex);
  discovered = capabilities;
  return capabilities;
}

int PlannedPartitions(const PlannedModel& planned) {
  if (planned.model->strategy != project::StrategyKind::kTimeInterval) return 1;
  int count = 0;
  for (const PlannedBatch& batch : planned.batches) count += static_cast<int>(batch.keys.size());
  return count;
}

namespace {

std::string NewRunId(UnixSeconds now) {
  std::random_device device;
  std::string stamp = FormatIso8601(now);  // 2026-04-07T13:00:00Z
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return fmt::format("run_{}_{:06x}", stamp, device() & 0xffffff);
}

constexpr std::int64_t kFirst = std::numeric_limits<std::int64_t>::min();

// The tasks of one model, once added: what a dependent must wait for.
struct ModelTasks {
  bool partitioned = false;     // time_interval with a runnable plan
  TaskId head = 0;              // setup, whole-model or unrunnable task
  std::vector<TaskId> batches;  // by batch index
  std::vector<Window> windows;  // by batch index
};

// The upstream tasks a batch over `window` reads: the overlapping batches of a partitioned
// upstream (all of them under a model barrier), else the upstream's single task.
void AddUpstreamOfBatch(const ModelTasks& upstream, const Window& window, Schedule schedule,
                        std::vector<TaskId>& dependencies) {
  dependencies.push_back(upstream.head);
  if (!upstream.partitioned) return;
  if (schedule == Schedule::kModelBarrier) {
    dependencies.insert(dependencies.end(), upstream.batches.begin(), upstream.batches.end());
    return;
  }
  // Upstream batches are ascending and disjoint: the first that ends after our start onwards.
  auto first = std::upper_bound(upstream.windows.begin(), upstream.windows.end(), window.start,
                                [](UnixSeconds start, const Window& w) { return start < w.end; });
  for (auto it = first; it != upstream.windows.end() && it->start < window.end; ++it) {
    dependencies.push_back(
        upstream.batches[static_cast<std::size_t>(it - upstream.windows.begin())]);
  }
}

std::vector<TaskId> WholeUpstream(const ModelTasks& upstream) {
  std::vector<TaskId> all{upstream.head};
  all.insert(all.end(), upstream.batches.begin(), upstream.batches.end());
  return all;
}

// Builds the run's task graph: see runner.h for the dependency rules.
TaskGraph BuildGraph(const Plan& plan, Schedule schedule, std::vector<Task>& tasks) {
  TaskGraph graph;
  std::map<std::string, std::size_t> index_of;
  std::vector<ModelTasks> added;
  const auto add = [&](Task task, TaskPriority priority, std::vector<TaskId> dependencies) {
    tasks.push_back(task);
    return graph.Add(priority, std::move(dependencies));
  };
  for (std::size_t m = 0; m < plan.models.size(); ++m) {
    const PlannedModel& planned = plan.models[m];
    std::vector<const ModelTasks*> upstream;
    for (const std::string& dependency : planned.model->depends_on) {
      auto found = index_of.find(dependency);
      if (found != index_of.end()) upstream.push_back(&added[found->second]);
    }
    const auto model_index = static_cast<std::int64_t>(m);
    ModelTasks mine;
    if (planned.error) {
      mine.head = add({TaskKind::kUnrunnable, m, 0}, {kFirst, model_index, 0}, {});
    } else if (planned.model->strategy == project::StrategyKind::kTimeInterval) {
      std::vector<TaskId> setup_dependencies;
      setup_dependencies.reserve(upstream.size());
      for (const ModelTasks* u : upstream) setup_dependencies.push_back(u->head);
      mine.partitioned = true;
      mine.head = add({TaskKind::kSetup, m, 0}, {kFirst, model_index, 0}, setup_dependencies);
      for (std::size_t b = 0; b < planned.batches.size(); ++b) {
        const Window& window = planned.batches[b].window;
        std::vector<TaskId> dependencies{mine.head};
        for (const ModelTasks* u : upstream) AddUpstreamOfBatch(*u, window, schedule, dependencies);
        mine.batches.push_back(add({TaskKind::kBatch, m, b},
                                   {window.start, model_index, static_cast<std::int64_t>(b)},
                                   std::move(dependencies)));
        mine.windows.push_back(window);
      }
    } else {
      std::vector<TaskId> dependencies;
      for (const ModelTasks* u : upstream) {
        for (TaskId id : WholeUpstream(*u)) dependencies.push_back(id);
      }
      mine.head = add({TaskKind::kWholeModel, m, 0}, {kFirst, model_index, 0}, dependencies);
    }
    index_of[planned.model->name] = added.size();
    added.push_back(std::move(mine));
  }
  return graph;
}

// Each model's cost per partition from its Computed state (transaction_groups.h); none under
// batching = "off", which does not group.
Result<std::map<std::string, PartitionCost>> StateCosts(const project::Project& project,
                                                        state::StateStore& store) {
  if (project.config.run.batching == project::Batching::kOff) {
    return std::map<std::string, PartitionCost>{};
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<state::StateStore::ComputedTotals> totals,
                          store.ComputedTotalsByModel());
  return CostsFromState(totals);
}

// What RunBatch needs to group batches into transactions: each batch's task, and each
// time_interval model's cost per partition.
void PrepareGroups(RunContext& run, const std::map<std::string, PartitionCost>& costs) {
  for (ModelRun& model_run : run.models) {
    model_run.batch_tasks.resize(model_run.planned->batches.size());
    auto found = costs.find(model_run.planned->model->name);
    if (found != costs.end()) model_run.cost = found->second;
  }
  for (TaskId id = 0; id < run.tasks.size(); ++id) {
    const Task& task = run.tasks[id];
    if (task.kind == TaskKind::kBatch) run.models[task.model].batch_tasks[task.batch] = id;
  }
}

RunStatus FinalStatus(const RunReport& report, bool cancelled) {
  if (cancelled) return RunStatus::kInterrupted;
  int succeeded = 0, failed = 0;
  for (const PartitionSummary& s : report.partition_summaries) {
    succeeded += s.partitions_succeeded;
    failed += s.partitions_failed + s.partitions_skipped;
  }
  if (failed == 0) return RunStatus::kSuccess;
  return succeeded > 0 ? RunStatus::kPartialFailure : RunStatus::kFailure;
}

// One error per model with skipped partitions, naming what failed upstream.
void ReportSkips(RunContext& run) {
  for (const ModelRun& model_run : run.models) {
    if (model_run.skip_causes.empty()) continue;
    std::string causes;
    for (const std::string& cause : model_run.skip_causes) {
      causes += (causes.empty() ? "" : ", ") + cause;
    }
    run.AddError(model_run.summary.model, std::nullopt,
                 MakeError(ErrorCode::kUpstreamFailed,
                           fmt::format("skipped {} partition(s): upstream {} did not succeed",
                                       model_run.summary.partitions_skipped, causes),
                           "fix the upstream failure and run again (--missing picks up exactly "
                           "what is left)"));
  }
}

// After the run stopped (StopsRun): every planned partition that neither finished nor was skipped
// was never started. Counted as skipped, with one error per model naming the cause.
void ReportNotStarted(RunContext& run, const Error& cause) {
  for (ModelRun& model_run : run.models) {
    PartitionSummary& summary = model_run.summary;
    const int accounted =
        summary.partitions_succeeded + summary.partitions_failed + summary.partitions_skipped;
    const int not_started = summary.partitions_planned - accounted;
    if (not_started <= 0) continue;
    summary.partitions_skipped += not_started;
    run.AddError(summary.model, std::nullopt,
                 MakeError(cause.code,
                           fmt::format("{} partition(s) not started: the run stopped after "
                                       "this error: {}",
                                       not_started, cause.message),
                           cause.hint.empty() ? "fix the cause, then run `strata run --missing`"
                                              : cause.hint));
  }
}

// After an interrupt: one error per model that lost work to it, counting its partitions
// interrupted in flight (rolled back) and those never started.
void ReportInterrupted(RunContext& run) {
  std::map<std::string, std::pair<int, int>> lost;  // model -> (interrupted, not started)
  for (const Materialization& m : run.report.materializations) {
    if (m.status == "Interrupted") ++lost[m.model].first;
    if (m.status == "Skipped" && m.attempts == 0 && m.error.rfind("not started:", 0) == 0) {
      ++lost[m.model].second;
    }
  }
  for (const ModelRun& model_run : run.models) {
    auto found = lost.find(model_run.summary.model);
    if (found == lost.end()) continue;
    const auto [interrupted, not_started] = found->second;
    run.AddError(
        model_run.summary.model, std::nullopt,
        MakeError(ErrorCode::kInterrupted,
                  fmt::format("the run was interrupted (SIGINT/SIGTERM): {} partition(s) rolled "
                              "back in flight, {} not started",
                              interrupted, not_started),
                  "nothing of them was written; `strata run --missing` runs exactly what is "
                  "left"));
  }
}

void SortReport(const Plan& plan, RunReport& report) {
  // Tasks finish in any order; report in plan order, then by partition.
  std::map<std::string, std::size_t> model_order;
  for (std::size_t i = 0; i < plan.models.size(); ++i) model_order[plan.models[i].model->name] = i;
  std::stable_sort(report.materializations.begin(), report.materializations.end(),
                   [&](const Materialization& a, const Materialization& b) {
                     return std::tie(model_order[a.model], a.partition_key) <
                            std::tie(model_order[b.model], b.partition_key);
                   });
  std::stable_sort(report.errors.begin(), report.errors.end(),
                   [&](const RunErrorEntry& a, const RunErrorEntry& b) {
                     return std::tie(model_order[a.model], a.partition) <
                            std::tie(model_order[b.model], b.partition);
                   });
}

// The capabilities the run writes with. A plan made for the capabilities of the warehouse type
// (DuckDB, PostgreSQL, or any target planned without a connection) runs with them, and the setup
// discovers what varies when it needs it. A plan made for capabilities its target discovered
// (a Trino catalog's connector) is checked against what the target discovers now, on
// `connection` (opened here, then worker 0's): kPlanStale when they differ.
Result<warehouse::Capabilities> RunCapabilities(const Plan& plan, warehouse::Warehouse& warehouse,
                                                std::unique_ptr<warehouse::Connection>& connection,
                                                bool& discovered) {
  const warehouse::Capabilities& known = warehouse::CapabilitiesOf(warehouse.dialect());
  discovered = false;
  if (plan.capabilities.empty() || plan.capabilities == warehouse::StatementShapeKey(known)) {
    return known;
  }
  STRATA_ASSIGN_OR_RETURN(connection, warehouse.Connect());
  STRATA_ASSIGN_OR_RETURN(warehouse::Capabilities capabilities,
                          warehouse::DiscoverCapabilities(*connection, known));
  if (warehouse::StatementShapeKey(capabilities) != plan.capabilities) {
    return MakeError(ErrorCode::kPlanStale,
                     fmt::format("plan {} was made for a target that could do other things than "
                                 "{} can now (planned for \"{}\", now \"{}\"): e.g. a Trino "
                                 "catalog whose connector changed",
                                 plan.plan_id, warehouse.Describe(), plan.capabilities,
                                 warehouse::StatementShapeKey(capabilities)),
                     "make a new plan with `strata plan`; nothing was written");
  }
  discovered = true;
  return capabilities;
}

}  // namespace

Result<RunReport> ExecutePlan(const project::Project& project, const Plan& plan,
                              const WarehouseOpener& open_warehouse, state::StateStore& store,
                              const RunOptions& options) {
  const std::int64_t started = MonotonicMillis();
  const std::string run_id = NewRunId(options.clock->Now());
  STRATA_ASSIGN_OR_RETURN(state::RunLock lock, store.AcquireRunLock(run_id, options.command));
  STRATA_TRY(store.RecoverInterrupted());
  // Before BeginRun: a run recorded as started always records its end.
  STRATA_ASSIGN_OR_RETURN(const auto costs, StateCosts(project, store));
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Warehouse> warehouse, open_warehouse());
  std::unique_ptr<warehouse::Connection> first_connection;
  bool discovered = false;
  STRATA_ASSIGN_OR_RETURN(const warehouse::Capabilities capabilities,
                          RunCapabilities(plan, *warehouse, first_connection, discovered));
  RunContext run{project,
                 *warehouse,
                 store,
                 options,
                 warehouse::Emitter(capabilities),
                 warehouse::CancellationWatcher(options.cancel),
                 run_id,
                 {},
                 {},
                 {},
                 {},
                 {},
                 {},
                 {},
                 0,
                 0,
                 std::nullopt};
  state::RunRecord record;
  record.run_id = run.run_id;
  record.started_at = options.clock->Now();
  record.status = "running";
  record.command = options.command;
  record.pid = static_cast<std::int64_t>(::getpid());
  STRATA_TRY(store.BeginRun(record));

  run.report.run_id = run.run_id;
  run.report.plan_id = plan.plan_id;
  for (const PlanWarning& w : plan.warnings) {
    run.report.warnings.push_back({w.code, w.model, w.partition, w.message});
  }
  const int workers = std::max(1, options.parallel);
  run.connections.resize(static_cast<std::size_t>(workers));
  run.connections[0] = std::move(first_connection);
  if (discovered) run.discovered = capabilities;
  for (const PlannedModel& planned : plan.models) {
    ModelRun model_run;
    model_run.planned = &planned;
    model_run.summary.model = planned.model->name;
    model_run.summary.partitions_planned = PlannedPartitions(planned);
    run.total += model_run.summary.partitions_planned;
    run.models.push_back(std::move(model_run));
  }
  const TaskGraph graph = BuildGraph(plan, options.schedule, run.tasks);
  PrepareGroups(run, costs);
  run.deferred.resize(static_cast<std::size_t>(workers));
  run.state_writer = std::make_unique<StateWriter>(
      [&store](const std::vector<state::PartitionRecord>& records,
               const std::vector<state::RunPartitionRecord>& history) {
        return store.RecordPartitionResults(records, history);
      });
  Status executed = graph.RunGrouped(
      workers,
      [&](std::size_t worker, TaskId id, TaskGroup& group) -> Result<TaskOutcome> {
        const Task& task = run.tasks[id];
        // A batch writes the worker's deferred state with its InProgress rows; any other task
        // writes it first, so it never waits behind a long task.
        if (task.kind != TaskKind::kBatch) STRATA_TRY(FlushDeferredState(run, worker));
        switch (task.kind) {
          case TaskKind::kUnrunnable:
            return RunUnrunnable(run, task);
          case TaskKind::kSetup:
            return RunSetup(run, worker, task);
          case TaskKind::kBatch:
            return RunBatch(run, worker, task, group);
          case TaskKind::kWholeModel:
            return plan.models[task.model].model->strategy == project::StrategyKind::kIncremental
                       ? RunIncremental(run, worker, task)
                       : RunWholeModel(run, worker, task);
        }
        return MakeError(ErrorCode::kInternal, "unknown task kind");
      },
      [&](std::size_t, TaskId id, TaskId root_cause) {
        return SkipTask(run, run.tasks[id], run.tasks[root_cause]);
      },
      [&](std::size_t worker) { return FlushDeferredState(run, worker); });
  run.connections.clear();
  run.state_writer.reset();  // every write was waited for: the workers flushed when idle
  // An error from the graph is a task's StopsRun error, already in the report; anything else is
  // a broken invariant and ends the run without a report.
  if (!executed.ok() && !run.stopped.load()) return executed.error();
  ReportSkips(run);
  if (run.stopped.load()) ReportNotStarted(run, executed.error());
  if (run.watcher.cancelled()) ReportInterrupted(run);
  for (const ModelRun& model_run : run.models) {
    run.report.partition_summaries.push_back(model_run.summary);
  }
  SortReport(plan, run.report);
  run.report.status = FinalStatus(run.report, run.watcher.cancelled());
  run.report.duration_ms = MonotonicMillis() - started;
  Status finished =
      store.FinishRun(run.run_id, RunStatusName(run.report.status), options.clock->Now());
  if (!finished.ok()) {
    // Every partition's outcome is recorded; only the run's own row is not. Say so, and do not
    // call the run a success: the next run finds this one "running" and marks it interrupted.
    Error error = std::move(finished).error();
    error.Note("while recording the end of run " + run.run_id);
    run.report.errors.push_back(
        {"", std::nullopt, std::string(error.reported_code()), error.ToString()});
    if (run.report.status == RunStatus::kSuccess) run.report.status = RunStatus::kPartialFailure;
  }
  return std::move(run.report);
}

}  // namespace strata::materialize
