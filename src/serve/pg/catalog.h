// The SQL port's catalog (docs/sql-port.md, "Catalog"): every statement that does not read an
// entity table (translate.h, ReadsEntityTable) — what psql (\dt, \d), pgjdbc's
// DatabaseMetaData, SQLAlchemy's inspector, pandas and the connect/introspection SQL of
// Metabase, Superset, Tableau, Power BI and DBeaver send — and the session's utility statements
// (SET, SHOW, RESET, BEGIN/START TRANSACTION, COMMIT, ROLLBACK, DISCARD ALL, DEALLOCATE).
//
// An in-memory DuckDB database (opened through warehouse/duckdb/duckdb_engine.h; this file never
// includes duckdb.h) holds schema `strata` with one empty table per SqlTable, shaped like it, so
// DuckDB's pg_catalog and information_schema answer much; what DuckDB lacks or answers
// differently from PostgreSQL (pg_catalog functions, regclass casts, `OPERATOR(pg_catalog.~)`,
// the OIDs and type names clients compare with, current_setting of the session's settings) is
// ours. A role's catalog holds only the tables it may read: another entity does not exist
// for it.
//
// Thread safety: a SqlCatalog is shared by every session of one role (one model generation);
// Execute is thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "serve/pg/pg_types.h"
#include "serve/pg/sql_tables.h"

namespace strata::serve::pg {

// A session's run-time parameters (GUCs), by lower-case name: "timezone", "datestyle",
// "client_encoding", "application_name", "search_path", "extra_float_digits", ... SET/RESET
// change them, SHOW and current_setting() read them. Defaults: SessionSettings::Defaults().
struct SessionSettings {
  std::map<std::string, std::string> values;
  std::string user;      // the startup message's user
  std::string database;  // the startup message's database (default: the user)

  // server_version 16.0 (with "(strata)"), server_encoding and client_encoding UTF8,
  // DateStyle "ISO, MDY", IntervalStyle postgres, TimeZone UTC, integer_datetimes on,
  // standard_conforming_strings on, search_path "strata, pg_catalog", is_superuser off,
  // application_name "".
  static SessionSettings Defaults();
  // The value of `name` (case-insensitive); nullopt when unknown.
  std::optional<std::string> Get(std::string_view name) const;
};

class SqlCatalog {
 public:
  // Builds the database for `tables`. Errors: kWarehouseConnection when DuckDB cannot open.
  static Result<std::unique_ptr<SqlCatalog>> Open(const std::vector<SqlTable>& tables);
  virtual ~SqlCatalog() = default;

  // Answers one catalog or utility statement. `parameters`: the bound values of $1..$n as text
  // (nullopt: NULL), rendered as quoted literals; empty when the statement has none. A SET of
  // TimeZone to a name that is not a zone is kInvalidTimeZone; SET changes `settings`.
  // Errors: kSqlUnsupported (0A000) for a statement that is neither (a write, DDL, COPY), naming
  // it; kUndefinedTable (42P01) for a relation that does not exist for the role; kSqlLex for
  // what does not parse.
  virtual Result<ResultSet> Execute(std::string_view sql,
                                    const std::vector<std::optional<std::string>>& parameters,
                                    SessionSettings& settings) = 0;
};

}  // namespace strata::serve::pg
