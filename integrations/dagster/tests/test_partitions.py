"""Partitions definitions per grain and partition keys translated both ways (no strata needed)."""
from __future__ import annotations

import datetime as dt

import dagster as dg
import pytest

from dagster_strata import partitions_def_for, strata_key_start, to_dagster_key, to_strata_key
from dagster_strata.partitions import grain_of

UTC = dt.timezone.utc

# (grain, strata key, Dagster key), DST change dates of the US (2026-03-08, 2026-11-01) and the
# EU (2026-03-29, 2026-10-25) included: time is UTC, so nothing shifts on them.
TABLE = [
    ("hour", "2026-04-08T13", "2026-04-08-13:00"),
    ("hour", "2026-03-08T02", "2026-03-08-02:00"),
    ("hour", "2026-03-29T01", "2026-03-29-01:00"),
    ("hour", "2026-10-25T01", "2026-10-25-01:00"),
    ("hour", "2026-11-01T01", "2026-11-01-01:00"),
    ("hour", "2024-02-29T23", "2024-02-29-23:00"),
    ("hour", "2026-12-31T23", "2026-12-31-23:00"),
    ("hour", "2027-01-01T00", "2027-01-01-00:00"),
    ("day", "2026-04-08", "2026-04-08"),
    ("day", "2026-03-08", "2026-03-08"),
    ("day", "2026-03-29", "2026-03-29"),
    ("day", "2026-10-25", "2026-10-25"),
    ("day", "2026-11-01", "2026-11-01"),
    ("day", "2024-02-29", "2024-02-29"),
    ("month", "2026-04", "2026-04-01"),
    ("month", "2026-03", "2026-03-01"),
    ("month", "2026-10", "2026-10-01"),
    ("month", "2026-12", "2026-12-01"),
    ("year", "2026", "2026"),
    ("year", "2024", "2024"),
]


@pytest.mark.parametrize("grain,strata_key,dagster_key", TABLE)
def test_key_table(grain, strata_key, dagster_key):
    assert to_dagster_key(strata_key, grain) == dagster_key
    assert to_strata_key(dagster_key, grain) == strata_key
    definition = partitions_def_for(grain, strata_key)
    later = dt.datetime(2030, 1, 1, tzinfo=UTC)
    assert definition.get_partition_keys(current_time=later)[0] == dagster_key
    window = definition.time_window_for_partition_key(dagster_key)
    assert window.start == strata_key_start(strata_key, grain)


def test_definitions_per_grain():
    hourly = partitions_def_for("hour", "2025-05-01T00")
    assert isinstance(hourly, dg.HourlyPartitionsDefinition)
    assert isinstance(partitions_def_for("day", "2025-05-01"), dg.DailyPartitionsDefinition)
    assert isinstance(partitions_def_for("month", "2025-05"), dg.MonthlyPartitionsDefinition)
    yearly = partitions_def_for("year", "2020")
    assert type(yearly) is dg.TimeWindowPartitionsDefinition
    assert yearly.cron_schedule == "0 0 1 1 *" and yearly.fmt == "%Y"
    assert yearly.timezone == "UTC" and hourly.timezone == "UTC"
    for grain, key in (("hour", "2025-05-01T00"), ("day", "2025-05-01"), ("month", "2025-05"),
                       ("year", "2020")):
        assert grain_of(partitions_def_for(grain, key)) == grain


def _next(start: dt.datetime, grain: str) -> dt.datetime:
    if grain == "hour":
        return start + dt.timedelta(hours=1)
    if grain == "day":
        return start + dt.timedelta(days=1)
    if grain == "month":
        return start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    return start.replace(year=start.year + 1)


STRATA_FORMAT = {"hour": "%Y-%m-%dT%H", "day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}


@pytest.mark.parametrize("grain", ["hour", "day", "month", "year"])
def test_round_trip_over_several_years(grain):
    # Every partition from 2023 through 2027 (all DST changes of five years): Dagster's keys and
    # windows match strata's keys walked independently in UTC, and translate back exactly.
    start = dt.datetime(2023, 1, 1, tzinfo=UTC)
    end = dt.datetime(2028, 1, 1, tzinfo=UTC)
    definition = partitions_def_for(grain, start.strftime(STRATA_FORMAT[grain]), end_offset=0)
    dagster_keys = definition.get_partition_keys(current_time=end)
    expected, cursor = [], start
    while cursor < end:
        expected.append(cursor.strftime(STRATA_FORMAT[grain]))
        cursor = _next(cursor, grain)
    assert len(dagster_keys) == len(expected)
    assert [to_strata_key(k, grain) for k in dagster_keys] == expected
    assert [to_dagster_key(k, grain) for k in expected] == dagster_keys
    for key in dagster_keys[:: max(1, len(dagster_keys) // 500)]:
        window = definition.time_window_for_partition_key(key)
        strata_key = to_strata_key(key, grain)
        assert window.start == strata_key_start(strata_key, grain)
        assert window.end == _next(window.start, grain)


@pytest.mark.parametrize("grain,bad", [
    ("day", "2026-4-7"), ("day", "2026-04-07T00"), ("hour", "2026-04-07"),
    ("month", "2026-04-01"), ("year", "26"), ("day", "2026-02-30"), ("week", "2026-04-07"),
])
def test_malformed_strata_keys_are_refused(grain, bad):
    with pytest.raises(ValueError):
        to_dagster_key(bad, grain)


@pytest.mark.parametrize("grain,bad", [
    ("hour", "2026-04-08T13"), ("hour", "2026-04-08-13:30"), ("month", "2026-04-02"),
    ("month", "2026-04"),
])
def test_malformed_dagster_keys_are_refused(grain, bad):
    with pytest.raises(ValueError):
        to_strata_key(bad, grain)
