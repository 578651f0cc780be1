// The statements that put a role's SqlTables into the catalog database: schema strata with one
// empty DuckDB table per SqlTable (columns typed after their PgType), and their rows in pgcat
// (pg_namespace, pg_class, pg_type's row types, pg_attribute) and pginfo (tables, columns,
// schemata). OIDs: namespace strata 16385; table i has 16386 + 3i, its row type 16388 + 3i.
// REQUIRES: CatalogSchemaStatements() and CatalogFunctionStatements() ran first.
#pragma once

#include <string>
#include <vector>

#include "serve/pg/sql_tables.h"

namespace strata::serve::pg {

inline constexpr unsigned kStrataNamespaceOid = 16385;

std::vector<std::string> CatalogTableStatements(const std::vector<SqlTable>& tables);

// The DuckDB type of a PgType's column ("DECIMAL(38,9)" for numeric, "TIMESTAMPTZ", ...).
std::string_view DuckDbTypeOf(PgType type);

}  // namespace strata::serve::pg
