#include "warehouse/emitter.h"

#include <gtest/gtest.h>

#include "warehouse/registry.h"

namespace strata::warehouse {
namespace {

Window DayWindow(std::string_view key) { return PartitionKey::Parse(key, Grain::kDay)->window(); }

TEST(EmitterTest, DuckDbOverwriteHasTheSeedShape) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  auto statements = emitter.Overwrite({"warehouse", "marts", "fct_daily_orders"}, "order_date",
                                      DayWindow("2026-04-07"), "SELECT 1");
  ASSERT_TRUE(statements.ok());
  EXPECT_EQ(statements->begin, "BEGIN TRANSACTION");
  EXPECT_EQ(
      statements->delete_window,
      "DELETE FROM \"marts\".\"fct_daily_orders\"\n"
      "WHERE \"order_date\" >= '2026-04-07 00:00:00' AND \"order_date\" < '2026-04-08 00:00:00'");
  EXPECT_EQ(statements->insert, "INSERT INTO \"marts\".\"fct_daily_orders\" BY NAME\nSELECT 1");
  EXPECT_EQ(statements->commit, "COMMIT");
}

TEST(EmitterTest, QuotesHostileIdentifiers) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  EXPECT_EQ(emitter.QualifiedName({"", "my\"schema", "t; DROP TABLE x"}),
            "\"my\"\"schema\".\"t; DROP TABLE x\"");
}

TEST(EmitterTest, BootstrapNeverReplaces) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  auto statements = emitter.Bootstrap({"", "marts", "fct"}, "SELECT 1 AS x");
  ASSERT_TRUE(statements.ok());
  ASSERT_EQ(statements->size(), 2u);
  EXPECT_EQ((*statements)[0], "CREATE SCHEMA IF NOT EXISTS \"marts\"");
  EXPECT_EQ((*statements)[1].rfind("CREATE TABLE \"marts\".\"fct\" AS", 0), 0u);
  EXPECT_EQ((*statements)[1].find("OR REPLACE"), std::string::npos);
}

TEST(EmitterTest, PostgresOverwriteNamesTheModelColumns) {
  const Emitter emitter(sql::Dialect::kPostgres);
  const TableName target{"", "marts", "fct_daily_orders"};
  auto unbound = emitter.Overwrite(target, "order_date", DayWindow("2026-04-07"), "SELECT 1 AS a");
  ASSERT_TRUE(unbound.ok());
  EXPECT_TRUE(emitter.InsertNeedsColumns());
  EXPECT_EQ(unbound->begin, "BEGIN");
  EXPECT_EQ(
      unbound->delete_window,
      "DELETE FROM \"marts\".\"fct_daily_orders\"\n"
      "WHERE \"order_date\" >= '2026-04-07 00:00:00' AND \"order_date\" < '2026-04-08 00:00:00'");
  EXPECT_EQ(unbound->insert,
            "INSERT INTO \"marts\".\"fct_daily_orders\"\nSELECT * FROM (\nSELECT 1 AS a\n) AS "
            "strata_insert");
  EXPECT_EQ(unbound->commit, "COMMIT");
  EXPECT_EQ(unbound->rollback, "ROLLBACK");
  EXPECT_EQ(*emitter.InsertColumnsProbe(target, unbound->insert),
            "SELECT * FROM (\nSELECT 1 AS a\n) AS strata_insert LIMIT 0");
  const std::vector<std::string> columns = {"a", "we\"ird"};
  const std::string named =
      "INSERT INTO \"marts\".\"fct_daily_orders\" (\"a\", \"we\"\"ird\")\n"
      "SELECT \"a\", \"we\"\"ird\" FROM (\nSELECT 1 AS a\n) AS strata_insert";
  EXPECT_EQ(*emitter.BindInsertColumns(target, unbound->insert, columns), named);
  auto direct =
      emitter.Overwrite(target, "order_date", DayWindow("2026-04-07"), "SELECT 1 AS a", &columns);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(direct->insert, named);
  // An insert of another shape (another table, a DuckDB plan) is refused, not rewritten.
  EXPECT_EQ(
      emitter.BindInsertColumns({"", "marts", "other"}, unbound->insert, columns).error().code,
      ErrorCode::kPlanStale);
  EXPECT_EQ(emitter.InsertColumnsProbe(target, "INSERT INTO x BY NAME\nSELECT 1").error().code,
            ErrorCode::kPlanStale);
}

TEST(EmitterTest, DuckDbIgnoresColumnsAndNeedsNoBinding) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  const std::vector<std::string> columns = {"a"};
  auto statements = emitter.Overwrite({"", "marts", "fct"}, "d", DayWindow("2026-04-07"),
                                      "SELECT 1 AS a", &columns);
  ASSERT_TRUE(statements.ok());
  EXPECT_FALSE(emitter.InsertNeedsColumns());
  EXPECT_EQ(statements->insert, "INSERT INTO \"marts\".\"fct\" BY NAME\nSELECT 1 AS a");
}

TEST(EmitterTest, PostgresWholeModelStatements) {
  const Emitter emitter(sql::Dialect::kPostgres);
  EXPECT_EQ(emitter.QualifiedName({"db", "s", "t"}), "\"db\".\"s\".\"t\"");
  auto bootstrap = emitter.Bootstrap({"", "marts", "fct"}, "SELECT 1 AS x");
  ASSERT_TRUE(bootstrap.ok());
  EXPECT_EQ(*bootstrap,
            (std::vector<std::string>{
                "CREATE SCHEMA IF NOT EXISTS \"marts\"",
                "CREATE TABLE \"marts\".\"fct\" AS\nSELECT * FROM (\nSELECT 1 AS x\n) AS "
                "strata_bootstrap LIMIT 0"}));
  auto refresh = emitter.FullRefresh({"", "staging", "stg"}, "SELECT 1 AS x");
  ASSERT_TRUE(refresh.ok());
  EXPECT_EQ(*refresh, (std::vector<std::string>{
                          "CREATE SCHEMA IF NOT EXISTS \"staging\"", "BEGIN",
                          "DROP TABLE IF EXISTS \"staging\".\"stg\"",
                          "CREATE TABLE \"staging\".\"stg\" AS\nSELECT 1 AS x", "COMMIT"}));
  auto view = emitter.View({"", "", "v"}, "SELECT 1 AS x");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(*view, (std::vector<std::string>{"CREATE OR REPLACE VIEW \"v\" AS\nSELECT 1 AS x"}));
  auto stats = emitter.WindowStats({"", "marts", "fct"}, "d", DayWindow("2026-04-07"));
  ASSERT_TRUE(stats.ok());
  EXPECT_NE(stats->find("hashtextextended(CAST(ROW(strata_row.*) AS text), 0)"), std::string::npos);
  EXPECT_NE(
      stats->find("FROM \"marts\".\"fct\" AS strata_row\nWHERE \"d\" >= '2026-04-07 00:00:00'"),
      std::string::npos);
}

// PostgreSQL hashes a row by its text unless told to hash it by its columns; DuckDB always by
// its columns, whatever it is told.
TEST(EmitterTest, TheRowHashIsChosenOnlyOnPostgres) {
  const TableName target{"", "marts", "fct"};
  const Window day = DayWindow("2026-04-07");
  const Emitter postgres(sql::Dialect::kPostgres);
  EXPECT_TRUE(postgres.ChoosesRowHash());
  auto text = postgres.WindowStats(target, "d", day);
  auto columns = postgres.WithRowHash(RowHash::kColumns).WindowStats(target, "d", day);
  ASSERT_TRUE(text.ok() && columns.ok());
  EXPECT_NE(text->find("hashtextextended(CAST(ROW(strata_row.*) AS text), 0)"), std::string::npos);
  EXPECT_EQ(text->find("hash_record_extended"), std::string::npos);
  EXPECT_NE(columns->find("sum(hash_record_extended(ROW(strata_row.*), 0))"), std::string::npos);
  EXPECT_EQ(columns->find("hashtextextended"), std::string::npos);
  auto grouped = postgres.WithRowHash(RowHash::kColumns)
                     .WindowStatsByKey(target, "d", {day, DayWindow("2026-04-08")});
  ASSERT_TRUE(grouped.ok());
  EXPECT_NE(grouped->find("hash_record_extended"), std::string::npos);

  const Emitter duckdb(sql::Dialect::kDuckDb);
  EXPECT_FALSE(duckdb.ChoosesRowHash());
  EXPECT_EQ(*duckdb.WindowStats(target, "d", day),
            *duckdb.WithRowHash(RowHash::kText).WindowStats(target, "d", day));
  EXPECT_EQ(*duckdb.WindowStats(target, "d", day),
            *duckdb.WithRowHash(RowHash::kColumns).WindowStats(target, "d", day));
}

// The choice itself: PostgreSQL 14 or later, and every column of a listed type.
TEST(EmitterTest, PostgresRowHashNeedsVersion14AndOnlyListedTypes) {
  const auto column = [](const char* type_name) {
    Column c;
    c.name = "c";
    c.type_name = type_name;
    return c;
  };
  const std::vector<Column> plain = {column("timestamp without time zone"), column("integer"),
                                     column("numeric"), column("character varying")};
  EXPECT_EQ(PostgresRowHash(140000, plain), RowHash::kColumns);
  EXPECT_EQ(PostgresRowHash(150018, plain), RowHash::kColumns);
  EXPECT_EQ(PostgresRowHash(130012, plain), RowHash::kText);
  EXPECT_EQ(PostgresRowHash(150018, {}), RowHash::kText);
  EXPECT_EQ(PostgresRowHash(150018, plain, /*collations_deterministic=*/false), RowHash::kText);
  // The collations are read from PostgreSQL's catalog, the target's name a quoted string.
  auto collations = Emitter(sql::Dialect::kPostgres).NondeterministicCollations({"", "m", "o'f"});
  ASSERT_TRUE(collations.ok());
  EXPECT_NE(collations->find("to_regclass('\"m\".\"o''f\"')"), std::string::npos) << *collations;
  EXPECT_NE(collations->find("NOT c.collisdeterministic"), std::string::npos);
  EXPECT_EQ(Emitter(sql::Dialect::kDuckDb).NondeterministicCollations({"", "m", "f"}).error().code,
            ErrorCode::kWarehouseUnsupported);
  for (const char* other : {"json", "ARRAY", "USER-DEFINED", "bit", "money", "point", "xml"}) {
    std::vector<Column> with = plain;
    with.push_back(column(other));
    EXPECT_EQ(PostgresRowHash(150018, with), RowHash::kText) << other;
  }
}

TEST(EmitterTest, WindowStatsByKeyGroupsTheWindowsOfOneScan) {
  for (const sql::Dialect dialect : {sql::Dialect::kDuckDb, sql::Dialect::kPostgres}) {
    const Emitter emitter(dialect);
    auto stats = emitter.WindowStatsByKey({"", "marts", "fct"}, "d",
                                          {DayWindow("2026-04-07"), DayWindow("2026-04-09")});
    ASSERT_TRUE(stats.ok());
    // Each window's own predicate (as WindowStats'), the scan bounded by the whole range.
    // PostgreSQL finds the window by bisection on the windows' starts; DuckDB tries each in turn.
    const std::string flat =
        "CASE WHEN \"d\" >= '2026-04-07 00:00:00' AND \"d\" < '2026-04-08 00:00:00' THEN 0 WHEN "
        "\"d\" >= '2026-04-09 00:00:00' AND \"d\" < '2026-04-10 00:00:00' THEN 1 END AS key_index";
    const std::string bisected =
        "CASE WHEN \"d\" < '2026-04-09 00:00:00' THEN CASE WHEN \"d\" >= '2026-04-07 00:00:00' "
        "AND \"d\" < '2026-04-08 00:00:00' THEN 0 END ELSE CASE WHEN \"d\" >= '2026-04-09 "
        "00:00:00' AND \"d\" < '2026-04-10 00:00:00' THEN 1 END END AS key_index";
    EXPECT_NE(stats->find(dialect == sql::Dialect::kPostgres ? bisected : flat), std::string::npos)
        << *stats;
    // Windows out of order (outside the contract): the first that holds the row, tried in turn.
    auto unordered = emitter.WindowStatsByKey({"", "marts", "fct"}, "d",
                                              {DayWindow("2026-04-09"), DayWindow("2026-04-07")});
    ASSERT_TRUE(unordered.ok());
    EXPECT_NE(unordered->find("CASE WHEN \"d\" >= '2026-04-09 00:00:00' AND \"d\" < '2026-04-10 "
                              "00:00:00' THEN 0 WHEN \"d\" >= '2026-04-07 00:00:00' AND \"d\" < "
                              "'2026-04-08 00:00:00' THEN 1 END AS key_index"),
              std::string::npos)
        << *unordered;
    EXPECT_NE(stats->find("WHERE \"d\" >= '2026-04-07 00:00:00' AND \"d\" < '2026-04-10 "
                          "00:00:00'\nGROUP BY 1"),
              std::string::npos)
        << *stats;
    auto single = emitter.WindowStats({"", "marts", "fct"}, "d", DayWindow("2026-04-07"));
    ASSERT_TRUE(single.ok());
    const std::string checksum = single->substr(0, single->find(" AS checksum"));
    EXPECT_NE(stats->find(checksum.substr(checksum.find("count(*) AS row_count, "))),
              std::string::npos)
        << "the same row hash as WindowStats";
  }
  EXPECT_FALSE(Emitter(sql::Dialect::kDuckDb).WindowStatsByKey({"", "m", "f"}, "d", {}).ok());
  EXPECT_EQ(Emitter(sql::Dialect::kSnowflake)
                .WindowStatsByKey({"", "m", "f"}, "d", {DayWindow("2026-04-07")})
                .error()
                .code,
            ErrorCode::kWarehouseUnsupported);
}

TEST(EmitterTest, GroupedUnitesEachBatchsOwnSelectUnderItsGuard) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  const TableName target{"", "marts", "fct"};
  auto first = emitter.Overwrite(target, "d", DayWindow("2026-04-07"), "SELECT 1 AS a");
  auto second = emitter.Overwrite(target, "d", DayWindow("2026-04-08"), "SELECT 2 AS a");
  ASSERT_TRUE(first.ok() && second.ok());
  auto write = emitter.Grouped(
      target, "d", Grain::kDay,
      {{DayWindow("2026-04-07"), first->insert}, {DayWindow("2026-04-08"), second->insert}});
  ASSERT_TRUE(write.ok()) << write.error().message;
  EXPECT_EQ(write->delete_window,
            "DELETE FROM \"marts\".\"fct\"\nWHERE \"d\" >= '2026-04-07 00:00:00' AND \"d\" < "
            "'2026-04-09 00:00:00'");
  EXPECT_EQ(write->insert,
            "INSERT INTO \"marts\".\"fct\" BY NAME\nSELECT * FROM (\nSELECT 1 AS a\n) AS "
            "strata_batch_0\nWHERE CASE WHEN \"d\" >= '2026-04-07 00:00:00' AND \"d\" < "
            "'2026-04-08 00:00:00' THEN true ELSE system.main.error('strata output guard failed in "
            "batch 0') END\nUNION ALL BY NAME\nSELECT * FROM (\nSELECT 2 AS a\n) AS "
            "strata_batch_1\nWHERE "
            "CASE WHEN "
            "\"d\" >= '2026-04-08 00:00:00' AND \"d\" < '2026-04-09 00:00:00' THEN true ELSE "
            "system.main.error('strata output guard failed in batch 1') END\nRETURNING "
            "system.main.date_diff('day', TIMESTAMP '2026-04-07 00:00:00', CAST(\"d\" AS "
            "TIMESTAMP)) - CASE WHEN CAST(\"d\" AS TIMESTAMP) > \"d\" AND "
            "system.main.date_trunc('day', CAST(\"d\" AS TIMESTAMP)) = CAST(\"d\" AS TIMESTAMP) "
            "THEN 1 ELSE 0 END AS key_index, system.main.hash(*COLUMNS(*)) AS row_hash");
  // Windows that do not touch, an insert of another shape, another dialect: refused.
  EXPECT_FALSE(emitter
                   .Grouped(target, "d", Grain::kDay,
                            {{DayWindow("2026-04-07"), first->insert},
                             {DayWindow("2026-04-09"), second->insert}})
                   .ok());
  EXPECT_EQ(emitter.Grouped(target, "d", Grain::kDay, {{DayWindow("2026-04-07"), "SELECT 1"}})
                .error()
                .code,
            ErrorCode::kPlanStale);
  EXPECT_EQ(Emitter(sql::Dialect::kPostgres)
                .Grouped(target, "d", Grain::kDay, {{DayWindow("2026-04-07"), first->insert}})
                .error()
                .code,
            ErrorCode::kWarehouseUnsupported);
}

TEST(EmitterTest, InsertReturningStatsKeysEachRowByItsWindow) {
  const Emitter emitter(sql::Dialect::kDuckDb);
  const TableName target{"", "marts", "fct"};
  auto planned = emitter.Overwrite(target, "d", DayWindow("2026-04-07"), "SELECT 1 AS a -- end");
  ASSERT_TRUE(planned.ok());
  auto insert = emitter.InsertReturningStats(target, "d", planned->insert,
                                             {DayWindow("2026-04-07"), DayWindow("2026-04-08")});
  ASSERT_TRUE(insert.ok()) << insert.error().message;
  EXPECT_EQ(*insert,
            "INSERT INTO \"marts\".\"fct\" BY NAME\nSELECT * FROM (\nSELECT 1 AS a -- end\n) AS "
            "strata_insert\nRETURNING CASE WHEN \"d\" >= '2026-04-07 00:00:00' AND \"d\" < "
            "'2026-04-08 00:00:00' THEN 0 WHEN \"d\" >= '2026-04-08 00:00:00' AND \"d\" < "
            "'2026-04-09 00:00:00' THEN 1 END AS key_index, system.main.hash(*COLUMNS(*)) AS "
            "row_hash");
  // An insert of another shape (a plan of another version or target), no window, PostgreSQL.
  EXPECT_EQ(emitter
                .InsertReturningStats({"", "marts", "other"}, "d", planned->insert,
                                      {DayWindow("2026-04-07")})
                .error()
                .code,
            ErrorCode::kPlanStale);
  EXPECT_FALSE(emitter.InsertReturningStats(target, "d", planned->insert, {}).ok());
  EXPECT_EQ(Emitter(sql::Dialect::kPostgres)
                .InsertReturningStats(target, "d", planned->insert, {DayWindow("2026-04-07")})
                .error()
                .code,
            ErrorCode::kWarehouseUnsupported);
}

TEST(EmitterTest, GuardFailedBatchReadsTheIndexBack) {
  EXPECT_EQ(
      Emitter::GuardFailedBatch("Invalid Input Error: strata output guard failed in batch 17"),
      std::optional<std::size_t>(17));
  EXPECT_EQ(Emitter::GuardFailedBatch("Invalid Input Error: boom"), std::nullopt);
  EXPECT_EQ(Emitter::GuardFailedBatch("strata output guard failed in batch x"), std::nullopt);
}

TEST(EmitterTest, UnsupportedDialectsSaySo) {
  // The cloud dialects emit every statement except window statistics (golden_emit covers them).
  const Emitter emitter(sql::Dialect::kSnowflake);
  auto stats = emitter.WindowStats({"", "marts", "fct"}, "d", DayWindow("2026-04-07"));
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().code, ErrorCode::kWarehouseUnsupported);
}

// One dialect, targets that differ (Trino's catalogs): the statements follow the target's
// capabilities, not the dialect's name.
TEST(EmitterTest, CapabilitiesNotTheDialectShapeTheOverwrite) {
  const TableName target{"hive", "marts", "fct"};
  const std::vector<std::string> columns = {"d"};
  Capabilities transactional = CapabilitiesOf(sql::Dialect::kTrino);
  transactional.transactions = Transactions::kSession;
  auto in_transaction =
      Emitter(transactional)
          .Overwrite(target, "d", DayWindow("2026-04-07"), "SELECT 1 AS d", &columns);
  ASSERT_TRUE(in_transaction.ok()) << in_transaction.error().ToString();
  EXPECT_EQ(in_transaction->begin, "START TRANSACTION");
  EXPECT_EQ(in_transaction->commit, "COMMIT");
  EXPECT_EQ(in_transaction->rollback, "ROLLBACK");
  EXPECT_EQ(in_transaction->insert,
            "INSERT INTO \"hive\".\"marts\".\"fct\" (\"d\")\nSELECT \"d\" FROM (\nSELECT 1 AS d\n) "
            "AS strata_insert");
  EXPECT_NE(in_transaction->delete_window.find("DELETE FROM"), std::string::npos);

  // Without transactions (nor MERGE) a DELETE and an INSERT could be seen apart: a target Strata
  // runs on refuses rather than emit them.
  auto plain = Emitter(CapabilitiesOf(sql::Dialect::kTrino))
                   .Overwrite(target, "d", DayWindow("2026-04-07"), "SELECT 1 AS d", &columns);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().code, ErrorCode::kWarehouseUnsupported);

  // With MERGE and no transactions: one MERGE replaces the window.
  Capabilities merging = CapabilitiesOf(sql::Dialect::kTrino);
  merging.merge = true;
  merging.overwrite = OverwriteForm::kMergeWindow;
  auto merged =
      Emitter(merging).Overwrite(target, "d", DayWindow("2026-04-07"), "SELECT 1 AS d", &columns);
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  EXPECT_TRUE(merged->begin.empty() && merged->delete_window.empty() && merged->commit.empty());
  EXPECT_TRUE(merged->insert.starts_with("MERGE INTO \"hive\".\"marts\".\"fct\""));

  Capabilities no_delete = CapabilitiesOf(sql::Dialect::kTrino);
  no_delete.deletes = Deletes::kNone;
  auto refused = Emitter(no_delete).Overwrite(target, "d", DayWindow("2026-04-07"), "SELECT 1");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kWarehouseUnsupported);
}

}  // namespace
}  // namespace strata::warehouse
