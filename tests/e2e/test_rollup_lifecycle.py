"""Rollups that stay current (issue 11), through the CLI: a live_tail rollup answers past its
watermark from the warehouse (rows exactly at the watermark, late rows, deletes), a range that
ends at the watermark never opens the warehouse, and compaction merges ended periods into one
file each with answers unchanged. Every answer is compared with the same query answered live
(an empty store), which semantic and rollup oracles check against hand-written SQL.
"""
from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

pytest.register_assert_rewrite("semantic_harness", "rollup_harness")

from rollup_harness import check_store_files, live_answer, route_of
from semantic_corpus import q, td

pytest_plugins = ["semantic_harness", "rollup_harness"]

TAIL = """rollups:
  - name: tail_daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }]
    measures: [revenue, order_count, avg_amount, customer_id_approx]
    sketches: [customer_id_approx]
    partition: { by: month }
    live_tail: true
"""

COMPACT = """rollups:
  - name: compact_daily
    entity: Order
    dimensions: [status, { name: order_date, grain: day }, customer.region]
    measures: [revenue, order_count, avg_amount]
    partition: { by: day, compact: month, refresh_last: 2 }
    sort_by: [order_date]
"""


def iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def month_before(t: dt.datetime, months: int) -> dt.datetime:
    index = t.year * 12 + t.month - 1 - months
    return dt.datetime(index // 12, index % 12 + 1, 1)


def same_rows(got, want) -> bool:
    """Equal rows; numbers equal up to 1e-9 relative (avg is sum / count on one side and the
    warehouse's avg on the other)."""
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if isinstance(x, float) or isinstance(y, float):
                if x is None or y is None or x != pytest.approx(y, rel=1e-9, abs=1e-9):
                    return False
            elif x != y:
                return False
    return True


def same_as_live(project, query) -> dict:
    """Asks `query` routed and live; asserts equal rows; returns meta.rollup."""
    routed = project.query(query)
    live = live_answer(project, query)
    assert routed.ok and live.ok, f"{routed!r}\n{live!r}"
    assert same_rows(routed.body["rows"], live.body["rows"]), (
        f"rollup {routed.body['rows'][:5]} live {live.body['rows'][:5]}\n"
        f"{json.dumps(query)}\n{routed.body['meta']}")
    return route_of(routed)


def insert_orders(warehouse, rows):
    import duckdb
    con = duckdb.connect(str(warehouse))
    try:
        next_id = con.execute("SELECT max(order_id) + 1 FROM raw.orders").fetchone()[0]
        columns = [c[0] for c in con.execute("DESCRIBE raw.orders").fetchall()]
        for offset, (when, status, amount) in enumerate(rows):
            values = {"order_id": next_id + offset, "customer_id": 1, "status": status,
                      "order_at": when, "amount": amount}
            template = con.execute("SELECT * FROM raw.orders LIMIT 1").fetchone()
            record = [values.get(name, template[i]) for i, name in enumerate(columns)]
            con.execute(f"INSERT INTO raw.orders VALUES ({', '.join('?' for _ in columns)})",
                        record)
    finally:
        con.close()


@pytest.fixture()
def tail_project(small_warehouse, strata_bin, tmp_path):
    project = small_warehouse.project(tmp_path / "tail", strata_bin, TAIL, copy_warehouse=True)
    report = project.build()
    assert report["status"] == "success", report
    return project


def test_live_tail_answers_past_the_watermark(tail_project):
    project = tail_project
    status = project.status()["rollups"][0]
    assert status["live_tail"] is True
    watermark = parse(status["watermark"])
    assert status["range"][1] == status["watermark"]
    assert watermark == month_before(watermark, 0)  # the start of the open month
    assert all(p["period"][1] <= status["watermark"] for p in status["periods"])
    across = q(["Order.revenue", "Order.order_count", "Order.avg_amount",
                "Order.customer_id_approx"], ["Order.status"],
               [td("Order.order_date", "day", (iso(month_before(watermark, 2)),
                                                iso(month_before(watermark, -1))))])
    before = q(["Order.revenue", "Order.order_count"], ["Order.status"],
               [td("Order.order_date", "month", (iso(month_before(watermark, 3)),
                                                  iso(watermark)))])
    all_time = q(["Order.revenue", "Order.order_count"], ["Order.status"])
    assert same_as_live(project, across) == {"used": "tail_daily", "live_tail": True, "missed": []}
    assert same_as_live(project, before) == {"used": "tail_daily", "missed": []}
    assert same_as_live(project, all_time) == {"used": "tail_daily", "live_tail": True, "missed": []}
    # Rows exactly at the watermark and later in the open period: in the next answer, once.
    warehouse = project.root / "warehouse.duckdb"
    insert_orders(warehouse, [(watermark, "paid", 1000.25), (watermark, "shipped", 7.5),
                              (watermark + dt.timedelta(hours=5, seconds=1), "paid", 99.99)])
    assert same_as_live(project, across)["live_tail"] is True
    assert same_as_live(project, all_time)["live_tail"] is True
    # A late row one second before the watermark, in a built month: it waits for a rebuild of
    # that month.
    insert_orders(warehouse, [(watermark - dt.timedelta(seconds=1), "paid", 5000.0)])
    last_built = q(["Order.revenue"], time_dimensions=[
        td("Order.order_date", "month", (iso(month_before(watermark, 1)), iso(watermark)))])
    routed, live = project.query(last_built), live_answer(project, last_built)
    assert routed.body["rows"][0][1] + 5000.0 == pytest.approx(live.body["rows"][0][1])
    assert project.build(full=True)["status"] == "success"
    assert same_as_live(project, last_built) == {"used": "tail_daily", "missed": []}
    assert same_as_live(project, across)["live_tail"] is True


def test_a_range_ending_at_the_watermark_never_opens_the_warehouse(tail_project):
    project = tail_project
    watermark = parse(project.status()["rollups"][0]["watermark"])
    before = q(["Order.revenue", "Order.order_count"], ["Order.status"],
               [td("Order.order_date", "week", (iso(month_before(watermark, 3) -
                                                   dt.timedelta(days=month_before(watermark, 3).weekday() - 7)),
                                                 iso(watermark - dt.timedelta(days=watermark.weekday()))))])
    expected = same_as_live(project, before)
    assert expected == {"used": "tail_daily", "missed": []}
    # The warehouse goes away: the stored answer still comes; the tail cannot be read.
    warehouse = project.root / "warehouse.duckdb"
    shutil.move(warehouse, project.root / "elsewhere.duckdb")
    try:
        routed = project.query(before)
        assert routed.ok, routed
        assert route_of(routed) == {"used": "tail_daily", "missed": []}
        across = q(["Order.order_count"], time_dimensions=[
            td("Order.order_date", "month", (iso(month_before(watermark, 1)),
                                              iso(month_before(watermark, -1))))])
        failed = project.query(across)
        assert not failed.ok, failed
    finally:
        shutil.move(project.root / "elsewhere.duckdb", warehouse)


def test_compaction_merges_ended_months_and_keeps_answers(small_warehouse, strata_bin, tmp_path):
    project = small_warehouse.project(tmp_path / "compact", strata_bin, COMPACT)
    report = project.build()
    assert report["status"] == "success", report
    assert report["rollups"][0]["compacted_files"] > 0
    status = project.status()["rollups"][0]
    grains = status["files_by_grain"]
    assert set(grains) <= {"day", "month", "null_time"} and grains["month"] >= 3, grains
    manifest = check_store_files(project, "compact_daily")
    # One file per ended month; the days left are those of months that have not ended (the
    # newest two days' month, the month of now).
    months = {f["start"][:7] for f in manifest["files"] if f["start"]
              and parse(f["end"]) - parse(f["start"]) > dt.timedelta(days=1)}
    days = [f for f in manifest["files"] if f["start"]
            and parse(f["end"]) - parse(f["start"]) == dt.timedelta(days=1)]
    assert len(months) == grains["month"]
    assert len({f["start"][:7] for f in days}) <= 2, sorted({f["start"][:7] for f in days})
    assert len(manifest["files"]) < 70, len(manifest["files"])
    queries = [q(["Order.revenue", "Order.avg_amount"], ["Customer.region"],
                 [td("Order.order_date", "quarter")]),
               q(["Order.order_count"], ["Order.status"], [td("Order.order_date", "week")])]
    for query in queries:
        assert same_as_live(project, query) == {"used": "compact_daily", "missed": []}
    again = json.loads(project.strata("rollups", "compact").stdout)
    assert again["rollups"][0]["status"] == "unchanged", again
    # A plain build keeps every merged file.
    rebuilt = project.build()
    kept = project.manifest("compact_daily")["files"]
    assert {f["path"] for f in manifest["files"] if f["start"] and f["start"][:7] in months} <= \
        {f["path"] for f in kept}, rebuilt
    for query in queries:
        assert same_as_live(project, query) == {"used": "compact_daily", "missed": []}


def test_compact_names_unknown_rollups(small_warehouse, strata_bin, tmp_path):
    project = small_warehouse.project(tmp_path / "unknown", strata_bin, COMPACT)
    completed = project.strata("rollups", "compact", "--rollup", "compact_dialy")
    assert completed.returncode == 1
    assert "compact_daily" in completed.stdout + completed.stderr
