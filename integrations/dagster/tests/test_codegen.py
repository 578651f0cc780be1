"""The committed Pydantic models are exactly what `strata schema ...` generates."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def test_regenerating_the_models_gives_no_diff(strata_bin):
    completed = subprocess.run([sys.executable, str(HERE / "codegen.py"), "--strata", strata_bin,
                                "--check"], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_seed_names_exist():
    from dagster_strata import PartitionInfo, PartitionSummary

    info = PartitionInfo.model_validate({"key": "2026-04-07", "start": "2026-04-07T00:00:00Z",
                                         "end": "2026-04-08T00:00:00Z", "batched_with": []})
    assert info.key == "2026-04-07" and info.end.isoformat() == "2026-04-08T00:00:00+00:00"
    summary = PartitionSummary.model_validate({
        "model": "fct_daily_orders", "partitions_planned": 1, "partitions_succeeded": 1,
        "partitions_failed": 0, "partitions_skipped": 0})
    assert summary.partitions_succeeded == 1
