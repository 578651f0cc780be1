"""strata's partition ledger (`strata partitions --output json`) shown in Dagster.

`ledger_observations(project)` reads the ledger and returns one AssetObservation per partition
that strata records as Failed, Interrupted or InProgress (metadata: status, error, run id), and
per time_interval asset one observation summarising the partitions its partitions definition
expects but the ledger does not hold as Computed ("missing", as `strata run --missing` would
run them). `build_strata_ledger_sensor(project)` reports them from a sensor, each only once per
change (the cursor remembers what was reported).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field

import dagster as dg

from dagster_strata.assets import StrataProject
from dagster_strata.partitions import partitions_def_for, to_dagster_key, to_strata_key

NOT_COMPUTED = ("Failed", "Interrupted", "InProgress")
_MISSING_LISTED = 50  # missing keys named in the summary; the count is always exact


@dataclass
class ModelLedger:
    model: str
    asset_key: dg.AssetKey
    grain: str | None
    key_format: str | None  # the model's, from `strata models`
    timezone: str  # the model's zone, from `strata models` ("UTC" when not partitioned)
    by_status: dict[str, list[str]] = field(default_factory=dict)  # strata status -> strata keys
    missing: list[str] = field(default_factory=list)  # strata keys, oldest first
    not_computed: list = field(default_factory=list)  # PartitionRecord: Failed, Interrupted, ...

    def to_dagster_key(self, strata_key: str) -> str:
        return to_dagster_key(strata_key, self.grain, self.key_format, timezone=self.timezone)

    def to_strata_key(self, dagster_key: str) -> str:
        return to_strata_key(dagster_key, self.grain, self.key_format, timezone=self.timezone)


def read_ledger(project: StrataProject, *, key_prefix=(), end_offset: int = 1,
                now: dt.datetime | None = None) -> dict[str, ModelLedger]:
    """Per time_interval model: its ledger by status, and its missing partitions up to `now`."""
    records = project.cli.partitions().partitions
    now = now or dt.datetime.now(dt.timezone.utc)
    ledgers: dict[str, ModelLedger] = {}
    for model in project.models:
        ti = model.time_interval
        ledgers[model.name] = ModelLedger(model.name,
                                          dg.AssetKey(list(key_prefix) + list(model.asset_key)),
                                          ti.granularity if ti else None,
                                          ti.key_format if ti else None,
                                          ti.timezone if ti else "UTC")
    for record in records:
        ledger = ledgers.get(record.model)
        if ledger is not None:
            ledger.by_status.setdefault(record.status, []).append(record.partition_key)
            if record.status in NOT_COMPUTED:
                ledger.not_computed.append(record)
    for model in project.models:
        ti = model.time_interval
        if ti is None or ti.first_partition is None:
            continue
        ledger = ledgers[model.name]
        computed = set(ledger.by_status.get("Computed", []))
        definition = partitions_def_for(ti.granularity, ti.first_partition, end_offset=end_offset,
                                        key_format=ti.key_format, timezone=ti.timezone, now=now)
        expected = definition.get_partition_keys(current_time=now)
        ledger.missing = [k for k in (ledger.to_strata_key(d) for d in expected)
                          if k not in computed]
    return ledgers


def ledger_observations(project: StrataProject, *, key_prefix=(), end_offset: int = 1,
                        now: dt.datetime | None = None) -> list[dg.AssetObservation]:
    observations = []
    for ledger in read_ledger(project, key_prefix=key_prefix, end_offset=end_offset,
                              now=now).values():
        if ledger.grain is None:
            continue
        # By window: a zone's hourly keys do not sort as text (Berlin's 02+02:00, then 02+01:00).
        for record in sorted(ledger.not_computed, key=lambda r: (r.start, r.partition_key)):
            strata_key = record.partition_key
            observations.append(dg.AssetObservation(
                asset_key=ledger.asset_key, partition=ledger.to_dagster_key(strata_key),
                metadata={"strata_status": record.status, "strata_partition": strata_key,
                          "run_id": record.run_id, "error": record.error or "",
                          "computed_at": record.computed_at}))
        observations.append(dg.AssetObservation(
            asset_key=ledger.asset_key,
            metadata={
                "strata_missing_count": len(ledger.missing),
                "strata_missing": dg.MetadataValue.json(
                    [ledger.to_dagster_key(k) for k in ledger.missing[:_MISSING_LISTED]]),
                **{f"strata_{s.lower()}_count": len(ledger.by_status.get(s, []))
                   for s in ("Computed",) + NOT_COMPUTED},
            }))
    return observations


def _fingerprint(observation: dg.AssetObservation) -> str:
    metadata = {k: str(v.value) for k, v in sorted(observation.metadata.items())
                if k != "computed_at"}
    text = json.dumps([observation.asset_key.to_user_string(), observation.partition, metadata])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def build_strata_ledger_sensor(project: StrataProject, *, name: str = "strata_ledger_sensor",
                               minimum_interval_seconds: int = 60, key_prefix=(),
                               end_offset: int = 1,
                               default_status=dg.DefaultSensorStatus.STOPPED) -> dg.SensorDefinition:
    """A sensor that reports the ledger as asset observations, each change once."""

    @dg.sensor(name=name, minimum_interval_seconds=minimum_interval_seconds,
               default_status=default_status)
    def _sensor(context: dg.SensorEvaluationContext):
        reported = set(json.loads(context.cursor)) if context.cursor else set()
        observations = ledger_observations(project, key_prefix=key_prefix, end_offset=end_offset)
        fresh = [o for o in observations if _fingerprint(o) not in reported]
        cursor = sorted(_fingerprint(o) for o in observations)
        return dg.SensorResult(asset_events=fresh, cursor=json.dumps(cursor))

    return _sensor
