"""Dagster partitions definitions for strata's grains, and partition keys translated both ways.

strata's canonical keys (seed, "Partition keys") and Dagster's default time-window keys:

    grain   strata            Dagster             Dagster definition
    hour    2026-04-08T13     2026-04-08-13:00    HourlyPartitionsDefinition
    day     2026-04-08        2026-04-08          DailyPartitionsDefinition
    month   2026-04           2026-04-01          MonthlyPartitionsDefinition
    year    2026              2026                TimeWindowPartitionsDefinition(cron "0 0 1 1 *", fmt "%Y")

Time is UTC on both sides (strata v1 has no other zone), so DST dates translate like any other.

strata's side is read from `strata models`: each time_interval model's `key_format` (the strftime
format of its grain's keys), which the package passes as `key_format=`. Without one (a caller with
no model at hand: `to_strata_key("2026-04-01", "month")`) the grain's format as strata reports it
is assumed.
"""
from __future__ import annotations

import datetime as dt
import re

import dagster as dg

GRAINS = ("hour", "day", "month", "year")

_DAGSTER_KEY = {
    "hour": re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(\d{2}):00$"),
    "day": re.compile(r"^(\d{4})-(\d{2})-(\d{2})$"),
    "month": re.compile(r"^(\d{4})-(\d{2})-01$"),
    "year": re.compile(r"^(\d{4})$"),
}
# strata's key formats when no model's `key_format` is given (`strata models` reports the same).
_DEFAULT_KEY_FORMAT = {"hour": "%Y-%m-%dT%H", "day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}
_DAGSTER_FORMAT = {"hour": "%Y-%m-%d-%H:%M", "day": "%Y-%m-%d", "month": "%Y-%m-%d", "year": "%Y"}
YEAR_CRON = "0 0 1 1 *"


def _check_grain(grain: str) -> None:
    if grain not in GRAINS:
        raise ValueError(f'unknown grain "{grain}": expected one of {", ".join(GRAINS)}')


def _strata_format(grain: str, key_format: str | None) -> str:
    _check_grain(grain)
    return key_format or _DEFAULT_KEY_FORMAT[grain]


def strata_key_start(key: str, grain: str, key_format: str | None = None) -> dt.datetime:
    """The UTC start of the strata partition `key` of `grain` (`key_format`: the model's, from
    `strata models`); ValueError for a malformed key."""
    key_format = _strata_format(grain, key_format)
    try:
        start = dt.datetime.strptime(key, key_format)
    except ValueError as error:
        raise ValueError(f'"{key}" is not a strata {grain} partition key: {error}') from None
    if start.strftime(key_format) != key:  # strptime also reads unpadded fields ("2026-4-7")
        raise ValueError(f'"{key}" is not a strata {grain} partition key')
    return start.replace(tzinfo=dt.timezone.utc)


def dagster_key_start(key: str, grain: str) -> dt.datetime:
    """The UTC start of the Dagster partition `key` of `grain`; ValueError for a malformed key."""
    _check_grain(grain)
    match = _DAGSTER_KEY[grain].match(key)
    if match is None:
        raise ValueError(f'"{key}" is not a Dagster {grain} partition key')
    parts = [int(p) for p in match.groups()]
    # Fields a coarser grain leaves out: month 1, day 1, hour 0.
    year, month, day, hour = parts + [1, 1, 0][len(parts) - 1:]
    try:
        return dt.datetime(year, month, day, hour, tzinfo=dt.timezone.utc)
    except ValueError as error:
        raise ValueError(f'"{key}" is not a Dagster {grain} partition key: {error}') from None


def to_dagster_key(strata_key: str, grain: str, key_format: str | None = None) -> str:
    """strata `2026-04-08T13` -> Dagster `2026-04-08-13:00`; `2026-04` -> `2026-04-01`."""
    return strata_key_start(strata_key, grain, key_format).strftime(_DAGSTER_FORMAT[grain])


def to_strata_key(dagster_key: str, grain: str, key_format: str | None = None) -> str:
    """Dagster `2026-04-08-13:00` -> strata `2026-04-08T13`; `2026-04-01` -> `2026-04`."""
    return dagster_key_start(dagster_key, grain).strftime(_strata_format(grain, key_format))


def partitions_def_for(grain: str, first_partition: str, *, end_offset: int = 1,
                       key_format: str | None = None) -> dg.TimeWindowPartitionsDefinition:
    """The Dagster partitions definition of a time_interval model, starting at `first_partition`
    (a strata key in `key_format`, the model's). `end_offset=1` (the default) includes the
    partition containing now, as `strata run --missing` does; 0 stops at the last complete one
    (Dagster's default)."""
    start = strata_key_start(first_partition, grain, key_format)
    if grain == "hour":
        return dg.HourlyPartitionsDefinition(start_date=start, timezone="UTC", end_offset=end_offset)
    if grain == "day":
        return dg.DailyPartitionsDefinition(start_date=start, timezone="UTC", end_offset=end_offset)
    if grain == "month":
        return dg.MonthlyPartitionsDefinition(start_date=start, timezone="UTC",
                                              end_offset=end_offset)
    return dg.TimeWindowPartitionsDefinition(cron_schedule=YEAR_CRON, fmt="%Y", start=start,
                                             timezone="UTC", end_offset=end_offset)


def grain_of(partitions_def: dg.PartitionsDefinition) -> str | None:
    """The strata grain a definition made by partitions_def_for stands for, or None."""
    if not isinstance(partitions_def, dg.TimeWindowPartitionsDefinition):
        return None
    cron = partitions_def.cron_schedule
    if cron == YEAR_CRON and partitions_def.fmt == "%Y":
        return "year"
    return {"0 * * * *": "hour", "0 0 * * *": "day", "0 0 1 * *": "month"}.get(cron)
