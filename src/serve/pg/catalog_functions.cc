// The pg_catalog functions, types and session views of the SQL port's catalog, as DuckDB macros
// and views in schema pgcat (catalog_functions.h). PostgreSQL's meaning, reduced to what a
// catalog of empty tables without indexes, constraints, comments or privileges can say: every
// privilege check is true, every definition or comment is NULL.
#include "serve/pg/catalog_functions.h"

namespace strata::serve::pg {

const std::vector<std::string_view>& CatalogFunctionStatements() {
  static const std::vector<std::string_view> kStatements = {
      // Types clients cast to that DuckDB lacks.
      R"sql(CREATE TYPE pgcat.name AS VARCHAR)sql",
      R"sql(CREATE TYPE pgcat."char" AS VARCHAR)sql",
      R"sql(CREATE TYPE pgcat.int2vector AS SMALLINT[])sql",
      R"sql(CREATE TYPE pgcat.oidvector AS UINTEGER[])sql",
      R"sql(CREATE TYPE pgcat.pg_node_tree AS VARCHAR)sql",
      R"sql(CREATE TYPE pgcat.xid AS UINTEGER)sql",
      R"sql(CREATE TYPE pgcat.aclitem AS VARCHAR)sql",
      // The session (set before each statement by catalog.cc): its settings, user and database.
      R"sql(CREATE MACRO pgcat.strata_settings() AS
              CAST(getvariable('strata_settings') AS MAP(VARCHAR, VARCHAR)))sql",
      R"sql(CREATE MACRO pgcat.strata_current_user() AS CAST(getvariable('strata_user') AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.current_database() AS CAST(getvariable('strata_database') AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.current_setting(name) AS pgcat.strata_settings()[lower(name)],
                                           (name, missing_ok) AS pgcat.strata_settings()[lower(name)])sql",
      R"sql(CREATE MACRO pgcat.version() AS
              'PostgreSQL ' || pgcat.current_setting('server_version') ||
              ' on x86_64-pc-linux-gnu, compiled by gcc, 64-bit')sql",
      R"sql(CREATE MACRO pgcat.current_schema() AS 'strata')sql",
      R"sql(CREATE MACRO pgcat.current_schemas(include_implicit) AS
              CASE WHEN include_implicit THEN ['pg_catalog', 'strata'] ELSE ['strata'] END)sql",
      R"sql(CREATE MACRO pgcat.pg_get_userbyid(role_oid) AS pgcat.strata_current_user())sql",
      // Types.
      R"sql(CREATE MACRO pgcat.format_type(type_oid, typmod) AS
              coalesce((SELECT t.name FROM pgcat.strata_type_names t WHERE t.oid = type_oid),
                       (SELECT t.typname FROM pgcat.pg_type t WHERE t.oid = type_oid), '???'))sql",
      R"sql(CREATE MACRO pgcat.pg_type_is_visible(type_oid) AS true)sql",
      R"sql(CREATE MACRO pgcat.pg_table_is_visible(relation_oid) AS
              EXISTS (SELECT 1 FROM pgcat.pg_class c WHERE c.oid = relation_oid))sql",
      R"sql(CREATE MACRO pgcat.pg_function_is_visible(function_oid) AS true)sql",
      // ident::regclass and friends (rewritten to these calls by catalog_rewrite.cc): an OID
      // stays itself; a name is looked up exactly, then case-insensitively; unknown is 42P01.
      R"sql(CREATE MACRO pgcat.strata_unquote(name) AS
              CASE WHEN name LIKE '"%"' THEN replace(name[2:-2], '""', '"') ELSE name END)sql",
      R"sql(CREATE MACRO pgcat.strata_find_relation(name) AS (
              SELECT c.oid FROM pgcat.pg_class c JOIN pgcat.pg_namespace n ON n.oid = c.relnamespace
              WHERE name IN (c.relname, n.nspname || '.' || c.relname,
                             '"' || replace(c.relname, '"', '""') || '"',
                             n.nspname || '."' || replace(c.relname, '"', '""') || '"')
                 OR lower(name) IN (lower(c.relname), lower(n.nspname || '.' || c.relname))
              ORDER BY name IN (c.relname, n.nspname || '.' || c.relname,
                                '"' || replace(c.relname, '"', '""') || '"',
                                n.nspname || '."' || replace(c.relname, '"', '""') || '"') DESC,
                       n.nspname = 'strata' DESC
              LIMIT 1))sql",
      R"sql(CREATE MACRO pgcat.strata_regclass(value) AS
              CASE WHEN TRY_CAST(value AS UINTEGER) IS NOT NULL THEN TRY_CAST(value AS UINTEGER)
                   WHEN value IS NULL THEN NULL
                   WHEN pgcat.strata_find_relation(CAST(value AS VARCHAR)) IS NOT NULL
                     THEN pgcat.strata_find_relation(CAST(value AS VARCHAR))
                   ELSE error('relation "' || CAST(value AS VARCHAR) || '" does not exist') END)sql",
      R"sql(CREATE MACRO pgcat.strata_regtype(value) AS
              CASE WHEN TRY_CAST(value AS UINTEGER) IS NOT NULL THEN TRY_CAST(value AS UINTEGER)
                   ELSE (SELECT t.oid FROM pgcat.pg_type t
                         WHERE t.typname = regexp_replace(CAST(value AS VARCHAR), '^pg_catalog\.', '')
                            OR t.oid = (SELECT n.oid FROM pgcat.strata_type_names n
                                        WHERE n.name = CAST(value AS VARCHAR))) END)sql",
      R"sql(CREATE MACRO pgcat.strata_regnamespace(value) AS
              CASE WHEN TRY_CAST(value AS UINTEGER) IS NOT NULL THEN TRY_CAST(value AS UINTEGER)
                   ELSE (SELECT n.oid FROM pgcat.pg_namespace n
                         WHERE n.nspname = pgcat.strata_unquote(CAST(value AS VARCHAR))) END)sql",
      R"sql(CREATE MACRO pgcat.strata_regproc(value) AS
              CASE WHEN TRY_CAST(value AS UINTEGER) IS NOT NULL THEN TRY_CAST(value AS UINTEGER)
                   ELSE (SELECT p.oid FROM pgcat.pg_proc p
                         WHERE p.proname = regexp_replace(CAST(value AS VARCHAR), '^pg_catalog\.', '')
                         LIMIT 1) END)sql",
      R"sql(CREATE MACRO pgcat.to_regclass(name) AS pgcat.strata_find_relation(name))sql",
      R"sql(CREATE MACRO pgcat.to_regtype(name) AS pgcat.strata_regtype(name))sql",
      // Definitions, comments and sizes: nothing is defined, commented or stored.
      R"sql(CREATE MACRO pgcat.pg_get_expr(expression, relation_oid) AS CAST(NULL AS VARCHAR),
                                      (expression, relation_oid, pretty) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_indexdef(index_oid) AS CAST(NULL AS VARCHAR),
                                          (index_oid, column_no, pretty) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_constraintdef(constraint_oid) AS CAST(NULL AS VARCHAR),
                                      (constraint_oid, pretty) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_viewdef(view_oid) AS CAST(NULL AS VARCHAR),
                                     (view_oid, pretty) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_triggerdef(trigger_oid) AS CAST(NULL AS VARCHAR),
                                        (trigger_oid, pretty) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_functiondef(function_oid) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_function_arguments(function_oid) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_function_result(function_oid) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_function_identity_arguments(function_oid) AS
              CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_partkeydef(relation_oid) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_serial_sequence(relation, column_name) AS
              CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_statisticsobjdef_columns(statistics_oid) AS
              CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_get_ruledef(rule_oid) AS CAST(NULL AS VARCHAR),
                                     (rule_oid, pretty) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.obj_description(object_oid) AS CAST(NULL AS VARCHAR),
                                      (object_oid, catalog) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.shobj_description(object_oid, catalog) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.col_description(relation_oid, column_no) AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.pg_relation_is_publishable(relation_oid) AS false)sql",
      R"sql(CREATE MACRO pgcat.pg_table_size(relation_oid) AS CAST(0 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.pg_relation_size(relation_oid) AS CAST(0 AS BIGINT),
                                       (relation_oid, fork) AS CAST(0 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.pg_total_relation_size(relation_oid) AS CAST(0 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.pg_indexes_size(relation_oid) AS CAST(0 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.pg_database_size(database) AS CAST(0 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.pg_size_pretty(bytes) AS CAST(bytes AS VARCHAR) || ' bytes')sql",
      R"sql(CREATE MACRO pgcat.pg_stat_get_numscans(relation_oid) AS CAST(0 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.pg_tablespace_location(tablespace_oid) AS '')sql",
      // Privileges: a role's catalog holds only what it may read.
      R"sql(CREATE MACRO pgcat.has_table_privilege(a, b) AS true, (a, b, c) AS true)sql",
      R"sql(CREATE MACRO pgcat.has_schema_privilege(a, b) AS true, (a, b, c) AS true)sql",
      R"sql(CREATE MACRO pgcat.has_database_privilege(a, b) AS true, (a, b, c) AS true)sql",
      R"sql(CREATE MACRO pgcat.has_column_privilege(a, b, c) AS true, (a, b, c, d) AS true)sql",
      R"sql(CREATE MACRO pgcat.has_any_column_privilege(a, b) AS true, (a, b, c) AS true)sql",
      R"sql(CREATE MACRO pgcat.has_function_privilege(a, b) AS true, (a, b, c) AS true)sql",
      R"sql(CREATE MACRO pgcat.has_sequence_privilege(a, b) AS true, (a, b, c) AS true)sql",
      R"sql(CREATE MACRO pgcat.pg_has_role(a, b) AS true, (a, b, c) AS true)sql",
      // Server facts.
      R"sql(CREATE MACRO pgcat.pg_encoding_to_char(encoding) AS
              CASE WHEN encoding = 6 THEN 'UTF8' ELSE '' END)sql",
      R"sql(CREATE MACRO pgcat.pg_char_to_encoding(name) AS CASE WHEN upper(name) = 'UTF8' THEN 6 ELSE -1 END)sql",
      R"sql(CREATE MACRO pgcat.pg_backend_pid() AS 1)sql",
      R"sql(CREATE MACRO pgcat.pg_is_in_recovery() AS false)sql",
      R"sql(CREATE MACRO pgcat.pg_postmaster_start_time() AS CAST('2026-01-01 00:00:00+00' AS TIMESTAMPTZ))sql",
      R"sql(CREATE MACRO pgcat.pg_my_temp_schema() AS CAST(0 AS UINTEGER))sql",
      R"sql(CREATE MACRO pgcat.pg_is_other_temp_schema(namespace_oid) AS false)sql",
      R"sql(CREATE MACRO pgcat.txid_current() AS CAST(1 AS BIGINT))sql",
      R"sql(CREATE MACRO pgcat.inet_server_addr() AS CAST(NULL AS VARCHAR))sql",
      R"sql(CREATE MACRO pgcat.inet_server_port() AS CAST(NULL AS INTEGER))sql",
      R"sql(CREATE MACRO pgcat.quote_ident(name) AS
              CASE WHEN regexp_full_match(name, '[a-z_][a-z0-9_$]*') THEN name
                   ELSE '"' || replace(name, '"', '""') || '"' END)sql",
      R"sql(CREATE MACRO pgcat.array_upper(list, dimension) AS
              CASE WHEN len(list) = 0 THEN NULL ELSE len(list) END)sql",
      R"sql(CREATE MACRO pgcat.array_lower(list, dimension) AS
              CASE WHEN len(list) = 0 THEN NULL ELSE 1 END)sql",
      // information_schema._pg_expandarray(a): only ever applied to pg_index.indkey here, and
      // no index exists; a record of the first element keeps (...).x and (...).n binding.
      R"sql(CREATE MACRO pginfo._pg_expandarray(list) AS {'x': list[1], 'n': 1})sql",
      // Session views.
      R"sql(CREATE VIEW pgcat.pg_settings AS
              SELECT CAST(unnest(map_keys(pgcat.strata_settings())) AS VARCHAR) AS name,
                     CAST(unnest(map_values(pgcat.strata_settings())) AS VARCHAR) AS setting,
                     CAST(NULL AS VARCHAR) AS unit, 'Strata' AS category,
                     CAST(NULL AS VARCHAR) AS short_desc, CAST(NULL AS VARCHAR) AS extra_desc,
                     'user' AS context, 'string' AS vartype, 'session' AS source,
                     CAST(NULL AS VARCHAR) AS min_val, CAST(NULL AS VARCHAR) AS max_val,
                     CAST(NULL AS VARCHAR[]) AS enumvals, CAST(NULL AS VARCHAR) AS boot_val,
                     CAST(NULL AS VARCHAR) AS reset_val, CAST(NULL AS VARCHAR) AS sourcefile,
                     CAST(NULL AS INTEGER) AS sourceline, false AS pending_restart)sql",
      // Relations whose content is the session's: one stored row (the capture's defaults)
      // shown with the session's names.
      R"sql(INSERT INTO pginfo.character_sets (character_set_name, character_repertoire, form_of_use)
              VALUES ('UTF8', 'UCS', 'UTF8'))sql",
      R"sql(ALTER TABLE pgcat.pg_database RENAME TO strata_database_row)sql",
      R"sql(INSERT INTO pgcat.strata_database_row (oid) VALUES (16384))sql",
      R"sql(CREATE VIEW pgcat.pg_database AS
              SELECT * REPLACE (pgcat.current_database() AS datname) FROM pgcat.strata_database_row)sql",
      R"sql(ALTER TABLE pgcat.pg_roles RENAME TO strata_role_row)sql",
      R"sql(INSERT INTO pgcat.strata_role_row (oid, rolsuper, rolcreaterole, rolcreatedb, rolreplication,
                                        rolbypassrls)
              VALUES (10, false, false, false, false, false))sql",
      R"sql(CREATE VIEW pgcat.pg_roles AS
              SELECT * REPLACE (pgcat.strata_current_user() AS rolname) FROM pgcat.strata_role_row)sql",
      R"sql(CREATE VIEW pgcat.pg_authid AS SELECT * FROM pgcat.pg_roles)sql",
      R"sql(ALTER TABLE pgcat.pg_user RENAME TO strata_user_row)sql",
      R"sql(INSERT INTO pgcat.strata_user_row (usesysid, usesuper, usecreatedb, userepl, usebypassrls)
              VALUES (10, false, false, false, false))sql",
      R"sql(CREATE VIEW pgcat.pg_user AS
              SELECT * REPLACE (pgcat.strata_current_user() AS usename) FROM pgcat.strata_user_row)sql",
      R"sql(CREATE VIEW pgcat.pg_tables AS
              SELECT n.nspname AS schemaname, c.relname AS tablename,
                     pgcat.strata_current_user() AS tableowner, CAST(NULL AS VARCHAR) AS tablespace,
                     false AS hasindexes, false AS hasrules, false AS hastriggers,
                     false AS rowsecurity
              FROM pgcat.pg_class c JOIN pgcat.pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind IN ('r', 'p'))sql",
      R"sql(ALTER TABLE pginfo.tables RENAME TO strata_tables)sql",
      R"sql(CREATE VIEW pginfo.tables AS
              SELECT * REPLACE (pgcat.current_database() AS table_catalog) FROM pginfo.strata_tables)sql",
      R"sql(ALTER TABLE pginfo.columns RENAME TO strata_columns)sql",
      R"sql(CREATE VIEW pginfo.columns AS
              SELECT * REPLACE (pgcat.current_database() AS table_catalog, pgcat.current_database() AS udt_catalog)
              FROM pginfo.strata_columns)sql",
      R"sql(ALTER TABLE pginfo.schemata RENAME TO strata_schemata)sql",
      R"sql(CREATE VIEW pginfo.schemata AS
              SELECT * REPLACE (pgcat.current_database() AS catalog_name,
                                pgcat.strata_current_user() AS schema_owner)
              FROM pginfo.strata_schemata)sql",
  };
  return kStatements;
}

}  // namespace strata::serve::pg
