"""The semantic oracle's corpus (tests/e2e/semantic_corpus.py) on Trino (issue 41): every query of
it answered by `strata query` over the example model on Trino equals the answer over DuckDB, on
identical data.

The data is a sample of `strata init --example` (every 100th order, every 4th customer, every
25th ticket: Trino's INSERT ... VALUES is slow), copied into a DuckDB file and into a fresh schema
of Trino's `iceberg` catalog with the same column types (TIMESTAMP(6) on Trino: DuckDB's
precision). The model is the example's, its tables moved to that schema. No rollup is built, so
both answer live.

Rules: a case both warehouses answer compares like test_trino_semantic.py (the same columns, the
same rows in the same order — each plan orders by its order members, then its dimensions —,
numbers within a relative 1e-9; count_distinct_approx is the same HLL of the same canonical
texts, so it compares exactly too); a query with a limit whose order leaves ties compares the
rows as far as its order members decide them; a refused case is refused on both with the same
error codes.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import duckdb
import pytest

from test_trino_semantic import assert_same_answer, same_cell, sql_value, strata, trino_statement

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
import semantic_corpus  # noqa: E402
from semantic_harness import Dates  # noqa: E402

SAMPLES = {"orders": "order_id % 100 = 0", "customers": "customer_id % 4 = 0",
           "tickets": "ticket_id % 25 = 0"}
BATCH = 1000


def trino_type(duckdb_type: str) -> str:
    if duckdb_type == "TIMESTAMP":
        return "TIMESTAMP(6)"
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.replace(",", ", ")
    return {"BIGINT": "BIGINT", "INTEGER": "INTEGER", "VARCHAR": "VARCHAR", "DOUBLE": "DOUBLE",
            "BOOLEAN": "BOOLEAN", "DATE": "DATE"}[duckdb_type]


def copy_sample(example: Path, sample: Path, url: str, schema: str) -> None:
    source = duckdb.connect(str(example), read_only=True)
    target = duckdb.connect(str(sample))
    target.execute(f"CREATE SCHEMA {schema}")
    trino_statement.run(url, f"CREATE SCHEMA iceberg.{schema}")
    for table, where in SAMPLES.items():
        columns = source.execute(f"DESCRIBE raw.{table}").fetchall()
        rows = source.execute(f"SELECT * FROM raw.{table} WHERE {where} ORDER BY 1").fetchall()
        definition = ", ".join(f"{name} {kind}" for name, kind, *_ in columns)
        target.execute(f"CREATE TABLE {schema}.{table} ({definition})")
        target.executemany(f"INSERT INTO {schema}.{table} VALUES "
                           f"({', '.join('?' for _ in columns)})", rows)
        trino_definition = ", ".join(f"{name} {trino_type(kind)}" for name, kind, *_ in columns)
        trino_statement.run(url, f"CREATE TABLE iceberg.{schema}.{table} ({trino_definition})")
        for start in range(0, len(rows), BATCH):
            values = ", ".join("(" + ", ".join(sql_value(v) for v in row) + ")"
                               for row in rows[start:start + BATCH])
            trino_statement.run(url, f"INSERT INTO iceberg.{schema}.{table} VALUES {values}")
    source.close()
    target.close()


def project(root: Path, example: Path, schema: str, warehouse_toml: str) -> Path:
    shutil.copytree(example / "semantic", root / "semantic")
    (root / "models").mkdir()
    model = root / "semantic" / "model.yml"
    model.write_text(re.sub(r"\btable: raw\.", f"table: {schema}.", model.read_text()))
    (root / "strata.toml").write_text(
        f'[project]\nname = "shop"\n\n[warehouse]\n{warehouse_toml}\n\n'
        '[semantic]\nfiscal_year_start_month = 4\n')
    return root


def run(root: Path, case: dict) -> dict:
    path = root / f"q-{uuid.uuid4().hex}.json"
    path.write_text(json.dumps(case["query"]))
    args = ["query", "--file", str(path)]
    if case.get("role"):
        args += ["--role", case["role"]]
    try:
        completed = strata(root, *args)
    finally:
        path.unlink()
    try:
        body = json.loads(completed.stdout or completed.stderr)
    except json.JSONDecodeError:
        body = {"unreadable": completed.stdout[-2000:] + completed.stderr[-2000:]}
    return {"ok": completed.returncode == 0 and "rows" in body, "body": body}


def codes(answer: dict) -> list:
    body = answer["body"]
    if isinstance(body.get("errors"), list):
        return sorted(error.get("code") for error in body["errors"])
    if isinstance(body.get("error"), dict):
        return [body["error"].get("code")]
    return [body.get("code")]


def compare_limited(name: str, case: dict, want: dict, got: dict) -> None:
    """A limited query: its rows equal as far as its order members decide them (ties at the
    limit may keep different rows on each warehouse)."""
    assert want["columns"] == got["columns"], name
    assert len(want["rows"]) == len(got["rows"]), name
    names = [column["name"] for column in want["columns"]]
    keys = [names.index(order["member"]) for order in case["query"].get("order", [])]
    for index, (a, b) in enumerate(zip(want["rows"], got["rows"])):
        for key in keys:
            assert same_cell(a[key], b[key]), f"{name}: row {index}: {a} vs {b}"


@pytest.fixture(scope="module")
def corpus_projects(trino_url, tmp_path_factory):
    base = tmp_path_factory.mktemp("trino_corpus")
    example = base / "example"
    init = subprocess.run([os.environ["STRATA_BIN"], "init",
                           str(example), "--example", "--output", "json"],
                          capture_output=True, text=True, timeout=600)
    assert init.returncode == 0, init.stdout[-2000:] + init.stderr[-2000:]
    schema = f"corpus_{uuid.uuid4().hex[:8]}"
    sample = base / "sample.duckdb"
    copy_sample(example / "warehouse.duckdb", sample, trino_url, schema)
    connection = duckdb.connect(str(sample), read_only=True)
    (first, last), = connection.execute(
        f"SELECT min(order_at), max(order_at) FROM {schema}.orders").fetchall()
    (anchor,), = connection.execute(
        f"SELECT order_at FROM {schema}.orders WHERE order_id = 600000").fetchall()
    connection.close()
    dates = Dates(dt.datetime(first.year, first.month, 1),
                  dt.datetime(last.year, last.month, last.day) + dt.timedelta(days=1), anchor)
    duck = project(base / "duckdb", example, schema, f'type = "duckdb"\npath = "{sample}"')
    trino = project(base / "trino", example, schema, textwrap.dedent(f"""\
        type = "trino"
        url = "{trino_url}"
        user = "strata"
        catalog = "iceberg"
        schema = "{schema}"
        """))
    return duck, trino, semantic_corpus.build_corpus(dates)


def test_the_oracle_corpus_answers_alike_on_trino_and_duckdb(corpus_projects):
    duck, trino, cases = corpus_projects
    failures = []
    answered = 0
    for case in cases:
        name = case["id"]
        want, got = run(duck, case), run(trino, case)
        try:
            if case.get("expect", "rows") == "rows":
                assert want["ok"], f"{name}: DuckDB refuses a case that answers: {want['body']}"
            assert want["ok"] == got["ok"], \
                f"{name}: DuckDB {'answers' if want['ok'] else codes(want)}, " \
                f"Trino {'answers' if got['ok'] else codes(got)}\n{got['body']}"
            if not want["ok"]:
                assert codes(want) == codes(got), f"{name}: {codes(want)} vs {codes(got)}"
                continue
            answered += 1
            if case["query"].get("limit") is not None:
                compare_limited(name, case, want["body"], got["body"])
            else:
                assert_same_answer(name, want["body"], got["body"])
        except AssertionError as error:
            failures.append(str(error)[:1500])
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n\n" + \
        "\n\n".join(failures[:10])
    assert answered >= sum(1 for case in cases if case.get("expect", "rows") == "rows")
