"""The state check before a run: Computed partitions whose rows are not in the warehouse are
reported (W040), and --missing rebuilds them instead of trusting the state store."""
from __future__ import annotations

import pytest

from conftest import DAILY_SQL, expected_daily, strategy_toml

# Full tier only (scripts/test.sh; `--fast` skips it): the state check over real backfills, DuckDB
# and PostgreSQL.
pytestmark = pytest.mark.slow

ORDERS = [
    (1, 10, "5.00", "2026-04-05 10:00:00"),
    (2, 10, "7.25", "2026-04-06 00:00:00"),
    (3, 11, "1.50", "2026-04-06 08:30:00"),
    (4, 12, "9.99", "2026-04-07 00:00:00"),
    (5, 11, "3.00", "2026-04-07 12:00:00"),
    (6, 12, "4.00", "2026-04-08 18:00:00"),
]
DAYS = ["2026-04-05", "2026-04-06", "2026-04-07", "2026-04-08"]


def backfilled(project):
    project.create_orders(ORDERS)
    project.add_model("fct_daily_orders", DAILY_SQL,
                      strategy_toml("day", first_partition="2026-04-05"))
    project.run("--from", DAYS[0], "--to", DAYS[-1])
    return project


def w040(report) -> dict:
    return {w["partition"]: w for w in report["warnings"] if w["code"] == "W040"}


def missing_keys(report) -> list:
    return sorted(m["partition"]["key"] for m in report["materializations"]
                  if m["partition"]["key"] in DAYS)


def test_a_clean_state_has_no_warning_and_missing_runs_nothing_old(project):
    backfilled(project)
    report = project.run("--missing").json
    assert report["warnings"] == []
    assert missing_keys(report) == []


def test_rows_deleted_behind_the_state_are_reported_and_rebuilt(project):
    backfilled(project)
    project.execute("DELETE FROM marts.fct_daily_orders WHERE order_date = DATE '2026-04-06'")
    report = project.run("--missing").json
    lost = w040(report)
    assert set(lost) == {"2026-04-06"}, report["warnings"]
    assert lost["2026-04-06"]["model"] == "fct_daily_orders"
    assert "2 row(s)" in lost["2026-04-06"]["message"] and "holds 0" in lost["2026-04-06"]["message"]
    assert missing_keys(report) == ["2026-04-06"]
    assert project.daily_table() == expected_daily(ORDERS)
    assert project.run("--missing").json["warnings"] == []


def test_extra_rows_in_a_window_also_disagree(project):
    backfilled(project)
    project.execute("INSERT INTO marts.fct_daily_orders SELECT * FROM marts.fct_daily_orders "
                    "WHERE order_date = DATE '2026-04-07'")
    report = project.run("--missing").json
    assert set(w040(report)) == {"2026-04-07"}
    assert missing_keys(report) == ["2026-04-07"]
    assert project.daily_table() == expected_daily(ORDERS)


def test_a_dropped_table_makes_every_computed_partition_missing(project):
    backfilled(project)
    project.execute("DROP TABLE marts.fct_daily_orders")
    report = project.run("--missing").json
    assert set(w040(report)) == set(DAYS)
    assert all("does not exist" in w["message"] for w in report["warnings"])
    assert missing_keys(report) == DAYS
    assert project.daily_table() == expected_daily(ORDERS)


def test_a_deleted_warehouse_file_makes_every_computed_partition_missing(project):
    backfilled(project)
    rows = project.query("SELECT * FROM raw.stg_orders")
    project.warehouse_path.unlink()
    project.create_orders(rows)  # the sources come back (a restored raw layer); the marts do not
    report = project.run("--missing").json
    assert set(w040(report)) == set(DAYS)
    assert missing_keys(report) == DAYS
    assert project.daily_table() == expected_daily(ORDERS)


def test_an_explicit_selection_reports_but_does_not_rebuild_other_partitions(project):
    backfilled(project)
    project.execute("DELETE FROM marts.fct_daily_orders WHERE order_date = DATE '2026-04-06'")
    report = project.run("--partition", "2026-04-08").json
    assert set(w040(report)) == {"2026-04-06"}
    assert missing_keys(report) == ["2026-04-08"]
    human = project.strata("run", "--partition", "2026-04-08", output="human")
    assert human.returncode == 0, repr(human)
    assert "warning[W040]" in human.stderr and "2026-04-06" in human.stderr


def test_plan_lists_the_warnings(project):
    backfilled(project)
    project.execute("DELETE FROM marts.fct_daily_orders WHERE order_date = DATE '2026-04-05'")
    plan = project.strata("plan", "--missing")
    assert plan.returncode == 0, repr(plan)
    assert set(w040(plan.json)) == {"2026-04-05"}


def test_a_state_check_that_cannot_read_the_warehouse_says_so(project):
    import duckdb
    backfilled(project)
    holder = duckdb.connect(str(project.warehouse_path))  # another process holds the file's lock
    try:
        plan = project.strata("plan", "--missing")
    finally:
        holder.close()
    assert plan.returncode == 0, repr(plan)
    [warning] = plan.json["warnings"]
    assert (warning["code"], warning["model"]) == ("W040", "fct_daily_orders"), warning
    assert "could not check" in warning["message"] and "trusted" in warning["message"], warning
