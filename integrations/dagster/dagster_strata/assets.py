"""strata models as Dagster assets: one asset per model, keyed by its target, wired by the model
DAG, partitioned per grain for time_interval models, materialized by `strata run`.

Shaped like dagster-dbt: a `StrataProject` (the project as `strata models --output json` reads it),
a `StrataResource` (resource key "strata") that runs the binary, and `strata_assets(project)`
returning the asset definitions plus the project's sources as external assets.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import dagster as dg
from pydantic import Field

from dagster_strata.cli import RunInvocation, StrataCli, StrataCommandError
from dagster_strata.generated.models_output import ModelInfo, ModelsOutput, ObjectRef
from dagster_strata.generated.run_output import Materialization
from dagster_strata.partitions import partitions_def_for, to_dagster_key, to_strata_key

RESOURCE_KEY = "strata"


class StrataResource(dg.ConfigurableResource):
    """Runs `strata` against one project. strata_bin defaults to $STRATA_BIN, then PATH."""

    project_dir: str = Field(description="the folder holding strata.toml")
    strata_bin: str | None = Field(default=None, description="path of the strata binary")
    warehouse: str | None = Field(default=None, description="a [warehouses.NAME] to run against")

    def cli(self) -> StrataCli:
        return StrataCli(self.project_dir, self.strata_bin, self.warehouse)


class StrataProject:
    """A strata project read through `strata models --output json` (never by parsing TOML)."""

    def __init__(self, project_dir: str | os.PathLike, strata_bin: str | None = None,
                 warehouse: str | None = None):
        self.project_dir = str(Path(project_dir).resolve())
        self.strata_bin = strata_bin
        self.warehouse = warehouse
        self.cli = StrataCli(self.project_dir, strata_bin, warehouse)
        self.manifest: ModelsOutput = self.cli.models()

    @property
    def models(self) -> list[ModelInfo]:
        return list(self.manifest.models)

    def model(self, name: str) -> ModelInfo:
        for model in self.manifest.models:
            if model.name == name:
                return model
        raise KeyError(f'no model named "{name}" in {self.project_dir}')

    def resource(self) -> StrataResource:
        return StrataResource(project_dir=self.project_dir, strata_bin=self.strata_bin,
                              warehouse=self.warehouse)


def _same_object(source: ObjectRef, target: ObjectRef) -> bool:
    # A source may name a model's target with or without the catalog (or schema): the example's
    # fct_daily_orders reads warehouse.raw.stg_orders, the stg_orders model's target.
    def close(a, b):
        return a is None or b is None or a == b
    return (source.table == target.table and close(source.schema_, target.schema_)
            and close(source.catalog, target.catalog))


def _op_name(model: ModelInfo) -> str:
    return "strata_" + re.sub(r"[^A-Za-z0-9_]", "_", model.name)


@dataclass(frozen=True)
class _Context:
    key: dg.AssetKey
    model: ModelInfo
    grain: str | None

    def to_dagster_key(self, strata_key: str) -> str:
        """In the model's key format and zone, as `strata models` reports them."""
        ti = self.model.time_interval
        return to_dagster_key(strata_key, ti.granularity, ti.key_format, timezone=ti.timezone)

    def to_strata_key(self, dagster_key: str) -> str:
        ti = self.model.time_interval
        return to_strata_key(dagster_key, ti.granularity, ti.key_format, timezone=ti.timezone)


def _metadata(m: Materialization, invocation: RunInvocation, ctx: _Context | None) -> dict:
    metadata: dict = {
        "strata_model": m.model,
        "strategy": m.metadata.strategy,
        "run_id": invocation.output.run_id,
        "plan_id": invocation.output.plan_id,
        "duration_ms": m.duration_ms,
        "attempts": m.attempts,
        "checksum": m.checksum,
    }
    if m.row_count is not None:
        metadata["row_count"] = m.row_count
        metadata["dagster/row_count"] = m.row_count
    if m.metadata.watermark is not None:
        metadata["watermark"] = m.metadata.watermark
    if m.metadata.load is not None:
        metadata["load"] = m.metadata.load
    if m.partition is not None and ctx is not None and ctx.grain is not None:
        metadata["strata_partition"] = m.partition.key
        metadata["window_start"] = m.partition.start.isoformat()
        metadata["window_end"] = m.partition.end.isoformat()
        metadata["batched_with"] = dg.MetadataValue.json(list(m.partition.batched_with))
        metadata["batched_with_dagster"] = dg.MetadataValue.json(
            [ctx.to_dagster_key(k) for k in m.partition.batched_with])
    return {k: v for k, v in metadata.items() if v is not None}


def _failure(ctx: _Context, invocation: RunInvocation, failed: list[Materialization],
             succeeded: int) -> dg.Failure:
    output = invocation.output
    errors = [e for e in output.errors if e.model == ctx.model.name]
    by_partition = {e.partition: e for e in errors}
    lines, failed_keys = [], []
    for m in failed:
        strata_key = m.partition.key if m.partition else None
        error = by_partition.get(strata_key) or by_partition.get(None)
        code = error.code if error else m.status
        message = error.message if error else (m.error or m.status)
        if strata_key is not None and ctx.grain is not None:
            failed_keys.append(ctx.to_dagster_key(strata_key))
        lines.append(f"{strata_key or ctx.model.name}: [{code}] {message}")
    if not failed:  # nothing materialized at all (e.g. the table could not be created)
        lines = [f"{e.partition or ctx.model.name}: [{e.code}] {e.message}" for e in errors]
    summaries = [x for x in output.partition_summaries if x.model == ctx.model.name]
    total = summaries[0].partitions_planned if summaries else len(failed) + succeeded
    return dg.Failure(
        description=(f"strata run of {ctx.model.name}: {len(failed) or len(errors)} failed, "
                     f"{succeeded} of {total} partitions committed (exit "
                     f"{invocation.returncode}, status {output.status})\n" + "\n".join(lines)),
        metadata={
            "run_id": output.run_id,
            "status": output.status,
            "exit_code": invocation.returncode,
            "failed_partitions": dg.MetadataValue.json(failed_keys),
            "errors": dg.MetadataValue.json([e.model_dump() for e in errors]),
        },
        allow_retries=False,
    )


def _execute(context: dg.AssetExecutionContext, ctx: _Context):
    cli: StrataCli = getattr(context.resources, RESOURCE_KEY).cli()
    try:
        if ctx.grain is None:
            invocation = cli.run(ctx.model.name)
        else:
            key_range = context.partition_key_range
            first = ctx.to_strata_key(key_range.start)
            last = ctx.to_strata_key(key_range.end)
            context.log.info(f"strata run --model {ctx.model.name} "
                             + (f"--partition {first}" if first == last
                                else f"--from {first} --to {last}"))
            invocation = (cli.run(ctx.model.name, partition=first) if first == last
                          else cli.run(ctx.model.name, from_key=first, to_key=last))
    except StrataCommandError as error:
        raise dg.Failure(description=str(error), metadata={
            "exit_code": error.returncode, "code": error.code,
            "errors": dg.MetadataValue.json(error.errors)}, allow_retries=False) from None
    mine = [m for m in invocation.output.materializations if m.model == ctx.model.name]
    computed = [m for m in mine if m.status == "Computed"]
    failed = [m for m in mine if m.status != "Computed"]
    model_errors = [e for e in invocation.output.errors if e.model == ctx.model.name]
    if ctx.grain is None:
        if computed and not failed:
            yield dg.MaterializeResult(asset_key=ctx.key,
                                       metadata=_metadata(computed[0], invocation, None))
            return
        raise _failure(ctx, invocation, failed, 0)
    requested = set(context.partition_keys)
    single = len(requested) == 1

    def dagster_key(m: Materialization) -> str:
        return ctx.to_dagster_key(m.partition.key)

    # Partitions outside the requested range are the model's lookback: strata rebuilt them too,
    # so they are recorded as materialized (metadata "lookback": true).
    for m in computed:
        if dagster_key(m) not in requested:
            context.log_event(dg.AssetMaterialization(
                asset_key=ctx.key, partition=dagster_key(m),
                metadata={**_metadata(m, invocation, ctx), "lookback": True}))
    in_range = [m for m in computed if dagster_key(m) in requested]
    if single and in_range and not failed and not model_errors:
        yield dg.MaterializeResult(asset_key=ctx.key,
                                   metadata=_metadata(in_range[0], invocation, ctx))
        return
    # A range: one materialization per committed partition, so a partial failure (exit 2) still
    # records every partition strata committed; the step then fails for the rest.
    for m in in_range:
        context.log_event(dg.AssetMaterialization(
            asset_key=ctx.key, partition=dagster_key(m),
            metadata=_metadata(m, invocation, ctx)))
    if failed or model_errors or not in_range:
        raise _failure(ctx, invocation, failed, len(computed))


def _external_sources(project: StrataProject,
                      key_prefix: Sequence[str]) -> dict[tuple, ObjectRef]:
    targets = [m.target for m in project.models]
    sources: dict[tuple, ObjectRef] = {}
    for model in project.models:
        for source in model.sources:
            if not any(_same_object(source, t) for t in targets):
                sources[tuple(key_prefix) + tuple(source.asset_key)] = source
    return sources


def strata_assets(project: StrataProject, *, key_prefix: Sequence[str] = (),
                  group_name: str | None = "strata", end_offset: int = 1,
                  default_first_partition: dict[str, str] | None = None,
                  include_sources: bool = True) -> list[dg.AssetsDefinition | dg.AssetSpec]:
    """One asset per model of `project` (resource key "strata": a StrataResource), plus an
    external AssetSpec per source that no model builds.

    Asset keys are the model targets' `[catalog?, schema?, table]` (after `key_prefix`);
    dependencies are the model's depends_on and its sources. time_interval models are partitioned
    from their first_partition (or `default_first_partition[model]`, a strata key; a
    time_interval model with neither is a ValueError); ranges run as one `strata run --from --to`
    (a single-run backfill policy). Labels become tags; `end_offset` is passed to the partitions
    definitions (1: up to the partition containing now)."""
    prefix = list(key_prefix)
    model_keys = {m.name: dg.AssetKey(prefix + list(m.asset_key)) for m in project.models}
    sources = _external_sources(project, prefix)
    result: list[dg.AssetsDefinition | dg.AssetSpec] = []
    if include_sources:
        for key, source in sources.items():
            result.append(dg.AssetSpec(dg.AssetKey(list(key)), group_name=group_name,
                                       description=f"strata source {'.'.join(source.asset_key)}",
                                       kinds={"strata", project.manifest.warehouse.type}))
    for model in project.models:
        deps = [model_keys[name] for name in model.depends_on]
        for source in model.sources:
            built_by = [m for m in project.models if _same_object(source, m.target)]
            key = (model_keys[built_by[0].name] if built_by
                   else dg.AssetKey(prefix + list(source.asset_key)))
            if key not in deps:
                deps.append(key)
        result.append(_model_asset(project, model, model_keys[model.name], deps, group_name,
                                   end_offset, (default_first_partition or {}).get(model.name)))
    return result


def _model_asset(project: StrataProject, model: ModelInfo, key: dg.AssetKey,
                 deps: list[dg.AssetKey], group_name: str | None, end_offset: int,
                 default_first: str | None) -> dg.AssetsDefinition:
    grain, partitions_def, backfill_policy = None, None, None
    if model.time_interval is not None:
        grain = model.time_interval.granularity
        first = model.time_interval.first_partition or default_first
        if first is None:
            raise ValueError(f"time_interval model {model.name} has no first_partition: set it in "
                             f"its TOML or pass default_first_partition={{'{model.name}': KEY}}")
        partitions_def = partitions_def_for(grain, first, end_offset=end_offset,
                                            key_format=model.time_interval.key_format,
                                            timezone=model.time_interval.timezone)
        backfill_policy = dg.BackfillPolicy.single_run()
    metadata = {"strata/model": model.name, "strata/strategy": model.strategy,
                "strata/sql_path": model.sql_path, "strata/project_dir": project.project_dir}
    if model.time_interval is not None:
        metadata["strata/time_column"] = model.time_interval.time_column
        metadata["strata/granularity"] = grain
        metadata["strata/batch_size"] = model.time_interval.batch_size
        metadata["strata/lookback"] = model.time_interval.lookback
        metadata["strata/timezone"] = model.time_interval.timezone
    try:
        description = Path(model.sql_path).read_text()
    except OSError:
        description = None
    spec = dg.AssetSpec(
        key, deps=deps, group_name=group_name, metadata=metadata, skippable=True,
        description=(f"strata model {model.name} ({model.strategy})"
                     + (f"\n\n```sql\n{description.strip()}\n```" if description else "")),
        tags={k: v for k, v in model.labels.items()},
        kinds={"strata", project.manifest.warehouse.type})
    ctx = _Context(key, model, grain)

    @dg.multi_asset(name=_op_name(model), specs=[spec], partitions_def=partitions_def,
                    backfill_policy=backfill_policy, required_resource_keys={RESOURCE_KEY})
    def _asset(context):  # an AssetExecutionContext (no annotation: see __future__)
        yield from _execute(context, ctx)

    return _asset
