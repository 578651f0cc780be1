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

// Prints errors to stderr ("error[Code]: file:line:col: message" + hint + notes), or as
// {"errors": [...]} on stdout for JSON output.
void PrintErrors(const std::vector<Error>& errors, OutputFormat output);
void PrintError(const Error& error, OutputFormat output);

// A fixed-width text table.
std::string RenderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows);

void PrintRunReport(const materialize::RunReport& report, OutputFormat output, bool quiet);
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
