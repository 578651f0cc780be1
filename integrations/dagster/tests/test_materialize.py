"""dagster.materialize(...) of strata assets: the real binary, real DuckDB files."""
from __future__ import annotations

import sqlite3

import dagster as dg
import duckdb

from conftest import query
from dagster_strata import StrataProject, strata_assets

DAILY = dg.AssetKey(["warehouse", "marts", "fct_daily_orders"])


def materialize(assets, project, key, **kwargs):
    """dg.materialize of `key` on a fresh instance (kept: a failed step's logged events are in
    the instance's event log, not in the in-process result's event list)."""
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize(assets, selection=[key], resources={"strata": project.resource()},
                            instance=instance, raise_on_error=False, **kwargs)
    return instance, result


def materializations(instance: dg.DagsterInstance, result, key: dg.AssetKey) -> dict:
    """partition (None when unpartitioned) -> AssetMaterialization of `key` in the run."""
    found = {}
    for record in instance.get_records_for_run(result.run_id, limit=100000).records:
        event = record.event_log_entry.dagster_event
        if event is not None and event.is_step_materialization:
            materialization = event.event_specific_data.materialization
            if materialization.asset_key == key:
                found[materialization.partition] = materialization
    return found


def key_range(first: str, last: str) -> dict:
    """Run tags that make a run target a partition range (what a single-run backfill sets)."""
    return {"dagster/asset_partition_range_start": first,
            "dagster/asset_partition_range_end": last}


def ledger(project_dir, model):
    con = sqlite3.connect(str(project_dir / "models" / ".strata-state.db"))
    try:
        # checksums are stored as signed 64-bit integers; strata prints them as 16 hex digits
        return {row[0]: (row[1], row[2], None if row[3] is None else
                         format(row[3] & 0xFFFFFFFFFFFFFFFF, "016x"), row[4])
                for row in con.execute(
            "SELECT partition_key, status, row_count, checksum, run_id FROM partitions "
            "WHERE model_name = ?", (model,))}
    finally:
        con.close()


def test_project_to_assets(example_project, strata_bin):
    project = StrataProject(example_project, strata_bin)
    assets = strata_assets(project)
    specs = {}
    for a in assets:
        for spec in ([a] if isinstance(a, dg.AssetSpec) else a.specs):
            specs[spec.key] = spec
    keys = {k.to_user_string() for k in specs}
    assert keys == {"raw/orders", "warehouse/raw/stg_orders", "warehouse/marts/fct_daily_orders",
                    "marts/fct_hourly_orders", "marts/fct_monthly_revenue"}
    deps = {k.to_user_string(): sorted(d.asset_key.to_user_string() for d in s.deps)
            for k, s in specs.items()}
    assert deps["warehouse/raw/stg_orders"] == ["raw/orders"]
    assert deps["warehouse/marts/fct_daily_orders"] == ["warehouse/raw/stg_orders"]
    assert deps["marts/fct_monthly_revenue"] == ["warehouse/marts/fct_daily_orders"]
    assert deps["marts/fct_hourly_orders"] == ["warehouse/raw/stg_orders"]
    assert specs[dg.AssetKey(["marts", "fct_monthly_revenue"])].tags.get("team") == "finance"
    defs = dg.Definitions(assets=assets, resources={"strata": project.resource()})
    graph = defs.resolve_asset_graph()
    by = {a.key: a for a in assets if isinstance(a, dg.AssetsDefinition)}
    daily = by[DAILY].partitions_def
    assert isinstance(daily, dg.DailyPartitionsDefinition)
    assert daily.get_first_partition_key() == "2025-05-01"
    hourly = by[dg.AssetKey(["marts", "fct_hourly_orders"])].partitions_def
    assert isinstance(hourly, dg.HourlyPartitionsDefinition)
    assert hourly.get_first_partition_key() == "2025-05-01-00:00"
    monthly = by[dg.AssetKey(["marts", "fct_monthly_revenue"])].partitions_def
    assert isinstance(monthly, dg.MonthlyPartitionsDefinition)
    assert monthly.get_first_partition_key() == "2025-05-01"
    assert by[dg.AssetKey(["warehouse", "raw", "stg_orders"])].partitions_def is None
    assert graph.get(DAILY).backfill_policy == dg.BackfillPolicy.single_run()


def test_materialize_one_partition(example_project, strata_bin):
    project = StrataProject(example_project, strata_bin)
    assets = strata_assets(project)
    instance, result = materialize(assets, project, DAILY, partition_key="2026-03-10")
    assert result.success
    mats = materializations(instance, result, DAILY)
    assert list(mats) == ["2026-03-10"]
    metadata = {k: v.value for k, v in mats["2026-03-10"].metadata.items()}
    rows = query(example_project, "SELECT count(*) FROM marts.fct_daily_orders "
                 "WHERE order_date = DATE '2026-03-10'")[0][0]
    assert rows > 0 and metadata["row_count"] == rows == metadata["dagster/row_count"]
    status, row_count, checksum, run_id = ledger(example_project, "fct_daily_orders")["2026-03-10"]
    assert status == "Computed" and row_count == rows
    assert metadata["checksum"] == checksum and metadata["run_id"] == run_id
    assert metadata["strata_partition"] == "2026-03-10"
    assert metadata["duration_ms"] >= 0 and metadata["batched_with"] == []


def test_materialize_a_range_of_30_partitions(example_project, strata_bin):
    project = StrataProject(example_project, strata_bin)
    assets = strata_assets(project)
    instance, result = materialize(assets, project, DAILY,
                                   tags=key_range("2026-02-01", "2026-03-02"))
    assert result.success
    mats = materializations(instance, result, DAILY)
    assert len(mats) == 30 and min(mats) == "2026-02-01" and max(mats) == "2026-03-02"
    counts = dict(query(example_project, "SELECT CAST(order_date AS VARCHAR), count(*) FROM "
                        "marts.fct_daily_orders GROUP BY 1"))
    state = ledger(example_project, "fct_daily_orders")
    run_ids = {m.metadata["run_id"].value for m in mats.values()}
    assert len(run_ids) == 1  # one strata run: the single-run backfill policy
    for key, m in mats.items():
        metadata = {k: v.value for k, v in m.metadata.items()}
        assert metadata["row_count"] == counts[key] == state[key][1]
        assert metadata["checksum"] == state[key][2] and state[key][0] == "Computed"
        assert state[key][3] in run_ids


def test_batched_keys_and_hourly_translation(example_project, strata_bin):
    # fct_hourly_orders has batch_size = 24: a day of hours runs as one statement.
    project = StrataProject(example_project, strata_bin)
    assets = strata_assets(project)
    key = dg.AssetKey(["marts", "fct_hourly_orders"])
    instance, result = materialize(assets, project, key,
                                   tags=key_range("2026-03-08-00:00", "2026-03-08-23:00"))
    assert result.success
    mats = materializations(instance, result, key)
    assert len(mats) == 24 and "2026-03-08-02:00" in mats
    batched = [m.metadata["batched_with_dagster"].value for m in mats.values()]
    assert any(len(b) == 23 for b in batched), batched
    assert set(ledger(example_project, "fct_hourly_orders")) == {
        f"2026-03-08T{h:02d}" for h in range(24)}


def test_non_partitioned_model_materializes_whole(example_project, strata_bin):
    project = StrataProject(example_project, strata_bin)
    key = dg.AssetKey(["warehouse", "raw", "stg_orders"])
    instance, result = materialize(strata_assets(project), project, key)
    assert result.success
    (m,) = materializations(instance, result, key).values()
    rows = query(example_project, "SELECT count(*) FROM raw.stg_orders")[0][0]
    assert m.partition is None and m.metadata["row_count"].value == rows


def test_failing_partition_among_succeeding_ones(small_project, strata_bin):
    project = StrataProject(small_project, strata_bin)
    assets = strata_assets(project)
    key = dg.AssetKey(["marts", "fct_fragile"])
    instance, result = materialize(assets, project, key,
                                   tags=key_range("2026-03-03", "2026-03-07"))
    assert not result.success
    mats = materializations(instance, result, key)
    assert sorted(mats) == ["2026-03-03", "2026-03-04", "2026-03-06", "2026-03-07"]
    failure = next(e for e in result.all_events if e.is_step_failure)
    error = failure.step_failure_data.user_failure_data
    assert "2026-03-05" in failure.step_failure_data.error.message
    assert "Conversion Error" in failure.step_failure_data.error.message
    assert error.metadata["failed_partitions"].value == ["2026-03-05"]
    assert error.metadata["exit_code"].value == 2
    assert error.metadata["errors"].value[0]["partition"] == "2026-03-05"
    materialized = instance.get_materialized_partitions(key)
    assert materialized == {"2026-03-03", "2026-03-04", "2026-03-06", "2026-03-07"}
    # What the UI shows: Dagster's partition status (an internal API of the pinned dagster)
    # has exactly the failed partition failed, not the whole range.
    from dagster._core.storage.partition_status_cache import (
        get_and_update_asset_status_cache_value,
    )
    definition = next(a for a in assets if isinstance(a, dg.AssetsDefinition)).partitions_def
    status = get_and_update_asset_status_cache_value(instance, key, definition)
    assert list(status.deserialize_failed_partition_subsets(definition).get_partition_keys()) == [
        "2026-03-05"]
    rows = dict(query(small_project, "SELECT CAST(event_date AS VARCHAR), events FROM "
                      "marts.fct_fragile"))
    assert rows == {"2026-03-03": 24, "2026-03-04": 24, "2026-03-06": 24, "2026-03-07": 24}
    state = ledger(small_project, "fct_fragile")
    assert state["2026-03-05"][0] == "Failed"

    # one partition alone: the step fails with strata's code and message
    instance, single = materialize(assets, project, key, partition_key="2026-03-05")
    assert not single.success and not materializations(instance, single, key)
    failure = next(e for e in single.all_events if e.is_step_failure)
    assert "Conversion Error" in failure.step_failure_data.error.message


def test_refused_command_fails_with_strata_code(small_project, strata_bin):
    project = StrataProject(small_project, strata_bin)
    assets = strata_assets(project)
    (small_project / "models" / "fct_fragile.toml").write_text(
        (small_project / "models" / "fct_fragile.toml").read_text() + "lookbak = 3\n")
    _, result = materialize(assets, project, dg.AssetKey(["marts", "fct_fragile"]),
                            partition_key="2026-03-02")
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    assert failure.step_failure_data.user_failure_data.metadata["exit_code"].value == 1


def add_unpartitioned_models(root):
    models = root / "models"
    (models / "v_events.toml").write_text(
        'name = "v_events"\n\n[[sources]]\nschema = "raw"\ntable = "events"\n\n'
        '[strategy]\ntype = "view"\n\n[target]\nschema = "marts"\ntable = "v_events"\n')
    (models / "v_events.sql").write_text("SELECT id, event_at FROM events\n")
    (models / "inc_events.toml").write_text(
        'name = "inc_events"\n\n[[sources]]\nschema = "raw"\ntable = "events"\n\n'
        '[strategy]\ntype = "incremental"\nwatermark = "event_at"\n\n'
        '[target]\nschema = "marts"\ntable = "inc_events"\n')
    (models / "inc_events.sql").write_text(
        "SELECT id, event_at FROM events WHERE @incremental_filter\n")


def test_view_and_incremental_models_materialize_whole(small_project, strata_bin):
    add_unpartitioned_models(small_project)
    project = StrataProject(small_project, strata_bin)
    assets = strata_assets(project)
    view, incremental = dg.AssetKey(["marts", "v_events"]), dg.AssetKey(["marts", "inc_events"])
    by = {a.key: a for a in assets if isinstance(a, dg.AssetsDefinition)}
    assert by[view].partitions_def is None and by[incremental].partitions_def is None
    assert by[view].specs_by_key[view].deps[0].asset_key == dg.AssetKey(["raw", "events"])
    instance, result = materialize(assets, project, view)
    assert result.success
    (m,) = materializations(instance, result, view).values()
    assert m.partition is None and m.metadata["strategy"].value == "view"
    assert query(small_project, "SELECT count(*) FROM marts.v_events")[0][0] == 240

    instance, result = materialize(assets, project, incremental)
    assert result.success
    (m,) = materializations(instance, result, incremental).values()
    assert m.metadata["load"].value == "full" and m.metadata["row_count"].value == 240
    assert m.metadata["watermark"].value == "2026-03-10 23:00:00"
    con = duckdb.connect(str(small_project / "warehouse.duckdb"))
    con.execute("INSERT INTO raw.events VALUES (1000, TIMESTAMP '2026-03-11 05:00:00')")
    con.close()
    instance, result = materialize(assets, project, incremental)
    (m,) = materializations(instance, result, incremental).values()
    assert m.metadata["load"].value == "incremental" and m.metadata["row_count"].value == 1
    assert query(small_project, "SELECT count(*) FROM marts.inc_events")[0][0] == 241


def test_lookback_partitions_are_recorded_too(example_project, strata_bin):
    # fct_monthly_revenue has lookback = 1: running 2026-03 rebuilds 2026-02 as well.
    project = StrataProject(example_project, strata_bin)
    assets = strata_assets(project)
    key = dg.AssetKey(["marts", "fct_monthly_revenue"])
    _, daily = materialize(assets, project, DAILY, tags=key_range("2026-02-01", "2026-03-31"))
    assert daily.success
    instance, result = materialize(assets, project, key, partition_key="2026-03-01")
    assert result.success
    mats = materializations(instance, result, key)
    assert sorted(mats) == ["2026-02-01", "2026-03-01"]
    assert mats["2026-03-01"].metadata["strata_partition"].value == "2026-03"
    assert "lookback" not in mats["2026-03-01"].metadata
    assert mats["2026-02-01"].metadata["lookback"].value is True
    state = ledger(example_project, "fct_monthly_revenue")
    assert set(state) == {"2026-02", "2026-03"}
    revenue_rows = dict(query(example_project, "SELECT strftime(order_month, '%Y-%m'), count(*) "
                              "FROM marts.fct_monthly_revenue GROUP BY 1"))
    for dagster_key, strata_key in (("2026-02-01", "2026-02"), ("2026-03-01", "2026-03")):
        assert mats[dagster_key].metadata["row_count"].value == revenue_rows[strata_key]
        assert state[strata_key][1] == revenue_rows[strata_key] > 0
