// Trino's registration (warehouse/registry.h): opened from the [warehouse] keys url, user,
// catalog, schema, password_env and [warehouse.session]; what a target can do is its default
// catalog's connector's (system.metadata.catalogs), because Trino itself only plans and each
// connector stores (docs/trino.md has the matrix).
#include <fmt/format.h>

#include <string>
#include <variant>

#include "warehouse/internal/registrations.h"
#include "warehouse/trino/trino_warehouse.h"

namespace strata::warehouse {
namespace {

Result<trino::ClientSettings> TrinoSettingsOf(const project::WarehouseConfig& config) {
  trino::ClientSettings settings;
  settings.url = config.url;
  settings.user = config.user;
  settings.catalog = config.catalog;
  settings.schema = config.schema;
  settings.session = config.session;
  if (!config.password_env.empty()) {
    STRATA_ASSIGN_OR_RETURN(
        settings.password,
        EnvironmentValue(config, "password_env", config.password_env,
                         fmt::format("export {}=... or remove password_env", config.password_env)));
  }
  return settings;
}

// Trino has no read-only session: the query path only reads, and a Trino user's rights are the
// server's to restrict, so kReadOnly opens the same warehouse.
Result<std::unique_ptr<Warehouse>> Open(const OpenRequest& request) {
  STRATA_ASSIGN_OR_RETURN(trino::ClientSettings settings, TrinoSettingsOf(request.config));
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<trino::TrinoWarehouse> opened,
                          trino::TrinoWarehouse::Open(std::move(settings)));
  return std::unique_ptr<Warehouse>(std::move(opened));
}

Capabilities ForConnector(std::string_view connector, const Capabilities& known) {
  Capabilities out = known;
  out.transactions = Transactions::kNone;
  out.merge = false;
  out.deletes = Deletes::kNone;
  out.overwrite = OverwriteForm::kDeleteInsert;
  out.create_partitioning = CreatePartitioning::kNone;
  out.replace_table = ReplaceTable::kNone;
  if (connector == "iceberg" || connector == "delta_lake") {
    out.merge = true;
    out.deletes = Deletes::kAnyRows;
    // CREATE OR REPLACE TABLE commits the new table as one snapshot of the same table (Iceberg,
    // measured; Delta since Trino 435, trinodb/trino#19991): readers see the old rows or the new.
    out.replace_table = ReplaceTable::kCreateOrReplace;
    // No transaction to put a DELETE and an INSERT in: the one MERGE replaces the window.
    out.overwrite = OverwriteForm::kMergeWindow;
    // Delta partitions by column values only (no day() transform): its tables are created
    // unpartitioned, which MERGE does not need.
    if (connector == "iceberg") out.create_partitioning = CreatePartitioning::kTransform;
  } else if (connector == "hive") {
    out.transactions = Transactions::kSession;
    out.deletes = Deletes::kWholePartitions;
    out.create_partitioning = CreatePartitioning::kColumnsLast;
  }
  return out;
}

// The connector of the connection's catalog ([warehouse] catalog). Without a catalog every name
// gives its own, and nothing is assumed.
Result<Capabilities> Discover(Connection& connection, const Capabilities& known) {
  STRATA_ASSIGN_OR_RETURN(
      QueryResult shown,
      connection.Execute("SELECT current_catalog, (SELECT connector_name FROM "
                         "system.metadata.catalogs WHERE catalog_name = current_catalog)"));
  if (shown.row_count() != 1 || shown.columns.size() != 2) {
    return MakeError(ErrorCode::kWarehouse, "trino: unexpected answer to the catalog lookup");
  }
  const Value& catalog = shown.columns[0].values[0];
  const Value& connector = shown.columns[1].values[0];
  if (std::holds_alternative<std::monostate>(catalog)) return ForConnector("", known);
  if (std::holds_alternative<std::monostate>(connector)) {
    return MakeError(
        ErrorCode::kConfig,
        fmt::format("Trino has no catalog \"{}\" ([warehouse] catalog)", ValueToString(catalog)),
        "SHOW CATALOGS lists the catalogs this coordinator has");
  }
  return ForConnector(ValueToString(connector), known);
}

}  // namespace

// What each connector lets Strata do with a table (measured on Trino 476). Iceberg and Delta
// refuse writes inside a multi-statement transaction but MERGE commits as one snapshot; Hive
// (non-transactional tables) takes START TRANSACTION ... COMMIT across statements and deletes only
// whole partitions; the memory connector cannot DELETE at all. Any other connector is taken for
// the least: no transactions, no MERGE, no DELETE. Only Iceberg and Delta replace a table
// atomically (CREATE OR REPLACE TABLE): Hive and memory refuse it, and Hive refuses a DROP TABLE
// and a CREATE TABLE AS of the same name in one transaction (HIVE_PATH_ALREADY_EXISTS), so their
// full_refresh models are refused.
Capabilities TrinoCapabilitiesForConnector(std::string_view connector) {
  return ForConnector(connector, TrinoRegistration().capabilities);
}

AdapterRegistration TrinoRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kTrino;
  capabilities.display_name = "Trino";
  capabilities.connector = true;
  // What every catalog allows until its connector is known (Discover): no multi-statement write
  // transactions (Iceberg and Delta refuse them) and no CREATE OR REPLACE TABLE (Hive and memory
  // refuse it), so neither a window overwrite nor a full refresh can be shown atomic.
  capabilities.begin_statement = "START TRANSACTION";
  capabilities.replace_table = ReplaceTable::kNone;
  // Without temporary tables: one INSERT, or with unique_key one MERGE where there is MERGE.
  capabilities.incremental = IncrementalForm::kOneStatement;
  capabilities.standard_intervals = true;
  // No INSERT ... BY NAME, and a Hive table created by Bootstrap has its partition column last:
  // inserts name the model's columns, bound by the runner.
  capabilities.insert_columns = InsertColumns::kNamed;
  capabilities.row_hash = RowHashFunction::kChecksumOfColumns;
  capabilities.bucket_format = BucketFormat::kDateFormat;
  // It does not coerce varchar at all.
  capabilities.window_literals = WindowLiterals::kTyped;
  capabilities.typed_window_placeholders = true;
  capabilities.schema_takes_catalog = true;
  return {capabilities, &Open, &Discover};
}

}  // namespace strata::warehouse
