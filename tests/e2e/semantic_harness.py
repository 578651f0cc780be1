"""Shared machinery of the semantic-layer end-to-end tests (test_semantic_*.py).

A pytest plugin (each test module names it in `pytest_plugins`, so its session fixtures exist
once per session):

- `semantic_example`: `strata init --example` run ONCE per session (1.2 M orders, 40 k customers,
  150 k tickets in DuckDB). The expected answers are computed by the `duckdb` Python package on a
  COPY of the warehouse file, so the reader never holds a lock strata needs.
- `semantic_pg`: the same semantic model over a PostgreSQL copy of raw.orders / raw.customers /
  raw.tickets (every 8th order, every 2nd ticket, every customer: PostgreSQL aggregates 1.2 M
  rows in ~0.8 s and the corpus runs each query twice), in a fresh database on a throw-away server
  (pg_server.py). customers.signup_at and tickets.opened_at are timestamptz there and the
  database's default time zone is America/New_York, so UTC handling is exercised. Skips when the
  PostgreSQL server binaries are not installed.

Comparison rules (`compare_answer`):
- the same column names (`Order.status`, `Order.order_date.month`, `Order.revenue`, ...): the
  expected SQL returns dimensions, then time dimensions with a grain, then measures, in query
  order; strata's columns may come in any order and are matched by name;
- the same rows as multisets (in order when the query has `order`);
- numbers within a relative 1e-7, or the case's `tolerance` for that column (sums of DECIMAL are
  exact in both engines; avg and double sums may differ in the last bits), percentiles included:
  a continuous percentile interpolates between two values (the median of 131.21 and 131.22 is
  131.215, which DuckDB's quantile_cont over a DECIMAL(12, 2) column would round to the column's
  scale); count_distinct_approx within 3 x 1.6 % relative of the exact count (or the case's
  `approx_tolerance`), or 3 for small sets (APPROX_SMALL_SET_SLACK);
- times as naive UTC datetimes ("2026-01-01T00:00:00Z", DuckDB's DATE/TIMESTAMP and psql's text
  all normalize to the same value).
"""
from __future__ import annotations

import datetime as dt
import json
import math
import os
import shutil
import subprocess
import tempfile
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

try:
    import duckdb
except ImportError:  # pragma: no cover - conftest's strata_bin fixture reports it
    duckdb = None

from pg_server import PgServer, psql_bin

PG_DSN_ENV = "STRATA_E2E_SEMANTIC_PG_DSN"
QUERY_TIMEOUT = 60

# The semantic model's member types, written here from semantic/model.yml (the test's own copy
# of the contract; a renamed member fails loudly).
MEMBER_TYPES = {
    "Order.order_id": "number", "Order.status": "string", "Order.amount": "number",
    "Order.order_date": "time", "Order.loaded_at": "time",
    "Customer.customer_id": "number", "Customer.name": "string", "Customer.region": "string",
    "Customer.segment": "string", "Customer.signup_date": "time",
    "Ticket.ticket_id": "number", "Ticket.priority": "string", "Ticket.channel": "string",
    "Ticket.status": "string", "Ticket.opened_date": "time",
}
APPROX_MEASURES = {"Order.customer_id_approx"}
APPROX_RELATIVE_ERROR = 3 * 0.016
# HLL's 1.6 % is its relative error for large sets. Below a few hundred values the estimate is
# linear counting over 4,096 registers: two values sharing a register (probability ~n^2/8192)
# make it one low, so small groups get an absolute slack of 3 instead (a 54-value group read
# as 51 is three collisions: rare, but seen in 150 groups of ~50).
APPROX_SMALL_SET_SLACK = 3
# Error codes that mean "the query was refused before it ran" (docs/error-codes.md).
REFUSAL_CODES = {"QueryInvalid", "AccessDenied", "FanOut", "AmbiguousPath"}


def member_type(name: str) -> str:
    """The result type of a requested member name (dimensions through paths included)."""
    parts = name.split(".")
    grains = {"hour", "day", "week", "month", "quarter", "year", "fiscal_quarter", "fiscal_year"}
    if parts[-1] in grains:
        return "time"
    if len(parts) == 2 and name in MEMBER_TYPES:
        return MEMBER_TYPES[name]
    if len(parts) == 3:  # Entity.relationship.member: the path's target entity decides
        target = {"customer": "Customer"}.get(parts[1])
        if target and f"{target}.{parts[2]}" in MEMBER_TYPES:
            return MEMBER_TYPES[f"{target}.{parts[2]}"]
    return "number"  # measures and metrics


def expected_columns(query: dict) -> list[str]:
    names = list(query.get("dimensions", []))
    for time_dimension in query.get("time_dimensions", []):
        if time_dimension.get("grain"):
            names.append(f"{time_dimension['dimension']}.{time_dimension['grain']}")
    names += list(query.get("measures", []))
    return names


# ----- running strata ------------------------------------------------------------------------

class QueryResult:
    def __init__(self, argv, completed: subprocess.CompletedProcess, query):
        self.argv = argv
        self.query = query
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.body = None
        for text in (self.stdout, self.stderr):
            try:
                self.body = json.loads(text)
                break
            except (json.JSONDecodeError, TypeError):
                continue

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and isinstance(self.body, dict) and "rows" in self.body

    def error_codes(self) -> list[str]:
        """The error codes of a failed query, whichever JSON shape carries them."""
        body = self.body
        if not isinstance(body, dict):
            return []
        if isinstance(body.get("errors"), list):
            return [e.get("code") for e in body["errors"] if isinstance(e, dict)]
        if isinstance(body.get("error"), dict):
            return [body["error"].get("code")]
        if "code" in body:
            return [body["code"]]
        return []

    def __repr__(self):
        return (f"<strata query {json.dumps(self.query)} -> exit {self.returncode}>\n"
                f"stdout:\n{self.stdout[:4000]}\nstderr:\n{self.stderr[:4000]}")


class SemanticProject:
    """A project folder with semantic/model.yml and a warehouse strata can query."""

    def __init__(self, root: Path, strata_bin: str, name: str):
        self.root = root
        self.bin = strata_bin
        self.name = name

    def query(self, query, role: str | None = None, raw_text: str | None = None,
              env: dict | None = None, output: str = "json") -> QueryResult:
        """Runs `strata query --file q.json` (raw_text: the file's exact text, for malformed JSON;
        env: variables added to the environment; output: --output)."""
        handle, path = tempfile.mkstemp(prefix="q-", suffix=".json", dir=self.root)
        with os.fdopen(handle, "w") as out:
            out.write(raw_text if raw_text is not None else json.dumps(query))
        argv = [self.bin, "query", "--project", str(self.root), "--output", output, "--file", path]
        if role is not None:
            argv += ["--role", role]
        try:
            completed = subprocess.run(argv, capture_output=True, text=True, timeout=QUERY_TIMEOUT,
                                       cwd=self.root, env={**os.environ, **env} if env else None)
        finally:
            os.unlink(path)
        return QueryResult(argv, completed, query if raw_text is None else raw_text)


# ----- the expected side ----------------------------------------------------------------------

class DuckDbOracle:
    """Runs the hand-written SQL on a copy of the example warehouse."""

    def __init__(self, path: Path):
        self.connection = duckdb.connect(str(path), read_only=True)

    def rows(self, sql: str) -> list[tuple]:
        return self.connection.execute(sql).fetchall()

    def close(self):
        self.connection.close()


class PgOracle:
    """Runs the hand-written SQL through psql (rows of text; NULL as None), in UTC: the
    database's default time zone is not (see semantic_pg)."""

    def __init__(self, database):
        self.database = database

    def rows(self, sql: str) -> list[tuple]:
        return self.database.query("SET TIME ZONE 'UTC';\n" + sql)

    def close(self):
        pass


class Dates:
    """Dates of the example's data range (it is relative to the day `strata init` ran)."""

    def __init__(self, first: dt.datetime, end: dt.datetime, anchor: dt.datetime):
        self.first = first          # first day of the first month with data
        self.end = end              # start of the init day (exclusive end of the data)
        self.anchor = anchor        # order_at of order 600000 (also in the PostgreSQL subset)

    def month(self, k: int) -> str:
        """First day of the k-th month after the first one, as YYYY-MM-DD."""
        total = self.first.year * 12 + self.first.month - 1 + k
        return dt.date(total // 12, total % 12 + 1, 1).isoformat()

    def day(self, k: int) -> str:
        return (self.first + dt.timedelta(days=k)).date().isoformat()

    def at(self, delta_seconds: int = 0) -> dt.datetime:
        return self.anchor + dt.timedelta(seconds=delta_seconds)

    @staticmethod
    def iso(value: dt.datetime) -> str:
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")

    @staticmethod
    def sql(value) -> str:
        """A SQL timestamp literal for a date string or a datetime."""
        if isinstance(value, dt.datetime):
            return f"TIMESTAMP '{value.strftime('%Y-%m-%d %H:%M:%S')}'"
        return f"TIMESTAMP '{value} 00:00:00'"


# ----- normalization and comparison -----------------------------------------------------------

def _to_time(value):
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None) if value.tzinfo is None else \
            value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    text = str(value).strip().replace(" ", "T")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    if len(text) == 10:
        text += "T00:00:00"
    parsed = dt.datetime.fromisoformat(text)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return parsed


def _to_number(value):
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    return float(str(value))


def _to_string(value):
    return None if value is None else str(value)


def normalize(value, kind: str):
    if kind == "time":
        return _to_time(value)
    if kind == "number":
        return _to_number(value)
    if kind == "boolean":
        if value is None:
            return None
        return value if isinstance(value, bool) else str(value).lower() in ("t", "true", "1")
    return _to_string(value)


def _close(expected, got, column: str, null_is_zero: bool, tolerance: float = 1e-7,
           approx_tolerance: float = APPROX_RELATIVE_ERROR) -> bool:
    if null_is_zero:
        expected = 0.0 if expected is None else expected
        got = 0.0 if got is None else got
    if expected is None or got is None:
        return expected is None and got is None
    if isinstance(expected, float) or isinstance(got, float):
        if math.isnan(expected) or math.isnan(got):
            return math.isnan(expected) and math.isnan(got)
        if column in APPROX_MEASURES:
            return abs(got - expected) <= max(approx_tolerance * abs(expected),
                                              APPROX_SMALL_SET_SLACK)
        return abs(got - expected) <= tolerance * max(abs(expected), 1.0)
    return expected == got


def _key(row, kinds):
    out = []
    for value, kind in zip(row, kinds):
        if value is None:
            out.append((0, ""))
        elif kind == "number":
            out.append((1, round(value, 6)))
        else:
            out.append((1, str(value)))
    return tuple(out)


def compare_answer(case: dict, result: QueryResult, expected_rows: list[tuple]) -> None:
    """Asserts strata's answer equals the hand-written SQL's (see the module docstring)."""
    query = case["query"]
    assert result.ok, f"[{case['id']}] strata failed:\n{result!r}"
    body = result.body
    names = expected_columns(query)
    got_names = [column["name"] for column in body["columns"]]
    assert sorted(got_names) == sorted(names), \
        f"[{case['id']}] columns {got_names}, expected {names}\n{result!r}"
    got_types = {column["name"]: column.get("type") for column in body["columns"]}
    for name in names:
        assert got_types[name] == member_type(name), \
            f"[{case['id']}] column {name} has type {got_types[name]}, expected {member_type(name)}"
    kinds = [member_type(name) for name in names]
    position = [got_names.index(name) for name in names]
    got_rows = [tuple(normalize(row[i], kind) for i, kind in zip(position, kinds))
                for row in body["rows"]]
    want_rows = [tuple(normalize(value, kind) for value, kind in zip(row, kinds))
                 for row in expected_rows]
    for row in want_rows:
        assert len(row) == len(names), f"[{case['id']}] the expected SQL returns {len(row)} columns"

    limit_only = case.get("limit_only")
    if limit_only:  # a limit without order: any `limit` rows of the full answer
        assert len(got_rows) == min(limit_only, len(want_rows)), \
            f"[{case['id']}] {len(got_rows)} rows, expected {min(limit_only, len(want_rows))}"
        pool = list(want_rows)
        for row in got_rows:
            match = next((i for i, want in enumerate(pool) if _rows_close(want, row, names, case)),
                         None)
            assert match is not None, f"[{case['id']}] row {row} is not in the full answer"
            pool.pop(match)
        return

    assert len(got_rows) == len(want_rows), (
        f"[{case['id']}] {len(got_rows)} rows, expected {len(want_rows)}\n"
        f"expected (first 10): {want_rows[:10]}\ngot (first 10): {got_rows[:10]}\n"
        f"sql: {body.get('meta', {}).get('sql')}")
    if not case.get("ordered"):
        got_rows = sorted(got_rows, key=lambda r: _key(r, kinds))
        want_rows = sorted(want_rows, key=lambda r: _key(r, kinds))
    for index, (want, got) in enumerate(zip(want_rows, got_rows)):
        assert _rows_close(want, got, names, case), (
            f"[{case['id']}] row {index} differs\nexpected: {want}\ngot:      {got}\n"
            f"columns: {names}\nquery: {json.dumps(query)}\n"
            f"strata sql: {body.get('meta', {}).get('sql')}")


def _rows_close(want, got, names, case) -> bool:
    null_is_zero = set(case.get("null_is_zero", ()))
    tolerance = case.get("tolerance", {})  # {column: relative tolerance}, default 1e-7
    approx = case.get("approx_tolerance", APPROX_RELATIVE_ERROR)
    return all(_close(w, g, name, name in null_is_zero, tolerance.get(name, 1e-7), approx)
               for w, g, name in zip(want, got, names))


# ----- one corpus case, end to end -----------------------------------------------------------

def check_case(case: dict, project: SemanticProject, oracle, dialect: str) -> None:
    result = project.query(case["query"], role=case.get("role"))
    expect = case.get("expect", "rows")
    if expect == "error":
        assert result.returncode == 1, f"[{case['id']}] expected an error\n{result!r}"
        codes = result.error_codes()
        wanted = case["codes"]
        assert codes and set(codes) <= set(wanted), \
            f"[{case['id']}] error codes {codes}, expected one of {wanted}\n{result!r}"
        return
    sql = case.get(f"{dialect}_sql") or case["sql"]
    expected_rows = oracle.rows(sql)
    if expect == "rows_or_error" and result.returncode != 0:
        # A probe refused by validation is a correct answer; a crash, or SQL the warehouse cannot
        # parse (the value reached the SQL text unsafely), is not.
        codes = result.error_codes()
        assert result.returncode == 1 and codes and set(codes) <= REFUSAL_CODES, \
            f"[{case['id']}] neither rows nor a refusal ({sorted(REFUSAL_CODES)})\n{result!r}"
        return
    compare_answer(case, result, expected_rows)
    if dialect == "duckdb" and case.get("check_meta", True):
        check_meta(case, result)


def check_meta(case: dict, result: QueryResult) -> None:
    meta = result.body.get("meta")
    assert isinstance(meta, dict), f"[{case['id']}] no meta object\n{result!r}"
    assert isinstance(meta.get("duration_ms"), (int, float)), f"[{case['id']}] meta.duration_ms"
    rollup = meta.get("rollup")
    assert isinstance(rollup, dict), f"[{case['id']}] no meta.rollup\n{result!r}"
    # The example's only rollup is never built in these tests: nothing may claim to use it.
    assert "used" not in rollup, f"[{case['id']}] an unbuilt rollup answered: {rollup}"
    touches_order = any(m.startswith("Order.") for m in
                        case["query"].get("measures", []) + case["query"].get("dimensions", []))
    if touches_order:
        missed = rollup.get("missed")
        assert isinstance(missed, list) and any(
            entry.get("rollup") == "monthly_order_summary" and isinstance(entry.get("reason"), str)
            for entry in missed), f"[{case['id']}] meta.rollup.missed lacks the rollup: {rollup}"


# ----- fixtures ------------------------------------------------------------------------------

class ExampleSetup:
    def __init__(self, project: SemanticProject, oracle_path: Path, dates: Dates):
        self.project = project
        self.oracle_path = oracle_path
        self.dates = dates
        self._oracle = None

    @property
    def oracle(self) -> DuckDbOracle:
        if self._oracle is None:
            self._oracle = DuckDbOracle(self.oracle_path)
        return self._oracle


@pytest.fixture(scope="session")
def semantic_example(strata_bin, tmp_path_factory):
    base = tmp_path_factory.mktemp("semantic_example")
    root = base / "shop"
    init = subprocess.run([strata_bin, "init", str(root), "--example", "--output", "json"],
                          capture_output=True, text=True, timeout=300)
    assert init.returncode == 0, f"strata init --example failed:\n{init.stdout}\n{init.stderr}"
    assert (root / "semantic" / "model.yml").exists(), "init --example wrote no semantic model"
    oracle_path = base / "oracle.duckdb"
    shutil.copyfile(root / "warehouse.duckdb", oracle_path)
    connection = duckdb.connect(str(oracle_path), read_only=True)
    try:
        (first, last), = connection.execute(
            "SELECT min(order_at), max(order_at) FROM raw.orders").fetchall()
        (anchor,), = connection.execute(
            "SELECT order_at FROM raw.orders WHERE order_id = 600000").fetchall()
    finally:
        connection.close()
    first = dt.datetime(first.year, first.month, 1)
    end = dt.datetime(last.year, last.month, last.day) + dt.timedelta(days=1)
    setup = ExampleSetup(SemanticProject(root, strata_bin, "duckdb"), oracle_path,
                         Dates(first, end, anchor))
    yield setup
    if setup._oracle is not None:
        setup._oracle.close()


@pytest.fixture(scope="session")
def semantic_pg_server():
    server = PgServer.start()
    if server is None:
        pytest.skip("PostgreSQL server binaries are not installed")
    yield server
    server.stop()


PG_TABLES = {
    # table: (PostgreSQL DDL, the subset exported from the example warehouse)
    "orders": ("CREATE TABLE raw.orders (order_id bigint, customer_id integer, region varchar, "
               "status varchar, amount numeric(12, 2), order_at timestamp, loaded_at timestamp)",
               "SELECT * FROM raw.orders WHERE order_id % 8 = 0"),
    "customers": ("CREATE TABLE raw.customers (customer_id integer, name varchar, region varchar, "
                  "segment varchar, signup_at timestamptz)",
                  "SELECT * FROM raw.customers"),
    "tickets": ("CREATE TABLE raw.tickets (ticket_id bigint, customer_id integer, "
                "priority varchar, channel varchar, status varchar, opened_at timestamptz, "
                "resolution_hours double precision)",
                "SELECT * FROM raw.tickets WHERE ticket_id % 2 = 0"),
}


@pytest.fixture(scope="session")
def semantic_pg(semantic_example, semantic_pg_server, tmp_path_factory):
    """(project, oracle): the example's semantic model over a PostgreSQL copy of its data."""
    base = tmp_path_factory.mktemp("semantic_pg")
    database = semantic_pg_server.create_database("semantic")
    source = duckdb.connect(str(semantic_example.oracle_path), read_only=True)
    try:
        for table, (_, subset) in PG_TABLES.items():
            source.execute(f"COPY ({subset}) TO '{base / (table + '.csv')}' (HEADER false)")
    finally:
        source.close()
    database.execute("CREATE SCHEMA raw", *(ddl for ddl, _ in PG_TABLES.values()))
    # The CSV holds UTC wall-clock times: load them in UTC, then give the database a non-UTC
    # default time zone. Everything in the semantic layer is UTC, so strata must not depend on
    # the session's zone for the timestamptz columns (customers.signup_at, tickets.opened_at).
    script = "SET TIME ZONE 'UTC';\n" + "".join(
        f"\\copy raw.{table} FROM '{base / (table + '.csv')}' (FORMAT csv)\n"
        for table in PG_TABLES) + "ANALYZE;\n"
    completed = subprocess.run([psql_bin(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                                database.dsn], input=script, capture_output=True, text=True,
                               timeout=300)
    assert completed.returncode == 0, completed.stderr
    name = database.dsn.rsplit("/", 1)[1]
    database.execute(f"ALTER DATABASE \"{name}\" SET timezone TO 'America/New_York'")

    root = base / "shop_pg"
    (root / "semantic").mkdir(parents=True)
    shutil.copyfile(semantic_example.project.root / "semantic" / "model.yml",
                    root / "semantic" / "model.yml")
    (root / "models").mkdir()
    (root / "strata.toml").write_text(textwrap.dedent(f"""\
        [project]
        name = "shop_pg"

        [warehouse]
        type = "postgres"
        dsn_env = "{PG_DSN_ENV}"

        [semantic]
        fiscal_year_start_month = 4
        """))
    previous = os.environ.get(PG_DSN_ENV)
    os.environ[PG_DSN_ENV] = database.dsn
    yield SemanticProject(root, semantic_example.project.bin, "postgres"), PgOracle(database)
    if previous is None:
        os.environ.pop(PG_DSN_ENV, None)
    else:
        os.environ[PG_DSN_ENV] = previous


@pytest.fixture(scope="session")
def semantic_cases(semantic_example):
    """{id: case} of the corpus for the example's real data range."""
    from semantic_corpus import build_corpus
    return {case["id"]: case for case in build_corpus(semantic_example.dates)}
