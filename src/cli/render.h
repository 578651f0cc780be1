// Human and JSON rendering shared by the commands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "cli/commands.h"
#include "materialize/run_report.h"
#include "materialize/runner.h"

namespace strata::cli {

// The --project the user gave (main sets it before any command runs): every hint that names a
// command (`strata run --missing`, in backticks) is printed with it, so the command can be
// copied as is. Not set: hints are printed as written.
void SetHintProject(std::string project_dir);
// `hint` with " --project DIR" (shell-quoted when needed) added inside each backticked `strata
// COMMAND ...` but `strata init` and commands that already name a project or ask for --help.
std::string WithHintProject(std::string_view hint);

// A number of a query's human table as a person reads it: integers exactly; other numbers rounded
// to 4 decimals (4 significant digits below 1, scientific notation below 1e-4 or from 1e15),
// without trailing zeros. JSON and CSV keep the full value.
std::string HumanNumber(const nlohmann::ordered_json& number);

// Prints errors to stderr ("error[Code]: file:line:col: message" + hint + notes), or as
// {"errors": [...]} on stdout for JSON output.
void PrintErrors(const std::vector<Error>& errors, OutputFormat output);
void PrintError(const Error& error, OutputFormat output);

// Prints warnings ("warning[W031]: file: message" + hint) to stderr whatever the output format,
// so a JSON document on stdout stays exactly the command's document; nothing when `quiet`.
void PrintWarnings(const std::vector<Error>& warnings, bool quiet);

// A fixed-width text table.
std::string RenderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows);

// Run and plan warnings on stderr, as "warning[W040]: message" (the first ten, then a count).
void PrintWarnings(const std::vector<materialize::RunWarning>& warnings);
void PrintRunReport(const materialize::RunReport& report, OutputFormat output, bool quiet);
// JSON text that never throws: bytes that are not UTF-8 (names, messages or values strata did not
// validate: file names, warehouse errors, command-line arguments) become U+FFFD. Every JSON
// document strata prints or stores goes through this.
std::string DumpJson(const nlohmann::json& json, int indent = -1);
// DumpJson(json, 2) and a newline on stdout.
void PrintJson(const nlohmann::json& json);

// A progress bar on stderr when it is a terminal (done/total, rate, ETA); silent otherwise.
class TerminalProgress final : public materialize::ProgressObserver {
 public:
  explicit TerminalProgress(bool enabled);
  ~TerminalProgress() override;
  void OnProgress(int done, int total) override;
  // Erases the bar, so what is printed next starts on a clean line. Idempotent.
  void Clear();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::int64_t started_ms_;
  std::int64_t last_draw_ms_ = 0;
};

}  // namespace strata::cli
