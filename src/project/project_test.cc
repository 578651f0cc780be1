#include "project/project.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>

#include "project/internal/toml_reader.h"

namespace strata::project {
namespace {

class ProjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("strata_project_test_" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "models");
    Write("strata.toml",
          "[project]\nname = \"shop\"\n[warehouse]\ntype = \"duckdb\"\npath = \"w.duckdb\"\n");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Write(const std::string& relative, const std::string& text) {
    std::ofstream(root_ / relative) << text;
  }
  void Model(const std::string& name, const std::string& toml,
             const std::string& sql = "SELECT 1 AS x") {
    Write("models/" + name + ".toml", toml);
    Write("models/" + name + ".sql", sql);
  }
  // The single error of a failed load.
  Error OnlyError() {
    LoadOutcome outcome = LoadProject(root_);
    EXPECT_FALSE(outcome.project.has_value());
    EXPECT_EQ(outcome.errors.size(), 1u);
    return outcome.errors.empty() ? Error{} : outcome.errors[0];
  }

  std::filesystem::path root_;
};

constexpr char kDaily[] =
    "name = \"fct\"\ndepends_on = [\"stg\"]\n[strategy]\ntype = \"time_interval\"\n"
    "time_column = \"order_date\"\ngranularity = \"day\"\nfirst_partition = \"2024-01-01\"\n"
    "[target]\nschema = \"marts\"\ntable = \"fct\"\n";

TEST_F(ProjectTest, LoadsModelsInDependencyOrder) {
  Model("fct", kDaily);
  Model("stg", "name = \"stg\"\nlabels = { client = \"acme\" }\n");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value()) << outcome.errors[0].ToString();
  const Project& project = *outcome.project;
  ASSERT_EQ(project.models.size(), 2u);
  EXPECT_EQ(project.models[0].name, "stg");
  EXPECT_EQ(project.models[1].name, "fct");
  const auto& config = *project.models[1].time_interval;
  EXPECT_EQ(config.granularity, Grain::kDay);
  EXPECT_EQ(config.batch_size, 1u);
  EXPECT_EQ(config.first_partition->ToString(), "2024-01-01");
  EXPECT_EQ(project.models[1].target.schema, "marts");
  EXPECT_EQ(project.models[0].target.schema, "main");
  EXPECT_EQ(project.config.state_path, root_ / "models/.strata-state.db");

  auto acme = SelectModels(project, {}, {"client=acme"});
  ASSERT_TRUE(acme.ok());
  ASSERT_EQ(acme->size(), 1u);
  EXPECT_EQ((*acme)[0]->name, "stg");
  auto missing = SelectModels(project, {"fct_"}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kModelNotFound);
  EXPECT_NE(missing.error().hint.find("\"fct\""), std::string::npos);
  // A filter that matches nothing is an error naming the values in use, not an empty selection.
  auto nobody = SelectModels(project, {}, {"client=acmee"});
  ASSERT_FALSE(nobody.ok());
  EXPECT_EQ(nobody.error().code, ErrorCode::kModelNotFound);
  EXPECT_NE(nobody.error().message.find("client=acmee"), std::string::npos);
  EXPECT_NE(nobody.error().hint.find("client: acme"), std::string::npos);
  auto unlabelled = SelectModels(project, {"fct"}, {"client=acme"});
  ASSERT_FALSE(unlabelled.ok());
  EXPECT_NE(unlabelled.error().message.find("no selected model"), std::string::npos);
  auto no_key = SelectModels(project, {}, {"team=red"});
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.error().hint.find("team: no model has this label"), std::string::npos);
}

TEST_F(ProjectTest, SemanticFiscalYearStartMonth) {
  LoadOutcome defaults = LoadProject(root_);
  ASSERT_TRUE(defaults.project.has_value());
  EXPECT_EQ(defaults.project->config.fiscal_year_start_month, 1);
  const std::string base = "[project]\nname = \"shop\"\n[warehouse]\ntype = \"duckdb\"\n";
  Write("strata.toml", base + "[semantic]\nfiscal_year_start_month = 4\n");
  LoadOutcome april = LoadProject(root_);
  ASSERT_TRUE(april.project.has_value()) << april.errors[0].ToString();
  EXPECT_EQ(april.project->config.fiscal_year_start_month, 4);
  Write("strata.toml", base + "[semantic]\nfiscal_year_start_month = 13\n");
  EXPECT_EQ(OnlyError().code, ErrorCode::kConfig);
  Write("strata.toml", base + "[semantic]\nfiscal_year_start = 4\n");
  const Error unknown = OnlyError();
  EXPECT_EQ(unknown.code, ErrorCode::kConfigUnknownKey);
  EXPECT_EQ(unknown.span->line, 6);
  EXPECT_NE(unknown.hint.find("fiscal_year_start_month"), std::string::npos);
}

TEST_F(ProjectTest, SemanticDefaultTimezone) {
  LoadOutcome defaults = LoadProject(root_);
  ASSERT_TRUE(defaults.project.has_value());
  EXPECT_TRUE(defaults.project->config.default_timezone.is_utc());
  const std::string base = "[project]\nname = \"shop\"\n[warehouse]\ntype = \"duckdb\"\n";
  Write("strata.toml", base + "[semantic]\ndefault_timezone = \"Europe/Berlin\"\n");
  LoadOutcome berlin = LoadProject(root_);
  ASSERT_TRUE(berlin.project.has_value()) << berlin.errors[0].ToString();
  EXPECT_EQ(berlin.project->config.default_timezone.name(), "Europe/Berlin");
  Write("strata.toml", base + "[semantic]\ndefault_timezone = \"Europe/Berln\"\n");
  const Error unknown = OnlyError();
  EXPECT_EQ(unknown.code, ErrorCode::kInvalidTimeZone);
  ASSERT_TRUE(unknown.span.has_value());
  EXPECT_EQ(unknown.span->line, 6);
  EXPECT_NE(unknown.hint.find("Europe/Berlin"), std::string::npos);
  Write("strata.toml", base + "[semantic]\ndefault_timezone = 1\n");
  EXPECT_EQ(OnlyError().code, ErrorCode::kConfigType);
}

TEST_F(ProjectTest, ServeNamesTheSecretsVariableAndBoundsItsLimits) {
  LoadOutcome defaults = LoadProject(root_);
  ASSERT_TRUE(defaults.project.has_value());
  const ServeConfig& unset = defaults.project->config.serve;
  EXPECT_EQ(unset.jwt_secret_env, "");
  EXPECT_EQ(unset.max_body_bytes, 1U << 20);
  EXPECT_EQ(unset.max_concurrent_queries, 4U);
  const std::string base = "[project]\nname = \"shop\"\n[warehouse]\ntype = \"duckdb\"\n";
  Write("strata.toml",
        base +
            "[serve]\njwt_secret_env = \"STRATA_JWT_SECRET\"\nmax_body_bytes = 4096\n"
            "max_concurrent_queries = 1\nmax_queued_queries = 0\n"
            "request_timeout_ms = 500\nshutdown_drain_ms = 0\n"
            "hook_token_env = \"STRATA_HOOK_TOKEN\"\nrefresh_check_seconds = 5\n"
            "result_cache_bytes = 0\nexpose_sql = true\nplayground = false\n");
  LoadOutcome set = LoadProject(root_);
  ASSERT_TRUE(set.project.has_value()) << set.errors[0].ToString();
  const ServeConfig& serve = set.project->config.serve;
  EXPECT_EQ(serve.jwt_secret_env, "STRATA_JWT_SECRET");
  EXPECT_EQ(serve.max_body_bytes, 4096U);
  EXPECT_EQ(serve.max_concurrent_queries, 1U);
  EXPECT_EQ(serve.max_queued_queries, 0U);
  EXPECT_EQ(serve.request_timeout_ms, 500U);
  EXPECT_EQ(serve.shutdown_drain_ms, 0U);
  EXPECT_EQ(serve.hook_token_env, "STRATA_HOOK_TOKEN");
  EXPECT_EQ(serve.refresh_check_seconds, 5U);
  EXPECT_EQ(unset.hook_token_env, "");
  EXPECT_EQ(unset.refresh_check_seconds, 60U);
  EXPECT_EQ(serve.result_cache_bytes, 0U);
  EXPECT_EQ(unset.result_cache_bytes, 64U << 20);
  EXPECT_FALSE(unset.expose_sql);
  EXPECT_TRUE(serve.expose_sql);
  EXPECT_TRUE(unset.playground);
  EXPECT_FALSE(serve.playground);
  Write("strata.toml", base + "[serve]\nexpose_sql = \"yes\"\n");
  EXPECT_EQ(OnlyError().code, ErrorCode::kConfigType);
  Write("strata.toml", base + "[serve]\nhook_token_env = \"s3cr3t token!\"\n");
  const Error pasted_hook = OnlyError();
  EXPECT_EQ(pasted_hook.code, ErrorCode::kConfig);
  EXPECT_EQ(pasted_hook.message.find("s3cr3t"), std::string::npos);
  // A secret pasted where the variable's name belongs is refused, and not echoed.
  Write("strata.toml", base + "[serve]\njwt_secret_env = \"hunter2 hunter2\"\n");
  const Error pasted = OnlyError();
  EXPECT_EQ(pasted.code, ErrorCode::kConfig);
  EXPECT_EQ(pasted.message.find("hunter2"), std::string::npos);
  Write("strata.toml", base + "[serve]\nmax_concurrent_queries = 0\n");
  EXPECT_EQ(OnlyError().code, ErrorCode::kConfig);
  Write("strata.toml", base + "[serve]\nmax_body_bytes = 0\n");
  EXPECT_EQ(OnlyError().code, ErrorCode::kConfig);
  Write("strata.toml", base + "[serve]\njwt_secret = \"x\"\n");
  const Error unknown = OnlyError();
  EXPECT_EQ(unknown.code, ErrorCode::kConfigUnknownKey);
  EXPECT_NE(unknown.hint.find("jwt_secret_env"), std::string::npos);
}

TEST_F(ProjectTest, MicrobatchDefaultsToHour) {
  Model("m", "[strategy]\ntype = \"microbatch\"\ntime_column = \"ts\"\n");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value());
  EXPECT_EQ(outcome.project->models[0].strategy, StrategyKind::kTimeInterval);
  EXPECT_EQ(outcome.project->models[0].time_interval->granularity, Grain::kHour);
}

TEST_F(ProjectTest, ATimeIntervalModelMayNameItsZone) {
  Model("m",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"ts\"\ngranularity = \"day\"\n"
        "timezone = \"America/New_York\"\nnaive_time = \"local\"\n"
        "first_partition = \"2026-03-08\"\n");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value());
  const TimeIntervalConfig& config = *outcome.project->models[0].time_interval;
  EXPECT_EQ(config.zone.name(), "America/New_York");
  EXPECT_EQ(config.naive_time, NaiveTime::kLocal);
  // The first partition is New York's day, 05:00Z on the spring-forward day.
  EXPECT_EQ(FormatIso8601(config.first_partition->start()), "2026-03-08T05:00:00Z");
  // Wall-clock bounds for the column: local midnights.
  const Window column = config.ColumnWindow(config.first_partition->window());
  EXPECT_EQ(FormatIso8601(column.start), "2026-03-08T00:00:00Z");
  EXPECT_EQ(FormatIso8601(column.end), "2026-03-09T00:00:00Z");
}

TEST_F(ProjectTest, AnUnknownZoneIsRefusedWithItsLineAndAHint) {
  Model("m",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"ts\"\ngranularity = \"day\"\n"
        "timezone = \"Europe/Berln\"\n");
  const Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kInvalidTimeZone);
  ASSERT_TRUE(error.span.has_value());
  EXPECT_EQ(error.span->line, 5);
  EXPECT_NE(error.hint.find("Europe/Berlin"), std::string::npos);
}

TEST_F(ProjectTest, LocalNaiveTimeCannotHaveZonedHours) {
  Model("m",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"ts\"\ngranularity = \"hour\"\n"
        "timezone = \"Europe/Berlin\"\nnaive_time = \"local\"\n");
  const Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfig);
  EXPECT_NE(error.message.find("repeated hour"), std::string::npos);
}

// A semantic-only project has no models/ folder: that is an empty project, not an error (every
// `strata query` used to fail with "cannot read models folder").
TEST_F(ProjectTest, AMissingModelsFolderIsAnEmptyProject) {
  std::filesystem::remove_all(root_ / "models");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value())
      << (outcome.errors.empty() ? "" : outcome.errors[0].message);
  EXPECT_TRUE(outcome.project->models.empty());
  // A models path that exists but is not a folder is still an error, with the OS reason.
  Write("models", "not a folder");
  const Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfig);
  EXPECT_NE(error.message.find("Not a directory"), std::string::npos) << error.message;
}

TEST_F(ProjectTest, UnknownKeyHasLineAndSuggestion) {
  Model("fct",
        "name = \"fct\"\n[strategy]\ntype = \"time_interval\"\ntime_column = \"d\"\n"
        "granularity = \"day\"\nlookbak = 3\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfigUnknownKey);
  ASSERT_TRUE(error.span.has_value());
  EXPECT_EQ(error.span->file, "models/fct.toml");
  EXPECT_EQ(error.span->line, 6);
  EXPECT_NE(error.hint.find("\"lookback\""), std::string::npos);
}

TEST_F(ProjectTest, WrongTypeIsReported) {
  Model("fct",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"d\"\ngranularity = \"day\"\n"
        "lookback = \"3\"\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfigType);
  EXPECT_EQ(error.span->line, 5);
}

TEST_F(ProjectTest, ZeroBatchSizeIsRejected) {
  Model("fct",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"d\"\ngranularity = \"day\"\n"
        "batch_size = 0\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfig);
  EXPECT_EQ(error.span->line, 5);
}

TEST_F(ProjectTest, FirstPartitionMustMatchTheGrain) {
  Model("fct",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"d\"\ngranularity = \"month\"\n"
        "first_partition = \"2024-01-01\"\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kInvalidPartitionKey);
  EXPECT_NE(error.message.find("%Y-%m"), std::string::npos);
}

TEST_F(ProjectTest, MissingGranularityAndBadTimeColumn) {
  Model("fct", "[strategy]\ntype = \"time_interval\"\ntime_column = \"order date\"\n");
  LoadOutcome outcome = LoadProject(root_);
  EXPECT_FALSE(outcome.project.has_value());
  EXPECT_EQ(outcome.errors.size(), 2u);  // both reported, not just the first
}

TEST_F(ProjectTest, CyclesNameTheirPath) {
  Model("a", "depends_on = [\"b\"]\n");
  Model("b", "depends_on = [\"c\"]\n");
  Model("c", "depends_on = [\"a\"]\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kDependencyCycle);
  EXPECT_NE(error.message.find("a -> b -> c -> a"), std::string::npos) << error.message;
}

TEST_F(ProjectTest, UnknownDependencySuggests) {
  Model("fct", "depends_on = [\"stg_order\"]\n");
  Model("stg_orders", "");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kModelNotFound);
  EXPECT_NE(error.hint.find("stg_orders"), std::string::npos);
}

TEST_F(ProjectTest, TomlSyntaxErrorHasPosition) {
  Model("fct", "name = \"fct\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfig);
  EXPECT_EQ(error.span->line, 1);
}

TEST_F(ProjectTest, UnknownStrategyAndWarehouseType) {
  Write("strata.toml", "[warehouse]\ntype = \"duckdbb\"\n");
  Error error = OnlyError();
  EXPECT_NE(error.hint.find("\"duckdb\""), std::string::npos);
}

TEST_F(ProjectTest, MissingSqlFile) {
  Write("models/lonely.toml", "");
  Error error = OnlyError();
  EXPECT_NE(error.message.find("no SQL file"), std::string::npos);
}

TEST_F(ProjectTest, PasswordInDsnIsRejected) {
  Write("strata.toml",
        "[warehouse]\ntype = \"duckdb\"\n[warehouses.pg]\ntype = \"postgres\"\n"
        "dsn = \"postgresql://u:secret@127.0.0.1/db\"\n");
  Error error = OnlyError();
  EXPECT_NE(error.message.find("password"), std::string::npos);
}

TEST_F(ProjectTest, TrinoWarehouseKeysAreReadWithTheirSession) {
  Write("strata.toml",
        "[warehouse]\ntype = \"trino\"\nurl = \"http://127.0.0.1:8080\"\nuser = \"strata\"\n"
        "catalog = \"lake\"\nschema = \"analytics\"\npassword_env = \"TRINO_PASSWORD\"\n"
        "[warehouse.session]\nquery_max_run_time = \"2h\"\n");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value()) << outcome.errors.at(0).ToString();
  const WarehouseConfig& warehouse = outcome.project->config.warehouse;
  EXPECT_EQ(warehouse.url, "http://127.0.0.1:8080");
  EXPECT_EQ(warehouse.user, "strata");
  EXPECT_EQ(warehouse.catalog, "lake");
  EXPECT_EQ(warehouse.schema, "analytics");
  EXPECT_EQ(warehouse.password_env, "TRINO_PASSWORD");
  EXPECT_EQ(warehouse.session, (std::map<std::string, std::string>{{"query_max_run_time", "2h"}}));
}

TEST_F(ProjectTest, TrinoNeedsUrlAndUserAndRefusesADsn) {
  Write("strata.toml", "[warehouse]\ntype = \"trino\"\nuser = \"strata\"\n");
  EXPECT_NE(OnlyError().message.find("url"), std::string::npos);
  Write("strata.toml",
        "[warehouse]\ntype = \"trino\"\nurl = \"http://127.0.0.1:8080\"\nuser = \"u\"\n"
        "dsn = \"x\"\n");
  Error dsn = OnlyError();
  EXPECT_NE(dsn.message.find("dsn is not used by trino"), std::string::npos) << dsn.message;
  ASSERT_TRUE(dsn.span.has_value());
  EXPECT_EQ(dsn.span->line, 5);  // the dsn line
}

TEST_F(ProjectTest, TrinoKeysAreRefusedForOtherWarehouses) {
  Write("strata.toml", "[warehouse]\ntype = \"duckdb\"\ncatalog = \"lake\"\n");
  Error catalog = OnlyError();
  EXPECT_NE(catalog.message.find("catalog is only valid for trino"), std::string::npos);
  Write("strata.toml",
        "[warehouse]\ntype = \"postgres\"\ndsn_env = \"PG\"\n[warehouse.session]\nx = \"1\"\n");
  EXPECT_NE(OnlyError().message.find("[warehouse.session]"), std::string::npos);
}

TEST_F(ProjectTest, ReadFileTextReadsWholeFilesAndReportsMissingOnes) {
  std::string big(200'000, 'x');
  big[123'456] = '\0';  // bytes, not C strings
  Write("big.bin", big);
  Write("empty.txt", "");
  EXPECT_EQ(ReadFileText((root_ / "big.bin").string(), "big.bin").value(), big);
  EXPECT_EQ(ReadFileText((root_ / "empty.txt").string(), "empty.txt").value(), std::string());
  int os_error = 0;
  Result<std::string> missing =
      ReadFileText((root_ / "missing.txt").string(), "missing.txt", &os_error);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(os_error, ENOENT);
  EXPECT_EQ(missing.error().code, ErrorCode::kIo);
  EXPECT_NE(missing.error().message.find("missing.txt: No such file"), std::string::npos);
  Result<std::string> folder = ReadFileText(root_.string(), "the folder", &os_error);  // not a file
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(os_error, EISDIR);
  EXPECT_NE(folder.error().message.find("the folder: Is a directory"), std::string::npos);
}

TEST_F(ProjectTest, SqlThatIsNotUtf8IsRefusedWithItsPosition) {
  Model("stg", "", "SELECT 1 AS x\n-- caf\xe9 \xff\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kSqlLex);
  ASSERT_TRUE(error.span.has_value());
  EXPECT_EQ(error.span->file, "models/stg.sql");
  EXPECT_EQ(error.span->line, 2);
  EXPECT_EQ(error.span->column, 7);
  EXPECT_NE(error.message.find("byte 0xE9 at byte offset 20"), std::string::npos) << error.message;
}

TEST_F(ProjectTest, WellFormedUtf8IsAccepted) {
  Model("stg", "", "SELECT 'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80' AS x\n");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value()) << outcome.errors[0].ToString();
}

TEST_F(ProjectTest, IllFormedUtf8FormsAreRefused) {
  // Overlong '/', a surrogate, past U+10FFFF, a lone continuation byte, a truncated sequence.
  for (const std::string bad :
       {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80", "\xe2\x82"}) {
    Model("stg", "", "SELECT 1 AS x -- " + bad);
    Error error = OnlyError();
    EXPECT_EQ(error.code, ErrorCode::kSqlLex);
    EXPECT_EQ(error.span->column, 18);
  }
}

// The check reads eight ASCII bytes at a time: a bad byte, or a good two-byte character, at every
// offset around those words is still found where it is.
TEST_F(ProjectTest, IllFormedUtf8IsFoundAtEveryOffset) {
  for (std::size_t ascii = 0; ascii < 20; ++ascii) {
    const std::string prefix = "SELECT 1 AS x -- " + std::string(ascii, 'a');
    for (const std::string& between : {std::string(), std::string("\xc3\xa9") + "bc"}) {
      Model("stg", "", prefix + between + "\xff" + std::string(9, 'z'));
      Error error = OnlyError();
      EXPECT_EQ(error.code, ErrorCode::kSqlLex);
      EXPECT_EQ(error.span->column, static_cast<int>(prefix.size() + between.size() + 1))
          << ascii << " ASCII bytes";
    }
  }
}

TEST_F(ProjectTest, SqlWithoutTomlIsAWarning) {
  Model("stg", "");
  Write("models/orphan.sql", "SELECT 1 AS x");
  LoadOutcome outcome = LoadProject(root_);
  ASSERT_TRUE(outcome.project.has_value());
  ASSERT_EQ(outcome.warnings.size(), 1u);
  EXPECT_EQ(outcome.warnings[0].reported_code(), "W031");
  EXPECT_EQ(outcome.warnings[0].span->file, "models/orphan.sql");
}

TEST_F(ProjectTest, TargetAndSourceNamesFollowTheWarehouseRules) {
  Model("fct", "[target]\nschema = \"marts\"\ntable = 'evil\"; DROP TABLE x; --'\n");
  Error error = OnlyError();
  EXPECT_EQ(error.code, ErrorCode::kConfig);
  EXPECT_EQ(error.span->line, 3);
  EXPECT_NE(error.message.find("holds '\"' at byte 5"), std::string::npos) << error.message;

  Model("fct", "[[sources]]\nschema = \"raw data\"\ntable = \"orders\"\n");
  error = OnlyError();
  EXPECT_EQ(error.span->line, 2);
  EXPECT_NE(error.message.find("[[sources]] schema"), std::string::npos) << error.message;

  const std::string long_name(64, 'x');
  Model("fct", "[target]\ntable = \"" + long_name + "\"\n");
  EXPECT_TRUE(LoadProject(root_).project.has_value());  // duckdb: up to 128 bytes
  Write("strata.toml", "[warehouse]\ntype = \"duckdb\"\n[warehouses.pg]\ntype = \"postgres\"\n");
  error = OnlyError();
  EXPECT_NE(error.message.find("\"pg\" (postgres)"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("63"), std::string::npos) << error.message;
}

TEST_F(ProjectTest, LookbackIsBounded) {
  Model("fct",
        "[strategy]\ntype = \"time_interval\"\ntime_column = \"x\"\ngranularity = \"day\"\n"
        "lookback = 4294967295\n");
  Error error = OnlyError();
  EXPECT_EQ(error.span->line, 5);
  EXPECT_NE(error.message.find("lookback"), std::string::npos);
}

}  // namespace
}  // namespace strata::project
