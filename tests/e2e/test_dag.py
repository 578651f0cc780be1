"""DAG-aware runs: a downstream partition waits only for the upstream partitions it reads, and a
failed upstream partition skips exactly the partitions that depend on it."""
from __future__ import annotations

from conftest import DAILY_SQL, expected_daily, in_days, mats_by_key, strategy_toml
from conftest import rows_for_days
from test_failures import failing_sql

DAYS = ["2026-04-06", "2026-04-07", "2026-04-08", "2026-04-09"]

ROLLUP_SQL = """\
SELECT order_date, SUM(revenue) AS revenue, SUM(order_count) AS order_count
FROM fct_daily_orders
WHERE order_date >= @start_date AND order_date < @end_date
GROUP BY 1
"""


def build_dag(project, bad_day):
    rows = rows_for_days(DAYS)
    project.create_orders(rows)
    project.add_model("fct_daily_orders", failing_sql(bad_day), strategy_toml("day"))
    project.add_model("daily_rollup", ROLLUP_SQL, strategy_toml("day"),
                      depends_on=["fct_daily_orders"])
    project.add_model("customer_totals",
                      "SELECT customer_id, SUM(revenue) AS revenue FROM fct_daily_orders GROUP BY 1\n",
                      None, depends_on=["fct_daily_orders"])
    project.add_model("independent_daily", DAILY_SQL, strategy_toml("day"),
                      target=("marts", "independent_daily"))
    return rows


def test_failed_upstream_partition_skips_exactly_its_dependents(project):
    rows = build_dag(project, bad_day=DAYS[1])
    report = project.run("--from", DAYS[0], "--to", DAYS[-1], expect=2).json
    assert report["status"] == "partial_failure"

    upstream = mats_by_key(report, "fct_daily_orders")
    assert {k: m["status"] for k, m in upstream.items()} == {
        DAYS[0]: "Computed", DAYS[1]: "Failed", DAYS[2]: "Computed", DAYS[3]: "Computed"}
    rollup = mats_by_key(report, "daily_rollup")
    assert {k: m["status"] for k, m in rollup.items()} == {
        DAYS[0]: "Computed", DAYS[1]: "Skipped", DAYS[2]: "Computed", DAYS[3]: "Computed"}
    skipped = rollup[DAYS[1]]
    assert skipped["attempts"] == 0 and skipped["row_count"] is None
    assert "fct_daily_orders" in skipped["error"] and DAYS[1] in skipped["error"]
    assert all(m["attempts"] == 1 and m["retries"] == [] for k, m in rollup.items() if k != DAYS[1])

    # the whole-model reader of the failed model is skipped; the independent model is untouched
    whole = [m for m in report["materializations"] if m["model"] == "customer_totals"]
    assert [m["status"] for m in whole] == ["Skipped"]
    assert "fct_daily_orders" in whole[0]["error"]
    independent = mats_by_key(report, "independent_daily")
    assert all(m["status"] == "Computed" for m in independent.values()) and len(independent) == 4

    summaries = {s["model"]: s for s in report["partition_summaries"]}
    assert (summaries["daily_rollup"]["partitions_succeeded"],
            summaries["daily_rollup"]["partitions_skipped"]) == (3, 1)
    assert summaries["customer_totals"]["partitions_skipped"] == 1
    errors = {(e["model"], e["code"]) for e in report["errors"]}
    assert ("daily_rollup", "UpstreamFailed") in errors
    assert ("customer_totals", "UpstreamFailed") in errors

    # state: the skipped partition is in the run history as Skipped with the reason, and has no
    # `partitions` row (it was never attempted); the others are Computed
    history = project.state_query(
        "SELECT partition_key, status, error FROM run_partitions WHERE run_id = ? "
        "AND model_name = 'daily_rollup' ORDER BY partition_key", (report["run_id"],))
    assert [(k, s) for k, s, _ in history] == [
        (DAYS[0], "Computed"), (DAYS[1], "Skipped"), (DAYS[2], "Computed"), (DAYS[3], "Computed")]
    assert "fct_daily_orders" in history[1][2]
    state = project.partition_map("daily_rollup")
    assert sorted(state) == [DAYS[0], DAYS[2], DAYS[3]]
    assert not project.table_exists("marts", "customer_totals")
    computed = project.query("SELECT CAST(order_date AS DATE) FROM marts.daily_rollup ORDER BY 1")
    assert [str(d) for (d,) in computed] == [DAYS[0], DAYS[2], DAYS[3]]

    # fixed: the next run over the same range converges; nothing is duplicated
    project.set_sql("fct_daily_orders", DAILY_SQL)
    report = project.run("--from", DAYS[0], "--to", DAYS[-1]).json
    assert report["status"] == "success"
    assert project.daily_table() == expected_daily(rows)
    totals = project.query("SELECT order_date, revenue, order_count FROM marts.daily_rollup ORDER BY 1")
    daily = project.query("SELECT order_date, SUM(revenue), SUM(order_count) FROM "
                          "marts.fct_daily_orders GROUP BY 1 ORDER BY 1")
    assert totals == daily and len(totals) == 4


def test_downstream_of_a_model_that_cannot_compile_is_skipped(project):
    build_dag(project, bad_day="2000-01-01")
    project.set_sql("fct_daily_orders", "SELECT order_date FROM stg_orders\n")  # E024: unbounded
    report = project.run("--from", DAYS[0], "--to", DAYS[-1], expect=2).json
    failed = mats_by_key(report, "fct_daily_orders")
    assert {m["status"] for m in failed.values()} == {"Failed"}
    assert all(m["attempts"] == 0 for m in failed.values())  # never sent to the warehouse
    rollup = mats_by_key(report, "daily_rollup")
    assert {m["status"] for m in rollup.values()} == {"Skipped"}
    assert all("model fct_daily_orders" in m["error"] for m in rollup.values())
    assert all(m["status"] == "Computed" for m in mats_by_key(report, "independent_daily").values())


def test_serial_run_of_a_dag_gives_the_same_tables_as_a_parallel_one(make_project):
    tables = []
    for parallel in ("1", "4"):
        project = make_project(f"p{parallel}")
        rows = build_dag(project, bad_day="2000-01-01")
        report = project.run("--from", DAYS[0], "--to", DAYS[-1], "--parallel", parallel).json
        assert report["status"] == "success"
        assert project.daily_table() == expected_daily(rows, in_days(*DAYS))
        tables.append((project.query("SELECT * FROM marts.daily_rollup ORDER BY 1"),
                       project.query("SELECT * FROM marts.customer_totals ORDER BY 1")))
    assert tables[0] == tables[1]


def test_a_model_run_without_its_never_built_upstream_says_to_build_it_first(project):
    project.create_orders(rows_for_days(DAYS))
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.add_model("daily_rollup", ROLLUP_SQL, strategy_toml("day"),
                      depends_on=["fct_daily_orders"])
    report = project.run("--model", "daily_rollup", "--partition", DAYS[0], expect=1).json
    [error] = report["errors"]
    assert error["code"] == "WarehouseCatalog", report
    assert ("daily_rollup depends on fct_daily_orders, whose table does not exist yet"
            in error["message"]), error
    assert "--model fct_daily_orders" in error["message"], error
    # each selected partition is in the document, Failed with that error, never attempted
    assert [(m["partition"]["key"], m["status"], m["attempts"])
            for m in report["materializations"]] == [(DAYS[0], "Failed", 0)], report
    assert "does not exist yet" in report["materializations"][0]["error"]
    # once the upstream is built, the same selection runs
    project.run("--model", "fct_daily_orders", "--partition", DAYS[0])
    report = project.run("--model", "daily_rollup", "--partition", DAYS[0]).json
    assert [m["status"] for m in report["materializations"]] == ["Computed"], report
