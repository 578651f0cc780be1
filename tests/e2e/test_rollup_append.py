"""Append refreshes (issue 11, "Append"), through the CLI on DuckDB and PostgreSQL: a
`partition.append` rollup keyed on `loaded_at` takes N batches of new rows (into built months, a
month after its range and rows without a time) by reading only the rows past its append marker;
after each batch its answers equal hand-written SQL on the warehouse and the live answer, its
files are read back by pyarrow, and a full rebuild gives the same answers. A batch that the
refresh cannot read (a failed append) leaves the previous manifest in force.
"""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pytest

pytest.register_assert_rewrite("semantic_harness", "rollup_harness")

from rollup_harness import check_store_files, live_answer, route_of, write_project, duckdb_toml

pytest_plugins = ["semantic_harness", "rollup_harness"]

# Full tier (scripts/test.sh; `--fast` skips it): it starts PostgreSQL. The fast tier has the
# same cases in one process (src/query/append_test.cc).
pytestmark = pytest.mark.slow

MODEL = """entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: order_date, type: time, sql: order_at }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: max_amount, agg: max, sql: amount }
      - { name: customers_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: median_amount, agg: median, sql: amount }
"""

ROLLUPS = """rollups:
  - name: appended
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, order_count, avg_amount, max_amount, customers_approx, median_amount]
    sketches: [customers_approx, median_amount]
    refresh: { when_changed: loaded_at }
    sort_by: [order_date]
    partition: { by: month, append: true }
"""

DDL = ("CREATE TABLE raw.orders (order_id bigint, customer_id integer, status varchar(16), "
       "amount numeric(12, 2), order_at timestamp, loaded_at timestamp)")
STATUSES = ["paid", "shipped", "refunded"]
BY_MONTH = {"measures": ["Order.revenue", "Order.order_count", "Order.max_amount"],
            "dimensions": ["Order.status"],
            "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]}
SKETCHED = {"measures": ["Order.avg_amount", "Order.customers_approx", "Order.median_amount"],
            "dimensions": ["Order.status"], "order": [{"member": "Order.status"}]}
ORACLE = ("SELECT date_trunc('month', order_at), status, SUM(amount), COUNT(*), MAX(amount) "
          "FROM raw.orders GROUP BY 1, 2")


def literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value:%Y-%m-%d %H:%M:%S}'"
    if isinstance(value, str):
        return f"'{value}'"
    return str(value)


def insert_sql(rows) -> str:
    values = ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)
    return f"INSERT INTO raw.orders VALUES {values}"


def first_rows():
    start, loaded = dt.datetime(2026, 1, 1), dt.datetime(2026, 10, 1)
    return [(i, i % 37, STATUSES[i % 3], Decimal(i * 7919 % 10000) / 100,
             start + dt.timedelta(hours=3 * i), loaded) for i in range(2000)]


def batch_rows(batch: int):
    """Rows loaded after everything before: in built months (February, June), at a month's
    boundary instant, in a month after the range, and without a time."""
    loaded = dt.datetime(2026, 10, 1) + dt.timedelta(hours=batch)
    base = 100000 + batch * 10
    return [(base, 3, "paid", Decimal("12.50"), dt.datetime(2026, 2, 10, 8), loaded),
            (base + 1, 4, "shipped", Decimal("3.25"), dt.datetime(2026, 2, 10, 9), loaded),
            (base + 2, 5, "paid", Decimal("99.99"), dt.datetime(2026, 6, 1), loaded),
            (base + 3, 6, "refunded", Decimal("1.00"), dt.datetime(2026, 12, batch, 10), loaded),
            (base + 4, 7, "paid", Decimal("4.00"), None, loaded)]


class DuckDbSide:
    def __init__(self, root, strata_bin):
        import duckdb
        self.path = root / "warehouse.duckdb"
        root.mkdir(parents=True)
        con = duckdb.connect(str(self.path))
        con.execute("CREATE SCHEMA raw")
        con.execute(DDL)
        con.execute(insert_sql(first_rows()))
        con.close()
        self.project = write_project(root / "project", strata_bin, duckdb_toml(self.path), MODEL,
                                     ROLLUPS)

    def execute(self, sql: str) -> None:
        import duckdb
        con = duckdb.connect(str(self.path))
        try:
            con.execute(sql)
        finally:
            con.close()

    def rows(self, sql: str):
        import duckdb
        con = duckdb.connect(str(self.path), read_only=True)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()


class PostgresSide:
    ENV = "STRATA_E2E_APPEND_PG_DSN"

    def __init__(self, root, strata_bin, server):
        self.database = server.create_database("append")
        self.database.execute("CREATE SCHEMA raw", DDL, insert_sql(first_rows()))
        root.mkdir(parents=True)
        self.project = write_project(root / "project", strata_bin,
                                     f'type = "postgres"\ndsn_env = "{self.ENV}"', MODEL, ROLLUPS,
                                     name="postgres")
        self.project.env[self.ENV] = self.database.dsn

    def execute(self, sql: str) -> None:
        self.database.execute(sql)

    def rows(self, sql: str):
        return self.database.query("SET TIME ZONE 'UTC';\n" + sql)


@pytest.fixture(params=["duckdb", "postgres"])
def side(request, strata_bin, tmp_path):
    if request.param == "duckdb":
        return DuckDbSide(tmp_path / "duckdb", strata_bin)
    return PostgresSide(tmp_path / "postgres", strata_bin,
                        request.getfixturevalue("semantic_pg_server"))


def month_key(value):
    if value is None:
        return None
    if isinstance(value, str):  # psql text, or strata's ISO 8601
        value = dt.datetime.fromisoformat(value.replace("Z", "").replace("T", " ")[:19])
    return value.strftime("%Y-%m")


def oracle_answer(side) -> list[tuple]:
    return sorted(((month_key(m), s, Decimal(str(r)), int(c), Decimal(str(x)))
                   for m, s, r, c, x in side.rows(ORACLE)), key=repr)


def strata_answer(result) -> list[tuple]:
    names = [c["name"] for c in result.body["columns"]]
    out = []
    for row in result.body["rows"]:
        cell = dict(zip(names, row))
        out.append((month_key(cell["Order.order_date.month"]), cell["Order.status"],
                    Decimal(str(cell["Order.revenue"])), int(cell["Order.order_count"]),
                    Decimal(str(cell["Order.max_amount"]))))
    return sorted(out, key=repr)


def check_answers(project, side) -> None:
    routed = project.query(BY_MONTH)
    assert routed.ok, routed
    assert route_of(routed) == {"used": "appended", "missed": []}, routed.body["meta"]
    assert strata_answer(routed) == oracle_answer(side)
    sketched = project.query(SKETCHED)
    live = live_answer(project, SKETCHED)
    assert sketched.ok and live.ok, f"{sketched!r}\n{live!r}"
    assert route_of(sketched) == {"used": "appended", "missed": []}, sketched.body["meta"]
    for got, want in zip(sketched.body["rows"], live.body["rows"]):
        assert got[0] == want[0]
        assert got[1:] == pytest.approx(want[1:], rel=1e-9), (got, want)
    assert len(sketched.body["rows"]) == len(live.body["rows"])
    check_store_files(project, "appended")


def test_append_batches_answer_as_the_warehouse(side):
    project = side.project
    report = project.build()
    assert report["rollups"][0]["status"] == "built", report
    assert project.manifest("appended")["append_marker"].startswith("2026-10-01 00:00:00")
    check_answers(project, side)
    for batch in range(1, 4):
        side.execute(insert_sql(batch_rows(batch)))
        report = project.build()
        outcome = report["rollups"][0]
        assert outcome["status"] == "built", report
        statuses = [p["status"] for p in outcome["periods"]]
        # February and June take the new rows; December and the NULL-time file are built by
        # batch 1 (with October and November, empty, between the range and December) and take
        # the new rows after it.
        assert statuses.count("appended") == (2 if batch == 1 else 4), statuses
        assert statuses.count("built") == (4 if batch == 1 else 0), statuses
        assert statuses.count("kept") >= 6, statuses
        assert project.manifest("appended")["append_marker"].startswith(
            f"2026-10-01 {batch:02d}:00:00"), project.manifest("appended")
        check_answers(project, side)
    status = {r["rollup"]: r for r in project.status()["rollups"]}["appended"]
    assert status["append_marker"] == project.manifest("appended")["append_marker"]
    assert status["last_refresh"]["status"] == "built"
    # Nothing new: skipped, with the marker.
    skipped = project.build()["rollups"][0]
    assert skipped["status"] == "skipped" and skipped["marker"], skipped
    appended = project.query(BY_MONTH).body["rows"]
    rebuilt = project.build(full=True)["rollups"][0]
    assert rebuilt["status"] == "built" and "appended" not in [p["status"] for p in
                                                             rebuilt["periods"]]
    assert sorted(map(json.dumps, project.query(BY_MONTH).body["rows"])) == \
        sorted(map(json.dumps, appended))


def test_a_failed_append_keeps_the_previous_manifest(side):
    project = side.project
    assert project.build()["rollups"][0]["status"] == "built"
    before = project.manifest("appended")
    side.execute(insert_sql(batch_rows(1)))
    # The new rows cannot be read: the measure's column is gone.
    side.execute("ALTER TABLE raw.orders RENAME COLUMN amount TO amount_gone")
    report = project.build(expect=2)
    assert report["rollups"][0]["status"] == "failed", report
    assert project.manifest("appended") == before
    side.execute("ALTER TABLE raw.orders RENAME COLUMN amount_gone TO amount")
    assert project.build()["rollups"][0]["status"] == "built"
    check_answers(project, side)


# Ties with the marker (issue 39): random inserts (ties with the append marker, duplicates of
# stored rows, rows inside the marker's bucket, new batches) and refreshes; after each refresh
# the rollup's answer equals the live one at every grain it serves, on both warehouses and for
# both kinds of append column.
TIE_ROLLUP = """rollups:
  - name: appended
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, order_count, max_amount, avg_amount, customers_approx]
    sketches: [customers_approx]
{refresh}    partition: { by: month, append: true }
"""
GRAINS = ["day", "week", "month", "quarter", "year"]


def tie_rows(random, side, next_id: int, count: int, time_marker: bool):
    """`count` random rows: each a tie with the newest load (loaded_at and order_at at their
    maxima), a duplicate of a stored row (for the time dimension as the marker, of one at the
    marker: an older time is a late row an append does not see, by design), a row inside the
    newest order_at's day, or a new batch an hour after the newest load."""
    (max_loaded, max_order), = side.rows("SELECT MAX(loaded_at), MAX(order_at) FROM raw.orders")
    max_loaded, max_order = (value if isinstance(value, dt.datetime)
                             else dt.datetime.fromisoformat(str(value)[:19])
                             for value in (max_loaded, max_order))
    stored = side.rows("SELECT customer_id, status, amount, order_at FROM raw.orders "
                       "WHERE order_at IS NOT NULL ORDER BY order_id")
    rows = []
    for k in range(count):
        kind = random.choice(["tie", "duplicate", "bucket", "batch"])
        customer, status = random.randrange(37), random.choice(STATUSES)
        amount = Decimal(random.randrange(1, 10000)) / 100
        order_at, loaded = max_order, max_loaded
        if kind == "duplicate":
            customer, status, amount, order_at = random.choice(
                [row for row in stored if not time_marker or str(row[3])[:19] == str(max_order)])
        elif kind == "bucket":
            order_at = max_order.replace(hour=0, minute=0, second=0) + dt.timedelta(
                minutes=random.randrange(24 * 60))
        elif kind == "batch":
            loaded = max_loaded + dt.timedelta(hours=1)
            order_at = max_order + dt.timedelta(hours=random.randrange(1, 60))
        rows.append((next_id + k, customer, status, Decimal(str(amount)), order_at, loaded))
    return rows


def answer_rows(result):
    return sorted(([cell for cell in row] for row in result.body["rows"]), key=json.dumps)


@pytest.mark.parametrize("append_column", ["when_changed", "time"])
def test_ties_with_the_marker_stay_equal_to_live(side, append_column):
    import random as random_module
    random = random_module.Random(39 if append_column == "time" else 93)
    refresh = "    refresh: { when_changed: loaded_at }\n" if append_column == "when_changed" else ""
    (side.project.root / "semantic" / "rollups.yml").write_text(TIE_ROLLUP.replace("{refresh}", refresh))
    assert side.project.build()["rollups"][0]["status"] == "built"
    next_id = 500000
    for step in range(6):
        count = random.randrange(1, 6)
        side.execute(insert_sql(tie_rows(random, side, next_id, count, append_column == "time")))
        next_id += count
        outcome = side.project.build()["rollups"][0]
        assert outcome["status"] in ("built", "skipped"), outcome
        for grain in GRAINS:
            query = {"measures": ["Order.revenue", "Order.order_count", "Order.max_amount",
                                  "Order.avg_amount", "Order.customers_approx"],
                     "dimensions": ["Order.status"],
                     "time_dimensions": [{"dimension": "Order.order_date", "grain": grain}]}
            routed, live = side.project.query(query), live_answer(side.project, query)
            assert routed.ok and live.ok, f"{routed!r}\n{live!r}"
            assert route_of(routed).get("used") == "appended", routed.body["meta"]
            got, want = answer_rows(routed), answer_rows(live)
            assert len(got) == len(want), (step, grain)
            for g, w in zip(got, want):
                assert g[:3] == w[:3], (step, grain, g, w)
                assert g[3:] == pytest.approx(w[3:], rel=1e-9), (step, grain, g, w)
