// DuckDB's registration (warehouse/registry.h): an embedded file (or :memory:) relative to the
// project root; every target alike, so nothing to discover.
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/internal/registrations.h"

namespace strata::warehouse {
namespace {

Result<std::unique_ptr<Warehouse>> Open(const OpenRequest& request) {
  const std::string& path = request.config.path;
  return OpenDuckDb(path == ":memory:" ? path : (request.project.root / path).string(),
                    request.access);
}

}  // namespace

AdapterRegistration DuckDbRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kDuckDb;
  capabilities.display_name = "DuckDB";
  capabilities.connector = true;
  capabilities.incremental = IncrementalForm::kStaged;
  capabilities.transactions = Transactions::kSession;
  capabilities.begin_statement = "BEGIN TRANSACTION";
  capabilities.merge = true;
  capabilities.returning = true;
  capabilities.grouped_writes = true;
  capabilities.insert_columns = InsertColumns::kByName;
  capabilities.row_hash = RowHashFunction::kColumns;
  capabilities.names_take_catalog = false;  // the attached database is the catalog
  // DuckDB resolves a user's macro in the current schema before its built-ins.
  capabilities.builtin_prefix = "system.main.";
  capabilities.describes_queries = true;
  capabilities.row_group_rows = 122'880;
  return {capabilities, &Open, nullptr};
}

}  // namespace strata::warehouse
