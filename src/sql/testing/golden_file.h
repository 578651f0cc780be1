// Golden test files: a sequence of cases, each an input and the expected output, in the style
// of sqlglot's fixtures and sqllogictest. Test-only; header-only.
//
//   === case name
//   dialect: duckdb            (optional header lines "key: value" before the input)
//   SELECT 1
//   ---
//   expected output lines
//
// A case runs from its "===" line to the next one (or the end of the file). Everything before
// the first "===" is a comment kept as is. Header lines are lines matching ^[a-z_]+: before the
// first input line. Blank lines at the end of the input and of the expected text are dropped.
// With STRATA_GOLDEN_REWRITE=1 in the environment, Rewrite() writes the actual outputs back.
// RunGoldenDirectory runs a whole folder of such files in a GoogleTest test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace strata::sql::testing {

struct GoldenCase {
  std::string name;
  std::map<std::string, std::string> headers;
  std::string input;
  std::string expected;
  std::string actual;  // filled by the test; written by Rewrite
};

struct GoldenFile {
  std::string path;
  std::string preamble;
  std::vector<GoldenCase> cases;
};

inline std::string TrimTrailingBlankLines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

inline bool IsHeaderLine(const std::string& line) {
  const std::size_t colon = line.find(": ");
  if (colon == std::string::npos || colon == 0) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = line[i];
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

inline GoldenFile ReadGoldenFile(const std::string& path) {
  GoldenFile file;
  file.path = path;
  std::ifstream in(path);
  std::string line;
  GoldenCase* current = nullptr;
  bool in_expected = false;
  bool in_headers = false;
  while (std::getline(in, line)) {
    if (line.rfind("=== ", 0) == 0) {
      file.cases.emplace_back();
      current = &file.cases.back();
      current->name = line.substr(4);
      in_expected = false;
      in_headers = true;
      continue;
    }
    if (current == nullptr) {
      file.preamble += line + "\n";
      continue;
    }
    if (!in_expected && line == "---") {
      in_expected = true;
      continue;
    }
    if (in_expected) {
      current->expected += line + "\n";
    } else if (in_headers && IsHeaderLine(line)) {
      const std::size_t colon = line.find(": ");
      current->headers[line.substr(0, colon)] = line.substr(colon + 2);
    } else {
      in_headers = false;
      current->input += line + "\n";
    }
  }
  for (GoldenCase& golden : file.cases) {
    golden.input = TrimTrailingBlankLines(golden.input);
    golden.expected = TrimTrailingBlankLines(golden.expected);
  }
  return file;
}

inline bool RewriteRequested() {
  const char* value = std::getenv("STRATA_GOLDEN_REWRITE");
  return value != nullptr && std::string(value) == "1";
}

inline void Rewrite(const GoldenFile& file) {
  std::ostringstream out;
  out << file.preamble;
  for (const GoldenCase& golden : file.cases) {
    out << "=== " << golden.name << "\n";
    for (const auto& [key, value] : golden.headers) out << key << ": " << value << "\n";
    out << golden.input << "\n---\n" << TrimTrailingBlankLines(golden.actual) << "\n\n";
  }
  std::ofstream(file.path) << out.str();
}

// Runs every case of every .txt file in `directory`: golden.actual = run(file stem, case), which
// may add its own EXPECTs, then compares it with the expected text (under a SCOPED_TRACE naming
// the file and case), or writes the files back with STRATA_GOLDEN_REWRITE=1. Returns the number
// of cases.
template <typename Run>
int RunGoldenDirectory(const std::filesystem::path& directory, Run run) {
  EXPECT_TRUE(std::filesystem::is_directory(directory)) << directory;
  int cases = 0;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() != ".txt") continue;
    GoldenFile file = ReadGoldenFile(entry.path().string());
    for (GoldenCase& golden : file.cases) {
      SCOPED_TRACE(entry.path().filename().string() + ": " + golden.name);
      golden.actual = run(entry.path().stem().string(), golden);
      if (!RewriteRequested()) {
        EXPECT_EQ(TrimTrailingBlankLines(golden.actual), golden.expected);
      }
      ++cases;
    }
    if (RewriteRequested()) Rewrite(file);
  }
  return cases;
}

}  // namespace strata::sql::testing
