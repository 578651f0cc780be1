"""kill -9 at random moments, 20+ trials per warehouse (DuckDB and PostgreSQL): the next run marks
what the dead run left InProgress as Interrupted, finishes, and the data and per-partition state
equal a clean run's exactly.

The project is a small DAG: stg_orders (full_refresh) -> fct_daily_orders (time_interval, slowed
down so a run lasts long enough to be killed anywhere) -> daily_rollup (time_interval). The kill
moments are drawn uniformly over a clean run's duration from a seeded generator (the seed is in
the failure message)."""
from __future__ import annotations

import datetime as dt
import random
import signal
import textwrap
import time

import pytest

from conftest import stop, strategy_toml

# Full tier only (scripts/test.sh; `--fast` skips it): kill -9 trials at random moments.
pytestmark = pytest.mark.slow

TRIALS = 20
N_DAYS = 8
SEED = 20261129

SLOW_DAILY_SQL = """\
SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders,
     (SELECT count(*) AS n FROM generate_series(1, 600000) AS g(i)) AS slow
WHERE order_at >= @start_date
  AND order_at <  @end_date
  AND slow.n > 0
GROUP BY 1, 2
"""

ROLLUP_SQL = """\
SELECT order_date, SUM(order_count) AS order_count, SUM(revenue) AS revenue
FROM fct_daily_orders
WHERE order_date >= @start_date AND order_date < @end_date
GROUP BY 1
"""

TABLES = {
    "staging.stg_orders": "SELECT order_id, customer_id, amount, order_at FROM staging.stg_orders ORDER BY 1",
    "marts.fct_daily_orders": "SELECT CAST(order_date AS DATE), customer_id, order_count, revenue "
                              "FROM marts.fct_daily_orders ORDER BY 1, 2",
    "marts.daily_rollup": "SELECT CAST(order_date AS DATE), order_count, revenue "
                          "FROM marts.daily_rollup ORDER BY 1",
}


def days_until_today():
    today = dt.datetime.now(dt.timezone.utc).date()
    return [str(today - dt.timedelta(days=i)) for i in range(N_DAYS - 1, -1, -1)]


def order_rows(days):
    rows, oid = [], 0
    for d in days:
        for i in range(6):
            oid += 1
            rows.append((oid, 1 + i % 3, f"{oid}.25", f"{d} {i * 3 + 1:02d}:15:00"))
    return rows


def add_models(project, first_day):
    project.add_model("stg_orders", "SELECT order_id, customer_id, amount, order_at FROM orders\n",
                      sources=(("raw", "orders"),), target=("staging", "stg_orders"), catalog=None)
    project.add_model("fct_daily_orders", SLOW_DAILY_SQL,
                      strategy_toml("day", first_partition=first_day), depends_on=["stg_orders"],
                      sources=(), catalog=None)
    project.add_model("daily_rollup", ROLLUP_SQL,
                      strategy_toml("day", first_partition=first_day, batch_size=2),
                      depends_on=["fct_daily_orders"], sources=(), catalog=None)


class DuckDbBackend:
    name = "duckdb"

    def __init__(self, make_project):
        self.make_project = make_project

    def project(self, label, rows, days):
        project = self.make_project(f"duck_{label}")
        project.create_orders(rows, schema="raw", table="orders")
        add_models(project, days[0])
        return project

    def snapshot(self, project):
        return {table: [tuple(str(v) for v in row) for row in project.query(sql)]
                for table, sql in TABLES.items()}


class PostgresBackend:
    name = "postgres"

    def __init__(self, make_project, server):
        self.make_project = make_project
        self.server = server
        self.databases = {}

    def project(self, label, rows, days):
        project = self.make_project(f"pg_{label}")
        database = self.server.create_database("kill")
        project.write("strata.toml", textwrap.dedent(f"""\
            [project]
            name = "kill9"

            [warehouse]
            type = "postgres"
            dsn = "{database.dsn}"
            """))
        values = ", ".join(f"({r[0]}, {r[1]}, {r[2]}, TIMESTAMP '{r[3]}')" for r in rows)
        database.execute("CREATE SCHEMA raw",
                         "CREATE TABLE raw.orders (order_id integer, customer_id integer, "
                         "amount numeric(12, 2), order_at timestamp)",
                         f"INSERT INTO raw.orders VALUES {values}")
        add_models(project, days[0])
        self.databases[str(project.root)] = database
        return project

    def snapshot(self, project):
        database = self.databases[str(project.root)]
        return {table: [tuple(str(v) for v in row) for row in database.query(sql)]
                for table, sql in TABLES.items()}


def partition_state(project):
    out = {}
    for p in project.partitions():
        out[(p["model"], p["partition_key"])] = (p["status"], p["row_count"], p["checksum"])
    return out


def run_kill_trials(backend):
    days = days_until_today()
    rows = order_rows(days)
    clean = backend.project("clean", rows, days)
    started = time.monotonic()
    report = clean.run("--missing", "--parallel", "2", timeout=120).json
    duration = time.monotonic() - started
    assert report["status"] == "success"
    clean_data = backend.snapshot(clean)
    clean_state = partition_state(clean)
    assert len(clean_state) == 2 * N_DAYS and all(s[0] == "Computed" for s in clean_state.values())

    rng = random.Random(SEED)
    kills, attempts, interrupted_seen = 0, 0, 0
    horizon = duration  # kill moments are drawn from [0, horizon)
    while kills < TRIALS:
        attempts += 1
        assert attempts <= 5 * TRIALS, "the runs keep finishing before the kill"
        delay = rng.uniform(0.0, horizon)
        project = backend.project(f"t{attempts}", rows, days)
        assert project.partitions() == []  # the state store exists before the race
        process = project.popen("run", "--missing", "--parallel", "2")
        time.sleep(delay)
        stop(process, signal.SIGKILL)
        where = f"{backend.name} trial {attempts} (seed {SEED}, kill after {delay:.3f}s)"
        if process.returncode != -signal.SIGKILL:
            assert process.returncode == 0, f"{where}: {process.returncode}"
            horizon *= 0.8  # runs are faster than the clean one was (a quieter machine)
            continue  # finished before the kill: not a trial
        kills += 1
        left = {k for k, s in partition_state(project).items() if s[0] == "InProgress"}
        dead_runs = project.state_query("SELECT run_id FROM runs WHERE status = 'running'")

        report = project.run("--missing", "--parallel", "2", timeout=120, expect=None)
        assert report.returncode == 0, f"{where}: {report!r}"
        assert report.json["status"] == "success", where
        # what the dead run left InProgress was marked Interrupted in its history
        for (run_id,) in dead_runs:
            assert project.state_query("SELECT status FROM runs WHERE run_id = ?", (run_id,)) == \
                [("interrupted",)], where
            marked = {(m, k) for m, k, s in project.state_query(
                "SELECT model_name, partition_key, status FROM run_partitions WHERE run_id = ?",
                (run_id,)) if s == "Interrupted"}
            assert left <= marked, where
        interrupted_seen += len(left)
        assert partition_state(project) == clean_state, where
        assert backend.snapshot(project) == clean_data, where
    print(f"\n{backend.name}: clean run {duration:.2f}s; {kills} kills in {attempts} attempts; "
          f"{interrupted_seen} partitions left InProgress and recovered")
    return kills, interrupted_seen


def test_kill_9_at_random_moments_on_duckdb(make_project):
    kills, interrupted = run_kill_trials(DuckDbBackend(make_project))
    assert kills >= TRIALS
    assert interrupted > 0, "no kill landed inside a partition's transaction"


def test_kill_9_at_random_moments_on_postgres(make_project, pg_server):
    kills, interrupted = run_kill_trials(PostgresBackend(make_project, pg_server))
    assert kills >= TRIALS
    assert interrupted > 0, "no kill landed inside a partition's transaction"
