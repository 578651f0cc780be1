"""dagster-strata: every strata model a Dagster asset, every time_interval partition a Dagster
partition. Drives the `strata` binary; reads its JSON through Pydantic models generated from
`strata schema ...` (dagster_strata.generated)."""
from dagster_strata.assets import StrataProject, StrataResource, strata_assets
from dagster_strata.cli import RunInvocation, StrataCli, StrataCommandError
from dagster_strata.generated.run_output import PartitionInfo, PartitionSummary, RunOutput
from dagster_strata.observe import build_strata_ledger_sensor, ledger_observations, read_ledger
from dagster_strata.partitions import (
    dagster_key_start,
    partitions_def_for,
    strata_key_start,
    to_dagster_key,
    to_strata_key,
)

__all__ = [
    "PartitionInfo", "PartitionSummary", "RunInvocation", "RunOutput", "StrataCli",
    "StrataCommandError", "StrataProject", "StrataResource", "build_strata_ledger_sensor",
    "dagster_key_start", "ledger_observations", "partitions_def_for", "read_ledger",
    "strata_assets", "strata_key_start", "to_dagster_key", "to_strata_key",
]
