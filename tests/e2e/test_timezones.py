"""time_interval models in a time zone (issue 42), on DuckDB and PostgreSQL, through the binary.

A day-partitioned model in America/New_York is backfilled across both 2026 daylight-saving
changes; its table and each partition's row count equal hand-written SQL with AT TIME ZONE, row
for row, and the spring-forward day lasts 23 hours, the fall-back day 25. Hourly keys carry their
offset, so the repeated hour has two keys. A naive column holding the zone's wall clock
(naive_time = "local"), --missing's "now" in the zone, a changed zone refused until
--full-refresh, and bad zones refused at compile time with a code and a hint.
"""
from __future__ import annotations

import datetime as dt
import textwrap
from zoneinfo import ZoneInfo

import pytest

from conftest import strategy_toml
from test_postgres import DSN_ENV, pg_project_toml

NY = "America/New_York"
UTC = dt.timezone.utc

EVENTS_SQL = "SELECT id, happened_at, amount FROM events WHERE happened_at >= @start_date AND happened_at < @end_date\n"
# The zone's wall clock in a naive column: bounds are wall-clock literals.
LOCAL_SQL = textwrap.dedent("""\
    SELECT id, CAST(happened_at AT TIME ZONE 'America/New_York' AS TIMESTAMP) AS local_at, amount
    FROM events
    WHERE CAST(happened_at AT TIME ZONE 'America/New_York' AS TIMESTAMP) >= @start_date
      AND CAST(happened_at AT TIME ZONE 'America/New_York' AS TIMESTAMP) < @end_date
    """)


def event_instants():
    """Every 20 minutes around both 2026 changes, plus each local midnight and the second
    before it (the rows a UTC day or an off-by-one-hour window would misplace)."""
    out = []
    for start, end in (("2026-03-06", "2026-03-11"), ("2026-10-30", "2026-11-04")):
        t = dt.datetime.fromisoformat(start).replace(tzinfo=UTC)
        stop = dt.datetime.fromisoformat(end).replace(tzinfo=UTC)
        while t < stop:
            out.append(t)
            t += dt.timedelta(minutes=20)
    zone = ZoneInfo(NY)
    for day in ("2026-03-08", "2026-03-09", "2026-11-01", "2026-11-02"):
        midnight = dt.datetime.fromisoformat(day).replace(tzinfo=zone).astimezone(UTC)
        out += [midnight, midnight - dt.timedelta(seconds=1), midnight + dt.timedelta(seconds=1)]
    return sorted(set(out))


def rows():
    return [(i + 1, t, f"{(i * 7) % 100}.25") for i, t in enumerate(event_instants())]


def values_sql(data):
    return ", ".join(f"({i}, TIMESTAMPTZ '{t.strftime('%Y-%m-%d %H:%M:%S')}+00', {a})"
                     for i, t, a in data)


def local_date(t: dt.datetime) -> str:
    return t.astimezone(ZoneInfo(NY)).date().isoformat()


class Duck:
    """The model's warehouse on DuckDB (the project's own file)."""

    def __init__(self, project):
        self.project = project

    def load(self, data):
        self.project.execute("CREATE SCHEMA IF NOT EXISTS raw",
                             "CREATE OR REPLACE TABLE raw.events (id INTEGER, happened_at TIMESTAMPTZ, "
                             "amount DECIMAL(12, 2))",
                             f"INSERT INTO raw.events VALUES {values_sql(data)}")

    def query(self, sql):
        return self.project.query(sql)


class Pg:
    def __init__(self, database):
        self.database = database

    def load(self, data):
        self.database.execute("CREATE SCHEMA IF NOT EXISTS raw",
                              "DROP TABLE IF EXISTS raw.events",
                              "CREATE TABLE raw.events (id integer, happened_at timestamptz, "
                              "amount numeric(12, 2))",
                              f"INSERT INTO raw.events VALUES {values_sql(data)}")

    def query(self, sql):
        return self.database.query(sql)


@pytest.fixture(params=["duckdb", "postgres"])
def warehouse(request, project, monkeypatch):
    """(project, warehouse, catalog) on DuckDB or a fresh PostgreSQL database."""
    if request.param == "duckdb":
        return project, Duck(project), "warehouse"
    database = request.getfixturevalue("pg_server").create_database()
    monkeypatch.setenv(DSN_ENV, database.dsn)
    project.write("strata.toml", pg_project_toml())
    return project, Pg(database), None


def add_events_model(project, catalog, name="ny_events", sql=EVENTS_SQL, granularity="day",
                     time_column="happened_at", **strategy):
    project.add_model(name, sql, strategy_toml(granularity, time_column, **strategy),
                      sources=(("raw", "events"),), catalog=catalog)


def ids(warehouse, sql):
    return sorted(int(r[0]) for r in warehouse.query(sql))


def test_a_new_york_daily_model_equals_hand_written_sql_across_both_changes(warehouse):
    project, wh, catalog = warehouse
    data = rows()
    wh.load(data)
    add_events_model(project, catalog, timezone=NY)
    project.run("--model", "ny_events", "--from", "2026-03-07", "--to", "2026-03-09")
    project.run("--model", "ny_events", "--from", "2026-10-31", "--to", "2026-11-02")

    days = ["2026-03-07", "2026-03-08", "2026-03-09", "2026-10-31", "2026-11-01", "2026-11-02"]
    in_list = ", ".join(f"DATE '{d}'" for d in days)
    expected = ids(wh, "SELECT id FROM raw.events WHERE "
                       f"CAST(happened_at AT TIME ZONE '{NY}' AS DATE) IN ({in_list})")
    assert ids(wh, "SELECT id FROM marts.ny_events") == expected
    # The same ids, by an independent zone computation (Python's zoneinfo).
    assert expected == sorted(i for i, t, _ in data if local_date(t) in days)

    partitions = project.partition_map("ny_events")
    assert sorted(partitions) == days
    for key in days:
        counted = int(wh.query("SELECT count(*) FROM raw.events WHERE "
                           f"CAST(happened_at AT TIME ZONE '{NY}' AS DATE) = DATE '{key}'")[0][0])
        assert partitions[key]["row_count"] == counted, key
        assert partitions[key]["status"] == "Computed"
    hours = {k: (dt.datetime.fromisoformat(p["end"].replace("Z", "+00:00")) -
                 dt.datetime.fromisoformat(p["start"].replace("Z", "+00:00"))).total_seconds() / 3600
             for k, p in partitions.items()}
    assert hours["2026-03-08"] == 23 and hours["2026-11-01"] == 25 and hours["2026-03-07"] == 24
    assert partitions["2026-03-08"]["start"] == "2026-03-08T05:00:00Z"

    # A rerun is idempotent: the same rows, the same checksums.
    before = {k: p["checksum"] for k, p in partitions.items()} if "checksum" in \
        partitions["2026-03-08"] else None
    project.run("--model", "ny_events", "--from", "2026-11-01", "--to", "2026-11-01")
    assert ids(wh, "SELECT id FROM marts.ny_events") == expected
    if before is not None:
        assert project.partition_map("ny_events")["2026-11-01"]["checksum"] == before["2026-11-01"]


def test_hourly_keys_of_a_zone_carry_their_offset_and_the_repeated_hour_has_two(warehouse):
    project, wh, catalog = warehouse
    wh.load(rows())
    add_events_model(project, catalog, "ny_hourly", granularity="hour", timezone=NY)
    project.run("--model", "ny_hourly", "--from", "2026-11-01T00-04:00",
                "--to", "2026-11-01T02-05:00")
    partitions = project.partition_map("ny_hourly")
    assert sorted(partitions, key=lambda k: partitions[k]["start"]) == [
        "2026-11-01T00-04:00", "2026-11-01T01-04:00", "2026-11-01T01-05:00",
        "2026-11-01T02-05:00"]
    assert partitions["2026-11-01T01-05:00"]["start"] == "2026-11-01T06:00:00Z"
    expected = ids(wh, "SELECT id FROM raw.events WHERE happened_at >= TIMESTAMPTZ '2026-11-01 04:00:00+00' "
                       "AND happened_at < TIMESTAMPTZ '2026-11-01 08:00:00+00'")
    assert ids(wh, "SELECT id FROM marts.ny_hourly") == expected
    # Berlin's repeated hour sorts the other way as text ("+02:00" comes first in time): the
    # listing is in time order.
    add_events_model(project, catalog, "berlin_hourly", granularity="hour",
                     timezone="Europe/Berlin")
    project.run("--model", "berlin_hourly", "--from", "2026-10-25T01+02:00",
                "--to", "2026-10-25T03+01:00")
    assert [p["partition_key"] for p in project.partitions("berlin_hourly")] == [
        "2026-10-25T01+02:00", "2026-10-25T02+02:00", "2026-10-25T02+01:00",
        "2026-10-25T03+01:00"]
    # The spring-forward day has no 2 a.m.: its key is refused with the zone in the message.
    missing_hour = project.run("--model", "ny_hourly", "--partition", "2026-03-08T02-05:00",
                               expect=None)
    assert missing_hour.returncode != 0
    assert "InvalidPartitionKey" in missing_hour.stdout + missing_hour.stderr
    assert NY in missing_hour.stdout + missing_hour.stderr


def test_a_naive_column_holding_the_zones_wall_clock(warehouse):
    project, wh, catalog = warehouse
    wh.load(rows())
    add_events_model(project, catalog, "ny_local", sql=LOCAL_SQL, time_column="local_at",
                     timezone=NY, naive_time="local")
    project.run("--model", "ny_local", "--from", "2026-11-01", "--to", "2026-11-02")
    expected = ids(wh, "SELECT id FROM raw.events WHERE CAST(happened_at AT TIME ZONE "
                       f"'{NY}' AS DATE) IN (DATE '2026-11-01', DATE '2026-11-02')")
    assert ids(wh, "SELECT id FROM marts.ny_local") == expected
    partitions = project.partition_map("ny_local")
    for key in ("2026-11-01", "2026-11-02"):
        counted = int(wh.query("SELECT count(*) FROM raw.events WHERE "
                           f"CAST(happened_at AT TIME ZONE '{NY}' AS DATE) = DATE '{key}'")[0][0])
        assert partitions[key]["row_count"] == counted


def test_changing_the_zone_is_refused_until_a_full_refresh(warehouse):
    project, wh, catalog = warehouse
    wh.load(rows())
    add_events_model(project, catalog)  # UTC
    project.run("--model", "ny_events", "--from", "2026-03-07", "--to", "2026-03-09")
    utc_rows = ids(wh, "SELECT id FROM marts.ny_events")

    add_events_model(project, catalog, timezone=NY)
    refused = project.run("--model", "ny_events", "--from", "2026-03-08", "--to", "2026-03-08",
                          expect=None)
    assert refused.returncode != 0, refused
    text = refused.stdout + refused.stderr
    assert "TimeZoneChanged" in text and "--full-refresh" in text
    assert ids(wh, "SELECT id FROM marts.ny_events") == utc_rows  # nothing ran
    plan = project.strata("plan", "--model", "ny_events", "--partition", "2026-03-08")
    assert plan.returncode != 0 and "TimeZoneChanged" in plan.stdout + plan.stderr

    project.run("--model", "ny_events", "--from", "2026-03-08", "--to", "2026-03-09",
                "--full-refresh")
    assert sorted(project.partition_map("ny_events")) == ["2026-03-08", "2026-03-09"]
    assert ids(wh, "SELECT id FROM marts.ny_events") == ids(
        wh, f"SELECT id FROM raw.events WHERE CAST(happened_at AT TIME ZONE '{NY}' AS DATE) "
            "IN (DATE '2026-03-08', DATE '2026-03-09')")
    # Built in the new zone: the next run is not refused.
    project.run("--model", "ny_events", "--partition", "2026-03-07")


def test_missing_counts_periods_up_to_now_in_the_zone(project):
    zone = "Pacific/Kiritimati"  # UTC+14: its date is not UTC's for ten hours of each day
    today = dt.datetime.now(ZoneInfo(zone)).date()
    first = today - dt.timedelta(days=3)
    project.execute("CREATE SCHEMA IF NOT EXISTS raw",
                    "CREATE OR REPLACE TABLE raw.events (id INTEGER, happened_at TIMESTAMPTZ, "
                    "amount DECIMAL(12, 2))")
    add_events_model(project, "warehouse", timezone=zone, first_partition=first.isoformat())
    result = project.run("--model", "ny_events", "--missing")
    keys = sorted(project.partition_map("ny_events"))
    if dt.datetime.now(ZoneInfo(zone)).date() != today:  # midnight passed during the run
        pytest.skip("the zone's day changed during the test")
    assert keys == [(first + dt.timedelta(days=i)).isoformat() for i in range(4)], result


@pytest.mark.parametrize("toml, code, needle", [
    (strategy_toml("day", "happened_at", timezone="America/NewYork"), "InvalidTimeZone", "America/New_York"),
    (strategy_toml("day", "happened_at", timezone="utc"), "InvalidTimeZone", "Europe/Berlin"),
    (strategy_toml("day", "happened_at", timezone=NY, naive_time="wall"), "Config", "local"),
    (strategy_toml("hour", "happened_at", timezone="Europe/Berlin", naive_time="local"), "Config",
     "repeated hour"),
])
def test_bad_zones_are_refused_at_compile_time(project, toml, code, needle):
    project.add_model("zoned", EVENTS_SQL, toml, sources=(("raw", "events"),))
    result = project.strata("compile")
    assert result.returncode != 0, result
    text = result.stdout + result.stderr
    assert code in text and needle in text, text
    assert "zoned.toml" in text, text
