// The strata command line: parses arguments and dispatches to the commands. Exceptions that
// escape a command are bugs; they are caught here, reported, and exit with status 1.
#include <CLI/CLI.hpp>

#include <iostream>
#include <unistd.h>

#include "cli/commands.h"
#include "state/state_store.h"

namespace {

using strata::cli::CommonOptions;
using strata::cli::OutputFormat;
using strata::cli::RunCommandOptions;

void AddCommon(CLI::App* command, CommonOptions& common, std::string& output) {
  command->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  command->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  command->add_option("--model", common.models, "select a model (repeatable)");
  command->add_option("--filter", common.filters, "select models by label key=value (repeatable)");
  command->add_option("--output", output, "human | json")->check(CLI::IsMember({"human", "json"}));
  command->add_flag("-v,--verbose", common.verbose, "more detail");
  command->add_flag("--quiet", common.quiet, "only errors and the summary");
}

void AddSelection(CLI::App* command, RunCommandOptions& options, std::optional<std::string>& lookback) {
  auto& selection = options.selection;
  command->add_option("--partition", selection.partition, "run exactly one partition KEY");
  command->add_option("--from", selection.from, "first partition of an inclusive range");
  command->add_option("--to", selection.to, "last partition of an inclusive range");
  command->add_flag("--latest", selection.latest, "the partition containing now (default)");
  command->add_flag("--missing", selection.missing, "every partition since first_partition not Computed");
  command->add_option("--lookback", lookback, "also recompute the previous N partitions");
  command->add_option("--parallel", options.parallel, "tasks in flight (default 4; 1 = serial)");
  command->add_flag("--full-refresh", options.full_refresh,
                    "rebuild incremental models from scratch instead of loading new rows");
}

std::string CommandLine(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i > 0 ? " " : "") + std::string(argv[i]);
  return line;
}

int Main(int argc, char** argv) {
  CLI::App app{"strata: time-partitioned SQL models and a semantic layer"};
  app.require_subcommand(1);
  CommonOptions common;
  common.command_line = CommandLine(argc, argv);
  std::string output = ::isatty(STDOUT_FILENO) ? "human" : "json";
  RunCommandOptions run_options;
  std::optional<std::string> lookback;
  std::string init_dir, plan_id, schema_name, show_model;
  bool example = false;
  std::optional<int> apply_parallel;
  std::optional<std::string> partitions_model, status;
  int limit = 10;

  CLI::App* init = app.add_subcommand("init", "scaffold a project");
  init->add_option("DIR", init_dir, "folder to create")->required();
  init->add_flag("--example", example, "add generated demo data and models (embedded DuckDB)");
  AddCommon(init, common, output);
  CLI::App* compile = app.add_subcommand("compile", "parse and check every model");
  AddCommon(compile, common, output);
  CLI::App* plan = app.add_subcommand("plan", "resolve and save a plan; prints its id");
  AddCommon(plan, common, output);
  AddSelection(plan, run_options, lookback);
  CLI::App* apply = app.add_subcommand("apply", "execute exactly a saved plan");
  apply->add_option("PLAN_ID", plan_id, "the id printed by strata plan")->required();
  apply->add_option("--parallel", apply_parallel, "partitions in flight (default: the plan's)");
  AddCommon(apply, common, output);
  CLI::App* run = app.add_subcommand("run", "plan and apply in one step");
  AddCommon(run, common, output);
  AddSelection(run, run_options, lookback);
  CLI::App* partitions = app.add_subcommand("partitions", "show per-partition state");
  partitions->add_option("MODEL", partitions_model, "only this model");
  partitions->add_option("--status", status, "Computed | Failed | InProgress | Interrupted");
  AddCommon(partitions, common, output);
  CLI::App* show = app.add_subcommand("show", "print the first rows of a model's table");
  show->add_option("MODEL", show_model, "the model")->required();
  show->add_option("--limit", limit, "rows to print (default 10)");
  AddCommon(show, common, output);
  strata::cli::QueryCommandOptions query_options;
  std::string query_output = output == "json" ? "json" : "table";
  CLI::App* query = app.add_subcommand("query", "answer a semantic query (JSON)");
  query->add_option("QUERY", query_options.query, "the query JSON (or --file)");
  query->add_option("--file", query_options.file, "read the query JSON from a file");
  query->add_option("--role", query_options.role, "answer as this data role (default: trusted, no role)");
  query->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  query->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  query->add_option("--output", query_output, "table | json | csv")
      ->check(CLI::IsMember({"table", "human", "json", "csv"}));
  CLI::App* meta = app.add_subcommand("meta", "list the semantic model's entities, members and rollups");
  meta->add_option("--project", common.project_dir, "project folder (holds strata.toml)");
  meta->add_option("--warehouse", common.warehouse, "named warehouse from [warehouses.NAME]");
  meta->add_option("--output", output, "human | json")->check(CLI::IsMember({"human", "json"}));
  CLI::App* schema = app.add_subcommand("schema", "print a JSON Schema of an output document");
  schema->add_option("NAME", schema_name, "run-output")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 1;
  }
  common.output = output == "json" ? OutputFormat::kJson : OutputFormat::kHuman;
  if (lookback) {
    try {
      const long value = std::stol(*lookback);
      if (value < 0 || std::to_string(value) != *lookback) throw std::invalid_argument("negative");
      run_options.selection.lookback = static_cast<std::uint32_t>(value);
    } catch (const std::exception&) {
      std::cerr << "error[Usage]: --lookback must be a non-negative integer, got \"" << *lookback << "\"\n";
      return 1;
    }
  }
  strata::cli::InstallSignalHandlers();
  if (*init) return strata::cli::RunInit(init_dir, example, common);
  if (*compile) return strata::cli::RunCompile(common);
  if (*plan) return strata::cli::RunPlan(common, run_options);
  if (*apply) return strata::cli::RunApply(common, plan_id, apply_parallel);
  if (*run) return strata::cli::RunRun(common, run_options);
  if (*partitions) return strata::cli::RunPartitions(common, partitions_model, status);
  if (*show) return strata::cli::RunShow(common, show_model, limit);
  if (*schema) return strata::cli::RunSchema(schema_name);
  if (*query) {
    query_options.output = query_output == "json"  ? strata::cli::QueryOutput::kJson
                           : query_output == "csv" ? strata::cli::QueryOutput::kCsv
                                                   : strata::cli::QueryOutput::kTable;
    return strata::cli::RunQuery(common, query_options);
  }
  if (*meta) return strata::cli::RunMeta(common);
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
