"""Generates src/serve/pg/catalog_schema.cc from a real PostgreSQL server: the columns of the
pg_catalog and information_schema relations the SQL port's catalog has (empty DuckDB tables of the
same names, columns and order), the defaults of the rows the catalog fills (pg_class, pg_attribute,
pg_namespace, pg_database, pg_roles: taken from the capture's strata."Order" and its schema, so
every column a client reads has PostgreSQL's value), and the pg_type rows of the types clients
look up (copied).

    scripts/pg_test_server.sh start /tmp/strata-pg-corpus   # with the capture's tables (README)
    python3 tests/sqlport/gen_catalog_schema.py postgresql://strata@127.0.0.1:PORT/strata \
        > src/serve/pg/catalog_schema.cc && clang-format-14 -i src/serve/pg/catalog_schema.cc
"""
import subprocess
import sys

DSN = sys.argv[1]

PG_CATALOG = """pg_aggregate pg_am pg_amop pg_amproc pg_attrdef pg_attribute pg_auth_members pg_cast
pg_class pg_collation pg_constraint pg_conversion pg_database pg_db_role_setting pg_default_acl
pg_depend pg_description pg_enum pg_event_trigger pg_extension pg_foreign_data_wrapper
pg_foreign_server pg_foreign_table pg_index pg_inherits pg_init_privs pg_language pg_namespace
pg_opclass pg_operator pg_opfamily pg_partitioned_table pg_policy pg_proc pg_publication
pg_publication_namespace pg_publication_rel pg_range pg_rewrite pg_sequence pg_shdepend
pg_shdescription pg_statistic_ext pg_subscription pg_tablespace pg_transform pg_trigger
pg_ts_config pg_ts_dict pg_ts_parser pg_ts_template pg_type pg_roles pg_user pg_group pg_views
pg_matviews pg_indexes pg_sequences pg_stat_activity pg_stat_user_tables pg_stat_all_tables
pg_statio_user_tables pg_policies pg_rules pg_timezone_names pg_timezone_abbrevs
pg_prepared_statements pg_cursors pg_locks pg_stat_database pg_available_extensions
pg_available_extension_versions pg_user_mappings pg_stats pg_publication_tables""".split()
# Filled by catalog_tables.cc, or views over the session (catalog_functions.cc): their columns
# are generated here with defaults from a template row.
TEMPLATED = {
    "pg_class": "SELECT * FROM pg_class WHERE oid = 'strata.\"Order\"'::regclass",
    "pg_attribute": "SELECT * FROM pg_attribute WHERE attrelid = 'strata.\"Order\"'::regclass AND attnum = 1",
    "pg_namespace": "SELECT * FROM pg_namespace WHERE nspname = 'strata'",
    "pg_database": "SELECT * FROM pg_database WHERE datname = 'strata'",
    "pg_roles": "SELECT * FROM pg_roles WHERE rolname = 'strata'",
    "pg_user": "SELECT * FROM pg_user WHERE usename = 'strata'",
    "pg_type": ("pg_type", "typname = 'Order'"),
}
INFORMATION_SCHEMA = """tables columns schemata views table_constraints key_column_usage
referential_constraints constraint_column_usage check_constraints routines parameters
table_privileges column_privileges sequences triggers character_sets domains element_types
enabled_roles applicable_roles usage_privileges role_table_grants""".split()
# The types clients look up by name or OID (pgjdbc getTypeInfo, Npgsql, psycopg): the rows are
# copied from the server.
TYPES = """bool bytea char name int8 int2 int2vector int4 regproc text oid xid oidvector float4
float8 unknown bpchar varchar date time timestamp timestamptz interval timetz numeric regclass
regtype regnamespace uuid json jsonb record void _bool _int2 _int4 _int8 _text _varchar _oid
_float4 _float8 _numeric _date _timestamp _timestamptz _name _bpchar""".split()

DUCKDB_TYPES = {
    "boolean": "BOOLEAN", "smallint": "SMALLINT", "integer": "INTEGER", "bigint": "BIGINT",
    "real": "FLOAT", "double precision": "DOUBLE", "numeric": "DECIMAL(38,6)", "oid": "UINTEGER",
    "xid": "UINTEGER", "regtype": "UINTEGER", "oid[]": "UINTEGER[]", "oidvector": "UINTEGER[]",
    "regtype[]": "UINTEGER[]", "int2vector": "SMALLINT[]", "smallint[]": "SMALLINT[]",
    "boolean[]": "BOOLEAN[]", "real[]": "FLOAT[]", "double precision[]": "DOUBLE[]",
    "text[]": "VARCHAR[]", "name[]": "VARCHAR[]", "aclitem[]": "VARCHAR[]", '"char"[]': "VARCHAR[]",
    "timestamp with time zone": "TIMESTAMPTZ", "interval": "INTERVAL",
    "regproc": "UINTEGER", "information_schema.cardinal_number": "INTEGER", "information_schema.time_stamp": "TIMESTAMPTZ",
}


def psql(sql):
    out = subprocess.run(["psql", "-X", "-At", "-F", "\x1f", "-R", "\x1e", DSN, "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return [row.split("\x1f") for row in out.rstrip("\n").split("\x1e") if row]


def columns(schema, relation):
    return psql(f"""SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = '{schema}' AND c.relname = '{relation}' AND a.attnum > 0
        AND NOT a.attisdropped ORDER BY a.attnum""")


def oid_select(relation, where):
    """SELECT of every column of `relation` (pg_catalog), regproc ones as their OIDs."""
    cols = columns("pg_catalog", relation)
    return ("SELECT " + ", ".join(f'"{n}"::oid' if t == "regproc" else f'"{n}"' for n, t in cols)
            + f" FROM pg_catalog.{relation} WHERE {where}")


def literal(value, duck_type):
    if value == "" and duck_type != "VARCHAR":
        return "NULL"
    if duck_type == "BOOLEAN":
        return "true" if value == "t" else "false"
    if duck_type.endswith("[]"):
        return "NULL"
    if duck_type in ("SMALLINT", "INTEGER", "BIGINT", "UINTEGER", "FLOAT", "DOUBLE") or \
            duck_type.startswith("DECIMAL"):
        return value
    return "'" + value.replace("'", "''") + "'"


def create(schema_out, relation, cols, template=None):
    parts = []
    for index, (name, pg_type) in enumerate(cols):
        duck = DUCKDB_TYPES.get(pg_type, "VARCHAR")
        column = f'"{name}" {duck}'
        if template is not None:
            column += " DEFAULT " + literal(template[index], duck)
        parts.append(column)
    return f"CREATE TABLE {schema_out}.{relation} ({', '.join(parts)});"


def main():
    statements = []
    for relation in PG_CATALOG:
        cols = columns("pg_catalog", relation)
        template = None
        if relation in TEMPLATED:
            query = TEMPLATED[relation]
            if isinstance(query, tuple):
                query = oid_select(*query)
            template = psql(query)[0]
        statements.append(create("pgcat", relation, cols, template))
    for relation in INFORMATION_SCHEMA:
        statements.append(create("pginfo", relation, columns("information_schema", relation)))
    type_cols = columns("pg_catalog", "pg_type")
    names = ", ".join(f"'{t}'" for t in TYPES)
    rows = psql(oid_select("pg_type", f"typnamespace = 11 AND typname IN ({names})") + " ORDER BY oid")
    values = []
    for row in rows:
        values.append("(" + ", ".join(literal(v, DUCKDB_TYPES.get(t, "VARCHAR"))
                                      for v, (_, t) in zip(row, type_cols)) + ")")
    statements.append("INSERT INTO pgcat.pg_type VALUES\n" + ",\n".join(values) + ";")
    names_rows = psql(f"SELECT oid, format_type(oid, NULL) FROM pg_type WHERE typnamespace = 11 "
                      f"AND typname IN ({names}) ORDER BY oid")
    statements.append("INSERT INTO pgcat.strata_type_names VALUES " + ", ".join(
        f"({oid}, '{name}')" for oid, name in names_rows) + ";")
    procs = psql(f"""SELECT p.oid, p.proname FROM pg_proc p WHERE p.oid IN (
        SELECT unnest(ARRAY[typinput::oid, typoutput::oid, typreceive::oid, typsend::oid,
                            typmodin::oid, typmodout::oid, typanalyze::oid])
        FROM pg_type WHERE typnamespace = 11 AND typname IN ({names})) ORDER BY p.oid""")
    statements.append("INSERT INTO pgcat.pg_proc (oid, proname, pronamespace) VALUES " + ", ".join(
        f"({o}, '{n}', 11)" for o, n in procs) + ";")
    am = psql("SELECT oid, amname, amhandler::oid, amtype FROM pg_am ORDER BY oid")
    statements.append("INSERT INTO pgcat.pg_am VALUES " + ", ".join(
        f"({o}, '{n}', {h}, '{t}')" for o, n, h, t in am) + ";")
    spaces = psql("SELECT oid, spcname FROM pg_tablespace ORDER BY oid")
    statements.append("INSERT INTO pgcat.pg_tablespace (oid, spcname, spcowner) VALUES " + ", ".join(
        f"({o}, '{n}', 10)" for o, n in spaces) + ";")
    system = psql("SELECT c.oid, c.relname, n.nspname, c.relkind FROM pg_class c JOIN pg_namespace n "
                  "ON n.oid = c.relnamespace WHERE c.relname IN ("
                  + ", ".join(f"'{r}'" for r in PG_CATALOG + INFORMATION_SCHEMA)
                  + ") AND n.nspname IN ('pg_catalog', 'information_schema') ORDER BY 1")
    statements.append("INSERT INTO pgcat.pg_class (oid, relname, relnamespace, relkind) VALUES " +
                      ", ".join(f"({o}, '{r}', {11 if n == 'pg_catalog' else 13207}, '{k}')"
                                for o, r, n, k in system) + ";")
    print("""// GENERATED by tests/sqlport/gen_catalog_schema.py from a real PostgreSQL 15 (the corpus
// capture's server, tests/sqlport/README.md); do not edit by hand. The DuckDB tables that stand
// for pg_catalog (schema pgcat) and information_schema (schema pginfo): PostgreSQL's columns in
// PostgreSQL's order, defaults from the capture's rows, pg_type rows copied.
#include "serve/pg/catalog_schema.h"

namespace strata::serve::pg {

const std::vector<std::string_view>& CatalogSchemaStatements() {
  static const std::vector<std::string_view> kStatements = {""")
    print('      "CREATE TABLE pgcat.strata_type_names (oid UINTEGER, name VARCHAR);",')
    for statement in statements:
        print(f'      R"sql({statement})sql",')
    print("""  };
  return kStatements;
}

}  // namespace strata::serve::pg""")


main()
