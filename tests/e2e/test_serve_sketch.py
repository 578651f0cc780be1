"""A live count_distinct_approx under `strata serve` (issue 39, item 4): its sketch query is folded
while it streams, so the request timeout interrupts it like any other query: 504. Over real HTTP
on 127.0.0.1, with test_serve.py's server and tokens, on DuckDB and on PostgreSQL.

No timing thresholds: the query reads 100 M generated rows (one distinct value each, far more
than the 2-core machine reads in seconds) and the timeout is 50 ms, so the only outcome asserted
is the 504 (a query that ran to its end would be a 200 after many seconds, never a 504). That the
server answers normally after a timeout is test_serve.py's test_the_request_timeout_cancels_the_query.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_serve import Server, serve_toml, write_toml

PG_DSN_ENV = "STRATA_E2E_SERVE_SKETCH_DSN"
QUERY = {"measures": ["Distinct.values_approx"], "dimensions": ["Distinct.bucket"]}

DISTINCT_ROWS = 100_000_000

MODEL_YAML = """\
entities:
  - name: Distinct
    table: raw.distinct_values
    dimensions:
      - { name: bucket, type: number }
    measures:
      - { name: values_approx, agg: count_distinct_approx, sql: value }

data_roles:
  - name: admin
    access: all
"""


def make_semantic(root: Path) -> None:
    (root / "semantic").mkdir(parents=True)
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(MODEL_YAML)


def make_project(root: Path, **limits) -> Path:
    import duckdb
    make_semantic(root)
    write_toml(root, serve_toml(result_cache_bytes=0, **limits))
    con = duckdb.connect(str(root / "warehouse.duckdb"))
    try:
        con.execute("CREATE SCHEMA raw")
        con.execute(f"CREATE VIEW raw.distinct_values AS SELECT r % 3 AS bucket, r AS value "
                    f"FROM range({DISTINCT_ROWS}) t(r)")
    finally:
        con.close()
    return root


@pytest.fixture()
def short_timeout(strata_bin, tmp_path):
    running = Server(strata_bin, make_project(tmp_path / "sketch", request_timeout_ms=50))
    yield running
    assert running.stop() == 0


def test_the_request_timeout_interrupts_a_live_approximate_distinct_count(short_timeout):
    timed_out = short_timeout.query(QUERY)
    assert timed_out.status == 504, timed_out
    assert timed_out.code == "QueryTimeout"


def test_on_postgres_too(strata_bin, pg_server, tmp_path):
    database = pg_server.create_database("serve_sketch")
    # A set-returning function in the select list streams its rows (one in FROM is materialized
    # first): the server would send 100 M rows, one distinct value each.
    database.execute("CREATE SCHEMA raw",
                     "CREATE VIEW raw.distinct_values AS SELECT r % 3 AS bucket, r AS value FROM "
                     f"(SELECT generate_series(0, {DISTINCT_ROWS - 1}) AS r) AS s")
    root = tmp_path / "pg_sketch"
    make_semantic(root)
    (root / "strata.toml").write_text(
        '[project]\nname = "serve_sketch"\n\n[warehouse]\ntype = "postgres"\n'
        f'dsn_env = "{PG_DSN_ENV}"\n\n' + serve_toml(result_cache_bytes=0, request_timeout_ms=50))
    running = Server(strata_bin, root, env={PG_DSN_ENV: database.dsn})
    try:
        timed_out = running.query(QUERY)
        assert timed_out.status == 504, timed_out
        assert timed_out.code == "QueryTimeout"
    finally:
        assert running.stop() == 0
