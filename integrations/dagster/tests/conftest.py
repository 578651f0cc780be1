"""Fixtures for the dagster-strata tests: the real strata binary ($STRATA_BIN), real projects in
tmp folders with real DuckDB warehouses, read back with the `duckdb` package.

The example project (`strata init --example`, ~1.2 M generated orders) is created once per
session with its staging model built; each test that writes gets its own copy.
DuckDB allows one writer process per file: read it only between strata calls.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import duckdb
import pytest


@pytest.fixture(scope="session")
def strata_bin() -> str:
    path = os.environ.get("STRATA_BIN")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"STRATA_BIN must name the strata binary (got {path!r})", pytrace=False)
    return os.path.abspath(path)


def strata(strata_bin, *args, check=True):
    completed = subprocess.run([strata_bin, *args], capture_output=True, text=True, timeout=300)
    if check and completed.returncode != 0:
        raise AssertionError(f"strata {' '.join(args)} exited {completed.returncode}:\n"
                             f"{completed.stdout}\n{completed.stderr}")
    return completed


@pytest.fixture(scope="session")
def example_template(tmp_path_factory, strata_bin) -> Path:
    root = tmp_path_factory.mktemp("example") / "shop"
    strata(strata_bin, "init", str(root), "--example", "--output", "json")
    strata(strata_bin, "run", "--project", str(root), "--model", "stg_orders", "--output", "json")
    return root


@pytest.fixture
def example_project(example_template, tmp_path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(example_template, root)
    return root


def query(project_dir: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(project_dir / "warehouse.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


@pytest.fixture
def small_project(tmp_path) -> Path:
    """A project with raw.events and a daily model whose SQL fails on 2026-03-05 only."""
    root = tmp_path / "small"
    (root / "models").mkdir(parents=True)
    (root / "strata.toml").write_text(textwrap.dedent("""\
        [project]
        name = "small"

        [warehouse]
        type = "duckdb"
        path = "warehouse.duckdb"
        """))
    con = duckdb.connect(str(root / "warehouse.duckdb"))
    con.execute("CREATE SCHEMA raw")
    con.execute("CREATE TABLE raw.events AS SELECT i AS id, "
                "TIMESTAMP '2026-03-01' + i * INTERVAL 1 HOUR AS event_at "
                "FROM range(0, 24 * 10) t(i)")
    con.close()
    (root / "models" / "fct_fragile.toml").write_text(textwrap.dedent("""\
        name = "fct_fragile"

        [[sources]]
        schema = "raw"
        table = "events"

        [strategy]
        type = "time_interval"
        time_column = "event_date"
        granularity = "day"
        first_partition = "2026-03-01"

        [target]
        schema = "marts"
        table = "fct_fragile"
        """))
    # A runtime error in one window only: the cast of 'boom' fails where event_at is 2026-03-05.
    (root / "models" / "fct_fragile.sql").write_text(textwrap.dedent("""\
        SELECT CAST(event_at AS DATE) AS event_date,
               count(*) AS events,
               max(CAST(CASE WHEN CAST(event_at AS DATE) = DATE '2026-03-05' THEN 'boom'
                             ELSE '1' END AS INTEGER)) AS ok
        FROM events
        WHERE event_at >= @start_date AND event_at < @end_date
        GROUP BY 1
        """))
    return root


NEW_YORK = "America/New_York"


@pytest.fixture
def zoned_project(tmp_path) -> Path:
    """raw.events every 10 minutes (naive TIMESTAMPs holding UTC instants) over New York's two
    2026 clock changes, and two models in America/New_York, both a row per UTC hour of their
    window: fct_ny_daily (23, 24 or 25 rows a day) and fct_ny_hourly (one row)."""
    root = tmp_path / "zoned"
    (root / "models").mkdir(parents=True)
    (root / "strata.toml").write_text(textwrap.dedent("""\
        [project]
        name = "zoned"

        [warehouse]
        type = "duckdb"
        path = "warehouse.duckdb"
        """))
    con = duckdb.connect(str(root / "warehouse.duckdb"))
    con.execute("CREATE SCHEMA raw")
    con.execute("CREATE TABLE raw.events AS SELECT row_number() OVER () AS id, event_at FROM ("
                "SELECT unnest(generate_series(TIMESTAMP '2026-03-06', TIMESTAMP '2026-03-11', "
                "INTERVAL 10 MINUTE)) AS event_at UNION ALL "
                "SELECT unnest(generate_series(TIMESTAMP '2026-10-30', TIMESTAMP '2026-11-04', "
                "INTERVAL 10 MINUTE))) WHERE event_at NOT IN "
                "(TIMESTAMP '2026-03-11', TIMESTAMP '2026-11-04')")
    con.close()
    for name, grain, first in (("fct_ny_daily", "day", "2026-03-01"),
                               ("fct_ny_hourly", "hour", "2026-03-01T00-05:00")):
        (root / "models" / f"{name}.toml").write_text(textwrap.dedent(f"""\
            name = "{name}"

            [[sources]]
            schema = "raw"
            table = "events"

            [strategy]
            type = "time_interval"
            time_column = "event_hour"
            granularity = "{grain}"
            timezone = "{NEW_YORK}"
            first_partition = "{first}"

            [target]
            schema = "marts"
            table = "{name}"
            """))
        (root / "models" / f"{name}.sql").write_text(textwrap.dedent("""\
            SELECT date_trunc('hour', event_at) AS event_hour, count(*) AS events
            FROM events
            WHERE event_at >= @start_date AND event_at < @end_date
            GROUP BY 1
            """))
    return root
