// The DuckDB tables standing for pg_catalog (schema pgcat) and information_schema (schema
// pginfo), generated from a real PostgreSQL (catalog_schema.cc): PostgreSQL's columns, in its
// order, empty except pg_type, pg_am, pg_tablespace and the pg_class rows of the system
// relations themselves. REQUIRES: schemas pgcat and pginfo exist before they run.
#pragma once

#include <string_view>
#include <vector>

namespace strata::serve::pg {

const std::vector<std::string_view>& CatalogSchemaStatements();

}  // namespace strata::serve::pg
