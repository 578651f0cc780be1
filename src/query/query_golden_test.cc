// Runs tests/golden/query/<dialect>.txt: for each case, a semantic query (JSON; an optional
// `role: NAME` header) over the example model (semantic/testing/example_model.h, fiscal year
// starting in April) and the SQL PlanQuery produces (the main statement, then each sketch
// statement), or the error. STRATA_GOLDEN_REWRITE=1 rewrites the expected text.
//
// Every statement is also checked beyond its text: re-parsed with our parser in its dialect, and
// for DuckDB executed against the example tables.
#include <gtest/gtest.h>

#include "query/query_engine.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"
#include "sql/parser.h"
#include "sql/testing/golden_file.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::query {
namespace {

using sql::testing::GoldenCase;
using sql::testing::GoldenFile;

std::string Render(const Result<semantic::LivePlan>& plan) {
  if (!plan.ok()) {
    return "error: " + std::string(ErrorCodeName(plan.error().code)) + ": " + plan.error().message +
           (plan.error().hint.empty() ? "" : "\nhint: " + plan.error().hint);
  }
  std::string out = plan->sql + "\n";
  for (const semantic::SketchQuery& sketch : plan->sketches)
    out += "-- sketch\n" + sketch.sql + "\n";
  return out;
}

void RunGolden(sql::Dialect dialect) {
  auto outcome =
      semantic::LoadSemanticModel({{"semantic/model.yml", semantic::testing::kExampleModelYaml}},
                                  dialect, /*fiscal_year_start_month=*/4);
  ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
  auto warehouse = warehouse::OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = (*warehouse)->Connect();
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE((*connection)->Execute(semantic::testing::kExampleTablesSql).ok());

  const std::string path =
      std::string(STRATA_GOLDEN_DIR) + "/query/" + std::string(sql::DialectName(dialect)) + ".txt";
  GoldenFile file = sql::testing::ReadGoldenFile(path);
  ASSERT_FALSE(file.cases.empty()) << path;
  for (GoldenCase& golden : file.cases) {
    SCOPED_TRACE(golden.name);
    const std::optional<std::string> role =
        golden.headers.count("role") ? std::optional<std::string>(golden.headers.at("role"))
                                     : std::nullopt;
    const Result<semantic::LivePlan> plan =
        PlanQuery(*outcome.model, dialect, golden.input, {role, std::nullopt});
    golden.actual = Render(plan);
    if (!sql::testing::RewriteRequested()) {
      EXPECT_EQ(sql::testing::TrimTrailingBlankLines(golden.actual), golden.expected);
    }
    if (!plan.ok()) continue;
    std::vector<std::string> statements = {plan->sql};
    for (const semantic::SketchQuery& sketch : plan->sketches) statements.push_back(sketch.sql);
    for (const std::string& statement : statements) {
      auto parsed = sql::ParseStatement(statement, dialect);
      EXPECT_TRUE(parsed.ok()) << statement << "\n"
                               << (parsed.ok() ? "" : parsed.error().ToString());
      if (dialect == sql::Dialect::kDuckDb) {
        auto executed = (*connection)->Execute(statement);
        EXPECT_TRUE(executed.ok()) << statement << "\n"
                                   << (executed.ok() ? "" : executed.error().ToString());
      }
    }
  }
  if (sql::testing::RewriteRequested()) sql::testing::Rewrite(file);
}

TEST(QueryGolden, DuckDb) { RunGolden(sql::Dialect::kDuckDb); }
TEST(QueryGolden, Postgres) { RunGolden(sql::Dialect::kPostgres); }
TEST(QueryGolden, Trino) { RunGolden(sql::Dialect::kTrino); }

}  // namespace
}  // namespace strata::query
