"""The semantic layer on Trino (issue 41): the same generated tables loaded into a DuckDB file and
into Trino's `iceberg` catalog, the same semantic model over each, and every query answered alike:
live on both (every measure kind, medians and percentiles exact, time grains, filters with time
literals, order and limit, a metric, a join), then on Trino from a rollup built from Trino
(`meta.rollup.used`, a live tail included), equal to DuckDB's live answers; and a
`partition.append` rollup whose marker is a raw TIMESTAMP(6) column, skipped while the marker
stands and refreshed with new rows.

Numbers compare within a relative 1e-9 (exact integers and decimals compare equal; a double sum
may differ in its last bits with the summation order); percentiles are computed exactly on
both and compare within the same tolerance.
"""
from __future__ import annotations

import datetime as dt
import importlib.util
import json
import math
import os
import random
import subprocess
import textwrap
import uuid
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300
RELATIVE = 1e-9

_spec = importlib.util.spec_from_file_location("trino_statement",
                                               ROOT / "scripts" / "trino_statement.py")
trino_statement = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(trino_statement)

STATUSES = ["paid", "shipped", "returned", "it's pending", None]
REGIONS = ["EMEA", "AMER", "APAC", None]
START = dt.datetime(2026, 1, 3, 0, 0, 0)
LOADED = dt.datetime(2026, 2, 1, 6, 0, 0, 250000)  # loaded_at of the first rows

MODEL = """\
entities:
  - name: Order
    table: orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: order_date, type: time, sql: order_at }
      - { name: qty, type: number }
      - { name: amount, type: number }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: total_weight, agg: sum, sql: weight }
      - { name: order_count, agg: count }
      - { name: amount_count, agg: count, sql: amount }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: avg_qty, agg: avg, sql: qty }
      - { name: min_amount, agg: min, sql: amount }
      - { name: max_weight, agg: max, sql: weight }
      - { name: min_weight, agg: min, sql: weight }
      - { name: max_qty, agg: max, sql: qty }
      - { name: customers, agg: count_distinct, sql: customer_id }
      - { name: customers_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: amounts_approx, agg: count_distinct_approx, sql: amount }
      - { name: times_approx, agg: count_distinct_approx, sql: order_at }
      - { name: paid_revenue, agg: sum, sql: amount, filter: "status = 'paid'" }
      - { name: median_amount, agg: median, sql: amount }
      - { name: p90_weight, agg: p90, sql: weight }
      - { name: p99_qty, agg: p99, sql: qty }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
    metrics:
      - { name: average_order_value, expr: revenue / order_count }
      - { name: paid_share, expr: paid_revenue / revenue }
  - name: Customer
    table: customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: region, type: string }
"""

ROLLUPS = """\
rollups:
  - name: daily
    entity: Order
    dimensions: [status, customer.region, { name: order_date, grain: day }]
    measures: [revenue, total_weight, order_count, amount_count, avg_amount, avg_qty, min_amount,
               max_weight, paid_revenue, median_amount, p90_weight, p99_qty]
    sketches: [median_amount, p90_weight, p99_qty]
  - name: tail_monthly
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, min_weight, median_amount]
    sketches: [median_amount]
    partition: { by: month }
    live_tail: true
  - name: appended
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, order_count, max_qty, median_amount]
    sketches: [median_amount]
    refresh: { when_changed: loaded_at }
    partition: { by: month, append: true }
"""

ALL_MEASURES = ["Order.revenue", "Order.total_weight", "Order.order_count", "Order.amount_count",
                "Order.avg_amount", "Order.avg_qty", "Order.min_amount", "Order.max_weight",
                "Order.customers", "Order.paid_revenue", "Order.median_amount",
                "Order.p90_weight", "Order.p99_qty", "Order.average_order_value",
                "Order.paid_share"]
APPROX_MEASURES = ["Order.customers_approx", "Order.amounts_approx", "Order.times_approx"]
ROLLUP_MEASURES = [m for m in ALL_MEASURES if m != "Order.customers"]

# Live on both warehouses.
LIVE_QUERIES = {
    "everything_by_status": {"measures": ALL_MEASURES, "dimensions": ["Order.status"]},
    "everything_no_dimensions": {"measures": ALL_MEASURES},
    # The same HLL of the same canonical texts (an integer, a decimal, a timestamp): the same
    # estimates, to the unit.
    "approximate_distinct": {"measures": APPROX_MEASURES + ["Order.customers"],
                             "dimensions": ["Customer.region"]},
    "by_day_in_range": {
        "measures": ["Order.revenue", "Order.median_amount", "Order.p90_weight", "Order.avg_qty"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                             "range": ["2026-01-05", "2026-01-12"]}]},
    # Time zones (issue 42): local grains, local ranges and filters, values with their offset.
    "by_day_in_berlin": {
        "measures": ["Order.revenue", "Order.order_count"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                             "range": ["2026-01-05", "2026-01-12"]}],
        "timezone": "Europe/Berlin"},
    "by_hour_in_kolkata": {
        "measures": ["Order.order_count"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "hour",
                             "range": ["2026-01-06", "2026-01-07"]}],
        "filters": [{"member": "Order.order_date", "op": "lt", "values": ["2026-01-06T18:30:00"]}],
        "timezone": "Asia/Kolkata"},
    "by_week_in_new_york": {
        "measures": ["Order.order_count", "Order.median_amount"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "week"}],
        "timezone": "America/New_York"},
    "by_month_and_week": {
        "measures": ["Order.order_count", "Order.median_amount", "Order.customers"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]},
    "by_week": {
        "measures": ["Order.order_count", "Order.p99_qty"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "week"}]},
    "fiscal_quarter": {
        "measures": ["Order.revenue"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_quarter"}]},
    "filters": {
        "measures": ["Order.revenue", "Order.order_count", "Order.median_amount"],
        "dimensions": ["Order.status"],
        "filters": [{"member": "Order.order_date", "op": "gte", "values": ["2026-01-06"]},
                    {"member": "Order.order_date", "op": "lt",
                     "values": ["2026-01-15T12:00:00Z"]},
                    {"member": "Order.amount_count", "op": "gt", "values": [10]},
                    {"member": "Order.status", "op": "equals",
                     "values": ["paid", "it's pending"]}]},
    "string_filters": {
        "measures": ["Order.order_count", "Order.p90_weight"],
        "dimensions": ["Order.status"],
        "filters": [{"member": "Order.status", "op": "contains", "values": ["ipp", "'s"]},
                    {"member": "Order.status", "op": "starts_with", "values": ["shi", "it"]}]},
    "not_set_filter": {
        "measures": ["Order.revenue", "Order.median_amount"],
        "dimensions": ["Customer.region"],
        "filters": [{"member": "Order.status", "op": "not_set", "values": []},
                    {"member": "Order.amount", "op": "set", "values": []}]},
    "order_by_measure_limit": {
        "measures": ["Order.revenue", "Order.p90_weight"],
        "dimensions": ["Order.status", "Customer.region"],
        "order": [{"member": "Order.p90_weight", "desc": True},
                  {"member": "Order.status"}],
        "limit": 5},
    "order_nulls_ascending": {
        "measures": ["Order.min_amount"],
        "dimensions": ["Customer.region"],
        "order": [{"member": "Customer.region"}]},
    "join_with_metric": {
        "measures": ["Order.average_order_value", "Order.median_amount", "Order.customers"],
        "dimensions": ["Customer.region"],
        "filters": [{"member": "Order.qty", "op": "gte", "values": [2]},
                    {"member": "Order.status", "op": "not_equals", "values": ["returned"]}]},
    "metric_filter": {
        "measures": ["Order.paid_share", "Order.revenue"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day"}],
        "filters": [{"member": "Order.paid_share", "op": "gt", "values": [0.2]}]},
}

# On Trino from the rollup `daily`, compared with DuckDB's live answers.
ROLLUP_QUERIES = {
    "rollup_by_status": {"measures": ROLLUP_MEASURES, "dimensions": ["Order.status"]},
    "rollup_by_month_region": {
        "measures": ROLLUP_MEASURES, "dimensions": ["Customer.region"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]},
    "rollup_by_day_in_range": {
        "measures": ["Order.revenue", "Order.median_amount", "Order.p90_weight"],
        "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                             "range": ["2026-01-05", "2026-01-12"]}]},
    "rollup_order_limit": {
        "measures": ["Order.median_amount", "Order.order_count", "Order.p90_weight"],
        "dimensions": ["Order.status"],
        "order": [{"member": "Order.median_amount", "desc": True}], "limit": 2},
}

# On Trino from the live_tail rollup `tail_monthly` (min_weight is stored there only): its closed
# months from the files, the current month from Trino.
TAIL_QUERY = {"measures": ["Order.min_weight", "Order.median_amount", "Order.revenue"],
              "dimensions": ["Order.status"],
              "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]}


def generate(seed: int = 41):
    """Orders over three weeks (a few with no time), customers with and without a region."""
    rng = random.Random(seed)
    customers = [(c, rng.choice(REGIONS)) for c in range(1, 121)]
    orders = []
    for order_id in range(1, 3001):
        at = START + dt.timedelta(seconds=rng.randrange(0, 21 * 86400), microseconds=rng.choice(
            [0, 0, 999999, rng.randrange(0, 1000000)]))
        orders.append((
            order_id,
            rng.choice(STATUSES),
            rng.choice([None] + [c for c, _ in customers[:110]] + [999]),
            None if rng.random() < 0.05 else Decimal(rng.randrange(0, 50000)) / 100,
            None if rng.random() < 0.05 else rng.choice([rng.random() * 100, 0.1, 1e-3, 2.5]),
            None if rng.random() < 0.05 else rng.randrange(0, 9),
            None if rng.random() < 0.02 else at,
            LOADED,
        ))
    # A few orders of the current month: the live tail's rows.
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
    for order_id in range(3001, 3041):
        orders.append((order_id, rng.choice(STATUSES), rng.randrange(1, 121),
                       Decimal(rng.randrange(0, 50000)) / 100, rng.random() * 100,
                       rng.randrange(0, 9), now - dt.timedelta(seconds=rng.randrange(0, 600)),
                       LOADED))
    return orders, customers


ORDER_COLUMNS = ("order_id BIGINT, status VARCHAR, customer_id INTEGER, amount DECIMAL(12, 2), "
                 "weight DOUBLE, qty INTEGER, order_at TIMESTAMP{precision}, "
                 "loaded_at TIMESTAMP{precision}")


def sql_value(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, Decimal):
        return f"DECIMAL '{value}'"
    if isinstance(value, float):
        return f"DOUBLE '{value!r}'"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    return str(value)


def load_duckdb(path: Path, orders, customers) -> None:
    connection = duckdb.connect(str(path))
    connection.execute(f"CREATE TABLE orders ({ORDER_COLUMNS.format(precision='')})")
    connection.execute("CREATE TABLE customers (customer_id INTEGER, region VARCHAR)")
    connection.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?)", orders)
    connection.executemany("INSERT INTO customers VALUES (?, ?)", customers)
    connection.close()


def insert_trino(url: str, schema: str, rows) -> None:
    for start in range(0, len(rows), 750):
        values = ", ".join("(" + ", ".join(sql_value(v) for v in row) + ")"
                           for row in rows[start:start + 750])
        trino_statement.run(url, f"INSERT INTO iceberg.{schema}.orders VALUES {values}")


def load_trino(url: str, schema: str, orders, customers) -> None:
    def run(sql):
        trino_statement.run(url, sql)

    run(f"CREATE SCHEMA iceberg.{schema}")
    run(f"CREATE TABLE iceberg.{schema}.orders ({ORDER_COLUMNS.format(precision='(6)')})")
    run(f"CREATE TABLE iceberg.{schema}.customers (customer_id INTEGER, region VARCHAR)")
    insert_trino(url, schema, orders)
    rows = ", ".join("(" + ", ".join(sql_value(v) for v in row) + ")" for row in customers)
    run(f"INSERT INTO iceberg.{schema}.customers VALUES {rows}")


def write_project(root: Path, warehouse_toml: str, rollups: bool) -> Path:
    (root / "semantic").mkdir(parents=True)
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(MODEL)
    if rollups:
        (root / "semantic" / "rollups.yml").write_text(ROLLUPS)
    (root / "strata.toml").write_text(
        f'[project]\nname = "trino_semantic"\n\n[warehouse]\n{warehouse_toml}\n\n'
        '[semantic]\nfiscal_year_start_month = 4\n')
    return root


def strata(project: Path, *args: str) -> subprocess.CompletedProcess:
    binary = os.environ["STRATA_BIN"]
    return subprocess.run([binary, *args, "--project", str(project), "--output", "json"],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=project,
                          env={**os.environ, "ENGINE_ROLLUP_STORE_DIR": str(project / "store")})


def query(project: Path, body: dict) -> dict:
    path = project / f"q-{uuid.uuid4().hex}.json"
    path.write_text(json.dumps(body))
    try:
        completed = strata(project, "query", "--file", str(path))
    finally:
        path.unlink()
    assert completed.returncode == 0, \
        f"{json.dumps(body)}\nstdout:\n{completed.stdout[-3000:]}\nstderr:\n{completed.stderr[-3000:]}"
    return json.loads(completed.stdout)


def same_cell(want, got) -> bool:
    if want is None or got is None:
        return want is None and got is None
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            return False
        return math.isclose(want, got, rel_tol=RELATIVE, abs_tol=1e-12)
    return want == got


def assert_same_answer(name: str, want: dict, got: dict) -> None:
    assert want["columns"] == got["columns"], name
    assert len(want["rows"]) == len(got["rows"]), \
        f"{name}: {len(want['rows'])} rows on DuckDB, {len(got['rows'])} on Trino\n" \
        f"duckdb: {want['rows'][:20]}\ntrino: {got['rows'][:20]}"
    columns = [column["name"] for column in want["columns"]]
    for index, (a, b) in enumerate(zip(want["rows"], got["rows"])):
        for column, x, y in zip(columns, a, b):
            assert same_cell(x, y), \
                f"{name}: row {index}, {column}: DuckDB {x!r}, Trino {y!r}\n{a}\n{b}"


@pytest.fixture(scope="module")
def projects(trino_url, tmp_path_factory):
    """(DuckDB project, Trino project with the rollup) over the same generated rows."""
    orders, customers = generate()
    root = tmp_path_factory.mktemp("trino_semantic")
    database = root / "warehouse.duckdb"
    load_duckdb(database, orders, customers)
    schema = f"semantic_{uuid.uuid4().hex[:8]}"
    load_trino(trino_url, schema, orders, customers)
    duck = write_project(root / "duckdb", f'type = "duckdb"\npath = "{database}"', rollups=False)
    trino = write_project(root / "trino", textwrap.dedent(f"""\
        type = "trino"
        url = "{trino_url}"
        user = "strata"
        catalog = "iceberg"
        schema = "{schema}"
        """), rollups=True)
    return duck, trino, database, trino_url, schema


@pytest.mark.parametrize("name", sorted(LIVE_QUERIES))
def test_live_answers_equal_duckdb(projects, name):
    duck, trino = projects[:2]
    body = LIVE_QUERIES[name]
    want = query(duck, body)
    got = query(trino, body)
    assert got["meta"]["rollup"].get("used") is None
    assert "approx_percentile" not in got["meta"]["sql"]
    assert_same_answer(name, want, got)
    assert want["rows"], f"{name}: the query answers no rows; the comparison would prove nothing"


def test_rollup_built_from_trino_answers_like_duckdb(projects):
    duck, trino = projects[:2]
    built = strata(trino, "rollups", "build")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    for name, body in sorted(ROLLUP_QUERIES.items()):
        got = query(trino, body)
        assert got["meta"]["rollup"].get("used") == "daily", (name, got["meta"]["rollup"])
        assert_same_answer(name, query(duck, body), got)
    got = query(trino, TAIL_QUERY)
    assert got["meta"]["rollup"].get("used") == "tail_monthly", got["meta"]["rollup"]
    assert got["meta"]["rollup"].get("live_tail") is True, got["meta"]["rollup"]
    assert_same_answer("tail_monthly", query(duck, TAIL_QUERY), got)
    # A measure the rollup cannot answer exactly still answers live, and alike.
    body = LIVE_QUERIES["join_with_metric"]
    got = query(trino, body)
    assert got["meta"]["rollup"].get("used") is None
    assert_same_answer("join_with_metric after the build", query(duck, body), got)


APPEND_QUERY = {"measures": ["Order.max_qty", "Order.revenue", "Order.order_count",
                             "Order.median_amount"],
                "dimensions": ["Order.status"],
                "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]}


def test_append_refresh_and_marker_on_trino(projects):
    """The `appended` rollup (marker: the raw column loaded_at, a TIMESTAMP(6) on Trino): built,
    skipped while its marker stands, then refreshed with only the new rows, which land in a
    built month and a new one; its answers equal DuckDB's live ones. Runs last: it adds rows."""
    duck, trino, database, url, schema = projects
    first = strata(trino, "rollups", "build", "--rollup", "appended")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    skipped = json.loads(strata(trino, "rollups", "build", "--rollup", "appended").stdout)
    assert skipped["rollups"][0]["status"] == "skipped", skipped
    rng = random.Random(7)
    loaded = LOADED + dt.timedelta(hours=1, microseconds=1)
    rows = [(5000 + i, rng.choice(STATUSES), rng.randrange(1, 121),
             Decimal(rng.randrange(0, 50000)) / 100, rng.random() * 100, rng.randrange(0, 20),
             rng.choice([START + dt.timedelta(days=2, seconds=i), dt.datetime(2026, 2, 3, 4, 5, 6)]),
             loaded) for i in range(60)]
    insert_trino(url, schema, rows)
    connection = duckdb.connect(str(database))
    connection.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    connection.close()
    refreshed = strata(trino, "rollups", "build", "--rollup", "appended")
    assert refreshed.returncode == 0, refreshed.stdout[-3000:] + refreshed.stderr[-3000:]
    outcome = json.loads(refreshed.stdout)["rollups"][0]
    assert outcome["status"] == "built", outcome
    assert "appended" in [period["status"] for period in outcome["periods"]], outcome
    got = query(trino, APPEND_QUERY)
    assert got["meta"]["rollup"].get("used") == "appended", got["meta"]["rollup"]
    assert_same_answer("appended", query(duck, APPEND_QUERY), got)
