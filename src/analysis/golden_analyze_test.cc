// Runs tests/golden/analyze/*.txt: each case's input is model SQL analyzed with
// AnalyzeModelSql in the case's "dialect:" header (default duckdb); the expected text is
// FormatBoundsReport of the result. Case names start with the intended verdict ("ok:",
// "start:", "end:", "both:" = which bounds are missing), checked against the result so a
// rewrite cannot silently flip a verdict.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/bounds.h"
#include "sql/testing/golden_file.h"

namespace strata::analysis {
namespace {

namespace fs = std::filesystem;
namespace golden_testing = sql::testing;

std::string VerdictTag(const BoundsReport& report) {
  if (report.ok()) return "ok";
  if (!report.start.bounded && !report.end.bounded) return "both";
  return report.start.bounded ? "end" : "start";
}

TEST(GoldenAnalyzeTest, AllFiles) {
  const fs::path directory = fs::path(STRATA_GOLDEN_DIR) / "analyze";
  ASSERT_TRUE(fs::is_directory(directory)) << directory;
  int cases = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    if (entry.path().extension() != ".txt") continue;
    golden_testing::GoldenFile file = golden_testing::ReadGoldenFile(entry.path().string());
    for (golden_testing::GoldenCase& golden : file.cases) {
      SCOPED_TRACE(entry.path().filename().string() + ": " + golden.name);
      const auto header = golden.headers.find("dialect");
      const std::optional<sql::Dialect> dialect =
          header == golden.headers.end() ? sql::Dialect::kDuckDb
                                         : sql::ParseDialect(header->second);
      ASSERT_TRUE(dialect.has_value());
      const BoundsReport report = AnalyzeModelSql(golden.input, *dialect);
      golden.actual = FormatBoundsReport(report);
      const std::string tag = golden.name.substr(0, golden.name.find(':'));
      EXPECT_EQ(tag, VerdictTag(report)) << "intended verdict differs";
      if (!golden_testing::RewriteRequested()) {
        EXPECT_EQ(golden_testing::TrimTrailingBlankLines(golden.actual), golden.expected);
      }
      ++cases;
    }
    if (golden_testing::RewriteRequested()) golden_testing::Rewrite(file);
  }
  EXPECT_GE(cases, 150);
  std::printf("golden analyze cases: %d\n", cases);
}

}  // namespace
}  // namespace strata::analysis
