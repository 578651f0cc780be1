// The CLI's commands. Each takes parsed options, does its work through the library components,
// renders human or JSON output, and returns the process exit code (spec/project.md):
// 0 success, 1 usage/configuration/compile error, 2 partial failure, 130 interrupted.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "materialize/selection.h"

namespace strata::cli {

enum class OutputFormat { kHuman, kJson };

struct CommonOptions {
  std::string project_dir = ".";
  std::string warehouse;             // empty: the default warehouse
  std::vector<std::string> models;   // --model, repeatable
  std::vector<std::string> filters;  // --filter key=value, repeatable
  OutputFormat output = OutputFormat::kHuman;
  bool verbose = false;
  bool quiet = false;
  std::string command_line;  // for the run history
};

// strata query --output: a text table (also "human"), the JSON response, or CSV.
enum class QueryOutput { kTable, kJson, kCsv };

struct QueryCommandOptions {
  std::string query;                // inline JSON
  std::string file;                 // --file
  std::optional<std::string> role;  // --role; absent = trusted local caller (no role checks)
  QueryOutput output = QueryOutput::kTable;
};

struct RollupsBuildOptions {
  std::vector<std::string> rollups;  // --rollup, repeatable; empty: every rollup
  bool full = false;                 // rebuild every period
  int parallel = 1;                  // periods in flight
  bool due_only = false;             // `rollups refresh`: only the rollups that are due
};

struct RollupsAdviseOptions {
  std::string query_file;           // --query: a semantic query JSON file ("-": stdin)
  std::string log_file;             // --from-log: serve's access log
  std::optional<std::string> role;  // --role (with --query); absent: a trusted caller
  std::size_t top = 3;              // --top (with --from-log)
};

struct ServeCommandOptions {
  std::string host = "127.0.0.1";  // --host
  int port = 4000;                 // --port; 0: any free port
  int control_port = 4001;         // --control-port; 0: any free port
};

struct RunCommandOptions {
  materialize::SelectionOptions selection;
  int parallel = 4;
  bool full_refresh = false;  // incremental models rebuild from scratch
};

int RunInit(const std::string& dir, bool example, const CommonOptions& common);
int RunCompile(const CommonOptions& common);
int RunPlan(const CommonOptions& common, const RunCommandOptions& options);
int RunApply(const CommonOptions& common, const std::string& plan_id, std::optional<int> parallel);
int RunRun(const CommonOptions& common, const RunCommandOptions& options);
int RunPartitions(const CommonOptions& common, const std::optional<std::string>& model,
                  const std::optional<std::string>& status);
int RunShow(const CommonOptions& common, const std::string& model, int limit);
// strata models: every selected model (--model, --filter) with its target, dependencies and
// strategy, in dependency order; exit 1 when the project does not load.
int RunModels(const CommonOptions& common);
// strata schema NAME: the JSON Schema; an unknown NAME is a Usage error in `output`.
int RunSchema(const std::string& name, OutputFormat output);
// strata query: exit 0 with the result; 1 for a usage error, an invalid project, model or query,
// a refused data role (AccessDenied) or a warehouse error; 130 when SIGINT/SIGTERM set the cancel
// flag (InstallSignalHandlers), after cancelling the statement running in the warehouse.
int RunQuery(const CommonOptions& common, const QueryCommandOptions& options);
// strata rollups build: 0 when every rollup built, 2 when some period failed (the previous
// manifest stays in force), 1 for a usage or configuration error.
int RunRollupsBuild(const CommonOptions& common, const RollupsBuildOptions& options);
// strata rollups compact: merges ended periods of the rollups with partition.compact (all, or
// those named); 0 when none failed, 2 otherwise, 1 for a bad project or rollup name.
int RunRollupsCompact(const CommonOptions& common, const std::vector<std::string>& rollups);
// strata rollups advise: the rollups that would answer a query, or the live queries of an
// access log, as YAML (or --output json); 0 with the advice, 1 for a usage error, an invalid
// project, query or log file, or a refused role.
int RunRollupsAdvise(const CommonOptions& common, const RollupsAdviseOptions& options);
// strata rollups status: what the rollup store holds per rollup (human or --output json).
int RunRollupsStatus(const CommonOptions& common);
// strata meta: the semantic model's entities, members and rollups (human or --output json).
int RunMeta(const CommonOptions& common);

// strata serve: the query API until SIGTERM/SIGINT, then exit 0 once in-flight requests are
// answered; 1 for an invalid project or model, a missing secret, or a port it cannot listen on.
int RunServe(const CommonOptions& common, const ServeCommandOptions& options);

// Set by SIGINT/SIGTERM once InstallSignalHandlers() ran. With `once`, each handler runs for
// the first signal only: the next one has the default action (`strata query`: a second Ctrl-C
// ends the process even if the cancellation is stuck).
const std::atomic<bool>& CancelFlag();
void InstallSignalHandlers(bool once = false);
// `strata serve` only: SIGHUP sets ReloadFlag() (the model is reloaded) instead of ending the
// process. The reader clears it.
std::atomic<bool>& ReloadFlag();
void InstallReloadHandler();

}  // namespace strata::cli
