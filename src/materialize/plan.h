// A plan: the concrete work of one run, resolved before anything executes — which models, which
// partitions in which batches, and the exact SQL of every statement. `strata plan` saves it in the
// state store under a content-hash id; `strata apply ID` executes exactly it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/partition.h"
#include "base/result.h"
#include "check/catalog.h"
#include "materialize/selection.h"
#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/emitter.h"

namespace strata::materialize {

struct PlannedBatch {
  std::vector<PartitionKey> keys;  // consecutive, ascending
  Window window;                   // from the first key's start to the last key's end (instants)
  // The model's time column holds the wall clock of the keys' zone (naive_time = "local"), so
  // SQL compares it with wall-clock windows (project::TimeIntervalConfig::ColumnWindow).
  bool wall_clock = false;
  warehouse::PartitionOverwrite statements;

  // `window` and each key's window as SQL compares the time column with them.
  Window ColumnWindow() const;
  std::vector<Window> KeyColumnWindows() const;
};

struct PlannedModel {
  const project::Model* model = nullptr;
  std::string fingerprint;              // the model's fingerprint when planned
  std::vector<std::string> statements;  // full_refresh and view; incremental: the full build
  // incremental: the load the runner uses when the target exists (absent under --full-refresh)
  std::optional<warehouse::Emitter::IncrementalLoad> incremental;
  std::vector<std::string> bootstrap;  // time_interval: run only if the target is missing
  // time_interval, built in another time zone, under --full-refresh: the run's setup drops the
  // target and the state store forgets the model's partitions before its batches run (a rebuild
  // from nothing in the new zone; the old partitions' state is never reused).
  bool replace = false;
  std::vector<PlannedBatch> batches;  // time_interval
  std::optional<Error> error;         // the model cannot run (e.g. a compile error)
  // time_interval, when a transaction of several of its batches may read one SELECT over their
  // whole range instead of each batch's own (docs/batching.md, "Fused statements"; decided once,
  // by BuildPlan): the model's SELECT with @start_date and @end_date unsubstituted
  // (CompileWindowTemplate), which the runner substitutes for the range (WindowSql). Absent:
  // every batch reads its own SELECT.
  std::optional<std::string> fused_select;
};

// Something the user should know about a plan that does not stop it (docs/error-codes.md, run
// warnings): W040 state the warehouse does not back, W041 first_partition in the future.
struct PlanWarning {
  std::string code;
  std::string model;
  std::optional<std::string> partition;
  std::string message;
};

// The version of the saved plan's JSON (PlanToJson's "format"). A plan saved in another format,
// or before plans had one, is refused by PlanFromJson as stale: planning again is always possible,
// guessing what an older plan meant is not.
inline constexpr int kPlanFormat = 2;

struct Plan {
  std::string plan_id;  // content hash of the plan's JSON (without plan_id and created_at)
  UnixSeconds created_at = 0;
  std::string warehouse;  // the warehouse name it was planned for
  // The target's capabilities it was planned with (warehouse::StatementShapeKey); empty in a plan
  // saved before plans recorded them. ExecutePlan refuses it where the target now has others.
  std::string capabilities;
  int parallel = 4;
  std::vector<PlannedModel> models;   // in dependency order
  std::vector<PlanWarning> warnings;  // not part of plan_id; PlanFromJson does not read them
};

struct PlanRequest {
  std::vector<const project::Model*> models;  // in dependency order
  SelectionOptions selection;
  std::string warehouse = "default";
  int parallel = 4;
  UnixSeconds now = 0;
  // incremental models rebuild from scratch; a time_interval model built in another time zone
  // drops its table and state first (PlannedModel::replace) rather than being refused
  bool full_refresh = false;
  // Column types for the compiler's E021/E022/E025 checks (the same verdicts as `strata
  // compile`); null skips those checks. Used only while BuildPlan runs.
  check::Catalog* catalog = nullptr;
  // The state check (state_check.h) reads the warehouse through it; null skips the check. Its
  // user-defined functions decide whether a model's batches may be fused (PlannedModel::
  // fused_select); null (and not absent): none is.
  warehouse::Connection* connection = nullptr;
  // The warehouse does not exist (a DuckDB file not created yet, or deleted): no Computed
  // partition is backed. Each is a W040 warning and --missing selects it again.
  bool warehouse_absent = false;
  // Why the warehouse could not be read for the state check (connection null and not absent:
  // e.g. a DuckDB file locked by another process). Each time_interval model with Computed
  // partitions then gets a W040 saying the check did not run, and the state store is trusted.
  std::string check_skipped;
};

// Resolves partitions (reading Computed keys from `store` for --missing) and compiles every
// statement. With a connection, each time_interval model's Computed partitions are first checked
// against the warehouse (state_check.h): each disagreement is a W040 warning, and --missing
// selects those partitions again. Selection errors (a key in the wrong format, --missing without
// first_partition) fail the whole plan; a model whose SQL cannot compile gets PlannedModel::error
// and the rest plan. A time_interval model of several batches gets a fused_select when the
// emitter groups batches (Emitter::SupportsGrouped), the compiler proves the model
// window-separable (check::WindowSeparable) and it calls none of the warehouse's own functions
// (Connection::UserFunctionNames, read once; an absent warehouse has none), which the proof would
// take for built-ins.
Result<Plan> BuildPlan(const project::Project& project, const PlanRequest& request,
                       const warehouse::Emitter& emitter, state::StateStore& store);

nlohmann::json PlanToJson(const Plan& plan);
// [{"code", "model", "partition" (string or null), "message"}], as in the run output.
nlohmann::json PlanWarningsJson(const std::vector<PlanWarning>& warnings);
// Rebuilds a saved plan against the current project. kPlanStale (naming the model) when a model
// is gone or its SQL or TOML changed since the plan was made; kPlanStale with a hint to plan
// again when the plan is not in kPlanFormat (saved by another version of strata).
Result<Plan> PlanFromJson(const nlohmann::json& json, const project::Project& project);

}  // namespace strata::materialize
