// Runs tests/golden/parse/*.txt: each case's input is parsed in the file's dialect (the file
// name, e.g. duckdb.txt, or a "dialect:" header) and printed in the "print:" header's dialect
// (default: the same). The expected text is the printed SQL, or "ERROR: " + message + caret
// for inputs that must not parse. Every printed statement must re-parse and print identically.
#include <gtest/gtest.h>

#include <filesystem>

#include "sql/parser.h"
#include "sql/printer.h"
#include "sql/testing/golden_file.h"

namespace strata::sql {
namespace {

namespace fs = std::filesystem;

Dialect DialectOf(const testing::GoldenCase& golden, const std::string& key, Dialect fallback) {
  const auto found = golden.headers.find(key);
  if (found == golden.headers.end()) return fallback;
  const std::optional<Dialect> dialect = ParseDialect(found->second);
  EXPECT_TRUE(dialect.has_value()) << golden.name << ": unknown dialect " << found->second;
  return dialect.value_or(fallback);
}

// The output of one case; adds a failure when the printed SQL is not stable.
std::string RunCase(const testing::GoldenCase& golden, Dialect file_dialect) {
  const Dialect dialect = DialectOf(golden, "dialect", file_dialect);
  const Dialect target = DialectOf(golden, "print", dialect);
  Result<StatementPtr> parsed = ParseStatement(golden.input, dialect);
  if (!parsed.ok()) return "ERROR: " + parsed.error().message + "\n" + parsed.error().hint;
  std::string printed = Print(**parsed, target);
  Result<StatementPtr> reparsed = ParseStatement(printed, target);
  if (!reparsed.ok()) {
    ADD_FAILURE() << golden.name << ": printed SQL does not parse: " << printed << "\n"
                  << reparsed.error().message;
    return printed;
  }
  EXPECT_EQ(Print(**reparsed, target), printed) << golden.name << ": print is not stable";
  return printed;
}

TEST(GoldenParseTest, AllFiles) {
  const int cases = testing::RunGoldenDirectory(
      fs::path(STRATA_GOLDEN_DIR) / "parse",
      [](const std::string& stem, testing::GoldenCase& golden) {
        return RunCase(golden, ParseDialect(stem).value_or(Dialect::kDuckDb));
      });
  EXPECT_GT(cases, 0);
  std::printf("golden parse cases: %d\n", cases);
}

}  // namespace
}  // namespace strata::sql
