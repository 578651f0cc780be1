// Runs tests/golden/analyze/*.txt: each case's input is model SQL analyzed with
// AnalyzeModelSql in the case's "dialect:" header (default duckdb) and for the model grain in
// its "grain:" header (hour / day / month / year; default none: no W025); the expected text is
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
  const int cases = golden_testing::RunGoldenDirectory(
      fs::path(STRATA_GOLDEN_DIR) / "analyze",
      [](const std::string&, golden_testing::GoldenCase& golden) {
        const auto header = golden.headers.find("dialect");
        const std::optional<sql::Dialect> dialect = header == golden.headers.end()
                                                        ? sql::Dialect::kDuckDb
                                                        : sql::ParseDialect(header->second);
        EXPECT_TRUE(dialect.has_value());
        const auto grain_header = golden.headers.find("grain");
        std::optional<Grain> grain;
        if (grain_header != golden.headers.end()) {
          grain = ParseGrain(grain_header->second);
          EXPECT_TRUE(grain.has_value()) << grain_header->second;
        }
        const BoundsReport report =
            AnalyzeModelSql(golden.input, dialect.value_or(sql::Dialect::kDuckDb), grain);
        const std::string tag = golden.name.substr(0, golden.name.find(':'));
        EXPECT_EQ(tag, VerdictTag(report)) << "intended verdict differs";
        return FormatBoundsReport(report);
      });
  EXPECT_GE(cases, 150);
  std::printf("golden analyze cases: %d\n", cases);
}

}  // namespace
}  // namespace strata::analysis
