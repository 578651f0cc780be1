// The SQL port's catalog (docs/sql-port.md, "Catalog"): every statement that does not read an
// entity table (translate.h, ReadsEntityTable) — what psql (\dt, \d), pgjdbc's
// DatabaseMetaData, SQLAlchemy's inspector, pandas and the connect/introspection SQL of
// Metabase, Superset, Tableau, Power BI and DBeaver send — and the session's utility statements
// (SET, SHOW, RESET, BEGIN/START TRANSACTION, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE,
// DISCARD ALL, DEALLOCATE, and SELECT set_config(...) with literal arguments). Cursors
// (DECLARE/FETCH/CLOSE) are the session's: the catalog refuses them.
//
// An in-memory DuckDB database (opened through warehouse/duckdb/duckdb_engine.h; this file never
// includes duckdb.h) holds schema `strata` with one empty table per SqlTable, shaped like it.
// DuckDB's own pg_catalog answers with DuckDB's OIDs and type names, so the catalog is ours: the
// relations, functions, OIDs and type names PostgreSQL clients compare with, and the session's
// settings. A role's catalog holds only the tables it may read: another entity does not exist
// for it.
//
// How (catalog_*.cc): DuckDB schema pgcat stands for pg_catalog and pginfo for
// information_schema: tables with PostgreSQL's columns generated from a real PostgreSQL
// (catalog_schema.cc, tests/sqlport/gen_catalog_schema.py), macros for its functions
// (catalog_functions.cc), the role's rows (catalog_tables.cc: namespace strata is OID 16385, the
// i-th table 16386 + 3i, columns typed with PostgreSQL's type OIDs), and a token-level rewrite
// of what DuckDB does not parse (catalog_rewrite.h). Nothing in the catalog is indexed,
// constrained, commented or privileged: pg_index, pg_constraint and pg_description are empty and
// every has_*_privilege is true. The corpus it answers: tests/sqlport/README.md.
//
// Result typing (catalog_result.h): each column's DuckDB type, from DESCRIBE of the statement,
// maps to PgType: BOOLEAN bool, SMALLINT int2, INTEGER int4, BIGINT int8, UINTEGER (every OID
// column) oid, FLOAT float4, DOUBLE float8, DECIMAL numeric, DATE date, TIMESTAMP timestamp,
// TIMESTAMP WITH TIME ZONE timestamptz, VARCHAR[] _text, SMALLINT[] _int2, UINTEGER[] _oid,
// everything else text; a list cell is PostgreSQL's array text ({a,b}). Column names are
// PostgreSQL's: an unaliased call is named after its function, a literal ?column?, an unquoted
// name folded to lower case.
//
// Thread safety: a SqlCatalog is shared by every session of one role (one model generation);
// Execute is thread-safe: it takes one of four pooled DuckDB connections and waits when all four
// are busy (a connection per call costs about 2.6 times a pooled statement, measured through
// DuckDB 1.4.4's Python binding on a 2-core machine). Statements cannot write, read files or change
// DuckDB settings (external access is off and the configuration locked after Open).
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
  // application_name "", extra_float_digits 1, transaction_read_only and
  // default_transaction_read_only on, transaction_isolation "read committed",
  // max_identifier_length 63, max_index_keys 32 (catalog_utility.cc lists them all).
  static SessionSettings Defaults();
  // The value of `name` (case-insensitive); nullopt when unknown.
  std::optional<std::string> Get(std::string_view name) const;
};

class SqlCatalog {
 public:
  // Builds the database for `tables` (about 0.2 s). Errors: kWarehouseConnection when DuckDB
  // cannot open; kInternal when the catalog's own SQL fails (a bug).
  static Result<std::unique_ptr<SqlCatalog>> Open(const std::vector<SqlTable>& tables);
  virtual ~SqlCatalog() = default;

  // Answers one catalog or utility statement (one: a simple query's several statements are
  // split by the session; an empty one is answered with the tag "EMPTY", no columns). `parameters`:
  // the bound values of $1..$n as text (nullopt: NULL), rendered as quoted literals; empty when the
  // statement has none. A SET of TimeZone to a name that is not a zone is kInvalidTimeZone (the
  // zone is stored as TimeZone::Find names it); SET, RESET, set_config() and DISCARD ALL change
  // `settings` (DISCARD ALL: every value back to its default, user and database kept); current_user
  // is settings.user, current_database() settings.database (the user when empty). Errors:
  // kSqlUnsupported (0A000) for a statement that is neither (a write, DDL, COPY, a cursor, several
  // statements) naming it, and for what DuckDB cannot answer (an unknown function, a syntax it
  // lacks) with DuckDB's message; kUndefinedTable (42P01) for a relation that does not exist for
  // the role (named in FROM, or cast to regclass); kQueryInvalid (42703) for an unknown column and
  // for SHOW of an unknown setting; kUsage for a $n beyond `parameters`; kSqlLex for what does not
  // lex.
  virtual Result<ResultSet> Execute(std::string_view sql,
                                    const std::vector<std::optional<std::string>>& parameters,
                                    SessionSettings& settings) = 0;
};

}  // namespace strata::serve::pg
