// Runs tests/golden/sql_port/*.txt: each case's SQL (PostgreSQL dialect) is translated over the
// example project's tables (header `role:` for a data role's, `timezone:` for the session's zone,
// `parameters:` a JSON array of bound texts with null for NULL, `unbound: true` for a statement
// not bound yet) and printed as the semantic query, the outputs and the parameter types, or as
// the error's SQLSTATE, message and hint. A translated query without filter groups or offset
// (which the planner of this branch does not read yet) must also plan live for that role.
#include "serve/pg/translate.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "semantic/live_sql.h"
#include "semantic/loader.h"
#include "semantic/query.h"
#include "semantic/testing/example_model.h"
#include "sql/parser.h"
#include "sql/testing/golden_file.h"

namespace strata::serve::pg {
namespace {

namespace fs = std::filesystem;

const semantic::SemanticModel& Model() {
  static const semantic::SemanticModel kModel = [] {
    semantic::SemanticLoadOutcome outcome = semantic::LoadSemanticModel(
        {{"model.yml", semantic::testing::kExampleModelYaml}}, sql::Dialect::kDuckDb, 4);
    STRATA_CHECK(outcome.errors.empty());
    return std::move(*outcome.model);
  }();
  return kModel;
}

std::string_view FormName(SqlOutputForm form) {
  switch (form) {
    case SqlOutputForm::kValue:
      return "";
    case SqlOutputForm::kDate:
      return " (date)";
    case SqlOutputForm::kTimestamp:
      return " (timestamp)";
    case SqlOutputForm::kYear:
      return " (year)";
    case SqlOutputForm::kQuarter:
      return " (quarter)";
    case SqlOutputForm::kMonth:
      return " (month)";
  }
  return "";
}

std::string Header(const sql::testing::GoldenCase& golden, const std::string& key) {
  const auto found = golden.headers.find(key);
  return found == golden.headers.end() ? "" : found->second;
}

bool PlannerReads(const nlohmann::ordered_json& query) {
  if (query.contains("offset")) return false;
  const std::string text = query.dump();
  return text.find("{\"or\"") == std::string::npos && text.find("{\"and\"") == std::string::npos &&
         text.find("{\"not\"") == std::string::npos && text.find("null") == std::string::npos;
}

// The query plans live for the role: its members exist and the role may read them.
void ExpectPlans(const nlohmann::ordered_json& query, const std::optional<std::string>& role) {
  if (!PlannerReads(query)) return;
  Result<semantic::SemanticQuery> parsed = semantic::ParseQueryJson(query.dump());
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  Result<semantic::LivePlan> plan =
      semantic::PlanLiveQuery(Model(), *parsed, {sql::Dialect::kDuckDb, role});
  EXPECT_TRUE(plan.ok()) << plan.error().ToString();
}

std::string ErrorText(const Error& error) {
  std::string text = "error: " + std::string(Describe(error.code).sqlstate) + " " + error.message;
  if (!error.hint.empty()) text += "\nhint: " + error.hint;
  return text;
}

std::string RunCase(const sql::testing::GoldenCase& golden) {
  const std::string role_name = Header(golden, "role");
  const std::optional<std::string> role =
      role_name.empty() ? std::nullopt : std::optional<std::string>(role_name);
  const std::vector<SqlTable> tables = TablesFor(Model(), role);
  TranslateOptions options;
  if (const std::string zone = Header(golden, "timezone"); !zone.empty()) {
    options.zone = *TimeZone::Find(zone);
  }
  if (const std::string parameters = Header(golden, "parameters"); !parameters.empty()) {
    std::vector<std::optional<std::string>> values;
    for (const auto& value : nlohmann::json::parse(parameters)) {
      values.push_back(value.is_null() ? std::nullopt
                                       : std::optional<std::string>(value.get<std::string>()));
    }
    options.parameters = std::move(values);
  } else if (Header(golden, "unbound") != "true") {
    options.parameters.emplace();
  }
  std::string_view sql = golden.input;
  if (const std::optional<std::string_view> explained = ExplainedQuery(sql)) {
    sql = *explained;
    options.explain = true;
  }
  Result<sql::StatementPtr> statement = sql::ParseStatement(sql, sql::Dialect::kPostgres);
  if (!statement.ok()) return ErrorText(statement.error());
  if (!ReadsEntityTable(**statement, tables)) return "catalog";
  Result<Translation> translation = Translate(**statement, tables, options);
  if (!translation.ok()) return ErrorText(translation.error());
  ExpectPlans(translation->query, role);
  std::string out = "query: " + translation->query.dump();
  if (translation->explain) out += "\nexplain";
  for (const SqlOutput& output : translation->outputs) {
    out += "\noutput: " + output.name + " " + std::string(PgTypeName(output.type)) + " " +
           output.source + std::string(FormName(output.form));
  }
  if (!translation->parameter_types.empty()) {
    out += "\nparameters:";
    for (const PgType type : translation->parameter_types)
      out += " " + std::string(PgTypeName(type));
  }
  return out;
}

TEST(TranslateGoldenTest, AllFiles) {
  const int cases = sql::testing::RunGoldenDirectory(
      fs::path(STRATA_GOLDEN_DIR) / "sql_port",
      [](const std::string&, sql::testing::GoldenCase& golden) { return RunCase(golden); });
  EXPECT_GT(cases, 0);
  std::printf("golden sql_port cases: %d\n", cases);
}

TEST(TranslateTest, CountStarNeedsOneUnfilteredCountMeasure) {
  std::vector<SqlTable> tables = TablesFor(Model(), std::nullopt);
  tables[0].count_star.clear();  // as for an entity with two count measures, or a filtered one
  Result<sql::StatementPtr> statement =
      sql::ParseStatement("SELECT COUNT(*) FROM strata.\"Order\"", sql::Dialect::kPostgres);
  ASSERT_TRUE(statement.ok());
  Result<Translation> translation = Translate(**statement, tables, {});
  ASSERT_FALSE(translation.ok());
  EXPECT_EQ(translation.error().code, ErrorCode::kSqlUnsupported);
  EXPECT_NE(translation.error().hint.find("order_count"), std::string::npos);
}

// A boolean dimension (the example model has none).
TEST(TranslateTest, BooleanConditions) {
  SqlTable flags;
  flags.name = "Flag";
  flags.columns.push_back({"is_paid", "Flag.is_paid", SqlColumnKind::kDimension,
                           semantic::Aggregation::kCount, PgType::kBool});
  flags.columns.push_back({"flag_count", "Flag.flag_count", SqlColumnKind::kMeasure,
                           semantic::Aggregation::kCount, PgType::kInt8});
  flags.count_star = "flag_count";
  const std::vector<SqlTable> tables = {flags};
  const auto filters = [&](std::string_view where, TranslateOptions options = {}) {
    Result<sql::StatementPtr> statement =
        sql::ParseStatement("SELECT COUNT(*) FROM strata.\"Flag\" WHERE " + std::string(where),
                            sql::Dialect::kPostgres);
    EXPECT_TRUE(statement.ok()) << where;
    if (!options.parameters) options.parameters.emplace();
    Result<Translation> translation = Translate(**statement, tables, options);
    if (!translation.ok()) return translation.error().message;
    return translation->query["filters"].dump();
  };
  EXPECT_EQ(filters("is_paid"), R"([{"member":"Flag.is_paid","op":"equals","values":[true]}])");
  EXPECT_EQ(filters("NOT is_paid"),
            R"([{"member":"Flag.is_paid","op":"equals","values":[false]}])");
  EXPECT_EQ(filters("is_paid = 'f'"),
            R"([{"member":"Flag.is_paid","op":"equals","values":[false]}])");
  EXPECT_EQ(filters("is_paid IS NOT TRUE"),
            R"([{"or":[{"member":"Flag.is_paid","op":"equals","values":[false]},)"
            R"({"member":"Flag.is_paid","op":"not_set"}]}])");
  EXPECT_EQ(filters("NOT (is_paid IS FALSE)"),
            R"([{"or":[{"member":"Flag.is_paid","op":"equals","values":[true]},)"
            R"({"member":"Flag.is_paid","op":"not_set"}]}])");
  TranslateOptions bound;
  bound.parameters = std::vector<std::optional<std::string>>{"yes"};
  EXPECT_EQ(filters("is_paid = $1", bound),
            R"([{"member":"Flag.is_paid","op":"equals","values":[true]}])");
}

TEST(TranslateTest, ExplainedQuery) {
  EXPECT_EQ(ExplainedQuery("EXPLAIN SELECT 1"), " SELECT 1");
  EXPECT_EQ(ExplainedQuery("  -- why\n explain\tSELECT 1"), "\tSELECT 1");
  EXPECT_EQ(ExplainedQuery("/* c */EXPLAIN(FORMAT JSON) SELECT 1"), "(FORMAT JSON) SELECT 1");
  EXPECT_EQ(ExplainedQuery("SELECT 1"), std::nullopt);
  EXPECT_EQ(ExplainedQuery("explained"), std::nullopt);
  EXPECT_EQ(ExplainedQuery("EXPLAIN"), "");
}

TEST(TranslateTest, OutputTextFollowsTheForm) {
  using Json = nlohmann::ordered_json;
  const SqlOutput value{"d", PgType::kTimestamptz, "Order.order_date.month"};
  EXPECT_EQ(OutputText(value, Json("2026-03-01T00:00:00+01:00")), "2026-03-01 00:00:00+01");
  EXPECT_EQ(OutputText(value, Json("2026-03-01T00:00:00Z")), "2026-03-01 00:00:00+00");
  EXPECT_EQ(OutputText(value, Json("2026-03-01T00:00:00+05:30")), "2026-03-01 00:00:00+05:30");
  EXPECT_EQ(OutputText({"d", PgType::kDate, "s", SqlOutputForm::kDate},
                       Json("2026-03-01T00:00:00+01:00")),
            "2026-03-01");
  EXPECT_EQ(OutputText({"d", PgType::kTimestamp, "s", SqlOutputForm::kTimestamp},
                       Json("2026-03-01T00:00:00-05:00")),
            "2026-03-01 00:00:00");
  EXPECT_EQ(
      OutputText({"y", PgType::kInt4, "s", SqlOutputForm::kYear}, Json("2026-01-01T00:00:00Z")),
      "2026");
  EXPECT_EQ(OutputText({"q", PgType::kNumeric, "s", SqlOutputForm::kQuarter},
                       Json("2026-10-01T00:00:00Z")),
            "4");
  EXPECT_EQ(
      OutputText({"m", PgType::kNumeric, "s", SqlOutputForm::kMonth}, Json("2026-10-01T00:00:00Z")),
      "10");
  EXPECT_EQ(OutputText({"n", PgType::kInt8, "s"}, Json(3.0)), "3");
  EXPECT_EQ(OutputText({"n", PgType::kNumeric, "s"}, Json(12.5)), "12.5");
  EXPECT_EQ(OutputText({"n", PgType::kInt8, "s"}, Json(7)), "7");
  EXPECT_EQ(OutputText({"b", PgType::kBool, "s"}, Json(true)), "t");
  EXPECT_EQ(OutputText({"s", PgType::kText, "s"}, Json(nullptr)), std::nullopt);
  EXPECT_EQ(OutputText(value, Json("yyyy-mm-ddThh:mm:ss+00:00")), "yyyy-mm-ddThh:mm:ss+00:00");
  // A string that looks like a time is not reformatted unless the column is a time.
  EXPECT_EQ(OutputText({"s", PgType::kText, "s"}, Json("2026-03-01T00:00:00Z")),
            "2026-03-01T00:00:00Z");
}

TEST(TranslateTest, ReadsEntityTableRoutesCatalogQueriesAway) {
  const std::vector<SqlTable> tables = TablesFor(Model(), std::nullopt);
  const auto reads = [&](std::string_view sql) {
    Result<sql::StatementPtr> statement = sql::ParseStatement(sql, sql::Dialect::kPostgres);
    EXPECT_TRUE(statement.ok()) << sql;
    return statement.ok() && ReadsEntityTable(**statement, tables);
  };
  EXPECT_TRUE(reads("SELECT * FROM strata.\"Order\""));
  EXPECT_TRUE(reads("SELECT * FROM \"order\""));
  EXPECT_TRUE(reads("SELECT * FROM strata.nothing"));  // answered 42P01 by Translate
  EXPECT_TRUE(reads("SELECT a FROM (SELECT status AS a FROM strata.\"Order\") AS t"));
  EXPECT_FALSE(reads("SELECT relname FROM pg_catalog.pg_class"));
  EXPECT_FALSE(reads("SELECT * FROM pg_class"));
  EXPECT_FALSE(reads("SELECT table_name FROM information_schema.tables"));
  EXPECT_FALSE(reads("SELECT version()"));
  EXPECT_FALSE(reads("SELECT * FROM unknown_table"));
}

}  // namespace
}  // namespace strata::serve::pg
