// The strata command line: parses arguments and dispatches to the commands. Exceptions that
// escape a command are bugs; they are caught here, reported, and exit with status 1.
//
// Argument errors (an unknown flag, a bad --output, a numeric flag that is not a decimal integer
// in its range) are Usage errors, exit 1, printed like every other error: as one {"errors": [...]}
// document on stdout when JSON output is asked for or is the default (stdout is not a terminal),
// else on stderr.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>

#include "cli/build_info.h"
#include "cli/commands.h"
#include "cli/render.h"
#include "project/did_you_mean.h"
#include "project/project.h"
#include "state/state_store.h"

namespace {

using strata::ErrorCode;
using strata::MakeError;
using strata::Result;
using strata::cli::CommonOptions;
using strata::cli::OutputFormat;
using strata::cli::RunCommandOptions;

// More workers than this would only wait on the warehouse (each holds a connection); a typo such
// as --parallel 1000000 would start a million threads.
constexpr std::int64_t kMaxParallel = 256;

// The value of the last "FLAG X" or "FLAG=X" in argv (before any "--"), read from argv itself so
// that an argument error CLI11 reports gets the output format that was asked for, and hints get
// the --project that was given.
std::optional<std::string> FlagValue(int argc, char** argv, std::string_view flag) {
  std::optional<std::string> found;
  const std::string with_value = std::string(flag) + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == flag && i + 1 < argc) {
      found = argv[++i];
    } else if (arg.rfind(with_value, 0) == 0) {
      found = std::string(arg.substr(with_value.size()));
    }
  }
  return found;
}

// The format asked for with --output (json; human, or a query's table or csv, are text), else the
// default every command has: JSON when stdout is not a terminal. An --output value that is not
// one of these is itself the argument error, reported in the default format.
OutputFormat OutputForArgumentErrors(int argc, char** argv) {
  const std::optional<std::string> requested = FlagValue(argc, argv, "--output");
  if (requested == "json") return OutputFormat::kJson;
  if (requested == "human" || requested == "table" || requested == "csv") {
    return OutputFormat::kHuman;
  }
  return ::isatty(STDOUT_FILENO) ? OutputFormat::kHuman : OutputFormat::kJson;
}

// "strata 0.1.0 (commit 1f2e...)": what `strata --version` prints.
std::string VersionText() {
  return fmt::format("strata {} (commit {})", strata::cli::BuildVersion(),
                     strata::cli::BuildCommit());
}

// `text` as a decimal integer in [min, max] (leading zeros are decimal, not octal); anything else
// (a sign where none is allowed, hex, an exponent, overflow) is a Usage error naming `flag`.
Result<std::int64_t> ParseBoundedInteger(std::string_view flag, const std::string& text,
                                         std::int64_t min, std::int64_t max,
                                         std::string_view hint) {
  auto refuse = [&] {
    return MakeError(
        ErrorCode::kUsage,
        fmt::format("{} must be an integer from {} to {}, got \"{}\"", flag, min, max, text),
        std::string(hint));
  };
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 30) return refuse();
  std::int64_t magnitude = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return refuse();
    // Saturate instead of overflowing: any value past `max` is refused the same way.
    magnitude = magnitude > (std::numeric_limits<std::int64_t>::max() - 9) / 10
                    ? std::numeric_limits<std::int64_t>::max()
                    : magnitude * 10 + (c - '0');
  }
  const std::int64_t value = negative ? -magnitude : magnitude;
  if (value < min || value > max) return refuse();
  return value;
}

// The numeric flags, as CLI11 reads them (text; checked by ParseNumericFlags).
struct NumericFlags {
  std::optional<std::string> lookback;
  std::optional<std::string> parallel;         // plan / run
  std::optional<std::string> apply_parallel;   // apply
  std::optional<std::string> rollup_parallel;  // rollups build
  std::optional<std::string> limit;            // show
  std::optional<std::string> port;             // serve
  std::optional<std::string> control_port;     // serve
};

struct NumericValues {
  std::optional<std::uint32_t> lookback;
  std::optional<int> parallel;
  std::optional<int> apply_parallel;
  std::optional<int> rollup_parallel;
  int limit = 10;
  std::optional<int> port;
  std::optional<int> control_port;
};

Result<NumericValues> ParseNumericFlags(const NumericFlags& flags) {
  NumericValues values;
  const std::string parallel_hint =
      fmt::format("tasks run at once: 1 (serial) to {}; the default is 4", kMaxParallel);
  if (flags.lookback) {
    auto lookback = ParseBoundedInteger(
        "--lookback", *flags.lookback, 0, strata::project::kMaxLookback,
        "the number of partitions before each selected one to recompute, e.g. --lookback 3");
    if (!lookback.ok()) return lookback.error();
    values.lookback = static_cast<std::uint32_t>(*lookback);
  }
  if (flags.parallel) {
    auto parallel =
        ParseBoundedInteger("--parallel", *flags.parallel, 1, kMaxParallel, parallel_hint);
    if (!parallel.ok()) return parallel.error();
    values.parallel = static_cast<int>(*parallel);
  }
  if (flags.apply_parallel) {
    auto parallel =
        ParseBoundedInteger("--parallel", *flags.apply_parallel, 1, kMaxParallel, parallel_hint);
    if (!parallel.ok()) return parallel.error();
    values.apply_parallel = static_cast<int>(*parallel);
  }
  if (flags.rollup_parallel) {
    auto parallel = ParseBoundedInteger("--parallel", *flags.rollup_parallel, 1, kMaxParallel,
                                        "periods built at once: 1 (serial) to " +
                                            std::to_string(kMaxParallel) + "; the default is 1");
    if (!parallel.ok()) return parallel.error();
    values.rollup_parallel = static_cast<int>(*parallel);
  }
  if (flags.limit) {
    auto limit = ParseBoundedInteger("--limit", *flags.limit, 0, std::numeric_limits<int>::max(),
                                     "the number of rows to print, e.g. --limit 20");
    if (!limit.ok()) return limit.error();
    values.limit = static_cast<int>(*limit);
  }
  if (flags.port) {
    auto port =
        ParseBoundedInteger("--port", *flags.port, 0, 65535,
                            "the TCP port to listen on, e.g. --port 4000 (0: any free port)");
    if (!port.ok()) return port.error();
    values.port = static_cast<int>(*port);
  }
  if (flags.control_port) {
    auto port = ParseBoundedInteger(
        "--control-port", *flags.control_port, 0, 65535,
        "the control API's TCP port, e.g. --control-port 4001 (0: any free port)");
    if (!port.ok()) return port.error();
    values.control_port = static_cast<int>(*port);
  }
  return values;
}

// A CLI11 parse error as a Usage error, with the command's --help as the hint. An unknown command
// (CLI11 says only "A subcommand is required") is named, with a "did you mean".
strata::Error ArgumentError(const CLI::App& app, const CLI::ParseError& error, int argc,
                            char** argv) {
  std::vector<std::string> commands;
  for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(subcommand->get_name());
  }
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    return MakeError(ErrorCode::kUsage, fmt::format("unknown command \"{}\"", argv[1]),
                     strata::project::SuggestionHint(argv[1], commands));
  }
  std::string command = "strata";
  for (const CLI::App* subcommand : app.get_subcommands()) command += " " + subcommand->get_name();
  return MakeError(ErrorCode::kUsage, error.what(),
                   fmt::format("run `{} --help` for the arguments and options", command));
}

void AddCommon(CLI::App* command, CommonOptions& common, std::string& output) {
  command->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  command->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  command->add_option("--output", output, "human | json")->check(CLI::IsMember({"human", "json"}));
  command->add_flag("-v,--verbose", common.verbose, "more detail");
  command->add_flag("--quiet", common.quiet, "only errors and the summary");
}

// Only on the commands that select models (compile, plan, run, models, partitions): elsewhere
// CLI11 refuses them as unexpected arguments rather than ignoring a selection.
void AddModelSelection(CLI::App* command, CommonOptions& common) {
  command->add_option("--model", common.models, "select a model (repeatable)");
  command->add_option("--filter", common.filters, "select models by label key=value (repeatable)");
}

void AddSelection(CLI::App* command, RunCommandOptions& options, NumericFlags& numeric) {
  auto& selection = options.selection;
  command->add_option("--partition", selection.partition, "run exactly one partition KEY");
  command->add_option("--from", selection.from, "first partition of an inclusive range");
  command->add_option("--to", selection.to, "last partition of an inclusive range");
  command->add_flag("--latest", selection.latest, "the partition containing now (default)");
  command->add_flag("--missing", selection.missing,
                    "every partition since first_partition not Computed");
  command->add_option("--lookback", numeric.lookback, "also recompute the previous N partitions");
  command->add_option("--parallel", numeric.parallel, "tasks in flight (default 4; 1 = serial)");
  command->add_flag("--full-refresh", options.full_refresh,
                    "rebuild incremental models from scratch instead of loading new rows");
}

std::string CommandLine(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i > 0 ? " " : "") + std::string(argv[i]);
  return line;
}

// The commands that stop cleanly on SIGINT/SIGTERM (they poll the cancel flag: a run's document,
// a build that publishes nothing more, a server that drains). Every other command keeps the
// default action and ends at once: it writes nothing that a kill could leave half done (`init`
// aside, whose folder is then removed by hand), and a flag nobody reads would make Ctrl-C do
// nothing until, say, a long live query finished.
bool StopsCleanlyOnSignals(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string_view command = argv[1];
  return command == "run" || command == "apply" || command == "serve" ||
         (command == "rollups" && argc > 2 &&
          (std::string_view(argv[2]) == "build" || std::string_view(argv[2]) == "refresh"));
}

int Main(int argc, char** argv) {
  // First, so that a signal in the moments of argument parsing and project loading is a clean
  // stop too.
  if (StopsCleanlyOnSignals(argc, argv)) {
    strata::cli::InstallSignalHandlers();
  } else if (argc >= 2 && std::string_view(argv[1]) == "query") {
    // A live query runs on in the warehouse after the client dies: the first Ctrl-C cancels it
    // there (RunQuery's watcher) and exits 130; a second one ends strata at once.
    strata::cli::InstallSignalHandlers(/*once=*/true);
  }
  if (std::optional<std::string> project = FlagValue(argc, argv, "--project")) {
    strata::cli::SetHintProject(*project);
  }
  CLI::App app{"strata: time-partitioned SQL models and a semantic layer"};
  app.require_subcommand(1);
  app.set_version_flag("--version", VersionText(), "print the version and the git commit");
  CommonOptions common;
  common.command_line = CommandLine(argc, argv);
  std::string output = ::isatty(STDOUT_FILENO) ? "human" : "json";
  RunCommandOptions run_options;
  NumericFlags numeric;
  std::string init_dir, plan_id, schema_name, show_model;
  bool example = false;
  std::optional<std::string> partitions_model, status;

  CLI::App* init = app.add_subcommand("init", "scaffold a project");
  init->add_option("DIR", init_dir, "folder to create")->required();
  init->add_flag("--example", example, "add generated demo data and models (embedded DuckDB)");
  AddCommon(init, common, output);
  CLI::App* compile = app.add_subcommand("compile", "parse and check every model");
  AddCommon(compile, common, output);
  AddModelSelection(compile, common);
  CLI::App* plan = app.add_subcommand("plan", "resolve and save a plan; prints its id");
  AddCommon(plan, common, output);
  AddModelSelection(plan, common);
  AddSelection(plan, run_options, numeric);
  CLI::App* apply = app.add_subcommand("apply", "execute exactly a saved plan");
  apply->add_option("PLAN_ID", plan_id, "the id printed by strata plan")->required();
  apply->add_option("--parallel", numeric.apply_parallel,
                    "partitions in flight (default: the plan's)");
  AddCommon(apply, common, output);
  CLI::App* run = app.add_subcommand("run", "plan and apply in one step");
  AddCommon(run, common, output);
  AddModelSelection(run, common);
  AddSelection(run, run_options, numeric);
  CLI::App* partitions = app.add_subcommand("partitions", "show per-partition state");
  partitions->add_option("MODEL", partitions_model, "only this model");
  partitions->add_option("--status", status, "Computed | Failed | InProgress | Interrupted");
  AddCommon(partitions, common, output);
  AddModelSelection(partitions, common);
  CLI::App* models = app.add_subcommand("models", "list the models with targets and strategies");
  AddCommon(models, common, output);
  AddModelSelection(models, common);
  CLI::App* show = app.add_subcommand("show", "print the first rows of a model's table");
  show->add_option("MODEL", show_model, "the model")->required();
  show->add_option("--limit", numeric.limit, "rows to print (default 10)");
  AddCommon(show, common, output);
  strata::cli::QueryCommandOptions query_options;
  std::string query_output = output == "json" ? "json" : "table";
  CLI::App* query = app.add_subcommand("query", "answer a semantic query (JSON)");
  query->add_option("QUERY", query_options.query, "the query JSON (or --file)");
  query->add_option("--file", query_options.file, "read the query JSON from a file");
  query->add_option("--role", query_options.role,
                    "answer as this data role (default: trusted, no role)");
  query->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  query->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  query->add_option("--output", query_output, "table | json | csv")
      ->check(CLI::IsMember({"table", "human", "json", "csv"}));
  CLI::App* meta =
      app.add_subcommand("meta", "list the semantic model's entities, members and rollups");
  meta->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  meta->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  meta->add_option("--output", output, "human | json")->check(CLI::IsMember({"human", "json"}));
  strata::cli::RollupsBuildOptions rollups_build;
  CLI::App* rollups = app.add_subcommand("rollups", "build and inspect the semantic rollups");
  rollups->require_subcommand(1);
  CLI::App* rollups_build_command =
      rollups->add_subcommand("build", "build rollups into the rollup store (Parquet)");
  rollups_build_command->add_option("--rollup", rollups_build.rollups,
                                    "only this rollup (repeatable)");
  rollups_build_command->add_flag("--full", rollups_build.full, "rebuild every period");
  rollups_build_command->add_option("--parallel", numeric.rollup_parallel,
                                    "periods in flight (default 1)");
  AddCommon(rollups_build_command, common, output);
  strata::cli::RollupsBuildOptions rollups_refresh;
  rollups_refresh.due_only = true;
  CLI::App* rollups_refresh_command = rollups->add_subcommand(
      "refresh", "build the rollups that are due (refresh.every) and whose freshness marker moved");
  rollups_refresh_command->add_option("--rollup", rollups_refresh.rollups,
                                      "only this rollup (repeatable; builds a manual one)");
  rollups_refresh_command->add_option("--parallel", numeric.rollup_parallel,
                                      "periods in flight (default 1)");
  AddCommon(rollups_refresh_command, common, output);
  std::vector<std::string> rollups_compact_names;
  CLI::App* rollups_compact = rollups->add_subcommand(
      "compact", "merge the files of ended periods into one per partition.compact period");
  rollups_compact->add_option("--rollup", rollups_compact_names,
                              "compact only this rollup (repeatable)");
  AddCommon(rollups_compact, common, output);
  CLI::App* rollups_status =
      rollups->add_subcommand("status", "show what the rollup store holds per rollup");
  AddCommon(rollups_status, common, output);
  strata::cli::RollupsAdviseOptions rollups_advise;
  std::string advise_role;
  CLI::App* rollups_advise_command = rollups->add_subcommand(
      "advise", "propose the rollups that would answer a query, or the live queries of a log");
  rollups_advise_command->add_option("--query", rollups_advise.query_file,
                                     "a semantic query JSON file (- for stdin)");
  rollups_advise_command->add_option("--from-log", rollups_advise.log_file,
                                     "strata serve's access log (its stderr)");
  rollups_advise_command->add_option("--role", advise_role, "advise for this data role");
  rollups_advise_command
      ->add_option("--top", rollups_advise.top,
                   "with --from-log: the most rollups to propose (default 3)")
      ->check(CLI::Range(1, 100));
  AddCommon(rollups_advise_command, common, output);
  strata::cli::ServeCommandOptions serve_options;
  CLI::App* serve = app.add_subcommand("serve", "serve the semantic query API over HTTP");
  serve->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  serve->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  serve->add_option("--host", serve_options.host, "address to listen on (default 127.0.0.1)");
  serve->add_option("--port", numeric.port, "port of the query API (default 4000)");
  serve->add_option("--control-port", numeric.control_port,
                    "port of the control API (default 4001; needs [serve] hook_token_env)");
  serve->add_option("--output", output, "errors as human | json")
      ->check(CLI::IsMember({"human", "json"}));
  CLI::App* schema = app.add_subcommand("schema", "print a JSON Schema of an output document");
  schema
      ->add_option("NAME", schema_name,
                   "run-output | models-output | partitions-output | errors-output")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --version and the like
    strata::cli::PrintError(ArgumentError(app, error, argc, argv),
                            OutputForArgumentErrors(argc, argv));
    return 1;
  }
  common.output = output == "json" ? OutputFormat::kJson : OutputFormat::kHuman;
  Result<NumericValues> values = ParseNumericFlags(numeric);
  if (!values.ok()) {
    strata::cli::PrintError(values.error(), common.output);
    return 1;
  }
  run_options.selection.lookback = values->lookback;
  if (values->parallel) run_options.parallel = *values->parallel;
  if (*init) return strata::cli::RunInit(init_dir, example, common);
  if (*compile) return strata::cli::RunCompile(common);
  if (*plan) return strata::cli::RunPlan(common, run_options);
  if (*apply) return strata::cli::RunApply(common, plan_id, values->apply_parallel);
  if (*run) return strata::cli::RunRun(common, run_options);
  if (*partitions) return strata::cli::RunPartitions(common, partitions_model, status);
  if (*show) return strata::cli::RunShow(common, show_model, values->limit);
  if (*models) return strata::cli::RunModels(common);
  if (*schema) return strata::cli::RunSchema(schema_name, common.output);
  if (*query) {
    query_options.output = query_output == "json"  ? strata::cli::QueryOutput::kJson
                           : query_output == "csv" ? strata::cli::QueryOutput::kCsv
                                                   : strata::cli::QueryOutput::kTable;
    return strata::cli::RunQuery(common, query_options);
  }
  if (*meta) return strata::cli::RunMeta(common);
  if (*serve) {
    if (values->port) serve_options.port = *values->port;
    if (values->control_port) serve_options.control_port = *values->control_port;
    return strata::cli::RunServe(common, serve_options);
  }
  if (*rollups_build_command) {
    if (values->rollup_parallel) rollups_build.parallel = *values->rollup_parallel;
    return strata::cli::RunRollupsBuild(common, rollups_build);
  }
  if (*rollups_refresh_command) {
    if (values->rollup_parallel) rollups_refresh.parallel = *values->rollup_parallel;
    return strata::cli::RunRollupsBuild(common, rollups_refresh);
  }
  if (*rollups_status) return strata::cli::RunRollupsStatus(common);
  if (*rollups_advise_command) {
    if (!advise_role.empty()) rollups_advise.role = advise_role;
    return strata::cli::RunRollupsAdvise(common, rollups_advise);
  }
  if (*rollups_compact) return strata::cli::RunRollupsCompact(common, rollups_compact_names);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "internal error (a bug in strata, please report it): " << error.what() << "\n";
    return 1;
  }
}
