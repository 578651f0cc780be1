// The pg_catalog functions (format_type, pg_get_userbyid, current_setting, version, regclass
// lookups, has_*_privilege, ...) as DuckDB macros in schema pgcat, the session views
// (pg_settings, pg_database, pg_roles, pg_user, pg_tables) and information_schema's tables,
// columns and schemata as views showing the session's database. The session's values are DuckDB
// variables set before each statement: strata_settings (MAP(VARCHAR, VARCHAR) of
// SessionSettings::values), strata_user, strata_database.
// REQUIRES: CatalogSchemaStatements() ran first.
#pragma once

#include <string_view>
#include <vector>

namespace strata::serve::pg {

const std::vector<std::string_view>& CatalogFunctionStatements();

}  // namespace strata::serve::pg
