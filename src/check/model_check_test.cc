#include "check/model_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace strata::check {
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

std::vector<Diagnostic> Check(
    std::string sql, project::StrategyKind strategy = project::StrategyKind::kTimeInterval) {
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

TEST(CompilerTest, ParseFailureHintIsAboutTheSyntaxNotTheFilters) {
  const auto diagnostics = Check("SELECT ts AS d FROM t WHERE ts >= @start_date AND (");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].hint.find("filter every source"), std::string::npos);
  EXPECT_NE(diagnostics[0].hint.find("fix the SQL at the caret"), std::string::npos);
  EXPECT_FALSE(diagnostics[0].caret.empty());
}

TEST(CompilerTest, ModelsWithoutAWindowAreParsedToo) {
  for (auto strategy : {project::StrategyKind::kFullRefresh, project::StrategyKind::kView}) {
    // W030: strata cannot read it (a warning: the warehouse may still accept it).
    const auto unparsed = Check("SELECT order_id,\nFROM orders WHERE", strategy);
    ASSERT_EQ(unparsed.size(), 1u);
    EXPECT_EQ(unparsed[0].code, "W030");
    EXPECT_EQ(unparsed[0].severity, Severity::kWarning);
    EXPECT_EQ(unparsed[0].span.line, 2);
    EXPECT_NE(unparsed[0].caret.find('^'), std::string::npos);
    EXPECT_TRUE(FirstError(unparsed).ok());  // a warning never stops a run
    // E030: more than one statement, or none, can never be one table or view.
    const auto two = Check("SELECT 1 AS a;\nSELECT 2 AS a", strategy);
    ASSERT_EQ(two.size(), 1u);
    EXPECT_EQ(two[0].code, "E030");
    EXPECT_EQ(two[0].severity, Severity::kError);
    EXPECT_EQ(two[0].span.line, 2);
    EXPECT_NE(two[0].message.find("2 statements"), std::string::npos);
    const auto none = Check("-- nothing yet\n", strategy);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_EQ(none[0].code, "E030");
    EXPECT_TRUE(Check("SELECT 1 AS a;\n-- trailing\n", strategy).empty());
  }
}

TEST(CompilerTest, InclusiveBetweenIsAWarningNotAnError) {
  const auto diagnostics =
      Check("SELECT ts AS d FROM t WHERE ts BETWEEN @start_date AND @end_date");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "W024");
  EXPECT_EQ(diagnostics[0].severity, Severity::kWarning);
  EXPECT_TRUE(FirstError(diagnostics).ok());
}

TEST(CompilerTest, TruncationCoarserThanTheGrainIsAWarningWithItsOwnHint) {
  project::Project project =
      OneModel("SELECT ts AS d FROM t WHERE DATE(ts) >= DATE(@start_date) AND ts < @end_date",
               project::StrategyKind::kTimeInterval);
  project.models[0].time_interval->granularity = Grain::kHour;
  const auto diagnostics = CheckModel(project, project.models[0], sql::Dialect::kDuckDb);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].code, "W025");
  EXPECT_EQ(diagnostics[0].severity, Severity::kWarning);
  EXPECT_NE(diagnostics[0].hint.find("granularity"), std::string::npos);
  EXPECT_TRUE(FirstError(diagnostics).ok());
  // The same filter is exact on a daily model.
  project.models[0].time_interval->granularity = Grain::kDay;
  EXPECT_TRUE(CheckModel(project, project.models[0], sql::Dialect::kDuckDb).empty());
}

TEST(CompilerTest, FullRefreshModelsAreNotBoundChecked) {
  EXPECT_TRUE(Check("SELECT * FROM t", project::StrategyKind::kFullRefresh).empty());
  const auto unlexable = Check("SELECT 'oops FROM t", project::StrategyKind::kFullRefresh);
  ASSERT_EQ(unlexable.size(), 1u);
  EXPECT_EQ(unlexable[0].code, "SqlLex");
}

// An in-memory catalog: raw.orders(order_id INTEGER NOT NULL, order_at TIMESTAMP NULL,
// order_day DATE NOT NULL, note VARCHAR NOT NULL), and whatever a test adds. Counts calls.
class FakeCatalog : public Catalog {
 public:
  FakeCatalog() {
    tables["raw.orders"] = {{"order_id", analysis::ValueType::kInteger, false},
                            {"order_at", analysis::ValueType::kTimestamp, true},
                            {"order_day", analysis::ValueType::kDate, false},
                            {"note", analysis::ValueType::kString, false}};
  }
  std::optional<std::vector<CatalogColumn>> Describe(const project::ObjectName& table) override {
    ++calls;
    auto found = tables.find(table.schema + "." + table.table);
    if (found == tables.end()) return std::nullopt;
    return found->second;
  }
  std::map<std::string, std::vector<CatalogColumn>> tables;
  int calls = 0;
};

struct Fixture {
  project::Project project;
  FakeCatalog catalog;

  explicit Fixture(std::string sql, Grain grain = Grain::kDay, std::string time_column = "d") {
    project.config.root = "/p";
    project::Model model;
    model.name = "fct";
    model.sql_path = "/p/models/fct.sql";
    model.toml_path = "/p/models/fct.toml";
    model.sql = std::move(sql);
    model.sources.push_back(project::ObjectName{"", "raw", "orders"});
    model.strategy = project::StrategyKind::kTimeInterval;
    model.time_interval = project::TimeIntervalConfig{};
    model.time_interval->time_column = std::move(time_column);
    model.time_interval->granularity = grain;
    project.models.push_back(std::move(model));
  }
  project::Model& model() { return project.models.back(); }
  std::vector<Diagnostic> Check(bool with_catalog = true) {
    return CheckModel(project, model(), sql::Dialect::kDuckDb, with_catalog ? &catalog : nullptr);
  }
};

std::vector<std::string> Codes(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> codes;
  codes.reserve(diagnostics.size());
  for (const Diagnostic& diagnostic : diagnostics) codes.push_back(diagnostic.code);
  return codes;
}

constexpr char kWindow[] = " WHERE order_at >= @start_date AND order_at < @end_date";

TEST(ColumnChecksTest, SeedModelPassesWithTheCatalog) {
  Fixture fixture(
      std::string("SELECT DATE_TRUNC('day', order_at) AS d, COUNT(*) AS n FROM orders") + kWindow +
      " GROUP BY 1");
  EXPECT_TRUE(fixture.Check().empty());
  EXPECT_GE(fixture.catalog.calls, 1);
}

TEST(ColumnChecksTest, E020TimeColumnNotInTheOutput) {
  Fixture fixture(std::string("SELECT order_at AS ts, note\nFROM orders") + kWindow);
  const auto diagnostics = fixture.Check(/*with_catalog=*/false);  // names need no catalog
  ASSERT_EQ(Codes(diagnostics), std::vector<std::string>{"E020"});
  EXPECT_EQ(diagnostics[0].span.file, "models/fct.sql");
  EXPECT_EQ(diagnostics[0].span.line, 1);
  EXPECT_EQ(diagnostics[0].span.column, 1);
  EXPECT_NE(diagnostics[0].message.find("ts, note"), std::string::npos);
  EXPECT_FALSE(diagnostics[0].caret.empty());
  const Status first = FirstError(diagnostics);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().code, ErrorCode::kCompile);
  EXPECT_EQ(first.error().reported_code(), "E020");
}

TEST(ColumnChecksTest, E020SkippedWhenAStarCoversAnUnknownTable) {
  Fixture fixture(std::string("SELECT * FROM mystery") + kWindow);
  EXPECT_TRUE(fixture.Check().empty());
  Fixture known(std::string("SELECT * FROM orders") + kWindow);
  EXPECT_EQ(Codes(known.Check()), std::vector<std::string>{"E020"});  // d is not among them
}

TEST(ColumnChecksTest, E021KnownTypeIsNotTemporal) {
  Fixture fixture(std::string("SELECT order_at AS ts,\n  note AS d FROM orders") + kWindow);
  const auto diagnostics = fixture.Check();
  ASSERT_EQ(Codes(diagnostics), std::vector<std::string>{"E021"});
  EXPECT_EQ(diagnostics[0].span.line, 2);
  EXPECT_EQ(diagnostics[0].span.column, 3);
  EXPECT_NE(diagnostics[0].message.find("VARCHAR"), std::string::npos);
  // Without a catalog the type is unknown and nothing is reported.
  EXPECT_TRUE(fixture.Check(/*with_catalog=*/false).empty());
  // A cast to a non-temporal type is known without a catalog.
  Fixture cast(std::string("SELECT CAST(x AS VARCHAR) AS d FROM orders") + kWindow);
  EXPECT_EQ(Codes(cast.Check(false)), std::vector<std::string>{"E021"});
}

TEST(ColumnChecksTest, E022NullableUnlessTheWhereRejectsNull) {
  Fixture nullable(
      "SELECT DATE_TRUNC('day', order_at) AS d FROM orders "
      "WHERE order_day >= @start_date AND order_day < @end_date");
  EXPECT_EQ(Codes(nullable.Check()), std::vector<std::string>{"E022"});
  Fixture filtered(std::string("SELECT DATE_TRUNC('day', order_at) AS d FROM orders") + kWindow);
  EXPECT_TRUE(filtered.Check().empty());
  Fixture is_not_null(
      "SELECT order_at AS d FROM orders WHERE order_day >= @start_date AND "
      "order_day < @end_date AND order_at IS NOT NULL");
  EXPECT_TRUE(is_not_null.Check().empty());
  Fixture left_join(
      "SELECT o2.order_day AS d FROM orders o LEFT JOIN orders o2 ON o.order_id = o2.order_id "
      "WHERE o.order_at >= @start_date AND o.order_at < @end_date");
  EXPECT_EQ(Codes(left_join.Check()), std::vector<std::string>{"E022"});
}

TEST(ColumnChecksTest, E025HourlyModelWithADateColumn) {
  Fixture fixture(std::string("SELECT DATE_TRUNC('day', order_at) AS d FROM orders") + kWindow,
                  Grain::kHour);
  EXPECT_EQ(Codes(fixture.Check()), std::vector<std::string>{"E025"});
  Fixture hourly(std::string("SELECT DATE_TRUNC('hour', order_at) AS d FROM orders") + kWindow,
                 Grain::kHour);
  EXPECT_TRUE(hourly.Check().empty());
  Fixture daily(std::string("SELECT order_day AS d FROM orders") + kWindow, Grain::kHour);
  EXPECT_EQ(Codes(daily.Check()), std::vector<std::string>{"E025"});
}

TEST(ColumnChecksTest, E031AZonedModelsColumnTypeMustMatchItsNaiveTime) {
  const auto zoned = [](const std::string& select, project::NaiveTime naive) {
    Fixture fixture(select + kWindow);
    fixture.model().time_interval->zone = *TimeZone::Find("Europe/Berlin");
    fixture.model().time_interval->naive_time = naive;
    return Codes(fixture.Check());
  };
  using project::NaiveTime;
  const std::vector<std::string> e031{"E031"};
  EXPECT_EQ(zoned("SELECT order_day AS d FROM orders", NaiveTime::kUtc), e031);
  EXPECT_TRUE(zoned("SELECT order_day AS d FROM orders", NaiveTime::kLocal).empty());
  EXPECT_EQ(zoned("SELECT CAST(order_at AS TIMESTAMPTZ) AS d FROM orders", NaiveTime::kLocal),
            e031);
  EXPECT_TRUE(
      zoned("SELECT CAST(order_at AS TIMESTAMPTZ) AS d FROM orders", NaiveTime::kUtc).empty());
  EXPECT_TRUE(zoned("SELECT order_at AS d FROM orders", NaiveTime::kUtc).empty());
  EXPECT_TRUE(zoned("SELECT order_at AS d FROM orders", NaiveTime::kLocal).empty());
  // A UTC model's DATE column is a UTC date, as before zones.
  Fixture utc(std::string("SELECT order_day AS d FROM orders") + kWindow);
  EXPECT_TRUE(utc.Check().empty());
}

TEST(ColumnChecksTest, UpstreamModelTablesComeFromTheCatalogByTarget) {
  Fixture fixture(
      std::string("SELECT day AS d FROM upstream WHERE day >= @start_date AND day < @end_date"));
  project::Model upstream;
  upstream.name = "upstream";
  upstream.target = project::ObjectName{"", "marts", "upstream_table"};
  fixture.project.models.insert(fixture.project.models.begin(), upstream);
  fixture.model().depends_on = {"upstream"};
  fixture.catalog.tables["marts.upstream_table"] = {{"day", analysis::ValueType::kString, true}};
  EXPECT_EQ(Codes(fixture.Check()), std::vector<std::string>{"E021"});
}

TEST(ColumnChecksTest, E023AndE026FromTheConfig) {
  Fixture fixture(std::string("SELECT order_at AS d FROM orders") + kWindow);
  fixture.model().time_interval->first_partition = *PartitionKey::Parse("2024-01", Grain::kMonth);
  const auto diagnostics = fixture.Check(false);
  ASSERT_EQ(Codes(diagnostics), std::vector<std::string>{"E026"});
  EXPECT_EQ(diagnostics[0].span.file, "models/fct.toml");
  Fixture long_name(
      std::string("SELECT order_at AS ") + std::string(70, 'x') + " FROM orders" + kWindow,
      Grain::kDay, std::string(70, 'x'));
  EXPECT_TRUE(long_name.Check(false).empty());
  const project::Model& model = long_name.model();
  EXPECT_EQ(Codes(CheckModel(long_name.project, model, sql::Dialect::kPostgres, nullptr)),
            std::vector<std::string>{"E023"});
}

TEST(DependencyChecksTest, ReadingAnUndeclaredModelIsAnErrorAtItsReference) {
  Fixture fixture(std::string("SELECT order_at AS d\nFROM orders JOIN  upstream ON true") +
                  kWindow);
  project::Model upstream;
  upstream.name = "upstream";
  fixture.project.models.insert(fixture.project.models.begin(), upstream);
  const auto diagnostics = fixture.Check(false);
  ASSERT_EQ(Codes(diagnostics), std::vector<std::string>{"E027"});
  EXPECT_EQ(diagnostics[0].span.line, 2);
  EXPECT_EQ(diagnostics[0].span.column, 19);
  EXPECT_EQ(diagnostics[0].severity, Severity::kError);
  fixture.model().depends_on = {"upstream"};
  EXPECT_TRUE(fixture.Check(false).empty());
}

TEST(DependencyChecksTest, UnreadDependencyIsAWarning) {
  Fixture fixture(
      std::string("WITH upstream AS (SELECT 1) SELECT order_at AS d FROM orders, upstream") +
      kWindow);
  project::Model upstream;
  upstream.name = "upstream";
  fixture.project.models.insert(fixture.project.models.begin(), upstream);
  fixture.model().depends_on = {"upstream"};
  const auto diagnostics = fixture.Check(false);  // the CTE shadows the model
  ASSERT_EQ(Codes(diagnostics), std::vector<std::string>{"W027"});
  EXPECT_EQ(diagnostics[0].severity, Severity::kWarning);
  EXPECT_TRUE(FirstError(diagnostics).ok());
}

TEST(DependencyChecksTest, SourcesWinOverSameNamedModelsAndSelfReadsAreFine) {
  Fixture fixture(
      std::string("SELECT order_at AS d FROM orders WHERE order_id NOT IN (SELECT 1 FROM fct)") +
      " AND order_at >= @start_date AND order_at < @end_date");
  project::Model orders;
  orders.name = "orders";
  fixture.project.models.insert(fixture.project.models.begin(), orders);
  EXPECT_TRUE(fixture.Check(false).empty());
  // Declared as a dependency and read through the same-named source: read.
  fixture.model().depends_on = {"orders"};
  EXPECT_TRUE(fixture.Check(false).empty());
}

}  // namespace
}  // namespace strata::check
