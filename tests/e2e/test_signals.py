"""Crash and interrupt safety: kill -9, SIGINT, and the exclusive run lock."""
from __future__ import annotations

import datetime as dt
import signal
import time
from collections import Counter

import pytest

from conftest import DAILY_SQL, expected_daily, mats_by_key, stop, strategy_toml

# Full tier only (scripts/test.sh; `--fast` skips it): kill -9 and signals in the middle of
# backfills.
pytestmark = pytest.mark.slow

# DAILY_SQL plus a cross join with a CPU-heavy one-row subquery: the output is identical, each
# partition just takes a while (~0.1-0.3 s on 2 cores).
SLOW_SQL = """\
SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders,
     (SELECT count(*) AS n FROM range(12000000) AS t(i) WHERE hash(i) % 7 = 0) AS slow
WHERE order_at >= @start_date
  AND order_at <  @end_date
  AND slow.n > 0
GROUP BY 1, 2
"""

N_DAYS = 40


def days_until_today(n=N_DAYS):
    today = dt.datetime.now(dt.timezone.utc).date()
    return [str(today - dt.timedelta(days=i)) for i in range(n - 1, -1, -1)]


def make_rows(days):
    rows, oid = [], 0
    for d in days:
        for customer, hour in ((1, 3), (2, 9), (1, 17)):
            oid += 1
            rows.append((oid, customer, f"{oid}.10", f"{d} {hour:02d}:00:00"))
    return rows


def slow_project(project, days, sql=SLOW_SQL):
    rows = make_rows(days)
    project.create_orders(rows)
    project.add_model("fct_daily_orders", sql, strategy_toml("day", first_partition=days[0]))
    # Create the state store before any concurrency: opening a brand-new state store from two
    # processes at once is a separate bug (test_fresh_state_store_tolerates_a_concurrent_reader).
    assert project.partitions() == []
    return rows


def status_counts(project):
    return Counter(p["status"] for p in project.partitions("fct_daily_orders"))


def wait_mid_run(project, process, computed=2):
    def ready():
        assert process.poll() is None, f"the run ended early: {process.communicate()}"
        counts = status_counts(project)
        return counts if counts["Computed"] >= computed and counts["InProgress"] >= 1 else None
    return project.wait_for(ready, timeout=60, interval=0.05, what="a run in the middle of a backfill")


def table_rows_per_day(project):
    rows = project.query("SELECT CAST(order_date AS DATE), count(*) FROM marts.fct_daily_orders GROUP BY 1")
    return {str(d): n for d, n in rows}


def expected_rows_per_day(rows):
    return Counter(str(day) for (day, _customer) in expected_daily(rows))


def assert_no_partial_partitions(project, rows):
    expected = expected_rows_per_day(rows)
    got = table_rows_per_day(project)
    for d, n in got.items():
        assert n == expected[d], f"partition {d} is partial: {n} rows, expected {expected[d]}"
    # and the content of every present day is exactly right
    table = project.daily_table()
    exp = expected_daily(rows)
    for key, value in table.items():
        assert exp[key] == value
    return got


def test_kill_9_mid_backfill_then_missing_recovers(make_project):
    days = days_until_today()
    project = make_project("killed")
    rows = slow_project(project, days)
    process = project.popen("run", "--from", days[0], "--to", days[-1], "--parallel", "2")
    try:
        wait_mid_run(project, process)
    finally:
        stop(process, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL

    present = assert_no_partial_partitions(project, rows)
    state = project.partition_map("fct_daily_orders")
    in_progress = sorted(k for k, p in state.items() if p["status"] == "InProgress")
    assert in_progress, "the kill should have left InProgress partitions behind"
    assert len(present) < N_DAYS
    for key, p in state.items():
        if p["status"] == "Computed":
            assert present.get(key) == p["row_count"], key

    killed_run = {p["run_id"] for p in state.values()}
    assert len(killed_run) == 1
    killed_run = killed_run.pop()
    assert project.state_query("SELECT status FROM runs WHERE run_id = ?", (killed_run,)) == [("running",)]

    # The next run (of an already computed partition) turns the leftovers into Interrupted.
    done = sorted(k for k, p in state.items() if p["status"] == "Computed")
    project.run("--partition", done[0])
    assert project.state_query("SELECT status FROM runs WHERE run_id = ?", (killed_run,)) == \
        [("interrupted",)]
    assert project.partitions("fct_daily_orders", status="InProgress") == []
    interrupted = sorted(p["partition_key"] for p in
                         project.partitions("fct_daily_orders", status="Interrupted"))
    assert interrupted == in_progress

    report = project.run("--missing", "--parallel", "2", timeout=120).json
    assert report["status"] == "success"
    missing_ran = set(mats_by_key(report))
    assert set(interrupted) <= missing_ran
    assert missing_ran == set(days) - {k for k, p in state.items() if p["status"] == "Computed"}
    final = project.partition_map("fct_daily_orders")
    assert sorted(final) == days and all(p["status"] == "Computed" for p in final.values())
    assert project.daily_table() == expected_daily(rows)

    # A clean, uninterrupted project over the same data (same output SQL without the slow join)
    clean = make_project("clean")
    slow_project(clean, days, sql=DAILY_SQL)
    clean.run("--missing")
    clean_state = clean.partition_map("fct_daily_orders")
    assert {k: (p["row_count"], p["checksum"]) for k, p in final.items()} == \
        {k: (p["row_count"], p["checksum"]) for k, p in clean_state.items()}


def test_sigint_mid_backfill_exits_130_and_marks_interrupted(project):
    days = days_until_today()
    rows = slow_project(project, days)
    process = project.popen("run", "--from", days[0], "--to", days[-1], "--parallel", "2")
    try:
        wait_mid_run(project, process)
    finally:
        out, err = stop(process, signal.SIGINT)
    assert process.returncode == 130, f"exit {process.returncode}\n{out}\n{err}"
    report = __import__("json").loads(out)
    assert report["status"] == "interrupted"

    state = project.partition_map("fct_daily_orders")
    statuses = Counter(p["status"] for p in state.values())
    assert statuses["InProgress"] == 0, state
    assert statuses["Interrupted"] >= 1, "the in-flight partitions must be marked Interrupted"
    assert statuses["Computed"] >= 2
    assert len(state) < N_DAYS, "the run should have stopped early"

    present = assert_no_partial_partitions(project, rows)
    for key, p in state.items():
        if p["status"] == "Computed":
            assert present.get(key) == p["row_count"], key
        else:
            assert p["status"] == "Interrupted"
            assert key not in present, f"interrupted partition {key} left rows behind"
    m = mats_by_key(report)
    for key, p in state.items():
        assert m[key]["status"] == p["status"]
    # Every planned partition is in the report: those the interrupt kept from starting are
    # Skipped with attempts 0 (and have no state); one Interrupted error per model counts them.
    daily = mats_by_key(report, "fct_daily_orders")
    assert sorted(daily) == days
    not_started = [k for k in days if k not in state]
    assert not_started, "the run should have stopped before the last partitions"
    for key in not_started:
        assert daily[key]["status"] == "Skipped" and daily[key]["attempts"] == 0, daily[key]
        assert "interrupted" in daily[key]["error"], daily[key]
    errors = [e for e in report["errors"] if e["model"] == "fct_daily_orders"]
    assert [e["code"] for e in errors] == ["Interrupted"], report["errors"]
    assert f"{len(not_started)} not started" in errors[0]["message"], errors[0]
    assert {e["code"] for e in report["errors"]} == {"Interrupted"}, report["errors"]
    assert project.state_query("SELECT status FROM runs WHERE run_id = ?", (report["run_id"],)) == \
        [("interrupted",)]


def test_concurrent_run_is_refused_naming_the_holder(project):
    days = days_until_today()
    slow_project(project, days)
    process = project.popen("run", "--from", days[0], "--to", days[-1], "--parallel", "1")
    try:
        wait_mid_run(project, process, computed=1)
        holder_run_ids = {p["run_id"] for p in project.partitions("fct_daily_orders")}
        started = time.monotonic()
        second = project.strata("run", "--partition", days[0], timeout=30)
        elapsed = time.monotonic() - started
        assert process.poll() is None, "the first run should still be going"
    finally:
        stop(process, signal.SIGINT)
    assert second.returncode == 1, repr(second)
    assert elapsed < 10, f"the second run waited {elapsed:.1f}s instead of failing at once"
    errors = second.json["errors"]
    assert [e["code"] for e in errors] == ["StateLocked"]
    message = errors[0]["message"]
    assert str(process.pid) in message, message
    assert len(holder_run_ids) == 1 and holder_run_ids.pop() in message, message
    human = None
    # once the holder is gone, the lock is free again
    human = project.run("--partition", days[0], expect=0)
    assert human.json["status"] == "success"


def test_fresh_state_store_tolerates_a_concurrent_reader(make_project):
    """A `strata partitions` issued while a first `strata run` creates the state store must not
    make either command fail (the state store is SQLite in WAL mode with a busy timeout)."""
    days = ["2026-04-06", "2026-04-07", "2026-04-08"]
    failures = []
    for attempt in range(10):
        project = make_project(f"fresh{attempt}")
        project.create_orders(make_rows(days))
        project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
        # an orchestrator polls the state while the first run of a new project starts
        process = project.popen("run", "--from", days[0], "--to", days[-1])
        readers = [project.strata("partitions") for _ in range(10)]
        out, _err = process.communicate(timeout=60)
        if process.returncode != 0:
            failures.append(f"run exit {process.returncode}: {out.strip()[:300]}")
        for reader in readers:
            if reader.returncode != 0:
                failures.append(f"partitions exit {reader.returncode}: {reader.stdout.strip()[:300]}")
    assert failures == [], "\n".join(failures)
