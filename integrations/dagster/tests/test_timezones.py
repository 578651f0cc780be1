"""Models in America/New_York against the strata binary: the Dagster partitions of a zoned daily
and a zoned hourly model are strata's partitions one to one, windows included, across both 2026
clock changes (2026-03-08: 02:00 is skipped; 2026-11-01: 01:00 comes twice); then other zones'
kinds of change, as `strata plan` computes them."""
from __future__ import annotations

import datetime as dt
import json
import shutil
import textwrap

import dagster as dg
import pytest

from conftest import NEW_YORK, query, strata
from dagster_strata import StrataProject, strata_assets, to_dagster_key, to_strata_key
from dagster_strata.observe import read_ledger
from dagster_strata.partitions import grain_of
from test_materialize import key_range, materializations, materialize

UTC = dt.timezone.utc
DAILY = dg.AssetKey(["marts", "fct_ny_daily"])
HOURLY = dg.AssetKey(["marts", "fct_ny_hourly"])

SPRING_HOURS = {  # Dagster key -> strata key, 2026-03-08 00:00 to 04:00 in New York
    "2026-03-08-00:00": "2026-03-08T00-05:00",
    "2026-03-08-01:00": "2026-03-08T01-05:00",
    "2026-03-08-03:00": "2026-03-08T03-04:00",
    "2026-03-08-04:00": "2026-03-08T04-04:00",
}
FALL_HOURS = {  # 2026-11-01 00:00 to 02:00 in New York
    "2026-11-01-00:00": "2026-11-01T00-04:00",
    "2026-11-01-01:00": "2026-11-01T01-04:00",
    "2026-11-01-01:00-0500": "2026-11-01T01-05:00",
    "2026-11-01-02:00": "2026-11-01T02-05:00",
}


def instant(text: str) -> dt.datetime:
    """A UTC instant as strata prints it ("2026-03-08T05:00:00Z")."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def dagster_window(definition, key: str) -> tuple[dt.datetime, dt.datetime]:
    window = definition.time_window_for_partition_key(key)
    return window.start.astimezone(UTC), window.end.astimezone(UTC)


def partitions_defs(project: StrataProject) -> dict:
    return {a.key: a.partitions_def for a in strata_assets(project)
            if isinstance(a, dg.AssetsDefinition)}


def ledger_windows(project: StrataProject, model: str) -> dict[str, tuple]:
    """strata key -> (status, start, end, row count) from `strata partitions --output json`."""
    return {r.partition_key: (r.status, instant(r.start), instant(r.end), r.row_count)
            for r in project.cli.partitions(model).partitions}


def test_zoned_models_become_zoned_partitions(zoned_project, strata_bin):
    project = StrataProject(zoned_project, strata_bin)
    daily, hourly = project.model("fct_ny_daily"), project.model("fct_ny_hourly")
    assert (daily.time_interval.timezone, daily.time_interval.naive_time) == (NEW_YORK, "utc")
    assert daily.time_interval.key_format == "%Y-%m-%d"
    assert hourly.time_interval.key_format == "%Y-%m-%dT%H%:z"
    definitions = partitions_defs(project)
    assert isinstance(definitions[DAILY], dg.DailyPartitionsDefinition)
    assert isinstance(definitions[HOURLY], dg.HourlyPartitionsDefinition)
    assert definitions[DAILY].timezone == definitions[HOURLY].timezone == NEW_YORK
    assert definitions[DAILY].get_first_partition_key() == "2026-03-01"
    assert definitions[HOURLY].get_first_partition_key() == "2026-03-01-00:00"
    assets = {a.key: a for a in strata_assets(project) if isinstance(a, dg.AssetsDefinition)}
    assert assets[HOURLY].specs_by_key[HOURLY].metadata["strata/timezone"] == NEW_YORK


def planned_windows(strata_bin, project_dir, model, first, last) -> list[tuple]:
    """(key, start, end) of every partition `strata plan --from --to` plans (batch_size 1: one
    batch per key), computed by the binary without running anything."""
    document = json.loads(strata(strata_bin, "plan", "--project", str(project_dir), "--model",
                                 model, "--from", first, "--to", last, "--output",
                                 "json").stdout)
    (planned,) = [m for m in document["models"] if m["model"] == model]
    rows = []
    for batch in planned["batches"]:
        (key,) = batch["keys"]
        rows.append((key, instant(batch["start"]), instant(batch["end"])))
    return rows


def test_every_partition_of_2026_maps_one_to_one(zoned_project, strata_bin):
    # Every local day and hour from first_partition (2026-03-01) to 2026-11-30 in New York, as
    # strata plans them: each Dagster key translates to the strata key with the same window, in
    # the same order, and back. 275 days; as many hours as 275 days of 24 (one skipped, one twice).
    project = StrataProject(zoned_project, strata_bin)
    definitions = partitions_defs(project)
    end = dt.datetime(2026, 12, 1, 5, tzinfo=UTC)  # 2026-12-01 00:00 in New York
    for model, key, grain, first, last, count in (
            ("fct_ny_daily", DAILY, "day", "2026-03-01", "2026-11-30", 275),
            ("fct_ny_hourly", HOURLY, "hour", "2026-03-01T00-05:00", "2026-11-30T23-05:00",
             275 * 24)):
        planned = planned_windows(strata_bin, zoned_project, model, first, last)
        assert len(planned) == count and planned[-1][2] == end
        definition = definitions[key]
        dagster_keys = [k for k in definition.get_partition_keys(current_time=end)
                        if dagster_window(definition, k)[0] < end]
        assert len(dagster_keys) == count
        assert [to_strata_key(k, grain, timezone=NEW_YORK) for k in dagster_keys] == [
            p[0] for p in planned]
        assert [to_dagster_key(p[0], grain, timezone=NEW_YORK) for p in planned] == dagster_keys
        for dagster_key, (strata_key, start, stop) in zip(dagster_keys, planned):
            assert dagster_window(definition, dagster_key) == (start, stop), strata_key
    spring = [p for p in planned if p[0].startswith("2026-03-08T0")]
    assert [p[0] for p in spring][:5] == ["2026-03-08T00-05:00", "2026-03-08T01-05:00",
                                          "2026-03-08T03-04:00", "2026-03-08T04-04:00",
                                          "2026-03-08T05-04:00"]


def test_zoned_daily_partitions_through_dagster(zoned_project, strata_bin):
    # Three local days around each change as Dagster backfills (one strata run per range): the
    # 23- and 25-hour days hold 23 and 25 hourly rows, and strata's windows are Dagster's.
    project = StrataProject(zoned_project, strata_bin)
    assets = strata_assets(project)
    definition = partitions_defs(project)[DAILY]
    for first, last, hours in (("2026-03-07", "2026-03-09", [24, 23, 24]),
                               ("2026-10-31", "2026-11-02", [24, 25, 24])):
        instance, result = materialize(assets, project, DAILY, tags=key_range(first, last))
        assert result.success
        mats = materializations(instance, result, DAILY)
        keys = sorted(mats)
        assert keys[0] == first and keys[-1] == last and len(keys) == 3
        assert [mats[k].metadata["row_count"].value for k in keys] == hours
        assert [mats[k].metadata["strata_partition"].value for k in keys] == keys
        for key in keys:
            start, end = dagster_window(definition, key)
            assert instant(mats[key].metadata["window_start"].value) == start
            assert instant(mats[key].metadata["window_end"].value) == end
    ledger = ledger_windows(project, "fct_ny_daily")
    assert len(ledger) == 6
    for strata_key, (status, start, end, rows) in ledger.items():
        assert status == "Computed"
        assert dagster_window(definition, to_dagster_key(strata_key, "day",
                                                         timezone=NEW_YORK)) == (start, end)
        assert rows == (end - start) // dt.timedelta(hours=1)
    assert ledger["2026-11-01"][1:3] == (instant("2026-11-01T04:00:00Z"),
                                         instant("2026-11-02T05:00:00Z"))


def test_zoned_hourly_partitions_across_both_changes(zoned_project, strata_bin):
    project = StrataProject(zoned_project, strata_bin)
    assets = strata_assets(project)
    definition = partitions_defs(project)[HOURLY]
    for hours in (SPRING_HOURS, FALL_HOURS):
        dagster_keys = list(hours)
        assert list(definition.get_partition_keys_in_range(
            dg.PartitionKeyRange(dagster_keys[0], dagster_keys[-1]))) == dagster_keys
        instance, result = materialize(assets, project, HOURLY,
                                       tags=key_range(dagster_keys[0], dagster_keys[-1]))
        assert result.success
        mats = materializations(instance, result, HOURLY)
        assert set(mats) == set(dagster_keys)  # no 02:00 in March, both 01:00 in November
        assert {k: m.metadata["strata_partition"].value for k, m in mats.items()} == hours
        assert {m.metadata["run_id"].value for m in mats.values()} == {
            mats[dagster_keys[0]].metadata["run_id"].value}  # one strata run
    ledger = ledger_windows(project, "fct_ny_hourly")
    assert set(ledger) == set(SPRING_HOURS.values()) | set(FALL_HOURS.values())
    for dagster_key, strata_key in {**SPRING_HOURS, **FALL_HOURS}.items():
        status, start, end, rows = ledger[strata_key]
        assert status == "Computed" and rows == 1
        assert dagster_window(definition, dagster_key) == (start, end)
    # The repeated hour's two partitions hold the UTC hours 05:00 and 06:00, six events each.
    held = dict(query(zoned_project, "SELECT strftime(event_hour, '%H'), events FROM "
                      "marts.fct_ny_hourly WHERE event_hour >= TIMESTAMP '2026-11-01 04:00' "
                      "AND event_hour < TIMESTAMP '2026-11-01 08:00'"))
    assert held == {"04": 6, "05": 6, "06": 6, "07": 6}
    # What the observation sensor reports missing at 05:30 EDT on 2026-03-08 (end_offset=1: up
    # to the hour containing now), in strata keys: 2026-03-01 to 2026-03-07, then the one hour
    # of 2026-03-08 not run; no key for the skipped hour.
    missing = read_ledger(project, now=instant("2026-03-08T09:30:00Z"))["fct_ny_hourly"].missing
    assert len(missing) == 7 * 24 + 1 and missing[0] == "2026-03-01T00-05:00"
    assert [k for k in missing if k.startswith("2026-03-08")] == ["2026-03-08T05-04:00"]


def test_one_repeated_hour_runs_its_own_strata_key(zoned_project, strata_bin):
    project = StrataProject(zoned_project, strata_bin)
    assets = strata_assets(project)
    for dagster_key, strata_key, utc_hour in (
            ("2026-11-01-01:00-0500", "2026-11-01T01-05:00", "06"),
            ("2026-11-01-01:00", "2026-11-01T01-04:00", "05")):
        instance, result = materialize(assets, project, HOURLY, partition_key=dagster_key)
        assert result.success
        logged = [e.user_message for e in instance.all_logs(result.run_id)]
        assert f"strata run --model fct_ny_hourly --partition {strata_key}" in logged
        (m,) = materializations(instance, result, HOURLY).values()
        assert m.partition == dagster_key
        assert m.metadata["strata_partition"].value == strata_key
        rows = query(zoned_project, "SELECT strftime(event_hour, '%H') FROM marts.fct_ny_hourly "
                     "WHERE event_hour >= TIMESTAMP '2026-11-01 00:00'")
        assert (utc_hour,) in rows
    assert set(ledger_windows(project, "fct_ny_hourly")) == {"2026-11-01T01-05:00",
                                                             "2026-11-01T01-04:00"}


@pytest.mark.parametrize("zone,grain,first,last", [
    ("Europe/Berlin", "hour", "2026-01-01T00+01:00", "2026-11-30T23+01:00"),
    ("America/St_Johns", "hour", "2026-01-01T00-03:30", "2026-11-30T23-03:30"),  # -03:30/-02:30
    ("Asia/Kolkata", "hour", "2026-01-01T00+05:30", "2026-11-30T23+05:30"),
    ("Australia/Sydney", "hour", "2026-01-01T00+11:00", "2026-11-30T23+11:00"),
    ("America/Santiago", "day", "2026-01-01", "2026-11-30"),  # 2026-09-06 starts at 01:00
    ("Australia/Lord_Howe", "day", "2026-01-01", "2026-11-30"),  # 23.5- and 24.5-hour days
    ("Europe/Berlin", "month", "2026-01", "2026-11"),
    ("America/New_York", "year", "2020", "2026"),
])
def test_other_zones_match_strata_plan(zoned_project, strata_bin, zone, grain, first, last):
    # Other shapes of clock change, each a model of its own planned by the binary: Dagster's
    # partitions of its definition are strata's, key for key and window for window.
    (zoned_project / "models" / "fct_zone.toml").write_text(textwrap.dedent(f"""\
        name = "fct_zone"

        [[sources]]
        schema = "raw"
        table = "events"

        [strategy]
        type = "time_interval"
        time_column = "event_hour"
        granularity = "{grain}"
        timezone = "{zone}"
        first_partition = "{first}"

        [target]
        schema = "marts"
        table = "fct_zone"
        """))
    shutil.copy(zoned_project / "models" / "fct_ny_hourly.sql",
                zoned_project / "models" / "fct_zone.sql")
    project = StrataProject(zoned_project, strata_bin)
    definition = partitions_defs(project)[dg.AssetKey(["marts", "fct_zone"])]
    assert definition.timezone == zone and grain_of(definition) == grain
    planned = planned_windows(strata_bin, zoned_project, "fct_zone", first, last)
    end = planned[-1][2]
    dagster_keys = [k for k in definition.get_partition_keys(current_time=end)
                    if dagster_window(definition, k)[0] < end]
    assert [(to_strata_key(k, grain, timezone=zone),) + dagster_window(definition, k)
            for k in dagster_keys] == planned
