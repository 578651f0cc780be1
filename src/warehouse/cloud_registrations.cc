// The registrations of the warehouses Strata emits SQL for without a connector yet
// (warehouse/registry.h): their capabilities shape `strata plan`'s statements (emitter.h has
// each one's shapes); they cannot be opened, so nothing is discovered. Trino's registration is in
// trino/trino_registration.cc.
#include "warehouse/internal/registrations.h"

namespace strata::warehouse {

AdapterRegistration SnowflakeRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kSnowflake;
  capabilities.display_name = "Snowflake";
  // Four statements, each its own REST call in one session (the seed's shape).
  capabilities.transactions = Transactions::kSession;
  capabilities.merge = true;
  capabilities.schema_takes_catalog = true;
  return {capabilities, nullptr, nullptr};
}

AdapterRegistration DatabricksRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kDatabricks;
  capabilities.display_name = "Databricks";
  // One atomic statement per overwrite: Delta's REPLACE WHERE.
  capabilities.overwrite = OverwriteForm::kReplaceWhere;
  capabilities.merge = true;
  capabilities.schema_takes_catalog = true;
  return {capabilities, nullptr, nullptr};
}

AdapterRegistration BigQueryRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kBigQuery;
  capabilities.display_name = "BigQuery";
  // Its REST API is stateless: a transaction is one script.
  capabilities.transactions = Transactions::kScript;
  capabilities.merge = true;
  // It cannot coerce the string literal to DATE.
  capabilities.window_literals = WindowLiterals::kTypedDatetime;
  capabilities.schema_takes_catalog = true;
  return {capabilities, nullptr, nullptr};
}

AdapterRegistration RedshiftRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kRedshift;
  capabilities.display_name = "Redshift";
  capabilities.transactions = Transactions::kSession;
  capabilities.merge = true;
  capabilities.insert_columns = InsertColumns::kNamed;
  capabilities.replace_table = ReplaceTable::kDropCreateTransaction;
  capabilities.row_hash = RowHashFunction::kText;
  // The server would silently truncate a longer name.
  capabilities.max_identifier_bytes = 127;
  return {capabilities, nullptr, nullptr};
}

}  // namespace strata::warehouse
