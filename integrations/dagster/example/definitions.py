"""Dagster definitions for the strata example project (`strata init DIR --example`).

    STRATA_BIN=build/src/cli/strata STRATA_PROJECT_DIR=example \\
        dagster dev -f integrations/dagster/example/definitions.py

STRATA_PROJECT_DIR defaults to the repository's `example/` folder (scripts/example.sh creates it).
"""
from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from dagster_strata import StrataProject, build_strata_ledger_sensor, strata_assets

REPOSITORY = Path(__file__).resolve().parents[3]
project = StrataProject(os.environ.get("STRATA_PROJECT_DIR", REPOSITORY / "example"),
                        strata_bin=os.environ.get("STRATA_BIN"))

strata_example_assets = strata_assets(project)

# Every day at 02:00 UTC: the daily models' newest partition (the backfill policy runs a range as
# one `strata run --from --to`, so a catch-up backfill is one strata run per asset).
DAILY_ORDERS = dg.AssetKey(["warehouse", "marts", "fct_daily_orders"])
daily_job = dg.define_asset_job("strata_daily", selection=dg.AssetSelection.assets(DAILY_ORDERS))

defs = dg.Definitions(
    assets=strata_example_assets,
    jobs=[daily_job],
    schedules=[dg.build_schedule_from_partitioned_job(daily_job, hour_of_day=2)],
    sensors=[build_strata_ledger_sensor(project)],
    resources={"strata": project.resource()},
)
