#!/usr/bin/env python3
"""Writes fuzz seed inputs (dialect byte + SQL, see sql_round_trip.h) to OUT_DIR from
tests/golden/parse/<dialect>.txt, tests/golden/analyze/*.txt ("dialect:" header, default duckdb)
and each query of tests/oracle/queries/*.sql (duckdb; "-- query: name" starts a query).

    tests/fuzz/make_seeds.py OUT_DIR
"""
import hashlib
import pathlib
import sys

DIALECTS = ["duckdb", "postgres", "snowflake", "databricks", "bigquery", "redshift", "trino"]
REPO = pathlib.Path(__file__).resolve().parents[2]


def golden_cases(path):
    """Yields (headers, input) for each case of a golden file (sql/testing/golden_file.h)."""
    cases, current = [], None
    for line in path.read_text().splitlines():
        if line.startswith("=== "):
            current = {"headers": {}, "input": [], "expected": False, "in_headers": True}
            cases.append(current)
        elif current is None or current["expected"]:
            continue
        elif line == "---":
            current["expected"] = True
        elif current["in_headers"] and ": " in line and line.split(": ")[0].replace("_", "a").isalpha() \
                and line.split(": ")[0].islower():
            key, value = line.split(": ", 1)
            current["headers"][key] = value
        else:
            current["in_headers"] = False
            current["input"].append(line)
    for case in cases:
        yield case["headers"], "\n".join(case["input"]).rstrip()


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seeds = []
    for path in sorted((REPO / "tests/golden/parse").glob("*.txt")):
        for _, sql in golden_cases(path):
            seeds.append((path.stem, sql))
    for path in sorted((REPO / "tests/golden/analyze").glob("*.txt")):
        for headers, sql in golden_cases(path):
            seeds.append((headers.get("dialect", "duckdb"), sql))
    for path in sorted((REPO / "tests/oracle/queries").glob("*.sql")):
        for query in path.read_text().split("\n-- query: ")[1:]:
            seeds.append(("duckdb", query.split("\n", 1)[-1].strip()))
    for dialect, sql in seeds:
        data = bytes([DIALECTS.index(dialect)]) + sql.encode()
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"{len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main()
