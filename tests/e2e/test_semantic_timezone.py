"""Time zones in semantic queries and rollups (issue 42), on DuckDB and PostgreSQL.

A small orders table whose times (a TIMESTAMPTZ column in both warehouses) run every 17 minutes
across Berlin's spring-forward day (2026-03-29 lasts 23 hours there). A query by day in
Europe/Berlin must equal hand-written SQL (`AT TIME ZONE 'Europe/Berlin'`), live and from rollups:
a Berlin daily rollup answers; a UTC daily one is passed over (`timezone_mismatch`: its days are
not Berlin's); a UTC hourly one answers (Berlin's offset is a whole number of hours), and is
passed over for Asia/Kolkata (UTC+05:30). Time values carry the zone's offset.
"""
from __future__ import annotations

import datetime as dt
import json
import textwrap
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb
import pytest

from rollup_harness import RollupProject, duckdb_toml, missed_of, route_of

pytest_plugins = ["semantic_harness", "rollup_harness"]

PG_DSN_ENV = "STRATA_E2E_TIMEZONE_PG_DSN"
BERLIN = ZoneInfo("Europe/Berlin")
FIRST = dt.datetime(2026, 3, 20, tzinfo=dt.timezone.utc)
STEP = dt.timedelta(minutes=17)
COUNT = 1500  # through 2026-04-06
STATUSES = ["paid", "shipped", "returned"]

MODEL = textwrap.dedent("""\
    entities:
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
    """)


def rollup(name: str, grain: str, zone: str | None) -> str:
    return (f"  - name: {name}\n"
            "    entity: Order\n"
            f"    dimensions: [status, {{ name: order_date, grain: {grain} }}]\n"
            "    measures: [revenue, order_count]\n"
            "    partition: { by: day }\n"
            + (f"    timezone: {zone}\n" if zone else ""))


BERLIN_DAILY = rollup("berlin_daily", "day", "Europe/Berlin")
UTC_DAILY = rollup("utc_daily", "day", None)
UTC_HOURLY = rollup("utc_hourly", "hour", None)


def orders():
    for i in range(COUNT):
        yield (i + 1, STATUSES[i % 3], Decimal(i % 97) + Decimal("0.25"), FIRST + i * STEP)


def by_day_query(zone: str, grain: str = "day", frm="2026-03-25", to="2026-04-02") -> dict:
    return {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
            "time_dimensions": [{"dimension": "Order.order_date", "grain": grain,
                                 "range": [frm, to]}],
            "timezone": zone}


def expected_sql(zone: str, unit: str = "day", frm="2026-03-25", to="2026-04-02") -> str:
    """The hand-written answer: buckets of the zone's wall clock, the range in local dates."""
    local = f"(order_at AT TIME ZONE '{zone}')"
    return (f"SELECT status, date_trunc('{unit}', {local}) AS bucket, sum(amount), count(*) "
            f"FROM raw.orders WHERE {local} >= TIMESTAMP '{frm} 00:00:00' "
            f"AND {local} < TIMESTAMP '{to} 00:00:00' GROUP BY 1, 2 ORDER BY 1, 2")


def normalized_expected(rows, zone: str):
    """(status, aware bucket start, revenue, count) from the oracle's local wall times."""
    out = []
    for status, bucket, revenue, count in rows:
        if isinstance(bucket, str):
            bucket = dt.datetime.fromisoformat(bucket)
        elif not isinstance(bucket, dt.datetime):  # DuckDB's date_trunc('day', ...) is a DATE
            bucket = dt.datetime.combine(bucket, dt.time())
        out.append((status, bucket.replace(tzinfo=ZoneInfo(zone)), Decimal(str(revenue)),
                    int(count)))
    return sorted(out)


def normalized_answer(result):
    assert result.ok, f"{result!r}"
    names = [column["name"] for column in result.body["columns"]]
    assert names[:2] == ["Order.status", names[1]] and names[1].startswith("Order.order_date.")
    return sorted((status, dt.datetime.fromisoformat(bucket), Decimal(str(revenue)), int(count))
                  for status, bucket, revenue, count in result.body["rows"])


class Warehouse:
    """One warehouse (DuckDB or PostgreSQL) holding raw.orders, and how to read it by hand."""

    def __init__(self, name: str, toml: str, oracle, env: dict | None = None):
        self.name = name
        self.toml = toml
        self.oracle = oracle  # sql -> rows
        self.env = env or {}

    def project(self, root: Path, strata_bin: str, rollups: list[str],
                extra_toml: str = "") -> RollupProject:
        (root / "semantic").mkdir(parents=True)
        (root / "models").mkdir()
        (root / "semantic" / "model.yml").write_text(MODEL)
        if rollups:
            (root / "semantic" / "rollups.yml").write_text("rollups:\n" + "".join(rollups))
        (root / "strata.toml").write_text(
            f'[project]\nname = "zones"\n\n[warehouse]\n{self.toml}\n{extra_toml}')
        return RollupProject(root, strata_bin, self.name, self.env)


@pytest.fixture(scope="module")
def duckdb_warehouse(tmp_path_factory) -> Warehouse:
    path = tmp_path_factory.mktemp("tz_duckdb") / "warehouse.duckdb"
    con = duckdb.connect(str(path))
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("CREATE SCHEMA raw")
        con.execute("CREATE TABLE raw.orders (order_id BIGINT, status VARCHAR, "
                    "amount DECIMAL(12, 2), order_at TIMESTAMPTZ)")
        con.executemany("INSERT INTO raw.orders VALUES (?, ?, ?, ?)", list(orders()))
    finally:
        con.close()

    def oracle(sql: str):
        reader = duckdb.connect(str(path), read_only=True)
        try:
            reader.execute("SET TimeZone = 'UTC'")
            return reader.execute(sql).fetchall()
        finally:
            reader.close()

    return Warehouse("duckdb", duckdb_toml(path), oracle)


@pytest.fixture(scope="module")
def postgres_warehouse(semantic_pg_server) -> Warehouse:
    database = semantic_pg_server.create_database("timezone")
    rows = ",\n".join(f"({i}, '{s}', {a}, '{t.isoformat()}')" for i, s, a, t in orders())
    database.execute("CREATE SCHEMA raw",
                     "CREATE TABLE raw.orders (order_id bigint, status varchar, "
                     "amount numeric(12, 2), order_at timestamptz)",
                     f"INSERT INTO raw.orders VALUES\n{rows}")
    # Strata's sessions run in UTC whatever the database's default zone is.
    name = database.dsn.rsplit("/", 1)[1]
    database.execute(f"ALTER DATABASE \"{name}\" SET timezone TO 'America/New_York'")
    return Warehouse("postgres", f'type = "postgres"\ndsn_env = "{PG_DSN_ENV}"',
                     lambda sql: database.query("SET TIME ZONE 'UTC';\n" + sql),
                     {PG_DSN_ENV: database.dsn})


@pytest.fixture(params=["duckdb", "postgres"])
def warehouse(request) -> Warehouse:
    return request.getfixturevalue(f"{request.param}_warehouse")


def test_live_by_day_in_berlin_equals_hand_written_sql(warehouse, strata_bin, tmp_path):
    project = warehouse.project(tmp_path / "live", strata_bin, [])
    result = project.query(by_day_query("Europe/Berlin"))
    assert "used" not in route_of(result)
    expected = normalized_expected(warehouse.oracle(expected_sql("Europe/Berlin")),
                                   "Europe/Berlin")
    assert len(expected) == 8 * 3
    assert normalized_answer(result) == expected
    # Values carry Berlin's offset of the day: +01:00 before the change, +02:00 after.
    days = sorted({row[1] for row in result.body["rows"]})
    assert days[0] == "2026-03-25T00:00:00+01:00"
    assert "2026-03-29T00:00:00+01:00" in days and "2026-03-30T00:00:00+02:00" in days
    # The spring-forward day holds 23 hours of orders.
    counts = {row[1]: 0 for row in result.body["rows"]}
    for row in result.body["rows"]:
        counts[row[1]] += row[3]
    assert counts["2026-03-29T00:00:00+01:00"] < counts["2026-03-28T00:00:00+01:00"]


def test_default_timezone_from_strata_toml(warehouse, strata_bin, tmp_path):
    project = warehouse.project(tmp_path / "default", strata_bin, [],
                                extra_toml='\n[semantic]\ndefault_timezone = "Europe/Berlin"\n')
    query = by_day_query("Europe/Berlin")
    del query["timezone"]
    zoned = project.query(query)
    assert normalized_answer(zoned) == normalized_expected(
        warehouse.oracle(expected_sql("Europe/Berlin")), "Europe/Berlin")
    # The query's own zone wins; "UTC" gives the plain UTC answer, with Z.
    utc = project.query({**query, "timezone": "UTC"})
    assert utc.ok, f"{utc!r}"
    assert all(row[1].endswith("T00:00:00Z") for row in utc.body["rows"])
    assert normalized_answer(utc) == normalized_expected(warehouse.oracle(expected_sql("UTC")),
                                                         "UTC")


def test_rollups_by_zone(warehouse, strata_bin, tmp_path):
    project = warehouse.project(tmp_path / "rollups", strata_bin,
                                [BERLIN_DAILY, UTC_DAILY, UTC_HOURLY])
    project.build()
    manifest = project.manifest("berlin_daily")
    # Local days: the spring-forward day's file is 23 hours long.
    spans = {f["start"]: f["end"] for f in manifest["files"] if f["start"]}
    assert spans["2026-03-28T23:00:00Z"] == "2026-03-29T22:00:00Z"

    berlin = normalized_expected(warehouse.oracle(expected_sql("Europe/Berlin")), "Europe/Berlin")
    result = project.query(by_day_query("Europe/Berlin"))
    assert route_of(result).get("used") == "berlin_daily", f"{result!r}"
    assert missed_of(result) == {"utc_daily": "timezone_mismatch", "utc_hourly": "costlier"}
    assert normalized_answer(result) == berlin

    # In UTC the Berlin rollup is the one passed over.
    utc = project.query(by_day_query("UTC"))
    assert route_of(utc).get("used") == "utc_daily", f"{utc!r}"
    assert missed_of(utc) == {"berlin_daily": "timezone_mismatch", "utc_hourly": "costlier"}
    assert normalized_answer(utc) == normalized_expected(warehouse.oracle(expected_sql("UTC")),
                                                         "UTC")

    # Hours in Berlin: only the UTC hourly rollup keeps them.
    hours = project.query(by_day_query("Europe/Berlin", grain="hour"))
    assert route_of(hours).get("used") == "utc_hourly", f"{hours!r}"
    assert missed_of(hours) == {"berlin_daily": "grain_not_derivable",
                                "utc_daily": "timezone_mismatch"}
    assert normalized_answer(hours) == normalized_expected(
        warehouse.oracle(expected_sql("Europe/Berlin", unit="hour")), "Europe/Berlin")


def test_utc_hourly_serves_whole_hour_zones_only(warehouse, strata_bin, tmp_path):
    project = warehouse.project(tmp_path / "hourly", strata_bin, [UTC_DAILY, UTC_HOURLY])
    project.build()
    result = project.query(by_day_query("Europe/Berlin"))
    assert route_of(result).get("used") == "utc_hourly", f"{result!r}"
    assert missed_of(result) == {"utc_daily": "timezone_mismatch"}
    assert normalized_answer(result) == normalized_expected(
        warehouse.oracle(expected_sql("Europe/Berlin")), "Europe/Berlin")

    kolkata = project.query(by_day_query("Asia/Kolkata"))
    assert "used" not in route_of(kolkata), f"{kolkata!r}"
    assert missed_of(kolkata) == {"utc_daily": "timezone_mismatch",
                                  "utc_hourly": "timezone_mismatch"}
    assert normalized_answer(kolkata) == normalized_expected(
        warehouse.oracle(expected_sql("Asia/Kolkata")), "Asia/Kolkata")
    assert kolkata.body["rows"][0][1].endswith("+05:30")


def test_meta_names_each_rollups_zone(duckdb_warehouse, strata_bin, tmp_path):
    project = duckdb_warehouse.project(tmp_path / "meta", strata_bin, [BERLIN_DAILY, UTC_DAILY])
    completed = project.strata("meta")
    assert completed.returncode == 0, completed.stderr
    meta = json.loads(completed.stdout)
    assert {r["name"]: r["timezone"] for r in meta["rollups"]} == {
        "berlin_daily": "Europe/Berlin", "utc_daily": "UTC"}
    assert meta["default_timezone"] == "UTC"


def test_bad_zones_are_coded_errors(duckdb_warehouse, strata_bin, tmp_path):
    project = duckdb_warehouse.project(tmp_path / "bad", strata_bin, [])
    result = project.query(by_day_query("Europe/Berln"))
    assert not result.ok
    assert "InvalidTimeZone" in result.error_codes(), f"{result!r}"

    bad_toml = duckdb_warehouse.project(tmp_path / "bad_toml", strata_bin, [],
                                        extra_toml='\n[semantic]\ndefault_timezone = "Mars"\n')
    error = only_error(bad_toml.strata("meta"))
    assert (error["code"], error["file"], error["line"]) == ("InvalidTimeZone", "strata.toml", 9)
    assert "Europe/Berlin" in error["hint"]

    bad_rollup = duckdb_warehouse.project(
        tmp_path / "bad_rollup", strata_bin, [rollup("r", "day", "Europe/Berln")])
    error = only_error(bad_rollup.strata("meta"))
    assert (error["code"], error["file"], error["line"]) == \
        ("SemanticInvalid", "semantic/rollups.yml", 7)
    assert "Europe/Berlin" in error["hint"]


def only_error(completed) -> dict:
    assert completed.returncode != 0, completed.stdout
    errors = json.loads(completed.stdout)["errors"]
    assert len(errors) == 1, errors
    return errors[0]
