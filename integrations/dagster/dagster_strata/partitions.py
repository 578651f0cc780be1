"""Dagster partitions definitions for strata's grains, and partition keys translated both ways.

strata's keys (docs/timezones.md) and the keys of Dagster's time-window partitions definitions,
built in the model's zone (`timezone=`, "UTC" by default):

    grain   strata                Dagster                 Dagster definition
    hour    2026-04-08T13         2026-04-08-13:00        HourlyPartitionsDefinition
    hour    2026-11-01T01-04:00   2026-11-01-01:00        HourlyPartitionsDefinition, a zone
    hour    2026-11-01T01-05:00   2026-11-01-01:00-0500   (the repeated hour's second instance)
    day     2026-04-08            2026-04-08              DailyPartitionsDefinition
    month   2026-04               2026-04-01              MonthlyPartitionsDefinition
    year    2026                  2026                    TimeWindowPartitionsDefinition(cron "0 0 1 1 *", fmt "%Y")

Both sides name local periods of the zone, and both start a period at the first instant the zone's
clock reads its start, so day, month and year keys are the same local dates. Hourly keys of a
zoned model carry their UTC offset on strata's side (`%Y-%m-%dT%H%:z`, in every key); Dagster's
hourly keys keep the wall-clock hour and append the offset (`%z`) only to the second instance of
a repeated hour. So New York's fall-back night has two partitions on each side, and its skipped
spring hour (2026-03-08T02) none on either. The translation goes through the period's start
instant and checks that the key it read is the canonical one for that instant, so a key of a
skipped hour, or an offset the zone does not have then, is a ValueError.

Zones whose clock changes Dagster's cron iteration cannot follow are refused by partitions_def_for
(ValueError): hourly partitions in a zone that changes its clock by less than an hour or off the
hour (Australia/Lord_Howe: strata splits the hour at the change, Dagster's windows straddle it),
and daily partitions over a local day the zone skipped (Pacific/Apia's 2011-12-30: strata has no
key, Dagster gives it a window).

strata's side is read from `strata models`: each time_interval model's `key_format` (the strftime
format of its keys) and `timezone`, which the package passes on. Without a `key_format` the
format strata uses for the grain in that zone is assumed.
"""
from __future__ import annotations

import datetime as dt
import functools
import re
import zoneinfo

import dagster as dg

GRAINS = ("hour", "day", "month", "year")
UTC = "UTC"

# A Dagster key's wall-clock fields; an hour key may end with a UTC offset (the second instance of
# a repeated hour: Dagster's dst_safe_strftime).
_DAGSTER_KEY = {
    "hour": re.compile(r"^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})-(?P<hour>\d{2}):00"
                       r"(?P<offset>[+-]\d{4})?$"),
    "day": re.compile(r"^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})$"),
    "month": re.compile(r"^(?P<year>\d{4})-(?P<month>\d{2})-01$"),
    "year": re.compile(r"^(?P<year>\d{4})$"),
}
# strata's key formats when no model's `key_format` is given (`strata models` reports the same).
_DEFAULT_KEY_FORMAT = {"hour": "%Y-%m-%dT%H", "day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}
ZONED_HOUR_KEY_FORMAT = "%Y-%m-%dT%H%:z"
_DAGSTER_FORMAT = {"hour": "%Y-%m-%d-%H:%M", "day": "%Y-%m-%d", "month": "%Y-%m-%d", "year": "%Y"}
YEAR_CRON = "0 0 1 1 *"


def _check_grain(grain: str) -> None:
    if grain not in GRAINS:
        raise ValueError(f'unknown grain "{grain}": expected one of {", ".join(GRAINS)}')


@functools.lru_cache(maxsize=None)
def zone_of(timezone: str) -> dt.tzinfo:
    """The tzinfo of a strata `timezone` ("UTC" or an IANA name); ValueError for an unknown one."""
    if timezone == UTC:
        return dt.timezone.utc
    try:
        return zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f'unknown time zone "{timezone}": expected UTC or an IANA name such as '
                         '"America/New_York"') from None


def _strata_format(grain: str, key_format: str | None, timezone: str) -> str:
    _check_grain(grain)
    if key_format:
        return key_format
    if grain == "hour" and timezone != UTC:
        return ZONED_HOUR_KEY_FORMAT
    return _DEFAULT_KEY_FORMAT[grain]


def _strftime(moment: dt.datetime, key_format: str) -> str:
    # Python before 3.12 has no %:z (the offset as -04:00), which strata's zoned hourly keys use.
    if "%:z" in key_format:
        offset = moment.strftime("%z")
        key_format = key_format.replace("%:z", f"{offset[:3]}:{offset[3:5]}{offset[5:]}")
    return moment.strftime(key_format)


def _first_instant_reading(wall: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """The first instant at which the clock of `zone` reads `wall` (a period's start, strata's
    window start): the earlier instance of a repeated time (fold=0, as Dagster reads it too). A
    skipped `wall` read with fold=0 is the clock change itself when the skipped times begin at
    `wall`, true of every period start: since 1970 no zone of the tz database has skipped times
    that strictly contain a midnight, and a zoned hourly key carries its offset."""
    return wall.replace(tzinfo=zone, fold=0).astimezone(dt.timezone.utc)


def strata_key_start(key: str, grain: str, key_format: str | None = None, *,
                     timezone: str = UTC) -> dt.datetime:
    """The start (an instant, in UTC) of the strata partition `key` of `grain` in `timezone`
    (`key_format`: the model's, from `strata models`); ValueError for a key strata would refuse:
    malformed, a local period the zone skipped, an offset the zone does not have then."""
    key_format = _strata_format(grain, key_format, timezone)
    zone = zone_of(timezone)
    try:
        parsed = dt.datetime.strptime(key, key_format.replace("%:z", "%z"))
    except ValueError as error:
        raise ValueError(f'"{key}" is not a strata {grain} partition key: {error}') from None
    if parsed.tzinfo is not None:  # an hourly key with its offset names one instant
        start = parsed.astimezone(dt.timezone.utc)
    else:
        start = _first_instant_reading(parsed, zone)
    # strptime also reads unpadded fields ("2026-4-7"); a skipped period starts in the next one.
    if _strftime(start.astimezone(zone), key_format) != key:
        raise ValueError(f'"{key}" is not a strata {grain} partition key in {timezone}')
    return start


def _second_of_repeated(local: dt.datetime) -> bool:
    # Dagster's is_second_ambiguous_time: the later instance of a wall time the clock shows twice.
    return local.fold == 1 and local.replace(fold=0).utcoffset() > local.utcoffset()


def _dagster_key(start: dt.datetime, grain: str, zone: dt.tzinfo) -> str:
    local = start.astimezone(zone)
    key = local.strftime(_DAGSTER_FORMAT[grain])
    if grain == "hour" and _second_of_repeated(local):
        key += local.strftime("%z")
    return key


def dagster_key_start(key: str, grain: str, *, timezone: str = UTC) -> dt.datetime:
    """The start (an instant, in UTC) of the Dagster partition `key` of `grain` in `timezone`, as
    Dagster reads it (a repeated wall time is its first instance unless the key carries the
    offset); ValueError for a malformed key or one no partition of the zone has."""
    _check_grain(grain)
    zone = zone_of(timezone)
    match = _DAGSTER_KEY[grain].match(key)
    if match is None:
        raise ValueError(f'"{key}" is not a Dagster {grain} partition key')
    # Fields a coarser grain leaves out: month 1, day 1, hour 0.
    fields = {"month": "1", "day": "1", "hour": "0", **match.groupdict()}
    offset = fields.get("offset")
    try:
        wall = dt.datetime(*(int(fields[f]) for f in ("year", "month", "day", "hour")))
    except ValueError as error:
        raise ValueError(f'"{key}" is not a Dagster {grain} partition key: {error}') from None
    if offset:
        sign = -1 if offset[0] == "-" else 1
        fixed = dt.timezone(sign * dt.timedelta(hours=int(offset[1:3]), minutes=int(offset[3:])))
        start = wall.replace(tzinfo=fixed)
    else:
        start = wall.replace(tzinfo=zone, fold=0)
    start = start.astimezone(dt.timezone.utc)
    if _dagster_key(start, grain, zone) != key:
        raise ValueError(f'"{key}" is not a Dagster {grain} partition key in {timezone}')
    return start


def to_dagster_key(strata_key: str, grain: str, key_format: str | None = None, *,
                   timezone: str = UTC) -> str:
    """strata `2026-04-08T13` -> Dagster `2026-04-08-13:00`; `2026-04` -> `2026-04-01`; in New
    York, `2026-11-01T01-05:00` -> `2026-11-01-01:00-0500`."""
    start = strata_key_start(strata_key, grain, key_format, timezone=timezone)
    return _dagster_key(start, grain, zone_of(timezone))


def to_strata_key(dagster_key: str, grain: str, key_format: str | None = None, *,
                  timezone: str = UTC) -> str:
    """Dagster `2026-04-08-13:00` -> strata `2026-04-08T13`; `2026-04-01` -> `2026-04`; in New
    York, `2026-11-01-01:00` -> `2026-11-01T01-04:00`."""
    start = dagster_key_start(dagster_key, grain, timezone=timezone)
    return _strftime(start.astimezone(zone_of(timezone)),
                     _strata_format(grain, key_format, timezone))


def _clock_changes(zone: dt.tzinfo, begin: dt.datetime, end: dt.datetime):
    """(instant, offset before, offset after) of each change of `zone`'s UTC offset in
    [begin, end), found by sampling every 6 hours (no zone changes twice within 6 hours) and
    bisecting to the second (every change falls on a whole second)."""
    def offset_at(second: int) -> dt.timedelta:
        return dt.datetime.fromtimestamp(second, zone).utcoffset()

    step = 6 * 3600
    moment, last = int(begin.timestamp()), int(end.timestamp())
    offset = offset_at(moment)
    while moment < last:
        following = moment + step
        after = offset_at(following)
        if after != offset:
            low, high = moment, following
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if offset_at(middle) == offset else (low, middle)
            yield dt.datetime.fromtimestamp(high, dt.timezone.utc), offset, after
        moment, offset = following, after


@functools.lru_cache(maxsize=256)
def _check_zone(grain: str, timezone: str, begin: dt.datetime, end: dt.datetime) -> None:
    zone = zone_of(timezone)
    for instant, before, after in _clock_changes(zone, begin, end):
        wall_before = (instant + before).replace(tzinfo=None)  # the clock just before the change
        wall_after = (instant + after).replace(tzinfo=None)
        if grain == "hour" and (wall_before.minute, wall_before.second, wall_after.minute,
                                wall_after.second) != (0, 0, 0, 0):
            raise ValueError(
                f"{timezone} changes its clock off the hour ({wall_before:%H:%M} to "
                f"{wall_after:%H:%M} at {instant:%Y-%m-%dT%H:%M:%SZ}): strata splits that hour, "
                "Dagster's hourly partitions cannot; use a coarser grain or another zone")
        first_whole_day = dt.datetime.combine(
            wall_before.date() + dt.timedelta(days=0 if wall_before.time() == dt.time() else 1),
            dt.time())
        if grain == "day" and first_whole_day + dt.timedelta(days=1) <= wall_after:
            raise ValueError(
                f"{timezone} skipped the local day {first_whole_day:%Y-%m-%d}: strata has no key "
                "for it, Dagster's daily partitions give it a window; start the model after it")


def partitions_def_for(grain: str, first_partition: str, *, end_offset: int = 1,
                       key_format: str | None = None, timezone: str = UTC,
                       now: dt.datetime | None = None) -> dg.TimeWindowPartitionsDefinition:
    """The Dagster partitions definition of a time_interval model in `timezone`, starting at
    `first_partition` (a strata key in `key_format`, the model's). `end_offset=1` (the default)
    includes the partition containing now, as `strata run --missing` does; 0 stops at the last
    complete one (Dagster's default). ValueError for a zone whose clock changes from
    `first_partition` to a year after `now` Dagster's partitions cannot follow (see above)."""
    start = strata_key_start(first_partition, grain, key_format, timezone=timezone)
    if timezone != UTC:
        now = now or dt.datetime.now(dt.timezone.utc)
        horizon = max(start, now) + dt.timedelta(days=400)
        _check_zone(grain, timezone, start, horizon.replace(hour=0, minute=0, second=0,
                                                            microsecond=0))
    # The first key as Dagster writes it: Dagster reads a string start in the zone, exactly.
    first = _dagster_key(start, grain, zone_of(timezone))
    if grain == "hour":
        return dg.HourlyPartitionsDefinition(start_date=first, timezone=timezone,
                                             end_offset=end_offset)
    if grain == "day":
        return dg.DailyPartitionsDefinition(start_date=first, timezone=timezone,
                                            end_offset=end_offset)
    if grain == "month":
        return dg.MonthlyPartitionsDefinition(start_date=first, timezone=timezone,
                                              end_offset=end_offset)
    return dg.TimeWindowPartitionsDefinition(cron_schedule=YEAR_CRON, fmt="%Y", start=first,
                                             timezone=timezone, end_offset=end_offset)


def grain_of(partitions_def: dg.PartitionsDefinition) -> str | None:
    """The strata grain a definition made by partitions_def_for stands for, or None."""
    if not isinstance(partitions_def, dg.TimeWindowPartitionsDefinition):
        return None
    cron = partitions_def.cron_schedule
    if cron == YEAR_CRON and partitions_def.fmt == "%Y":
        return "year"
    return {"0 * * * *": "hour", "0 0 * * *": "day", "0 0 1 * *": "month"}.get(cron)
