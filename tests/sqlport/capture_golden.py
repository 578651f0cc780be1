"""Runs the corpus statements tagged `-- golden: NAME COLUMNS` on the real PostgreSQL of the
capture and writes their answers to tests/sqlport/golden/NAME.json ({"columns": [...], "rows":
[[text or null, ...]]}, PostgreSQL's text output), the expectations catalog_corpus_test.cc compares
the catalog with. GOLDEN below tags the statements (by file and SQL prefix) when a fresh capture
lost the tags.

    python3 tests/sqlport/capture_golden.py postgresql://strata@127.0.0.1:PORT/strata
"""
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = [
    ("psql.sql", "SELECT n.nspname as \"Schema\",\n  c.relname as \"Name\",\n  CASE c.relkind",
     "psql_list_tables", "Schema Name Type Owner"),
    ("psql.sql", "SELECT a.attname,\n  pg_catalog.format_type(a.atttypid, a.atttypmod)",
     "psql_describe_columns", "attname format_type attnotnull attcollation attidentity"),
    ("sqlalchemy.sql", "SELECT pg_catalog.pg_attribute.attname AS name, pg_catalog.format_type",
     "sqlalchemy_get_columns", "name format_type default not_null table_name comment"),
    ("pgjdbc.sql", "SELECT * FROM (SELECT current_database() AS current_database, n.nspname,",
     "pgjdbc_get_columns", "nspname relname attname atttypid attnotnull attnum typtype"),
    ("pgjdbc.sql", "SELECT current_database() AS \"TABLE_CAT\", n.nspname AS \"TABLE_SCHEM\"",
     "pgjdbc_get_tables", "TABLE_CAT TABLE_SCHEM TABLE_NAME TABLE_TYPE REMARKS"),
    ("sqlalchemy.sql", "SELECT pg_catalog.pg_class.relname \nFROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace \nWHERE pg_catalog.pg_class.relkind = ANY (ARRAY[$1::VARCHAR, $2::VARCHAR]) AND",
     "sqlalchemy_get_table_names", "relname"),
    ("powerbi.sql", "select COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE",
     "powerbi_information_schema_columns", "column_name ordinal_position is_nullable data_type"),
    ("pandas.sql", "SELECT table_name FROM information_schema.tables",
     "pandas_information_schema_tables", "table_name"),
]
NULL = "\x01NULL\x01"


def blocks(text):
    return text.split("-- @statement\n")


def literal(value):
    return "NULL" if value is None else "'" + value.replace("'", "''") + "'"


def main():
    dsn = sys.argv[1]
    out_dir = HERE / "golden"
    out_dir.mkdir(exist_ok=True)
    for file, prefix, name, columns in GOLDEN:
        path = HERE / "corpus" / file
        parts = blocks(path.read_text())
        for index, block in enumerate(parts[1:], start=1):
            lines = block.split("\n")
            body_start = 0
            while body_start < len(lines) and re.match(r"-- (source|expect|param|golden)", lines[body_start]):
                body_start += 1
            sql = "\n".join(lines[body_start:])
            if not sql.startswith(prefix):
                continue
            if not any(line.startswith("-- golden:") for line in lines[:body_start]):
                lines.insert(body_start, f"-- golden: {name} {columns}")
                parts[index] = "\n".join(lines)
            params = [None if line == "-- param-null" else line[len("-- param: "):]
                      for line in lines[:body_start] if line.startswith("-- param")]
            bound = re.sub(r"\$(\d+)", lambda m: literal(params[int(m.group(1)) - 1]), sql)
            output = subprocess.run(
                ["psql", "-X", "-A", "-F", "\x1f", "-R", "\x1e", "-P", "footer=off", "-P",
                 f"null={NULL}", dsn, "-c", bound], check=True, capture_output=True,
                text=True).stdout
            rows = [row.split("\x1f") for row in output.rstrip("\n").split("\x1e") if row]
            golden = {"columns": rows[0],
                      "rows": [[None if cell == NULL else cell for cell in row] for row in rows[1:]]}
            (out_dir / f"{name}.json").write_text(json.dumps(golden, indent=1) + "\n")
            print(name, len(golden["rows"]), "rows")
            break
        else:
            raise SystemExit(f"no statement of {file} starts with {prefix!r}")
        path.write_text("-- @statement\n".join(parts))


main()
