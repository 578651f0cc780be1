#include "cli/render.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "base/hash.h"

namespace strata::cli {

using nlohmann::json;

namespace {

std::optional<std::string>& HintProject() {
  static std::optional<std::string> project;
  return project;
}

// `text` as one shell word: as is when it needs no quoting, else in single quotes.
std::string ShellWord(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_./-+=:,@%").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(text);
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

json ErrorJson(const Error& error) {
  json entry = {{"code", error.reported_code()}, {"message", error.message}};
  if (!error.hint.empty()) entry["hint"] = WithHintProject(error.hint);
  if (error.span) {
    entry["file"] = error.span->file;
    entry["line"] = error.span->line > 0 ? json(error.span->line) : json(nullptr);
    entry["column"] = error.span->column > 0 ? json(error.span->column) : json(nullptr);
  }
  if (!error.notes.empty()) entry["notes"] = error.notes;
  return entry;
}

// "error[Code]: file:line:col: message" on stderr, then the hint and the notes.
void PrintHuman(std::string_view severity, const Error& error) {
  std::string location;
  if (error.span && !error.span->file.empty()) {
    location = error.span->file;
    if (error.span->line > 0) location += fmt::format(":{}", error.span->line);
    if (error.span->column > 0) location += fmt::format(":{}", error.span->column);
    location += ": ";
  }
  std::cerr << fmt::format("{}[{}]: {}{}\n", severity, error.reported_code(), location,
                           error.message);
  if (!error.hint.empty()) std::cerr << "  hint: " << WithHintProject(error.hint) << "\n";
  for (const std::string& note : error.notes) std::cerr << "  note: " << note << "\n";
}

}  // namespace

void SetHintProject(std::string project_dir) { HintProject() = std::move(project_dir); }

std::string WithHintProject(std::string_view hint) {
  const std::optional<std::string>& project = HintProject();
  if (!project) return std::string(hint);
  constexpr std::string_view kCommand = "`strata ";
  std::string out;
  std::size_t copied = 0;  // hint[0, copied) is in `out`
  std::size_t start = hint.find(kCommand);
  while (start != std::string_view::npos) {
    const std::size_t end = hint.find('`', start + kCommand.size());
    if (end == std::string_view::npos) break;
    const std::string_view command = hint.substr(start + 1, end - start - 1);
    out += hint.substr(copied, end - copied);
    copied = end;
    const bool skip = command.rfind("strata init", 0) == 0 ||
                      command.find("--project") != std::string_view::npos ||
                      command.find("--help") != std::string_view::npos;
    if (!skip) out += " --project " + ShellWord(*project);
    start = hint.find(kCommand, end + 1);
  }
  out += hint.substr(copied);
  return out;
}

std::string HumanNumber(const nlohmann::ordered_json& number) {
  if (!number.is_number_float()) return number.dump();
  const double value = number.get<double>();
  if (!std::isfinite(value)) return number.dump();
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return "0";
  if (magnitude >= 1e15 || magnitude < 1e-4) return fmt::format("{:.4g}", value);
  // 4 decimals from 1 up; below 1, enough for 4 significant digits (0.001235).
  const int decimals = magnitude >= 1 ? 4 : 3 - static_cast<int>(std::floor(std::log10(magnitude)));
  std::string text = fmt::format("{:.{}f}", value, decimals);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::string DumpJson(const json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

void PrintJson(const json& value) { std::cout << DumpJson(value, 2) << std::endl; }

void PrintError(const Error& error, OutputFormat output) { PrintErrors({error}, output); }

void PrintErrors(const std::vector<Error>& errors, OutputFormat output) {
  if (output == OutputFormat::kJson) {
    json list = json::array();
    for (const Error& error : errors) list.push_back(ErrorJson(error));
    PrintJson(json{{"errors", list}});
    return;
  }
  for (const Error& error : errors) PrintHuman("error", error);
}

void PrintWarnings(const std::vector<Error>& warnings, bool quiet) {
  if (quiet) return;
  for (const Error& warning : warnings) PrintHuman("warning", warning);
}

std::string RenderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) widths[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i] : "";
      out += fmt::format("{:<{}}", cell, widths[i]);
      out += i + 1 < widths.size() ? "  " : "";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  std::vector<std::string> rule;
  rule.reserve(widths.size());
  for (std::size_t width : widths) rule.push_back(std::string(width, '-'));
  out += line(rule);
  for (const auto& row : rows) out += line(row);
  return out;
}

void PrintWarnings(const std::vector<materialize::RunWarning>& warnings) {
  // A lost table can make every partition of a long backfill disagree: the first few say enough.
  constexpr std::size_t kShown = 10;
  for (std::size_t i = 0; i < warnings.size() && i < kShown; ++i) {
    std::cerr << fmt::format("warning[{}]: {}\n", warnings[i].code, warnings[i].message);
  }
  if (warnings.size() > kShown) {
    std::cerr << fmt::format("warning: ... and {} more (--output json lists them all)\n",
                             warnings.size() - kShown);
  }
}

void PrintRunReport(const materialize::RunReport& printed, OutputFormat output, bool quiet) {
  // The errors' messages end with their hints (`strata run --missing`).
  materialize::RunReport report = printed;
  for (materialize::RunErrorEntry& entry : report.errors) {
    entry.message = WithHintProject(entry.message);
  }
  if (output == OutputFormat::kJson) {
    PrintJson(materialize::RunReportToJson(report));
    return;
  }
  if (!quiet) {
    // Long backfills: the first and last rows and every failure, not thousands of lines.
    constexpr std::size_t kEdge = 10;
    const auto& all = report.materializations;
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const materialize::Materialization& m = all[i];
      const bool edge = all.size() <= 4 * kEdge || i < kEdge || i + kEdge >= all.size();
      if (!edge && m.status == "Computed") {
        if (rows.empty() || rows.back()[0] != "...") rows.push_back({"...", "", "", "", "", ""});
        continue;
      }
      rows.push_back({m.model, m.partition_key.value_or("-"), m.status,
                      m.row_count ? std::to_string(*m.row_count) : "-",
                      std::to_string(m.duration_ms), m.checksum ? HexHash64(*m.checksum) : "-"});
    }
    std::cout << RenderTable({"model", "partition", "status", "rows", "ms", "checksum"}, rows);
    std::cout << "\n";
    std::vector<std::vector<std::string>> summary;
    for (const materialize::PartitionSummary& s : report.partition_summaries) {
      summary.push_back(
          {s.model, std::to_string(s.partitions_planned), std::to_string(s.partitions_succeeded),
           std::to_string(s.partitions_failed), std::to_string(s.partitions_skipped)});
    }
    std::cout << RenderTable({"model", "planned", "succeeded", "failed", "skipped"}, summary);
  }
  PrintWarnings(report.warnings);
  for (const materialize::RunErrorEntry& e : report.errors) {
    std::cerr << fmt::format("error[{}]: {}{}: {}\n", e.code, e.model,
                             e.partition ? " " + *e.partition : "", e.message);
  }
  std::cout << fmt::format("\nrun {} {} in {} ms\n", report.run_id,
                           materialize::RunStatusName(report.status), report.duration_ms);
}

TerminalProgress::TerminalProgress(bool enabled)
    : enabled_(enabled && ::isatty(STDERR_FILENO) != 0), started_ms_(MonotonicMillis()) {}

TerminalProgress::~TerminalProgress() { Clear(); }

void TerminalProgress::Clear() {
  if (drawn_) std::cerr << "\r\033[K" << std::flush;
  drawn_ = false;
}

void TerminalProgress::OnProgress(int done, int total) {
  if (!enabled_ || total <= 0) return;
  const std::int64_t now = MonotonicMillis();
  if (now - last_draw_ms_ < 100 && done < total) return;
  last_draw_ms_ = now;
  const double seconds = std::max<double>(0.001, (now - started_ms_) / 1000.0);
  const double rate = done / seconds;
  const int eta = rate > 0 ? static_cast<int>((total - done) / rate) : 0;
  constexpr int kWidth = 30;
  const int filled = total > 0 ? kWidth * done / total : 0;
  std::cerr << fmt::format("\r[{}{}] {}/{} partitions  {:.1f}/s  ETA {}m{:02}s\033[K",
                           std::string(filled, '#'), std::string(kWidth - filled, '-'), done, total,
                           rate, eta / 60, eta % 60)
            << std::flush;
  drawn_ = true;
}

}  // namespace strata::cli
