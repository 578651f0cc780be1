"""Shared machinery of the rollup end-to-end tests (test_rollup_*.py), a pytest plugin next to
semantic_harness (test modules name both in `pytest_plugins`).

- `rollup_duckdb`: a project over the example's DuckDB warehouse (semantic_example; strata.toml
  points at its file, read only) whose semantic folder is the example's model.yml without its
  rollup block plus rollup_corpus.ROLLUPS in semantic/rollups.yml; every rollup but r_unbuilt
  built once per session into the default store (<project>/.strata/rollups).
- `rollup_pg`: the same over the PostgreSQL copy of semantic_pg (every 8th order, every 2nd
  ticket).
- `RollupProject`: `strata rollups build / status`, `strata query` with an optional
  ENGINE_ROLLUP_STORE_DIR, the manifests, and a copy of a project (its store included) for tests
  that damage files.
- `check_route`: meta.rollup against a corpus case's expected routing.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from semantic_harness import PG_DSN_ENV, SemanticProject

BUILD_TIMEOUT = 300
STORE_ENV = "ENGINE_ROLLUP_STORE_DIR"


class RollupProject(SemanticProject):
    """A semantic project with rollups. `env` is added to every strata call (e.g. the store
    folder through ENGINE_ROLLUP_STORE_DIR)."""

    def __init__(self, root: Path, strata_bin: str, name: str, env: dict | None = None):
        super().__init__(root, strata_bin, name)
        self.env = dict(env or {})

    @property
    def store(self) -> Path:
        return Path(self.env[STORE_ENV]) if self.env.get(STORE_ENV) else \
            self.root / ".strata" / "rollups"

    def strata(self, *args: str, timeout: float = BUILD_TIMEOUT, env: dict | None = None,
               output: str = "json") -> subprocess.CompletedProcess:
        argv = [self.bin, *args, "--project", str(self.root), "--output", output]
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=self.root,
                              env={**os.environ, **self.env, **(env or {})})

    def build(self, *rollups: str, full: bool = False, parallel: int | None = None,
              expect: int | None = 0) -> dict:
        args = ["rollups", "build"]
        for name in rollups:
            args += ["--rollup", name]
        if full:
            args.append("--full")
        if parallel:
            args += ["--parallel", str(parallel)]
        completed = self.strata(*args)
        if expect is not None:
            assert completed.returncode == expect, \
                f"strata {' '.join(args)} exited {completed.returncode}\n" \
                f"stdout:\n{completed.stdout[-4000:]}\nstderr:\n{completed.stderr[-4000:]}"
        return json.loads(completed.stdout)

    def status(self) -> dict:
        completed = self.strata("rollups", "status")
        assert completed.returncode == 0, completed.stderr
        return json.loads(completed.stdout)

    def query(self, query, role=None, raw_text=None, env=None, output="json"):
        return super().query(query, role=role, raw_text=raw_text, env={**self.env, **(env or {})},
                             output=output)

    def manifest_path(self, rollup: str) -> Path:
        return self.store / rollup / "manifest.json"

    def manifest(self, rollup: str) -> dict:
        return json.loads(self.manifest_path(rollup).read_text())

    def copy(self, root: Path, with_store: bool = True) -> "RollupProject":
        """A copy of the project folder (its default store included unless with_store is
        False); the warehouse it points at is shared."""
        shutil.copytree(self.root, root, ignore=None if with_store else
                        shutil.ignore_patterns(".strata"))
        return RollupProject(root, self.bin, self.name, {k: v for k, v in self.env.items()
                                                         if k != STORE_ENV})


def write_project(root: Path, strata_bin: str, warehouse_toml: str, model_yaml: str,
                  rollups_yaml: str, name: str = "duckdb", extra_toml: str = "") -> RollupProject:
    (root / "semantic").mkdir(parents=True)
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(model_yaml)
    (root / "semantic" / "rollups.yml").write_text(rollups_yaml)
    (root / "strata.toml").write_text(
        f'[project]\nname = "rollups"\n\n[warehouse]\n{warehouse_toml}\n\n'
        f'[semantic]\nfiscal_year_start_month = 4\n{extra_toml}')
    return RollupProject(root, strata_bin, name)


def duckdb_toml(path: Path) -> str:
    return f'type = "duckdb"\npath = "{path}"'


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class RollupSetup:
    def __init__(self, project: RollupProject, oracle, dates, now, report):
        self.project = project
        self.oracle = oracle
        self.dates = dates
        self.now = now          # when the rollups were built (UTC)
        self.report = report    # the build's JSON


def _build_all(project: RollupProject) -> dict:
    from rollup_corpus import BUILT
    return project.build(*BUILT, parallel=2)


@pytest.fixture(scope="session")
def rollup_duckdb(semantic_example, tmp_path_factory):
    from rollup_corpus import rollups_yaml, strip_rollups
    base = tmp_path_factory.mktemp("rollup_duckdb")
    example = semantic_example.project.root
    project = write_project(base / "shop", semantic_example.project.bin,
                            duckdb_toml(example / "warehouse.duckdb"),
                            strip_rollups((example / "semantic" / "model.yml").read_text()),
                            rollups_yaml())
    now = utc_now()
    report = _build_all(project)
    return RollupSetup(project, semantic_example.oracle, semantic_example.dates, now, report)


@pytest.fixture(scope="session")
def rollup_pg(semantic_example, semantic_pg, tmp_path_factory):
    from rollup_corpus import rollups_yaml, strip_rollups
    _, oracle = semantic_pg  # the database and PG_DSN_ENV are set up by semantic_pg
    base = tmp_path_factory.mktemp("rollup_pg")
    example = semantic_example.project.root
    project = write_project(base / "shop_pg", semantic_example.project.bin,
                            f'type = "postgres"\ndsn_env = "{PG_DSN_ENV}"',
                            strip_rollups((example / "semantic" / "model.yml").read_text()),
                            rollups_yaml(), name="postgres")
    now = utc_now()
    report = _build_all(project)
    return RollupSetup(project, oracle, semantic_example.dates, now, report)


def rollup_cases(setup: RollupSetup) -> dict:
    from rollup_corpus import build_corpus
    return {case["id"]: case for case in build_corpus(setup.dates, setup.now)}


@pytest.fixture(scope="session")
def rollup_duckdb_cases(rollup_duckdb):
    return rollup_cases(rollup_duckdb)


@pytest.fixture(scope="session")
def rollup_pg_cases(rollup_pg):
    return rollup_cases(rollup_pg)


def route_of(result) -> dict:
    meta = result.body.get("meta") if isinstance(result.body, dict) else None
    assert isinstance(meta, dict) and isinstance(meta.get("rollup"), dict), \
        f"no meta.rollup\n{result!r}"
    return meta["rollup"]


def missed_of(result) -> dict:
    """meta.rollup.missed as {rollup: reason}, checking each rollup is listed once."""
    rollup = route_of(result)
    missed = rollup.get("missed")
    assert isinstance(missed, list), f"meta.rollup has no missed list: {rollup}\n{result!r}"
    names = [entry.get("rollup") for entry in missed]
    assert len(names) == len(set(names)), f"a rollup is listed twice: {missed}"
    return {entry["rollup"]: entry["reason"] for entry in missed}


def check_route(case: dict, result) -> None:
    """The routing of a corpus case: the rollup(s) used on a hit, else every miss reason."""
    rollup = route_of(result)
    expected = case["expected_used"]
    if expected:
        assert rollup.get("used") in expected, (
            f"[{case['id']}] expected a hit of {expected} ({case['why']}), got {rollup}\n"
            f"query: {json.dumps(case['query'])} role: {case.get('role')}")
        if len(expected) > 1:
            assert sorted(rollup.get("joined") or []) == sorted(expected), \
                f"[{case['id']}] joined {rollup.get('joined')}, expected {expected}"
        else:
            assert rollup.get("used") == expected[0] and not rollup.get("joined"), \
                f"[{case['id']}] {rollup}"
        assert missed_of(result) == case["missed"], (
            f"[{case['id']}] a hit's misses differ\nexpected: {case['missed']}\n"
            f"got:      {missed_of(result)}")
        if "live_tail" in case:
            assert rollup.get("live_tail", False) == case["live_tail"], (
                f"[{case['id']}] live_tail {rollup.get('live_tail')}, expected {case['live_tail']}")
        return
    assert "used" not in rollup, (
        f"[{case['id']}] expected live ({case['why']}), got {rollup}\n"
        f"expected misses: {case['missed']}\nquery: {json.dumps(case['query'])} "
        f"role: {case.get('role')}")
    assert missed_of(result) == case["missed"], (
        f"[{case['id']}] misses differ ({case['why']})\nexpected: {case['missed']}\n"
        f"got:      {missed_of(result)}\nquery: {json.dumps(case['query'])} role: {case.get('role')}")


def parquet_rows(path: Path) -> int:
    import pyarrow.parquet as pq
    return pq.read_table(path).num_rows


class SmallWarehouse:
    """A DuckDB file with every 40th order, every 10th ticket and every customer of the example
    (the same tables and columns), for tests that build many times."""

    def __init__(self, path: Path, model_yaml: str, dates):
        self.path = path
        self.model_yaml = model_yaml  # the example's model.yml without its rollups
        self.dates = dates
        self._oracle = None

    @property
    def oracle(self):
        from semantic_harness import DuckDbOracle
        if self._oracle is None:
            self._oracle = DuckDbOracle(self.oracle_path)
        return self._oracle

    @property
    def oracle_path(self) -> Path:
        return self.path.with_name("small_oracle.duckdb")

    def project(self, root: Path, strata_bin: str, rollups_yaml: str, copy_warehouse=False,
                extra_toml: str = "") -> RollupProject:
        warehouse = self.path
        if copy_warehouse:
            root.mkdir(parents=True)
            warehouse = root / "warehouse.duckdb"
            shutil.copyfile(self.path, warehouse)
        return write_project(root, strata_bin, duckdb_toml(warehouse), self.model_yaml,
                             rollups_yaml, extra_toml=extra_toml)


@pytest.fixture(scope="session")
def small_warehouse(semantic_example, tmp_path_factory):
    import duckdb
    from rollup_corpus import strip_rollups
    base = tmp_path_factory.mktemp("small_warehouse")
    path = base / "small.duckdb"
    con = duckdb.connect(str(path))
    try:
        con.execute(f"ATTACH '{semantic_example.oracle_path}' AS src (READ_ONLY)")
        con.execute("CREATE SCHEMA raw")
        con.execute("CREATE TABLE raw.orders AS SELECT * FROM src.raw.orders WHERE order_id % 40 = 0")
        con.execute("CREATE TABLE raw.customers AS SELECT * FROM src.raw.customers")
        con.execute("CREATE TABLE raw.tickets AS SELECT * FROM src.raw.tickets WHERE ticket_id % 10 = 0")
        con.execute("DETACH src")
    finally:
        con.close()
    shutil.copyfile(path, base / "small_oracle.duckdb")
    model = strip_rollups((semantic_example.project.root / "semantic" / "model.yml").read_text())
    warehouse = SmallWarehouse(path, model, semantic_example.dates)
    yield warehouse
    if warehouse._oracle is not None:
        warehouse._oracle.close()


def check_store_files(project: RollupProject, rollup: str) -> dict:
    """Reads the rollup's manifest and checks every file it names: it exists with the recorded
    size, pyarrow reads it, its row count is the manifest's and its columns are the manifest's
    columns, in order. Returns the manifest."""
    import pyarrow.parquet as pq
    manifest = project.manifest(rollup)
    assert manifest["rollup"] == rollup and manifest["files"], manifest
    names = [c["name"] for c in manifest["columns"]]
    for entry in manifest["files"]:
        path = project.store / rollup / entry["path"]
        assert path.is_file(), f"{rollup}: the manifest names {entry['path']}, which is missing"
        assert path.stat().st_size == entry["bytes"], (rollup, entry, path.stat().st_size)
        table = pq.read_table(path)
        assert table.num_rows == entry["rows"], (rollup, entry["path"], table.num_rows, entry["rows"])
        assert table.schema.names == names, (rollup, table.schema.names, names)
    return manifest


def live_answer(project: RollupProject, query: dict, role=None):
    """The query answered live: ENGINE_ROLLUP_STORE_DIR at an empty folder (nothing built)."""
    empty = project.root / ".empty_store"
    empty.mkdir(exist_ok=True)
    return project.query(query, role=role, env={STORE_ENV: str(empty)})


def rows_in_query_order(result, query: dict) -> list[tuple]:
    """A result's rows with columns in expected_columns order (to use it as an expected answer)."""
    from semantic_harness import expected_columns
    columns = [c["name"] for c in result.body["columns"]]
    order = [columns.index(name) for name in expected_columns(query)]
    return [tuple(row[k] for k in order) for row in result.body["rows"]]


def check_sketch_equals_live(case: dict, project: RollupProject, result) -> None:
    """A rollup's sketches answer as the live path does on the same warehouse: on a hit with a
    count_distinct_approx measure the HLL estimate equals the live one (the same sketch, merged),
    not only the exact count within HLL error; with a percentile measure the merged value counts
    give the live percentile_cont / quantile_cont bit for bit (PostgreSQL's interpolation on
    PostgreSQL)."""
    sketched = case.get("approx_tolerance") or case.get("tolerance")
    if not sketched or not route_of(result).get("used"):
        return
    live = live_answer(project, case["query"], case.get("role"))
    assert live.ok, repr(live)
    strict = {**case, "approx_tolerance": 1e-9, "id": case["id"] + " (rollup vs live)",
              "tolerance": {column: 0.0 for column in case.get("tolerance", {})}}
    from semantic_harness import compare_answer
    compare_answer(strict, result, rows_in_query_order(live, case["query"]))
