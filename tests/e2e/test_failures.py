"""Failing partitions: --missing recovery, rollback, the output guard and target bootstrap."""
from __future__ import annotations

import datetime as dt

import pytest

from conftest import DAILY_SQL, expected_daily, in_days, mats_by_key, rows_for_days, strategy_toml


def failing_sql(bad_day: str) -> str:
    """DAILY_SQL, but a cast of 'boom' fails for rows of `bad_day` only."""
    return f"""\
SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount * CAST(CASE WHEN CAST(order_at AS DATE) = DATE '{bad_day}' THEN 'boom' ELSE '1' END
                      AS INTEGER)) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at <  @end_date
GROUP BY 1, 2
"""


def test_missing_after_failure_runs_failed_partition_and_gaps(project):
    today = dt.datetime.now(dt.timezone.utc).date()
    days = [str(today - dt.timedelta(days=i)) for i in range(4, -1, -1)]  # D0..D4 = today
    rows = rows_for_days(days)
    project.create_orders(rows)
    bad = days[2]
    project.add_model("fct_daily_orders", failing_sql(bad),
                      strategy_toml("day", first_partition=days[0]))

    # D0 is left as a gap; D2 fails.
    result = project.run("--from", days[1], "--to", days[4], expect=2)
    report = result.json
    assert report["status"] == "partial_failure"
    m = mats_by_key(report)
    assert m[bad]["status"] == "Failed" and m[bad]["row_count"] is None
    assert [e["partition"] for e in report["errors"]] == [bad]
    assert report["errors"][0]["model"] == "fct_daily_orders"
    assert "boom" in report["errors"][0]["message"]
    s = report["partition_summaries"][0]
    assert (s["partitions_planned"], s["partitions_succeeded"], s["partitions_failed"]) == (4, 3, 1)

    state = project.partition_map("fct_daily_orders")
    assert set(state) == set(days[1:])
    assert state[bad]["status"] == "Failed"
    assert state[bad]["error"] and "boom" in state[bad]["error"]
    for d in (days[1], days[3], days[4]):
        assert state[d]["status"] == "Computed"
    failed = project.partitions("fct_daily_orders", status="Failed")
    assert [p["partition_key"] for p in failed] == [bad]
    # the other partitions committed
    assert project.daily_table() == expected_daily(rows, in_days(days[1], days[3], days[4]))

    # Fix the SQL: --missing runs exactly the failed partition and the gap.
    project.set_sql("fct_daily_orders", DAILY_SQL)
    report = project.run("--missing").json
    assert sorted(mats_by_key(report)) == sorted([days[0], bad])
    assert report["status"] == "success"
    assert project.daily_table() == expected_daily(rows)
    assert all(p["status"] == "Computed" for p in project.partitions("fct_daily_orders"))
    # nothing left
    report = project.run("--missing").json
    assert mats_by_key(report) == {}


def test_failed_partition_rolls_back_and_keeps_old_rows(project):
    rows = rows_for_days(["2026-04-06", "2026-04-07"])
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    first = project.run("--from", "2026-04-06", "--to", "2026-04-07").json
    before = project.daily_table()
    assert before == expected_daily(rows)

    # New data arrives for both days, but the model now fails on 04-06 only.
    extra = [(100, 7, "9.00", "2026-04-06 09:00:00"), (101, 7, "9.00", "2026-04-07 09:00:00")]
    project.insert_orders(extra)
    project.set_sql("fct_daily_orders", failing_sql("2026-04-06"))
    report = project.run("--from", "2026-04-06", "--to", "2026-04-07", expect=2).json
    m = mats_by_key(report)
    assert m["2026-04-06"]["status"] == "Failed"
    assert m["2026-04-07"]["status"] == "Computed"
    after = project.daily_table()
    old_0406 = {k: v for k, v in before.items() if str(k[0]) == "2026-04-06"}
    assert {k: v for k, v in after.items() if str(k[0]) == "2026-04-06"} == old_0406, \
        "the failed partition's DELETE must be rolled back"
    assert {k: v for k, v in after.items() if str(k[0]) == "2026-04-07"} == \
        expected_daily(rows + extra, in_days("2026-04-07"))
    state = project.partition_map("fct_daily_orders")
    assert state["2026-04-06"]["status"] == "Failed"
    assert mats_by_key(first)["2026-04-06"]["row_count"] == len(old_0406)


@pytest.mark.parametrize("time_expr", [
    "DATE_TRUNC('day', order_at) + INTERVAL 1 DAY",
    "CASE WHEN customer_id = 2 THEN DATE_TRUNC('day', order_at) + INTERVAL 1 DAY "
    "ELSE DATE_TRUNC('day', order_at) END",
    # NULL from a function the compiler cannot see through, so the run-time guard is what
    # catches it (a literal NULL is refused earlier, at compile time, as E022: test_compile.py)
    "NULLIF(DATE_TRUNC('day', order_at), "
    "CASE WHEN customer_id = 2 THEN DATE_TRUNC('day', order_at) END)",
], ids=["all-shifted", "some-shifted", "null-time"])
def test_output_outside_window_is_refused(project, time_expr):
    rows = rows_for_days(["2026-04-06", "2026-04-07"])
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.run("--partition", "2026-04-06")
    before = project.daily_table()
    assert before == expected_daily(rows, in_days("2026-04-06"))

    project.set_sql("fct_daily_orders", DAILY_SQL.replace("DATE_TRUNC('day', order_at)", time_expr, 1))
    report = project.run("--partition", "2026-04-06", expect=2).json
    m = mats_by_key(report)["2026-04-06"]
    assert m["status"] == "Failed"
    assert [e["code"] for e in report["errors"]] == ["OutputOutsideWindow"]
    assert report["errors"][0]["partition"] == "2026-04-06"
    # nothing written: the old rows of 04-06 are intact and nothing leaked into 04-07 or NULL
    assert project.daily_table() == before
    assert project.query("SELECT count(*) FROM marts.fct_daily_orders")[0][0] == len(before)
    assert project.partition_map()["2026-04-06"]["status"] == "Failed"


def test_bootstrap_creates_missing_target(project):
    rows = rows_for_days(["2026-04-06"])
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    assert not project.table_exists("marts", "fct_daily_orders")
    # a window with no source rows still creates the (empty) target
    report = project.run("--partition", "2026-01-01").json
    assert mats_by_key(report)["2026-01-01"]["row_count"] == 0
    assert project.table_exists("marts", "fct_daily_orders")
    cols = [r[0] for r in project.query(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' "
        "AND table_name = 'fct_daily_orders' ORDER BY ordinal_position")]
    assert cols == ["order_date", "customer_id", "order_count", "revenue"]
    assert project.query("SELECT count(*) FROM marts.fct_daily_orders")[0][0] == 0
    project.run("--partition", "2026-04-06")
    assert project.daily_table() == expected_daily(rows)


def test_bootstrap_never_replaces_existing_target(project):
    rows = rows_for_days(["2026-04-06", "2026-04-07"])
    project.create_orders(rows)
    project.execute(
        "CREATE SCHEMA marts",
        "CREATE TABLE marts.fct_daily_orders (order_date TIMESTAMP, customer_id INTEGER, "
        "order_count BIGINT, revenue DECIMAL(38, 2))",
        "COMMENT ON TABLE marts.fct_daily_orders IS 'pre-created by the test'",
        "INSERT INTO marts.fct_daily_orders VALUES (TIMESTAMP '2020-01-01 00:00:00', -1, 42, 4.20)",
    )
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.run("--from", "2026-04-06", "--to", "2026-04-07")
    project.run("--partition", "2026-04-06")
    marker = project.query("SELECT order_count, revenue FROM marts.fct_daily_orders WHERE customer_id = -1")
    assert [(c, str(r)) for c, r in marker] == [(42, "4.20")]
    comment = project.query("SELECT comment FROM duckdb_tables() WHERE schema_name = 'marts' "
                            "AND table_name = 'fct_daily_orders'")
    assert comment == [("pre-created by the test",)], "the existing target was replaced"
    table = project.daily_table()
    table.pop((dt.date(2020, 1, 1), -1))
    assert table == expected_daily(rows)


def test_failing_partition_fails_its_whole_batch(project):
    days = ["2026-04-06", "2026-04-07", "2026-04-08", "2026-04-09"]
    rows = rows_for_days(days)
    project.create_orders(rows)
    project.add_model("fct_daily_orders", failing_sql("2026-04-07"),
                      strategy_toml("day", batch_size=2))
    report = project.run("--from", days[0], "--to", days[3], expect=2).json
    m = mats_by_key(report)
    assert {k: v["status"] for k, v in m.items()} == {
        days[0]: "Failed", days[1]: "Failed", days[2]: "Computed", days[3]: "Computed"}
    assert m[days[0]]["partition"]["batched_with"] == [days[1]]
    s = report["partition_summaries"][0]
    assert (s["partitions_succeeded"], s["partitions_failed"]) == (2, 2)
    # one error per failed partition, each naming its own key, with the batch's error
    assert sorted(e["partition"] for e in report["errors"]) == [days[0], days[1]], report["errors"]
    assert len({e["message"] for e in report["errors"]}) == 1, report["errors"]
    # the batch is one transaction: nothing of 04-06 was written although its rows are fine
    assert project.daily_table() == expected_daily(rows, in_days(days[2], days[3]))
    state = project.partition_map()
    assert state[days[0]]["status"] == state[days[1]]["status"] == "Failed"


def test_failed_upstream_model_skips_dependents(project):
    rows = rows_for_days(["2026-04-06"])
    project.create_orders(rows, schema="raw", table="orders")
    project.add_model("stg_orders", "SELECT order_id, customer_id, amount, order_at, no_such_column\n"
                      "FROM orders\n", None, sources=(("raw", "orders"),), target=("raw", "stg_orders"))
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"), depends_on=["stg_orders"])
    report = project.run("--partition", "2026-04-06", expect=2).json
    assert report["status"] in ("failure", "partial_failure")
    errors = {e["model"]: e for e in report["errors"]}
    assert set(errors) == {"stg_orders", "fct_daily_orders"}
    assert errors["fct_daily_orders"]["code"] == "UpstreamFailed"
    assert "stg_orders" in errors["fct_daily_orders"]["message"]
    s = {x["model"]: x for x in report["partition_summaries"]}
    assert s["fct_daily_orders"]["partitions_succeeded"] == 0
    assert s["stg_orders"]["partitions_failed"] == 1
    assert not project.table_exists("marts", "fct_daily_orders")
    assert project.partitions("fct_daily_orders", status="Computed") == []

    # fixed: the staging model runs first, then the daily partition reads it
    project.set_sql("stg_orders", "SELECT order_id, customer_id, amount, order_at FROM orders\n")
    report = project.run("--partition", "2026-04-06").json
    assert report["status"] == "success"
    assert project.daily_table() == expected_daily(rows)


def test_a_column_the_model_gained_after_its_table_was_created_is_refused_with_the_fix(project):
    """The model returns a column its existing table lacks: every partition would fail with the
    warehouse's binder error. strata refuses the model before writing anything, names the column
    and gives the ALTER TABLE that adds it; after it, the partition runs."""
    days = ["2026-04-06", "2026-04-07"]
    rows = rows_for_days(days)
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.run("--partition", days[0])
    before = project.daily_table()
    project.set_sql("fct_daily_orders", DAILY_SQL.replace(
        "SUM(amount) AS revenue", "SUM(amount) AS revenue,\n    MAX(amount) AS largest"))
    report = project.run("--partition", days[1], expect=1).json  # nothing ran
    assert report["status"] == "failure", report
    error, = report["errors"]
    assert error["code"] == "TargetColumns" and "largest" in error["message"], error
    assert 'ALTER TABLE "marts"."fct_daily_orders" ADD COLUMN "largest" DECIMAL' in \
        error["message"], error
    assert project.daily_table() == before
    assert set(project.partition_map("fct_daily_orders")) == {days[0]}  # no state for 04-07
    project.execute('ALTER TABLE "marts"."fct_daily_orders" ADD COLUMN "largest" DECIMAL(12,2)')
    project.run("--partition", days[1])
    largest = project.query("SELECT count(largest) FROM marts.fct_daily_orders "
                            "WHERE order_date >= DATE '2026-04-07'")
    assert largest[0][0] > 0
    # A column the model no longer returns is left alone: new partitions hold NULL there.
    project.set_sql("fct_daily_orders", DAILY_SQL)
    project.run("--partition", days[1])
