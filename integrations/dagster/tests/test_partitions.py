"""Partitions definitions per grain and partition keys translated both ways (no strata needed):
UTC, and a zone's local periods across its clock changes (tests/test_timezones.py checks the same
against the strata binary)."""
from __future__ import annotations

import datetime as dt
import zoneinfo

import dagster as dg
import pytest

from dagster_strata import (
    dagster_key_start,
    partitions_def_for,
    strata_key_start,
    to_dagster_key,
    to_strata_key,
)
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


# New York's 2026 clock changes: 2026-03-08 02:00 EST becomes 03:00 EDT (07:00Z), 2026-11-01
# 02:00 EDT becomes 01:00 EST (06:00Z). (Dagster key, strata key, window start, window end).
NY = "America/New_York"


def _utc(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def _instants(window) -> tuple[dt.datetime, dt.datetime]:
    # In UTC before comparing: Python's == between zones is False for a time in a clock change's
    # fold or gap (PEP 495), whatever the instant.
    return window.start.astimezone(UTC), window.end.astimezone(UTC)


NY_HOURS_SPRING = [
    ("2026-03-07-23:00", "2026-03-07T23-05:00", "2026-03-08T04:00", "2026-03-08T05:00"),
    ("2026-03-08-00:00", "2026-03-08T00-05:00", "2026-03-08T05:00", "2026-03-08T06:00"),
    ("2026-03-08-01:00", "2026-03-08T01-05:00", "2026-03-08T06:00", "2026-03-08T07:00"),
    ("2026-03-08-03:00", "2026-03-08T03-04:00", "2026-03-08T07:00", "2026-03-08T08:00"),
    ("2026-03-08-04:00", "2026-03-08T04-04:00", "2026-03-08T08:00", "2026-03-08T09:00"),
]
NY_HOURS_FALL = [
    ("2026-11-01-00:00", "2026-11-01T00-04:00", "2026-11-01T04:00", "2026-11-01T05:00"),
    ("2026-11-01-01:00", "2026-11-01T01-04:00", "2026-11-01T05:00", "2026-11-01T06:00"),
    ("2026-11-01-01:00-0500", "2026-11-01T01-05:00", "2026-11-01T06:00", "2026-11-01T07:00"),
    ("2026-11-01-02:00", "2026-11-01T02-05:00", "2026-11-01T07:00", "2026-11-01T08:00"),
    ("2026-11-01-03:00", "2026-11-01T03-05:00", "2026-11-01T08:00", "2026-11-01T09:00"),
]
NY_DAYS = [
    ("2026-03-07", "2026-03-07", "2026-03-07T05:00", "2026-03-08T05:00"),
    ("2026-03-08", "2026-03-08", "2026-03-08T05:00", "2026-03-09T04:00"),  # 23 hours
    ("2026-03-09", "2026-03-09", "2026-03-09T04:00", "2026-03-10T04:00"),
    ("2026-10-31", "2026-10-31", "2026-10-31T04:00", "2026-11-01T04:00"),
    ("2026-11-01", "2026-11-01", "2026-11-01T04:00", "2026-11-02T05:00"),  # 25 hours
    ("2026-11-02", "2026-11-02", "2026-11-02T05:00", "2026-11-03T05:00"),
]
NY_MONTHS = [
    ("2026-03-01", "2026-03", "2026-03-01T05:00", "2026-04-01T04:00"),
    ("2026-11-01", "2026-11", "2026-11-01T04:00", "2026-12-01T05:00"),
]
NY_TABLE = ([("hour",) + row for row in NY_HOURS_SPRING + NY_HOURS_FALL]
            + [("day",) + row for row in NY_DAYS] + [("month",) + row for row in NY_MONTHS]
            + [("year", "2026", "2026", "2026-01-01T05:00", "2027-01-01T05:00")])


@pytest.mark.parametrize("grain,dagster_key,strata_key,start,end", NY_TABLE)
def test_new_york_key_table(grain, dagster_key, strata_key, start, end):
    assert to_dagster_key(strata_key, grain, timezone=NY) == dagster_key
    assert to_strata_key(dagster_key, grain, timezone=NY) == strata_key
    assert strata_key_start(strata_key, grain, timezone=NY) == _utc(start)
    assert dagster_key_start(dagster_key, grain, timezone=NY) == _utc(start)
    window = partitions_def_for(grain, strata_key, timezone=NY).time_window_for_partition_key(
        dagster_key)
    assert _instants(window) == (_utc(start), _utc(end))


@pytest.mark.parametrize("grain,rows", [("hour", NY_HOURS_SPRING), ("hour", NY_HOURS_FALL),
                                        ("day", NY_DAYS[:3]), ("day", NY_DAYS[3:])])
def test_new_york_keys_around_the_clock_changes(grain, rows):
    # The exact key lists Dagster's definition gives around each change (no 02:00 on 2026-03-08,
    # two 01:00 on 2026-11-01), read forwards, backwards and by range.
    first = "2026-03-01T00-05:00" if grain == "hour" else "2026-03-01"
    definition = partitions_def_for(grain, first, timezone=NY)
    dagster_keys = [row[0] for row in rows]
    strata_keys = [row[1] for row in rows]
    assert list(definition.get_partition_keys_in_range(
        dg.PartitionKeyRange(dagster_keys[0], dagster_keys[-1]))) == dagster_keys
    everything = definition.get_partition_keys(current_time=dt.datetime(2027, 1, 1, tzinfo=UTC))
    at = everything.index(dagster_keys[0])
    assert everything[at:at + len(rows)] == dagster_keys
    for earlier, later in zip(dagster_keys, dagster_keys[1:]):
        assert definition.get_next_partition_key(earlier) == later
        previous = definition.get_prev_partition_window(
            definition.time_window_for_partition_key(later).start)
        assert _instants(previous) == _instants(definition.time_window_for_partition_key(earlier))
    assert [to_strata_key(k, grain, timezone=NY) for k in dagster_keys] == strata_keys
    assert [to_dagster_key(k, grain, timezone=NY) for k in strata_keys] == dagster_keys
    ends = [_instants(definition.time_window_for_partition_key(k))[1] for k in dagster_keys]
    assert ends == [_utc(row[3]) for row in rows]
    # end_offset=1: the partition containing now comes last, now in each of the rows
    for row in rows:
        now = _utc(row[2]) + dt.timedelta(minutes=1)
        assert definition.get_partition_keys(current_time=now)[-1] == row[0]


def _offset_key(local: dt.datetime) -> str:
    """strata's zoned hourly key, written out field by field (not through the package)."""
    minutes = int(local.utcoffset().total_seconds()) // 60
    sign, minutes = ("-", -minutes) if minutes < 0 else ("+", minutes)
    return f"{local:%Y-%m-%dT%H}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


@pytest.mark.parametrize("zone", [NY, "Europe/Berlin", "Asia/Kolkata", "Australia/Sydney",
                                  "America/St_Johns"])
def test_zoned_hours_round_trip_over_a_year(zone):
    # Every hour of local 2026: strata's keys walked hour by hour in UTC, independently of the
    # package, are Dagster's keys translated, and Dagster's windows are the hours walked.
    tz = zoneinfo.ZoneInfo(zone)
    begin = dt.datetime(2026, 1, 1, tzinfo=tz).astimezone(UTC)
    end = dt.datetime(2027, 1, 1, tzinfo=tz).astimezone(UTC)
    starts = [begin + dt.timedelta(hours=h) for h in range((end - begin) // dt.timedelta(hours=1))]
    expected = [_offset_key(s.astimezone(tz)) for s in starts]
    assert len(expected) == len(set(expected)) == 8760
    definition = partitions_def_for("hour", expected[0], timezone=zone, end_offset=0)
    dagster_keys = definition.get_partition_keys(current_time=end)
    assert len(dagster_keys) == len(set(dagster_keys)) == 8760
    assert [to_strata_key(k, "hour", timezone=zone) for k in dagster_keys] == expected
    assert [to_dagster_key(k, "hour", timezone=zone) for k in expected] == dagster_keys
    for key, start in zip(dagster_keys, starts):
        window = definition.time_window_for_partition_key(key)
        assert _instants(window) == (start, start + dt.timedelta(hours=1)), key


@pytest.mark.parametrize("zone", [NY, "Europe/Berlin", "America/Santiago", "Asia/Kolkata"])
def test_zoned_days_round_trip_over_a_year(zone):
    # Every local day of 2026; a day starts at the first UTC minute whose local date is that day
    # (found by walking minutes: Santiago's September change skips midnight itself).
    tz = zoneinfo.ZoneInfo(zone)
    begin = dt.datetime(2026, 1, 1, tzinfo=tz).astimezone(UTC)
    day_starts, minute, last_date = [], begin, None
    while minute < begin + dt.timedelta(days=366):
        local_date = minute.astimezone(tz).date()
        if local_date != last_date:
            day_starts.append((local_date, minute))
            last_date = local_date
        minute += dt.timedelta(minutes=15)
    day_starts = [(d, s) for d, s in day_starts if d.year == 2026] + [
        next((d, s) for d, s in day_starts if d.year == 2027)]
    expected = [f"{d:%Y-%m-%d}" for d, _ in day_starts[:-1]]
    definition = partitions_def_for("day", expected[0], timezone=zone, end_offset=0)
    dagster_keys = definition.get_partition_keys(current_time=day_starts[-1][1])
    assert dagster_keys == expected  # a zoned day's Dagster key is its local date too
    assert [to_strata_key(k, "day", timezone=zone) for k in dagster_keys] == expected
    for key, (_, start), (_, end) in zip(dagster_keys, day_starts, day_starts[1:]):
        window = definition.time_window_for_partition_key(key)
        assert _instants(window) == (start, end), key
        assert strata_key_start(key, "day", timezone=zone) == start


@pytest.mark.parametrize("grain,key", [
    ("hour", "2026-03-08T02-05:00"),   # the skipped hour, either offset
    ("hour", "2026-03-08T02-04:00"),
    ("hour", "2026-11-01T01-06:00"),   # an offset New York never has
    ("hour", "2026-11-01T03-04:00"),   # EDT is over by then
    ("hour", "2026-11-01T01"),         # a zoned hourly key carries its offset
    ("hour", "2026-11-01T01-0400"),
    ("day", "2026-3-08"),
])
def test_keys_new_york_does_not_have_are_refused(grain, key):
    with pytest.raises(ValueError):
        to_dagster_key(key, grain, timezone=NY)


@pytest.mark.parametrize("key", ["2026-03-08-02:00", "2026-11-01-01:00-0400",
                                 "2026-11-01-02:00-0500", "2026-11-01-01:00-05:00"])
def test_dagster_keys_new_york_does_not_have_are_refused(key):
    with pytest.raises(ValueError):
        to_strata_key(key, "hour", timezone=NY)


def test_zoned_definitions():
    hourly = partitions_def_for("hour", "2026-11-01T01-05:00", timezone=NY)
    assert isinstance(hourly, dg.HourlyPartitionsDefinition) and hourly.timezone == NY
    assert hourly.get_first_partition_key() == "2026-11-01-01:00-0500"
    assert grain_of(hourly) == "hour"
    yearly = partitions_def_for("year", "2026", timezone=NY)
    assert yearly.timezone == NY and grain_of(yearly) == "year"
    with pytest.raises(ValueError, match="unknown time zone"):
        partitions_def_for("day", "2026-01-01", timezone="America/Gotham")


def test_zones_dagster_cannot_follow_are_refused():
    # Lord Howe moves its clock by 30 minutes: strata splits the hour, Dagster's cron cannot.
    with pytest.raises(ValueError, match="off the hour"):
        partitions_def_for("hour", "2026-01-01T00+11:00", timezone="Australia/Lord_Howe")
    # Samoa skipped 2011-12-30: strata has no key for it, Dagster gives it a window.
    with pytest.raises(ValueError, match="skipped the local day 2011-12-30"):
        partitions_def_for("day", "2011-12-01", timezone="Pacific/Apia")
    # ...which its hours (no key on either side) and later days do not meet.
    partitions_def_for("hour", "2011-12-29T00-10:00", timezone="Pacific/Apia")
    partitions_def_for("day", "2012-01-01", timezone="Pacific/Apia")
    partitions_def_for("day", "2026-01-01", timezone="Australia/Lord_Howe")
