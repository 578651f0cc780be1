// The compile benchmark (issue 3, "Benchmark"): a generated project of N models (default 10,000;
// project_generator.h), measured in one process against a baseline of only reading its files:
//   (a) read:     read every .sql and .toml file into memory (the baseline);
//   (l) lex:      read + sql::Lex of every model (the tokens the compiler shares with the parser);
//   (b) parse:    read + sql::ParseScript of every model (lexing included);
//   (c) analyze:  read + analysis::AnalyzeModelSql of every model (ParseScript + the E024 bound
//                 analysis; the whole per-model SQL work of `strata compile` except E020-E027);
//   (d) compile:  `strata compile --output json` on the project, run as a child process (project
//                 load, compiler checks, JSON output), when --strata is given.
// Every phase runs --rounds times (default 5); the median wall time is reported with its ratio to
// (a). Peak RSS: this process's high-water mark (getrusage) after each in-process phase, and the
// child's own peak for (d).
//
//   compile_bench [--models N] [--rounds R] [--strata PATH] [--keep DIR]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "analysis/bounds.h"
#include "project_generator.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace fs = std::filesystem;
using strata::bench::GeneratedProject;

namespace {

struct Options {
  int models = 10000;
  int rounds = 5;
  std::string strata;  // path of the strata binary; empty: skip (d)
  std::string keep;    // generate here and keep it; empty: a temp dir, removed at the end
};

double PeakRssMb(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Files {
  std::vector<fs::path> sql;
  std::vector<fs::path> toml;
};

Files ListFiles(const fs::path& root) {
  Files files;
  files.toml.push_back(root / "strata.toml");
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "models")) {
    if (entry.path().extension() == ".sql") files.sql.push_back(entry.path());
    if (entry.path().extension() == ".toml") files.toml.push_back(entry.path());
  }
  std::sort(files.sql.begin(), files.sql.end());
  return files;
}

// Reads every file; calls `per_model` on each model's SQL. Returns a checksum so nothing is
// optimised away.
std::size_t ReadAll(const Files& files,
                    const std::function<std::size_t(const std::string&)>& per_model) {
  std::size_t checksum = 0;
  for (const fs::path& path : files.toml) checksum += ReadFile(path).size();
  for (const fs::path& path : files.sql) {
    const std::string sql = ReadFile(path);
    checksum += sql.size() + per_model(sql);
  }
  return checksum;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double Seconds(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct ChildRun {
  double seconds = 0;
  double peak_rss_mb = 0;
  int exit_code = -1;
};

// Runs `strata compile --output json --project ROOT --quiet`, stdout to `output`.
ChildRun RunStrataCompile(const std::string& strata, const fs::path& root, const fs::path& output) {
  ChildRun run;
  const auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);  // or the child would inherit and flush our buffered output
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(127);
    execl(strata.c_str(), strata.c_str(), "compile", "--output", "json", "--project", root.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--models")
      options.models = std::atoi(argv[i + 1]);
    else if (flag == "--rounds")
      options.rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--strata")
      options.strata = argv[i + 1];
    else if (flag == "--keep")
      options.keep = argv[i + 1];
    else
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str()), std::exit(2);
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  fs::path root = options.keep;
  if (root.empty()) {
    std::string pattern = (fs::temp_directory_path() / "strata-compile-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return 1;
    root = pattern;
  }
  const double rss_start = PeakRssMb(RUSAGE_SELF);
  const GeneratedProject generated = strata::bench::GenerateProject(root, options.models);
  const Files files = ListFiles(root);
  std::printf(
      "project: %s\n  %d models (%d time_interval), %llu files, %.1f MB, %llu SQL lines "
      "(%.1f per model)\n",
      root.c_str(), options.models, generated.time_interval_models,
      static_cast<unsigned long long>(generated.files), generated.bytes / 1e6,
      static_cast<unsigned long long>(generated.sql_lines),
      static_cast<double>(generated.sql_lines) / options.models);
  std::printf("peak RSS after generating: %.1f MB (at start: %.1f MB)\n\n", PeakRssMb(RUSAGE_SELF),
              rss_start);

  std::size_t parse_failures = 0;
  std::size_t unbounded = 0;
  const auto lex = [&](const std::string& sql) -> std::size_t {
    auto tokens = strata::sql::Lex(sql, strata::sql::Dialect::kDuckDb);  // failures: see (b)
    return tokens.ok() ? tokens->size() : 0;
  };
  const auto parse = [&](const std::string& sql) -> std::size_t {
    auto script = strata::sql::ParseScript(sql, strata::sql::Dialect::kDuckDb);
    if (!script.ok()) ++parse_failures;
    return script.ok() ? script->size() : 0;
  };
  const auto analyze = [&](const std::string& sql) -> std::size_t {
    const auto report = strata::analysis::AnalyzeModelSql(sql, strata::sql::Dialect::kDuckDb);
    if (!report.ok()) ++unbounded;
    return report.ok() ? 1 : 0;
  };
  struct Phase {
    const char* name;
    std::function<std::size_t(const std::string&)> per_model;
    std::vector<double> seconds;
    double peak_rss_mb = 0;
  };
  std::vector<Phase> phases = {
      {"(a) read .sql + .toml (baseline)",
       [](const std::string&) { return std::size_t{0}; },
       {},
       0},
      {"(l) read + Lex", lex, {}, 0},
      {"(b) read + ParseScript", parse, {}, 0},
      {"(c) read + AnalyzeModelSql (parse + E024)", analyze, {}, 0},
  };
  std::size_t checksum = 0;
  for (int round = 0; round < options.rounds; ++round) {
    for (Phase& phase : phases) {
      phase.seconds.push_back(Seconds([&] { checksum += ReadAll(files, phase.per_model); }));
      phase.peak_rss_mb = PeakRssMb(RUSAGE_SELF);
    }
  }
  const double baseline = Median(phases[0].seconds);
  std::printf("%-46s %10s %8s %14s\n", "phase (median of rounds)", "wall s", "ratio",
              "peak RSS MB");
  for (const Phase& phase : phases) {
    std::printf("%-46s %10.3f %7.1fx %14.1f\n", phase.name, Median(phase.seconds),
                Median(phase.seconds) / baseline, phase.peak_rss_mb);
  }
  std::printf(
      "  per round: %zu parse failures; %zu models not proven bounded (the project has %d "
      "models without bounds: its full_refresh and view models)\n",
      parse_failures / options.rounds, unbounded / options.rounds,
      options.models - generated.time_interval_models);
  if (!options.strata.empty()) {
    std::vector<double> seconds;
    ChildRun run;
    for (int round = 0; round < options.rounds; ++round) {
      run = RunStrataCompile(options.strata, root, root / "compile.json");
      seconds.push_back(run.seconds);
    }
    std::printf("%-46s %10.3f %7.1fx %14.1f   (child process; exit %d; output %s)\n",
                "(d) strata compile --output json", Median(seconds), Median(seconds) / baseline,
                run.peak_rss_mb, run.exit_code, (root / "compile.json").c_str());
    const std::string json = ReadFile(root / "compile.json");
    for (const char* key : {"\"models\"", "\"errors\"", "\"warnings\""}) {
      const std::size_t at = json.find(key);
      const std::size_t end = at == std::string::npos ? at : json.find_first_of(",\n}", at);
      std::printf("  compile output %s\n",
                  at == std::string::npos ? key : json.substr(at, end - at).c_str());
    }
  }
  std::printf("(checksum %zu)\n", checksum);
  if (options.keep.empty()) fs::remove_all(root);
  return 0;
}
