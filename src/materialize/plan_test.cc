#include "materialize/plan.h"

#include <gtest/gtest.h>

#include <fstream>

#include "materialize/model_sql.h"

namespace strata::materialize {
namespace {

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("strata_plan_test_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "models");
    Write("strata.toml", "[warehouse]\ntype = \"duckdb\"\n");
    Write("models/stg.toml", "[target]\nschema = \"raw\"\ntable = \"stg\"\n");
    Write("models/stg.sql", "SELECT * FROM raw_events;\n");
    Write("models/fct.toml",
          "depends_on = [\"stg\"]\n[strategy]\ntype = \"time_interval\"\ntime_column = \"day\"\n"
          "granularity = \"day\"\nbatch_size = 2\nfirst_partition = \"2026-04-01\"\n"
          "[target]\nschema = \"marts\"\ntable = \"fct\"\n");
    Write("models/fct.sql",
          "SELECT DATE_TRUNC('day', ts) AS day, count(*) AS n FROM stg -- @end_date in a comment\n"
          "WHERE ts >= @start_date AND ts < @end_date GROUP BY 1");
    auto store = state::StateStore::Open((root_ / "state.db").string());
    ASSERT_TRUE(store.ok());
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(root_);
  }
  void Write(const std::string& relative, const std::string& text) {
    std::ofstream(root_ / relative) << text;
  }
  project::Project Load() {
    project::LoadOutcome outcome = project::LoadProject(root_);
    EXPECT_TRUE(outcome.project.has_value());
    return std::move(*outcome.project);
  }
  Result<Plan> Build(const project::Project& project, SelectionOptions selection,
                     sql::Dialect dialect = sql::Dialect::kDuckDb, bool full_refresh = false) {
    PlanRequest request;
    request.full_refresh = full_refresh;
    for (const project::Model& model : project.models) request.models.push_back(&model);
    request.selection = std::move(selection);
    request.now = ToUnixSeconds({2026, 4, 7, 12, 0, 0});
    return BuildPlan(project, request, warehouse::Emitter(dialect), *store_);
  }

  std::filesystem::path root_;
  std::unique_ptr<state::StateStore> store_;
};

TEST_F(PlanTest, CompilesEveryBatchWithItsWindow) {
  const project::Project project = Load();
  SelectionOptions range;
  range.from = "2026-04-01";
  range.to = "2026-04-03";
  auto plan = Build(project, range);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  ASSERT_EQ(plan->models.size(), 2u);
  const PlannedModel& stg = plan->models[0];
  ASSERT_EQ(stg.statements.size(), 2u);
  EXPECT_EQ(stg.statements[1],
            "CREATE OR REPLACE TABLE \"raw\".\"stg\" AS\nSELECT * FROM raw_events");
  const PlannedModel& fct = plan->models[1];
  ASSERT_EQ(fct.batches.size(), 2u);  // 01+02, then 03
  EXPECT_EQ(fct.batches[0].keys.size(), 2u);
  const std::string& insert = fct.batches[0].statements.insert;
  EXPECT_NE(insert.find("FROM \"raw\".\"stg\""), std::string::npos) << insert;
  EXPECT_NE(insert.find("ts >= '2026-04-01 00:00:00' AND ts < '2026-04-03 00:00:00'"),
            std::string::npos)
      << insert;
  EXPECT_NE(insert.find("-- @end_date in a comment"), std::string::npos);  // comments untouched
  EXPECT_EQ(fct.batches[1].statements.delete_window,
            "DELETE FROM \"marts\".\"fct\"\nWHERE \"day\" >= '2026-04-03 00:00:00' AND \"day\" < "
            "'2026-04-04 00:00:00'");
  ASSERT_EQ(fct.bootstrap.size(), 2u);
  EXPECT_NE(fct.bootstrap[1].find("ts >= '2026-04-01 00:00:00' AND ts < '2026-04-01 00:00:00'"),
            std::string::npos);
}

TEST(WindowSqlTest, OnTrinoABarePlaceholderIsATypedLiteralAndTheQuotedFormAString) {
  // Trino compares no time column with a string: the seed's '2026-04-01 00:00:00' would fail.
  const std::string window_template =
      "SELECT * FROM t WHERE ts >= @start_date AND ts < @end_date AND d <> "
      "CAST('@start_date' AS date)";
  const Window window{ToUnixSeconds({2026, 4, 1, 0, 0, 0}), ToUnixSeconds({2026, 4, 2, 0, 0, 0})};
  auto trino = WindowSql(window_template, warehouse::Emitter(sql::Dialect::kTrino), window);
  ASSERT_TRUE(trino.ok()) << trino.error().ToString();
  EXPECT_EQ(*trino,
            "SELECT * FROM t WHERE ts >= TIMESTAMP '2026-04-01 00:00:00' AND ts < TIMESTAMP "
            "'2026-04-02 00:00:00' AND d <> CAST('2026-04-01 00:00:00' AS date)");
  // Elsewhere both forms are the seed's string literal.
  auto duckdb = WindowSql(window_template, warehouse::Emitter(sql::Dialect::kDuckDb), window);
  ASSERT_TRUE(duckdb.ok()) << duckdb.error().ToString();
  EXPECT_EQ(*duckdb,
            "SELECT * FROM t WHERE ts >= '2026-04-01 00:00:00' AND ts < '2026-04-02 00:00:00' AND "
            "d <> CAST('2026-04-01 00:00:00' AS date)");
}

TEST_F(PlanTest, ADuckDbCatalogOtherThanTheDatabaseFailsTheModel) {
  Write("models/fct.toml",
        "depends_on = [\"stg\"]\n[strategy]\ntype = \"time_interval\"\ntime_column = \"day\"\n"
        "granularity = \"day\"\nfirst_partition = \"2026-04-01\"\n"
        "[target]\ncatalog = \"lake\"\nschema = \"marts\"\ntable = \"fct\"\n");
  Write("models/stg.toml",
        "[target]\ncatalog = \"Warehouse\"\nschema = \"raw\"\ntable = \"stg\"\n");
  const project::Project project = Load();
  SelectionOptions one;
  one.partition = "2026-04-01";
  auto plan = Build(project, one);
  ASSERT_TRUE(plan.ok()) << plan.error().ToString();
  EXPECT_FALSE(plan->models[0].error.has_value());  // warehouse.duckdb's database, any case
  const PlannedModel& fct = plan->models[1];
  ASSERT_TRUE(fct.error.has_value());
  EXPECT_EQ(fct.error->code, ErrorCode::kConfig);
  EXPECT_NE(fct.error->message.find("\"lake\""), std::string::npos) << fct.error->message;
  EXPECT_NE(fct.error->hint.find("catalog = \"warehouse\""), std::string::npos) << fct.error->hint;
  ASSERT_TRUE(fct.error->span.has_value());
  EXPECT_EQ(fct.error->span->file, "models/fct.toml");
  EXPECT_EQ(fct.error->span->line, 8);
  EXPECT_TRUE(fct.statements.empty() && fct.batches[0].statements.insert.empty());
}

TEST_F(PlanTest, IdIsAContentHashAndJsonRoundTrips) {
  const project::Project project = Load();
  SelectionOptions missing;
  missing.missing = true;
  auto first = Build(project, missing);
  auto second = Build(project, missing);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->plan_id, second->plan_id);
  EXPECT_EQ(first->plan_id.size(), 16u);
  auto parsed = PlanFromJson(PlanToJson(*first), project);
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  EXPECT_EQ(PlanToJson(*parsed).dump(), PlanToJson(*first).dump());

  SelectionOptions other;
  other.partition = "2026-04-02";
  EXPECT_NE(Build(project, other)->plan_id, first->plan_id);
}

TEST_F(PlanTest, ChangedModelMakesTheSavedPlanStale) {
  const project::Project before = Load();
  auto plan = Build(before, {});
  ASSERT_TRUE(plan.ok());
  const nlohmann::json saved = PlanToJson(*plan);
  Write("models/fct.sql", "SELECT 1 AS day WHERE x >= @start_date AND x < @end_date");
  const project::Project after = Load();
  auto stale = PlanFromJson(saved, after);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, ErrorCode::kPlanStale);
  EXPECT_NE(stale.error().message.find("fct"), std::string::npos);
}

TEST_F(PlanTest, APlanSavedInAnOlderFormatIsStale) {
  const project::Project project = Load();
  auto plan = Build(project, {});
  ASSERT_TRUE(plan.ok());
  nlohmann::json saved = PlanToJson(*plan);
  EXPECT_EQ(saved.at("format"), kPlanFormat);
  ASSERT_TRUE(PlanFromJson(saved, project).ok());
  for (const nlohmann::json& format : {nlohmann::json(), nlohmann::json(1)}) {
    if (format.is_null()) {
      saved.erase("format");  // saved before plans had a format
    } else {
      saved["format"] = format;
    }
    auto stale = PlanFromJson(saved, project);
    ASSERT_FALSE(stale.ok()) << saved.dump();
    EXPECT_EQ(stale.error().code, ErrorCode::kPlanStale);
    EXPECT_NE(stale.error().hint.find("strata plan"), std::string::npos) << stale.error().hint;
  }
}

TEST_F(PlanTest, FusesOnlyWhenTheWarehouseFunctionsAreKnown) {
  const project::Project project = Load();
  SelectionOptions range;
  range.from = "2026-04-01";
  range.to = "2026-04-04";
  // No connection and a warehouse that exists: its own functions are unknown, nothing fuses.
  auto unknown = Build(project, range);
  ASSERT_TRUE(unknown.ok()) << unknown.error().ToString();
  EXPECT_FALSE(unknown->models[1].fused_select.has_value());
  // A plan round-trips whatever it decided.
  auto parsed = PlanFromJson(PlanToJson(*unknown), project);
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  EXPECT_EQ(parsed->models[1].fused_select, unknown->models[1].fused_select);
}

TEST_F(PlanTest, MissingPlaceholderIsAModelErrorNotAPlanError) {
  Write("models/fct.sql", "SELECT DATE_TRUNC('day', ts) AS day FROM stg WHERE ts >= @start_date");
  const project::Project project = Load();
  auto plan = Build(project, {});
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->models[0].error.has_value());
  ASSERT_TRUE(plan->models[1].error.has_value());
  EXPECT_EQ(plan->models[1].error->code, ErrorCode::kPlaceholder);
  EXPECT_NE(plan->models[1].error->message.find("@end_date"), std::string::npos);
}

TEST_F(PlanTest, MissingReadsComputedKeysFromTheStore) {
  const project::Project project = Load();
  state::PartitionRecord done;
  done.model_name = "fct";
  done.status = state::PartitionStatus::kComputed;
  std::vector<state::PartitionRecord> records;
  for (const char* key : {"2026-04-01", "2026-04-02", "2026-04-04"}) {
    done.partition_key = key;
    done.start = PartitionKey::Parse(key, Grain::kDay)->window().start;
    done.end = PartitionKey::Parse(key, Grain::kDay)->window().end;
    records.push_back(done);
  }
  ASSERT_TRUE(store_->UpsertPartitions(records).ok());
  SelectionOptions missing;
  missing.missing = true;
  auto plan = Build(project, missing);
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> keys;
  for (const PlannedBatch& batch : plan->models[1].batches) {
    for (const PartitionKey& key : batch.keys) keys.push_back(key.ToString());
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"2026-04-03", "2026-04-05", "2026-04-06", "2026-04-07"}));
  EXPECT_EQ(plan->models[1].batches.size(), 3u);  // 03 | 05+06 | 07
}

TEST_F(PlanTest, AModelBuiltInAnotherZoneIsRefusedUntilAFullRefresh) {
  state::PartitionRecord utc_day;
  utc_day.model_name = "fct";
  utc_day.partition_key = "2026-04-01";
  utc_day.status = state::PartitionStatus::kComputed;
  utc_day.start = PartitionKey::Parse("2026-04-01", Grain::kDay)->window().start;
  utc_day.end = PartitionKey::Parse("2026-04-01", Grain::kDay)->window().end;
  ASSERT_TRUE(store_->UpsertPartitions({utc_day}).ok());
  SelectionOptions missing;
  missing.missing = true;
  ASSERT_TRUE(Build(Load(), missing).ok());  // built in UTC, still UTC

  Write("models/fct.toml",
        "depends_on = [\"stg\"]\n[strategy]\ntype = \"time_interval\"\ntime_column = \"day\"\n"
        "granularity = \"day\"\ntimezone = \"America/New_York\"\n"
        "first_partition = \"2026-04-01\"\n[target]\nschema = \"marts\"\ntable = \"fct\"\n");
  const project::Project zoned = Load();
  auto refused = Build(zoned, missing);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kTimeZoneChanged);
  EXPECT_NE(refused.error().message.find("2026-04-01T00:00:00Z"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().hint.find("--full-refresh"), std::string::npos);

  auto rebuilt = Build(zoned, missing, sql::Dialect::kDuckDb, /*full_refresh=*/true);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().ToString();
  const PlannedModel& fct = rebuilt->models[1];
  EXPECT_TRUE(fct.replace);
  EXPECT_FALSE(rebuilt->models[0].replace);
  // The old Computed day is not taken as built: every day from first_partition runs, in New York.
  ASSERT_FALSE(fct.batches.empty());
  EXPECT_EQ(fct.batches.front().keys.front().ToString(), "2026-04-01");
  EXPECT_EQ(FormatIso8601(fct.batches.front().window.start), "2026-04-01T04:00:00Z");
  EXPECT_NE(fct.batches.front().statements.insert.find("'2026-04-01 04:00:00'"), std::string::npos)
      << fct.batches.front().statements.insert;
  auto parsed = PlanFromJson(PlanToJson(*rebuilt), zoned);
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  EXPECT_TRUE(parsed->models[1].replace);
}

}  // namespace
}  // namespace strata::materialize
