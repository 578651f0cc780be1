#include "compiler/compiler.h"

#include <gtest/gtest.h>

namespace strata::compiler {
namespace {

project::Project OneModel(std::string sql, project::StrategyKind strategy) {
  project::Project project;
  project.config.root = "/p";
  project::Model model;
  model.name = "fct";
  model.sql_path = "/p/models/fct.sql";
  model.sql = std::move(sql);
  model.strategy = strategy;
  if (strategy == project::StrategyKind::kTimeInterval) {
    model.time_interval = project::TimeIntervalConfig{};
    model.time_interval->time_column = "d";
  }
  project.models.push_back(std::move(model));
  return project;
}

std::vector<Diagnostic> Check(std::string sql,
                              project::StrategyKind strategy = project::StrategyKind::kTimeInterval) {
  const project::Project project = OneModel(std::move(sql), strategy);
  return CheckModel(project, project.models[0], sql::Dialect::kDuckDb);
}

TEST(CompilerTest, BoundedModelHasNoDiagnostics) {
  EXPECT_TRUE(Check("SELECT ts AS d FROM t WHERE ts >= @start_date AND ts < @end_date").empty());
}

TEST(CompilerTest, PlaceholderOnlyInTheSelectListIsE024WithPosition) {
  const auto diagnostics = Check("SELECT ts AS d, @end_date AS w\nFROM t\nWHERE ts >= @start_date");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "E024");
  EXPECT_EQ(diagnostics[0].severity, Severity::kError);
  EXPECT_EQ(diagnostics[0].span.file, "models/fct.sql");
  EXPECT_GT(diagnostics[0].span.line, 0);
  EXPECT_NE(diagnostics[0].message.find("@end_date"), std::string::npos);
  const Status first = FirstError(diagnostics);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(ReportedCode(first.error().code), "E024");
}

TEST(CompilerTest, ParseFailureIsReportedOnce) {
  const auto diagnostics = Check("SELECT FROM WHERE (");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "E024");
}

TEST(CompilerTest, InclusiveBetweenIsAWarningNotAnError) {
  const auto diagnostics = Check("SELECT ts AS d FROM t WHERE ts BETWEEN @start_date AND @end_date");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "W024");
  EXPECT_EQ(diagnostics[0].severity, Severity::kWarning);
  EXPECT_TRUE(FirstError(diagnostics).ok());
}

TEST(CompilerTest, FullRefreshModelsAreNotBoundChecked) {
  EXPECT_TRUE(Check("SELECT * FROM t", project::StrategyKind::kFullRefresh).empty());
  const auto unlexable = Check("SELECT 'oops FROM t", project::StrategyKind::kFullRefresh);
  ASSERT_EQ(unlexable.size(), 1u);
  EXPECT_EQ(unlexable[0].code, "SqlLex");
}

}  // namespace
}  // namespace strata::compiler
