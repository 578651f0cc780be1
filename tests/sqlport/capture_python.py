"""Drives psycopg 3, SQLAlchemy 2's inspector and pandas against a real PostgreSQL so that its
statement log (log_statement = 'all') records the SQL they send: the corpus of
tests/sqlport/corpus/. Also prints the answers of the key introspection calls as JSON (the golden
data of src/serve/pg/catalog_test.cc's comparisons).

    build/sqlport-clients/venv/bin/python tests/sqlport/capture_python.py DSN
"""
import json
import sys

import pandas
import psycopg
import sqlalchemy

dsn = sys.argv[1]
out = {}

with psycopg.connect(dsn, application_name="psycopg") as conn:
    conn.execute("SELECT 1").fetchall()
    # extended protocol with a parameter, binary results
    with conn.cursor(binary=True) as cur:
        cur.execute("SELECT relname FROM pg_catalog.pg_class WHERE relname = %s", ("Order",))
        cur.fetchall()
    conn.execute("SHOW TimeZone").fetchall()
    conn.execute("SET TimeZone TO 'UTC'")

engine = sqlalchemy.create_engine(
    "postgresql+psycopg://" + dsn.split("://", 1)[1],
    connect_args={"application_name": "sqlalchemy"})
inspector = sqlalchemy.inspect(engine)
out["get_schema_names"] = inspector.get_schema_names()
out["get_table_names"] = inspector.get_table_names(schema="strata")
out["get_columns"] = [{"name": c["name"], "type": str(c["type"]), "nullable": c["nullable"]}
                      for c in inspector.get_columns("Order", schema="strata")]
out["get_pk_constraint"] = inspector.get_pk_constraint("Order", schema="strata")
out["get_foreign_keys"] = inspector.get_foreign_keys("Order", schema="strata")
out["get_indexes"] = inspector.get_indexes("Order", schema="strata")
out["get_unique_constraints"] = inspector.get_unique_constraints("Order", schema="strata")
out["has_table"] = [inspector.has_table("Order", schema="strata"),
                    inspector.has_table("Nope", schema="strata")]
out["get_view_names"] = inspector.get_view_names(schema="strata")
out["get_table_comment"] = inspector.get_table_comment("Order", schema="strata")
engine.dispose()

pandas_engine = sqlalchemy.create_engine(
    "postgresql+psycopg://" + dsn.split("://", 1)[1],
    connect_args={"application_name": "pandas"})
frame = pandas.read_sql('SELECT table_name FROM information_schema.tables '
                        "WHERE table_schema = 'strata' ORDER BY 1", pandas_engine)
out["pandas_tables"] = list(frame["table_name"])
pandas_engine.dispose()

json.dump(out, sys.stdout, indent=1, default=str)
print()
