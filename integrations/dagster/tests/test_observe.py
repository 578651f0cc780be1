"""The ledger (`strata partitions --output json`) as Dagster observations and a sensor."""
from __future__ import annotations

import datetime as dt
import sqlite3

import dagster as dg

from dagster_strata import StrataProject, build_strata_ledger_sensor, ledger_observations
from dagster_strata.observe import read_ledger

KEY = dg.AssetKey(["marts", "fct_fragile"])
NOW = dt.datetime(2026, 3, 10, 12, tzinfo=dt.timezone.utc)


def test_failed_interrupted_and_missing_partitions(small_project, strata_bin):
    project = StrataProject(small_project, strata_bin)
    run = project.cli.run("fct_fragile", from_key="2026-03-03", to_key="2026-03-06")
    assert run.returncode == 2 and run.output.status == "partial_failure"
    # A partition left Interrupted by a killed run (what the next run start records).
    con = sqlite3.connect(str(small_project / "models" / ".strata-state.db"))
    con.execute("UPDATE partitions SET status = 'Interrupted' WHERE partition_key = '2026-03-06'")
    con.commit()
    con.close()
    ledger = read_ledger(project, now=NOW)["fct_fragile"]
    assert ledger.by_status["Failed"] == ["2026-03-05"]
    assert ledger.by_status["Interrupted"] == ["2026-03-06"]
    # expected 2026-03-01 .. 2026-03-10 (end_offset=1 includes the partition containing now)
    assert ledger.missing == ["2026-03-01", "2026-03-02", "2026-03-05", "2026-03-06",
                              "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"]
    observations = ledger_observations(project, now=NOW)
    per_partition = {o.partition: o for o in observations if o.partition}
    assert set(per_partition) == {"2026-03-05", "2026-03-06"}
    failed = per_partition["2026-03-05"].metadata
    assert failed["strata_status"].value == "Failed"
    assert "Conversion Error" in failed["error"].value
    assert failed["run_id"].value == run.output.run_id
    assert per_partition["2026-03-06"].metadata["strata_status"].value == "Interrupted"
    (summary,) = [o for o in observations if o.partition is None]
    assert summary.asset_key == KEY
    assert summary.metadata["strata_missing_count"].value == 8
    assert summary.metadata["strata_failed_count"].value == 1
    assert summary.metadata["strata_computed_count"].value == 2


def test_sensor_reports_each_change_once(small_project, strata_bin):
    project = StrataProject(small_project, strata_bin)
    project.cli.run("fct_fragile", from_key="2026-03-04", to_key="2026-03-05")
    sensor = build_strata_ledger_sensor(project)
    instance = dg.DagsterInstance.ephemeral()
    first = sensor(dg.build_sensor_context(instance=instance))
    failed = [e for e in first.asset_events if e.partition == "2026-03-05"]
    assert len(failed) == 1 and failed[0].metadata["strata_status"].value == "Failed"
    again = sensor(dg.build_sensor_context(instance=instance, cursor=first.cursor))
    assert [e for e in again.asset_events if e.partition] == []
