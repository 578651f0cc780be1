// SqlCatalog: utility statements, the rewrite's cases, types and text output, refusals and role
// isolation (the corpus replay and the golden comparisons are catalog_corpus_test.cc).
#include "serve/pg/catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "serve/pg/catalog_test_tables.h"

namespace strata::serve::pg {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqlCatalog::Open(testing::ExampleTables());
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    catalog_ = std::move(opened).value();
    settings_ = SessionSettings::Defaults();
    settings_.user = "analyst";
    settings_.database = "shop";
  }

  ResultSet Run(std::string_view sql,
                const std::vector<std::optional<std::string>>& parameters = {}) {
    auto result = catalog_->Execute(sql, parameters, settings_);
    EXPECT_TRUE(result.ok()) << sql << "\n" << result.error().ToString();
    return result.ok() ? std::move(result).value() : ResultSet{};
  }

  ErrorCode Fail(std::string_view sql,
                 const std::vector<std::optional<std::string>>& parameters = {}) {
    auto result = catalog_->Execute(sql, parameters, settings_);
    EXPECT_FALSE(result.ok()) << sql;
    return result.ok() ? ErrorCode::kInternal : result.error().code;
  }

  std::unique_ptr<SqlCatalog> catalog_;
  SessionSettings settings_;
};

std::string Cell(const ResultSet& result, std::size_t row = 0, std::size_t column = 0) {
  if (row >= result.rows.size() || column >= result.rows[row].size()) return "<missing>";
  return result.rows[row][column].value_or("<null>");
}

TEST_F(CatalogTest, SetShowResetChangeTheSession) {
  EXPECT_EQ(Run("SET TimeZone = 'Europe/Berlin'").tag, "SET");
  EXPECT_EQ(*settings_.Get("TimeZone"), "Europe/Berlin");
  ResultSet shown = Run("SHOW TimeZone");
  EXPECT_EQ(shown.columns[0].name, "TimeZone");
  EXPECT_EQ(Cell(shown), "Europe/Berlin");
  Run("SET SESSION application_name TO 'dbeaver'");
  EXPECT_EQ(Cell(Run("SELECT current_setting('application_name')")), "dbeaver");
  EXPECT_EQ(Cell(Run("SELECT pg_catalog.current_setting('timezone')")), "Europe/Berlin");
  Run("SET extra_float_digits = 3");
  EXPECT_EQ(*settings_.Get("extra_float_digits"), "3");
  EXPECT_EQ(Run("RESET TimeZone").tag, "RESET");
  EXPECT_EQ(*settings_.Get("timezone"), "UTC");
  Run("SET TIME ZONE 'America/New_York'");
  EXPECT_EQ(*settings_.Get("timezone"), "America/New_York");
  Run("DISCARD ALL");
  EXPECT_EQ(*settings_.Get("timezone"), "UTC");
  EXPECT_EQ(*settings_.Get("application_name"), "");
  EXPECT_EQ(settings_.user, "analyst");
  EXPECT_FALSE(Run("SHOW ALL").rows.empty());
  EXPECT_EQ(Fail("SET TimeZone = 'Mars/Olympus'"), ErrorCode::kInvalidTimeZone);
  EXPECT_EQ(Fail("SHOW no_such_setting"), ErrorCode::kQueryInvalid);
}

TEST_F(CatalogTest, SetConfigChangesTheSetting) {
  ResultSet result = Run("SELECT pg_catalog.set_config('search_path', '', false)");
  EXPECT_EQ(result.columns[0].name, "set_config");
  EXPECT_EQ(*settings_.Get("search_path"), "");
}

TEST_F(CatalogTest, TransactionsAndPreparedStatementsAreAcknowledged) {
  EXPECT_EQ(Run("BEGIN").tag, "BEGIN");
  EXPECT_EQ(Run("START TRANSACTION READ ONLY").tag, "START TRANSACTION");
  EXPECT_EQ(Run("COMMIT").tag, "COMMIT");
  EXPECT_EQ(Run("ROLLBACK;").tag, "ROLLBACK");
  EXPECT_EQ(Run("DEALLOCATE ALL").tag, "DEALLOCATE ALL");
  EXPECT_EQ(Run("DEALLOCATE \"S_1\"").tag, "DEALLOCATE");
  EXPECT_EQ(Run("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY").tag, "SET");
}

TEST_F(CatalogTest, WritesAndDdlAreRefused) {
  for (const char* sql :
       {"INSERT INTO strata.\"Order\" VALUES (1)", "UPDATE pg_catalog.pg_class SET relname = 'x'",
        "DELETE FROM pg_class", "CREATE TABLE t (a int)", "DROP TABLE strata.\"Order\"",
        "COPY strata.\"Order\" TO STDOUT", "ALTER TABLE x ADD COLUMN y int", "TRUNCATE x",
        "WITH x AS (SELECT 1) INSERT INTO pgcat.pg_class (oid) SELECT 1",
        "SELECT 1; DROP TABLE pgcat.pg_class", "SELECT * FROM read_text('/etc/hostname')"}) {
    EXPECT_EQ(Fail(sql), ErrorCode::kSqlUnsupported) << sql;
  }
}

TEST_F(CatalogTest, ServerFunctionsAnswerAsPostgreSql) {
  ResultSet result =
      Run("SELECT version(), current_database(), current_user, current_schema(), "
          "pg_catalog.pg_get_userbyid(10), pg_catalog.pg_encoding_to_char(6), current_catalog, "
          "session_user");
  EXPECT_TRUE(Cell(result, 0, 0).starts_with("PostgreSQL 16.0 (strata)")) << Cell(result);
  EXPECT_EQ(Cell(result, 0, 1), "shop");
  EXPECT_EQ(Cell(result, 0, 2), "analyst");
  EXPECT_EQ(Cell(result, 0, 3), "strata");
  EXPECT_EQ(Cell(result, 0, 4), "analyst");
  EXPECT_EQ(Cell(result, 0, 5), "UTF8");
  EXPECT_EQ(Cell(result, 0, 6), "shop");
  EXPECT_EQ(Cell(result, 0, 7), "analyst");
  EXPECT_EQ(result.columns[0].name, "version");
  EXPECT_EQ(result.columns[1].name, "current_database");
}

TEST_F(CatalogTest, AttributesCarryPostgreSqlTypeOids) {
  ResultSet result =
      Run("SELECT a.attname, a.atttypid, pg_catalog.format_type(a.atttypid, a.atttypmod), "
          "a.attnotnull FROM pg_catalog.pg_attribute a "
          "WHERE a.attrelid = 'strata.\"Order\"'::regclass AND a.attnum > 0 ORDER BY a.attnum");
  ASSERT_EQ(result.rows.size(), 23u);
  EXPECT_EQ(Cell(result, 0, 0), "order_id");
  EXPECT_EQ(Cell(result, 0, 1), "1700");
  EXPECT_EQ(Cell(result, 1, 1), "25");
  EXPECT_EQ(Cell(result, 3, 1), "1184");
  EXPECT_EQ(Cell(result, 3, 2), "timestamp with time zone");
  EXPECT_EQ(Cell(result, 11, 1), "20");
  EXPECT_EQ(Cell(result, 0, 3), "f");
  EXPECT_EQ(result.columns[1].type, PgType::kOid);
  EXPECT_EQ(result.columns[2].name, "format_type");
  EXPECT_EQ(result.columns[3].type, PgType::kBool);
}

TEST_F(CatalogTest, ResultTypesAreDuckDbsExactOnes) {
  ResultSet result =
      Run("SELECT a.attnum, a.attlen, c.relnatts, c.oid, current_schemas(true), "
          "CAST(NULL AS TIMESTAMPTZ), 1.5::float4, 'x' FROM pg_attribute a JOIN pg_class c ON "
          "c.oid = a.attrelid WHERE c.relname = 'Order' AND a.attnum = 1");
  std::vector<PgType> types;
  for (const PgColumn& column : result.columns) types.push_back(column.type);
  EXPECT_EQ(types, (std::vector<PgType>{PgType::kInt2, PgType::kInt2, PgType::kInt2, PgType::kOid,
                                        PgType::kTextArray, PgType::kTimestamptz, PgType::kFloat4,
                                        PgType::kText}));
  EXPECT_EQ(Cell(result, 0, 4), "{pg_catalog,strata}");
  EXPECT_EQ(Cell(result, 0, 6), "1.5");
}

TEST_F(CatalogTest, ParametersAreLiteralsNeverSql) {
  ResultSet found = Run("SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relname = $1",
                        {std::string("Order")});
  ASSERT_EQ(found.rows.size(), 1u);
  ResultSet injected = Run("SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relname = $1",
                           {std::string("x' OR '1'='1")});
  EXPECT_EQ(Cell(injected), "0");
  ResultSet null = Run("SELECT $1 IS NULL", {std::nullopt});
  EXPECT_EQ(Cell(null), "t");
  EXPECT_EQ(Fail("SELECT $2", {std::string("a")}), ErrorCode::kUsage);
}

TEST_F(CatalogTest, PsqlPatternsAndCollationsAreRewritten) {
  ResultSet result =
      Run("SELECT c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON "
          "n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(Order)$' COLLATE "
          "pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid)");
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(Cell(result), "Order");
}

TEST_F(CatalogTest, UnquotedOutputNamesFoldToLowerCase) {
  ResultSet result =
      Run("select TABLE_NAME, t.TABLE_SCHEMA, TABLE_TYPE AS Kind, table_name AS \"Quoted\", NULL, "
          "upper(table_name) from INFORMATION_SCHEMA.tables t where TABLE_NAME = 'Order'");
  std::vector<std::string> names;
  for (const PgColumn& column : result.columns) names.push_back(column.name);
  EXPECT_EQ(names, (std::vector<std::string>{"table_name", "table_schema", "kind", "Quoted",
                                             "?column?", "upper"}));
}

TEST_F(CatalogTest, RegexOperatorsFindThePatternAnywhere) {
  EXPECT_EQ(Cell(Run("SELECT 'pg_toast_temp' ~ '^pg_toast', 'Order' !~ 'rd', 'ORDER' ~* 'ord', "
                     "'x' OPERATOR(pg_catalog.~) 'x|y'")),
            "t");
  ResultSet result = Run(
      "SELECT 'pg_toast_temp' ~ '^pg_toast', 'Order' !~ 'rd', 'ORDER' ~* 'ord', 'Order' !~* 'x'");
  EXPECT_EQ(result.rows[0], (std::vector<std::optional<std::string>>{"t", "f", "t", "t"}));
}

TEST_F(CatalogTest, InformationSchemaShowsTheTablesInOrder) {
  ResultSet tables =
      Run("SELECT table_catalog, table_name, table_type FROM information_schema.tables "
          "WHERE table_schema = 'strata' ORDER BY table_name");
  ASSERT_EQ(tables.rows.size(), 3u);
  EXPECT_EQ(Cell(tables, 0, 0), "shop");
  EXPECT_EQ(Cell(tables, 0, 1), "Customer");
  EXPECT_EQ(Cell(tables, 0, 2), "BASE TABLE");
  ResultSet columns =
      Run("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
          "'strata' AND table_name = 'Customer' ORDER BY ordinal_position");
  ASSERT_EQ(columns.rows.size(), 6u);
  EXPECT_EQ(Cell(columns, 4, 1), "timestamp with time zone");
  EXPECT_EQ(Cell(columns, 5, 1), "bigint");
}

// Npgsql (Power BI) loads its types by joining pg_type's typreceive to pg_proc: without the
// receive functions no type is known and the connection fails.
TEST_F(CatalogTest, NpgsqlFindsTheBaseTypes) {
  ResultSet result =
      Run("SELECT a.typname, a.oid FROM pg_type AS a JOIN pg_namespace AS ns ON (ns.oid = "
          "a.typnamespace) JOIN pg_proc ON pg_proc.oid = a.typreceive WHERE a.typtype IN ('b') "
          "AND pg_proc.proname <> 'array_recv' ORDER BY a.oid");
  std::set<std::string> names;
  for (const auto& row : result.rows) names.insert(row[0].value_or("") + "=" + row[1].value_or(""));
  for (const char* expected : {"bool=16", "int8=20", "text=25", "numeric=1700", "timestamptz=1184",
                               "float8=701", "date=1082"}) {
    EXPECT_EQ(names.count(expected), 1u) << expected;
  }
  ResultSet arrays =
      Run("SELECT count(*) FROM pg_type AS a JOIN pg_proc ON pg_proc.oid = a.typreceive "
          "WHERE pg_proc.proname = 'array_recv' AND a.typinput = 'pg_catalog.array_in'::regproc");
  EXPECT_NE(Cell(arrays), "0");
}

// Malformed input fails with an error (or is answered), never a crash or a hang.
TEST_F(CatalogTest, MalformedStatementsFailCleanly) {
  for (const char* sql : {"SELECT ((",
                          "SELECT )",
                          "SELECT x::",
                          "SELECT OPERATOR(",
                          "SELECT 1 OPERATOR(pg_catalog.",
                          "SELECT CAST(x AS regclass",
                          "SELECT CAST( AS regclass)",
                          "SELECT ::regclass",
                          "SELECT 'a' ~",
                          "~ 'a'",
                          "SELECT ~ 'a'",
                          "SELECT $",
                          "SELECT $0",
                          "SELECT $99999999999999999999",
                          "SELECT COLLATE",
                          "SELECT 1 COLLATE pg_catalog.",
                          "SELECT * FROM generate_series(1,2) AS",
                          "SELECT * FROM unnest(",
                          ";",
                          "  ",
                          "-- only a comment",
                          "SELECT 1 ORDER BY",
                          "SET",
                          "SET x",
                          "SET x =",
                          "SHOW",
                          "RESET",
                          "SELECT set_config(",
                          "SELECT pg_catalog.",
                          "(((",
                          ")))",
                          "SELECT a AS",
                          "SELECT current_user(",
                          "SELECT 'x'::pg_catalog.",
                          "DEALLOCATE"}) {
    auto result = catalog_->Execute(sql, {}, settings_);
    if (!result.ok()) {
      EXPECT_NE(result.error().code, ErrorCode::kInternal) << sql;
    }
  }
  auto unterminated = catalog_->Execute("SELECT 'unterminated", {}, settings_);
  ASSERT_FALSE(unterminated.ok());
  EXPECT_EQ(unterminated.error().code, ErrorCode::kSqlLex);
}

TEST(CatalogRoleTest, ATableTheRoleLacksDoesNotExist) {
  std::vector<SqlTable> tables = testing::ExampleTables();
  tables.erase(tables.begin() + 1, tables.end());  // Order only
  auto opened = SqlCatalog::Open(tables);
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  SessionSettings settings = SessionSettings::Defaults();
  settings.user = "paid_orders_only";
  for (const char* sql :
       {"SELECT relname FROM pg_catalog.pg_class WHERE relname ILIKE '%customer%'",
        "SELECT table_name FROM information_schema.tables WHERE table_name = 'Customer'",
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'Ticket'",
        "SELECT attname FROM pg_catalog.pg_attribute WHERE attname = 'customer_count'",
        "SELECT typname FROM pg_catalog.pg_type WHERE typname IN ('Customer', 'Ticket')",
        "SELECT tablename FROM pg_tables WHERE schemaname = 'strata' AND tablename <> 'Order'"}) {
    auto result = (*opened)->Execute(sql, {}, settings);
    ASSERT_TRUE(result.ok()) << sql << result.error().ToString();
    EXPECT_TRUE(result->rows.empty()) << sql;
  }
  for (const char* sql :
       {"SELECT * FROM strata.\"Customer\"", "SELECT 'strata.\"Customer\"'::regclass",
        "SELECT CAST('Ticket' AS regclass)"}) {
    auto result = (*opened)->Execute(sql, {}, settings);
    ASSERT_FALSE(result.ok()) << sql;
    EXPECT_EQ(result.error().code, ErrorCode::kUndefinedTable) << sql << result.error().ToString();
    EXPECT_EQ(result.error().message.find("pgcat"), std::string::npos) << result.error().message;
  }
}

TEST_F(CatalogTest, ExecuteIsThreadSafe) {
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> failures{0};
  for (int thread = 0; thread < 4; ++thread) {
    threads.emplace_back([&, thread] {
      SessionSettings settings = SessionSettings::Defaults();
      settings.user = "user" + std::to_string(thread);
      for (int i = 0; i < 25; ++i) {
        auto result =
            catalog_->Execute("SELECT current_user, count(*) FROM pg_class", {}, settings);
        if (!result.ok() || result->rows[0][0] != settings.user) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace strata::serve::pg
