#include "warehouse/registry.h"

#include <gtest/gtest.h>

#include "warehouse/emitter.h"
#include "warehouse/internal/registrations.h"

namespace strata::warehouse {
namespace {

TEST(DialectCapabilitiesTest, OneRowPerDialectInEnumOrder) {
  const auto rows = AdapterRegistrations();
  ASSERT_EQ(rows.size(), 7u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Capabilities& row = rows[i].capabilities;
    EXPECT_EQ(static_cast<std::size_t>(row.dialect), i);
    EXPECT_EQ(&CapabilitiesOf(row.dialect), &row);
    // Every row names a dialect the sql component knows by name.
    EXPECT_EQ(sql::ParseDialect(sql::DialectName(row.dialect)), row.dialect);
  }
}

TEST(DialectCapabilitiesTest, ConnectorsAreDuckDbPostgresAndTrino) {
  EXPECT_EQ(ConnectorDialectNames(), "duckdb, postgres or trino");
  EXPECT_EQ(ConnectorDialectNames(/*incremental_loads=*/true), "duckdb, postgres or trino");
  for (const AdapterRegistration& registration : AdapterRegistrations()) {
    const Capabilities& row = registration.capabilities;
    EXPECT_EQ(row.connector, row.dialect == sql::Dialect::kDuckDb ||
                                 row.dialect == sql::Dialect::kPostgres ||
                                 row.dialect == sql::Dialect::kTrino)
        << sql::DialectName(row.dialect);
    EXPECT_EQ(row.incremental_loads(), row.connector) << sql::DialectName(row.dialect);
    EXPECT_EQ(row.incremental == IncrementalForm::kStaged,
              row.dialect == sql::Dialect::kDuckDb || row.dialect == sql::Dialect::kPostgres)
        << sql::DialectName(row.dialect);
  }
}

// The Emitter reads back-read statements from the table: exactly the connector dialects get them.
TEST(DialectCapabilitiesTest, EmitterEmitsCheckedStatementsExactlyForConnectors) {
  const Window window{0, 86400};
  for (const AdapterRegistration& registration : AdapterRegistrations()) {
    const Capabilities& row = registration.capabilities;
    // Trino's row checksum names the model's columns.
    const Emitter emitter = Emitter(row.dialect).WithRowColumns({"d", "x"});
    const auto stats = emitter.WindowStats({"", "marts", "fct"}, "d", window);
    const auto counts = emitter.PartitionRowCounts({"", "marts", "fct"}, "d", Grain::kDay, window);
    const auto watermark = emitter.WatermarkQuery({"", "marts", "fct"}, "updated_at");
    EXPECT_EQ(stats.ok(), row.connector) << sql::DialectName(row.dialect);
    EXPECT_EQ(counts.ok(), row.connector) << sql::DialectName(row.dialect);
    EXPECT_EQ(watermark.ok(), row.incremental_loads()) << sql::DialectName(row.dialect);
    if (!row.connector) {
      EXPECT_EQ(stats.error().code, ErrorCode::kWarehouseUnsupported);
      EXPECT_NE(stats.error().hint.find("duckdb, postgres or trino"), std::string::npos);
    }
    if (!row.incremental_loads()) {
      EXPECT_EQ(watermark.error().code, ErrorCode::kWarehouseUnsupported);
      EXPECT_NE(watermark.error().hint.find("use a duckdb, postgres or trino warehouse"),
                std::string::npos);
    }
    EXPECT_EQ(emitter.Rollback().empty(), !row.session_transactions());
  }
}

// What varies between targets is learned from the target; a type whose targets are alike keeps
// its registration's capabilities without sending anything.
TEST(DialectCapabilitiesTest, DuckDbTargetsAreAllAlike) {
  auto warehouse = OpenDuckDb(":memory:");
  ASSERT_TRUE(warehouse.ok());
  auto connection = (*warehouse)->Connect();
  ASSERT_TRUE(connection.ok());
  auto discovered = DiscoverCapabilities(**connection, CapabilitiesOf(sql::Dialect::kDuckDb));
  ASSERT_TRUE(discovered.ok());
  EXPECT_TRUE(discovered->grouped_writes);
  EXPECT_EQ(discovered->transactions, Transactions::kSession);
}

// Each Trino connector's capabilities (docs/trino.md's matrix): MERGE without transactions
// replaces a window in one statement, Hive's session transactions hold a DELETE and an INSERT,
// and a connector that can do neither is refused (the Emitter's tests).
TEST(DialectCapabilitiesTest, TrinoCapabilitiesFollowTheConnector) {
  const Capabilities iceberg = TrinoCapabilitiesForConnector("iceberg");
  EXPECT_EQ(iceberg.overwrite, OverwriteForm::kMergeWindow);
  EXPECT_EQ(iceberg.transactions, Transactions::kNone);
  EXPECT_EQ(iceberg.create_partitioning, CreatePartitioning::kTransform);
  EXPECT_EQ(iceberg.replace_table, ReplaceTable::kCreateOrReplace);
  const Capabilities delta = TrinoCapabilitiesForConnector("delta_lake");
  EXPECT_EQ(delta.overwrite, OverwriteForm::kMergeWindow);
  EXPECT_EQ(delta.create_partitioning, CreatePartitioning::kNone);
  EXPECT_EQ(delta.replace_table, ReplaceTable::kCreateOrReplace);
  const Capabilities hive = TrinoCapabilitiesForConnector("hive");
  EXPECT_EQ(hive.overwrite, OverwriteForm::kDeleteInsert);
  EXPECT_EQ(hive.transactions, Transactions::kSession);
  EXPECT_EQ(hive.deletes, Deletes::kWholePartitions);
  EXPECT_EQ(hive.create_partitioning, CreatePartitioning::kColumnsLast);
  // No CREATE OR REPLACE TABLE, and no DROP and CREATE of one name in a transaction.
  EXPECT_EQ(hive.replace_table, ReplaceTable::kNone);
  EXPECT_EQ(CapabilitiesOf(sql::Dialect::kTrino).replace_table, ReplaceTable::kNone);
  for (std::string_view other : {"memory", "postgresql", ""}) {
    const Capabilities none = TrinoCapabilitiesForConnector(other);
    EXPECT_EQ(none.deletes, Deletes::kNone) << other;
    EXPECT_FALSE(none.merge) << other;
    EXPECT_EQ(none.transactions, Transactions::kNone) << other;
    EXPECT_EQ(none.replace_table, ReplaceTable::kNone) << other;
  }
  for (const Capabilities* each : {&iceberg, &hive}) {
    EXPECT_EQ(each->insert_columns, InsertColumns::kNamed);
    EXPECT_EQ(each->row_hash, RowHashFunction::kChecksumOfColumns);
    EXPECT_EQ(each->incremental, IncrementalForm::kOneStatement);
  }
}

// A plan's key tells apart targets whose statements differ, and only those.
TEST(DialectCapabilitiesTest, StatementShapeKeyChangesWithTheStatementsOnly) {
  const std::string iceberg = StatementShapeKey(TrinoCapabilitiesForConnector("iceberg"));
  const std::string hive = StatementShapeKey(TrinoCapabilitiesForConnector("hive"));
  const std::string unknown = StatementShapeKey(CapabilitiesOf(sql::Dialect::kTrino));
  EXPECT_NE(iceberg, hive);
  EXPECT_NE(iceberg, unknown);
  EXPECT_NE(hive, unknown);
  Capabilities postgres = CapabilitiesOf(sql::Dialect::kPostgres);
  const std::string before = StatementShapeKey(postgres);
  postgres.merge = true;  // PostgreSQL 15+: discovered, shapes no statement
  postgres.row_hash_by_columns = true;
  EXPECT_EQ(StatementShapeKey(postgres), before);
  EXPECT_NE(before, StatementShapeKey(CapabilitiesOf(sql::Dialect::kRedshift)));
}

}  // namespace
}  // namespace strata::warehouse
