"""Shared fixtures for the strata end-to-end tests.

The tests drive the real `strata` binary (path in the env var STRATA_BIN) against small projects
built in a pytest tmp_path, and read the DuckDB warehouse with the `duckdb` Python package as an
independent reader. scripts/setup.sh must install it: `pip install duckdb==1.4.4` (the same DuckDB
release strata links, so the file format matches). `jsonschema` is optional (one assertion is
skipped without it).

DuckDB allows one writer process per file: every helper here opens a connection, does its work and
closes it before strata is invoked again. Never hold a connection across a strata call.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sqlite3
import subprocess
import textwrap
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

try:
    import duckdb  # noqa: F401
except ImportError:  # pragma: no cover - reported clearly by the fixture below
    duckdb = None


DEFAULT_TIMEOUT = 60


def pytest_configure(config):
    # The test tiers (scripts/test.sh): `--fast` runs `-m "not slow"`, the default runs all.
    config.addinivalue_line("markers", "slow: full tier only (kill -9 trials, fault loops, oracles, "
                            "property tests, long backfills, the 1.2 M-order example); "
                            "scripts/test.sh --fast skips it")


@pytest.fixture(scope="session")
def strata_bin() -> str:
    path = os.environ.get("STRATA_BIN")
    if not path:
        pytest.fail("STRATA_BIN is not set: point it at the strata binary, e.g. "
                    "STRATA_BIN=/work/main/build-e2e/src/cli/strata", pytrace=False)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(f"STRATA_BIN={path} is not an executable file", pytrace=False)
    if duckdb is None:
        pytest.fail("the Python package duckdb is not importable; install it with "
                    "`pip install duckdb==1.4.4` (scripts/setup.sh should do this)", pytrace=False)
    return os.path.abspath(path)


class Result:
    def __init__(self, args, completed: subprocess.CompletedProcess):
        self.args = args
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    @property
    def json(self):
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as error:
            raise AssertionError(f"stdout of {self.args} is not JSON ({error}):\n"
                                 f"stdout:\n{self.stdout}\nstderr:\n{self.stderr}") from None

    def __repr__(self):
        return (f"<strata {' '.join(self.args)} -> exit {self.returncode}>\n"
                f"stdout:\n{self.stdout}\nstderr:\n{self.stderr}")


def day(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def ts(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


DAILY_SQL = """\
SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at <  @end_date
GROUP BY 1, 2
"""


def strategy_toml(granularity="day", time_column="order_date", **extra) -> str:
    lines = ['[strategy]', 'type = "time_interval"', f'time_column = "{time_column}"',
             f'granularity = "{granularity}"']
    for key, value in extra.items():
        lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


class Project:
    """A strata project in a temporary folder plus helpers to run strata and read the warehouse."""

    def __init__(self, root: Path, strata_bin: str):
        self.root = root
        self.bin = strata_bin
        self.models_dir = root / "models"
        self.models_dir.mkdir(parents=True, exist_ok=True)
        self.warehouse_path = root / "warehouse.duckdb"
        (root / "strata.toml").write_text(textwrap.dedent("""\
            [project]
            name = "e2e"

            [warehouse]
            type = "duckdb"
            path = "warehouse.duckdb"
            """))

    # ----- project files -------------------------------------------------------------------
    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def add_model(self, name: str, sql: str, strategy: str | None = None, *,
                  depends_on=(), sources=(("raw", "stg_orders"),), target=("marts", None),
                  catalog: str | None = "warehouse", extra: str = "") -> None:
        lines = [f'name = "{name}"']
        if depends_on:
            lines.append("depends_on = [" + ", ".join(f'"{d}"' for d in depends_on) + "]")
        lines.append(extra.rstrip()) if extra else None
        for schema, table in sources:
            lines += ["", "[[sources]]"]
            if catalog:
                lines.append(f'catalog = "{catalog}"')
            lines += [f'schema = "{schema}"', f'table = "{table}"']
        if strategy:
            lines += ["", strategy.rstrip()]
        schema, table = target
        lines += ["", "[target]"]
        if catalog:
            lines.append(f'catalog = "{catalog}"')
        lines += [f'schema = "{schema}"', f'table = "{table or name}"']
        self.write(f"models/{name}.toml", "\n".join(lines) + "\n")
        self.write(f"models/{name}.sql", sql)

    def set_sql(self, name: str, sql: str) -> None:
        self.write(f"models/{name}.sql", sql)

    # ----- warehouse (independent reader/writer) -----------------------------------------
    def execute(self, *statements: str, params=None) -> None:
        con = duckdb.connect(str(self.warehouse_path))
        try:
            for statement in statements:
                con.execute(statement, params) if params is not None else con.execute(statement)
        finally:
            con.close()

    def query(self, sql: str, params=None) -> list[tuple]:
        con = duckdb.connect(str(self.warehouse_path), read_only=True)
        try:
            return con.execute(sql, params).fetchall() if params is not None else con.execute(sql).fetchall()
        finally:
            con.close()

    def table_exists(self, schema: str, table: str) -> bool:
        if not self.warehouse_path.exists():
            return False
        rows = self.query("SELECT count(*) FROM information_schema.tables "
                          "WHERE table_schema = ? AND table_name = ?", [schema, table])
        return rows[0][0] == 1

    def create_orders(self, rows, schema="raw", table="stg_orders") -> None:
        """rows: (order_id, customer_id, amount, order_at) with amount a str/Decimal, order_at a
        datetime or ISO text."""
        con = duckdb.connect(str(self.warehouse_path))
        try:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
            con.execute(f"CREATE OR REPLACE TABLE {schema}.{table} (order_id INTEGER, customer_id INTEGER, "
                        "amount DECIMAL(12, 2), order_at TIMESTAMP)")
            if rows:
                con.executemany(f"INSERT INTO {schema}.{table} VALUES (?, ?, ?, ?)",
                                [(r[0], r[1], Decimal(str(r[2])), _as_ts(r[3])) for r in rows])
        finally:
            con.close()

    def insert_orders(self, rows, schema="raw", table="stg_orders") -> None:
        con = duckdb.connect(str(self.warehouse_path))
        try:
            con.executemany(f"INSERT INTO {schema}.{table} VALUES (?, ?, ?, ?)",
                            [(r[0], r[1], Decimal(str(r[2])), _as_ts(r[3])) for r in rows])
        finally:
            con.close()

    def daily_table(self, table="marts.fct_daily_orders") -> dict:
        """{(date, customer_id): (order_count, revenue)} read from the warehouse."""
        rows = self.query(f"SELECT CAST(order_date AS DATE), customer_id, order_count, revenue FROM {table}")
        out = {}
        for d, customer, count, revenue in rows:
            assert (d, customer) not in out, f"duplicate row for {(d, customer)} in {table}"
            out[(d, customer)] = (count, Decimal(revenue))
        return out

    # ----- strata --------------------------------------------------------------------------
    def strata(self, *args: str, timeout: float = DEFAULT_TIMEOUT, output: str | None = "json",
               project_flag=True) -> Result:
        argv = [self.bin, *args]
        if project_flag:
            argv += ["--project", str(self.root)]
        if output:
            argv += ["--output", output]
        completed = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                                   cwd=self.root)
        return Result(list(args), completed)

    def run(self, *args: str, expect: int | None = 0, timeout: float = DEFAULT_TIMEOUT) -> Result:
        result = self.strata("run", *args, timeout=timeout)
        if expect is not None:
            assert result.returncode == expect, repr(result)
        return result

    def popen(self, *args: str, output_json=True) -> subprocess.Popen:
        argv = [self.bin, *args, "--project", str(self.root)]
        if output_json:
            argv += ["--output", "json"]
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=self.root)

    def partitions(self, model: str | None = None, status: str | None = None) -> list[dict]:
        args = ["partitions"] + ([model] if model else []) + (["--status", status] if status else [])
        result = self.strata(*args)
        assert result.returncode == 0, repr(result)
        return result.json["partitions"]

    def state_query(self, sql: str, params=()) -> list[tuple]:
        """Reads the SQLite state store directly (project.md: tables partitions, runs, plans)."""
        path = self.root / "models" / ".strata-state.db"
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()

    def partition_map(self, model: str | None = None) -> dict:
        return {p["partition_key"]: p for p in self.partitions(model)}

    def wait_for(self, predicate, timeout=30.0, interval=0.1, what="condition"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def _as_ts(value):
    return value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(value)


def expected_daily(rows, keep=lambda r: True) -> dict:
    """The daily aggregate computed from the test's own inputs: {(date, customer): (count, sum)}."""
    out = defaultdict(lambda: [0, Decimal("0")])
    for order_id, customer, amount, order_at in rows:
        order_at = _as_ts(order_at)
        if not keep(order_at):
            continue
        entry = out[(order_at.date(), customer)]
        entry[0] += 1
        entry[1] += Decimal(str(amount))
    return {key: (value[0], value[1]) for key, value in out.items()}


def rows_for_days(days, per_day=3):
    """Orders for `days`: `per_day` a day at 00:00, 00:05, ..., customers 1, 2, 1, ..."""
    rows, oid = [], 0
    for d in days:
        for i in range(per_day):
            oid += 1
            rows.append((oid, 1 + i % 2, f"{oid}.50", f"{d} {i * 5:02d}:00:00"))
    return rows


def in_days(*days: str):
    wanted = {dt.date.fromisoformat(d) for d in days}
    return lambda order_at: order_at.date() in wanted


def mats_by_key(report: dict, model: str | None = None) -> dict:
    out = {}
    for m in report["materializations"]:
        if model and m.get("model") != model:
            continue
        if m.get("partition"):
            key = m["partition"]["key"]
            assert key not in out, f"partition {key} reported twice: {report['materializations']}"
            out[key] = m
    return out


def stop(process: subprocess.Popen, sig=signal.SIGKILL, timeout=30):
    """Send `sig` to a process this test started (by its pid) and wait for it."""
    if process.poll() is None:
        process.send_signal(sig)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return out, err


@pytest.fixture
def project(tmp_path, strata_bin) -> Project:
    return Project(tmp_path / "proj", strata_bin)


@pytest.fixture
def make_project(tmp_path, strata_bin):
    def make(name: str) -> Project:
        return Project(tmp_path / name, strata_bin)
    return make


@pytest.fixture(scope="session")
def pg_server():
    """One throw-away PostgreSQL server for the session (pg_server.py); skips the test only when
    the server binaries are not installed."""
    from pg_server import PgServer
    server = PgServer.start()
    if server is None:
        pytest.skip("PostgreSQL server binaries are not installed")
    yield server
    server.stop()
