// A DuckDB result of the catalog as PostgreSQL answers: each column's PgType and PostgreSQL's
// name for it, each cell in PostgreSQL's text output (catalog.h, "Result typing"). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "serve/pg/pg_types.h"
#include "warehouse/warehouse.h"

namespace strata::serve::pg {

// `described_types`: DuckDB's type of each column ("SMALLINT", "VARCHAR[]", "TIMESTAMP WITH
// TIME ZONE"), from DESCRIBE; empty when unknown, then the values' types decide (every integer
// int8, a timestamp with a +00 offset timestamptz).
ResultSet ToResultSet(const warehouse::QueryResult& result,
                      const std::vector<std::string>& described_types);

// The PgType of a DuckDB type name; text for what PostgreSQL clients have no better type for.
PgType PgTypeOfDuckDbType(std::string_view duckdb_type);

}  // namespace strata::serve::pg
