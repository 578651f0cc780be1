"""A full disk must never lose a committed partition (issue: nothing lost on a full disk).

Each test puts the project (or only its warehouse) on a small tmpfs, backfills a day-grain model
until the disk fills, and then checks, as a user would:
  - the run stops cleanly: exit 2, a JSON run document, a coded error naming the file and cause;
  - every partition the state store calls Computed has exactly its rows in the warehouse;
  - after the disk is grown, `strata run --missing` restores everything, and the end state
    (tables, per-partition status, row counts and checksums) equals a clean run's.

Mounting needs root (CI runs as root); elsewhere the tests skip with the reason.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

import conftest
from conftest import Project

pytestmark = pytest.mark.slow

MODEL_SQL = """\
SELECT t AS event_at, hash(t) AS v, md5(CAST(t AS VARCHAR)) AS h
FROM generate_series(TIMESTAMP '2026-01-01', TIMESTAMP '2026-05-01', INTERVAL 4 SECOND) AS g(t)
WHERE t >= @start_date AND t < @end_date
"""
STRATEGY = conftest.strategy_toml("day", "event_at", first_partition="2026-01-01")
ROWS_PER_DAY = 21600
BACKFILL = ["--from", "2026-01-01", "--to", "2026-04-10", "--parallel", "1"]


class SmallDisk:
    def __init__(self, path: Path, size: str):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")

    def grow(self, size: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={size}", str(self.path)], check=True)

    def release(self) -> None:
        subprocess.run(["umount", str(self.path)], capture_output=True)


@pytest.fixture
def small_disk(tmp_path):
    disks = []

    def make(size="20m") -> SmallDisk:
        disk = SmallDisk(tmp_path / f"disk{len(disks)}", size)
        disks.append(disk)
        return disk
    yield make
    for disk in disks:
        disk.release()


def make_project(root: Path, strata_bin: str, state_path: Path | None = None,
                 warehouse_path: Path | None = None) -> Project:
    project = Project(root, strata_bin)
    toml = textwrap.dedent(f"""\
        [project]
        name = "disk_full"

        [warehouse]
        type = "duckdb"
        path = "{warehouse_path or 'warehouse.duckdb'}"
        """)
    if state_path:
        toml += f'\n[state]\npath = "{state_path}"\n'
    (root / "strata.toml").write_text(toml)
    if warehouse_path:
        project.warehouse_path = warehouse_path
    project.add_model("events", MODEL_SQL, STRATEGY, sources=(), catalog=None,
                      target=("marts", "events"))
    return project


def state_rows(project: Project, state_path: Path) -> dict:
    import sqlite3
    con = sqlite3.connect(f"file:{state_path}?mode=ro", uri=True)
    try:
        return {key: (status, rows, checksum) for key, status, rows, checksum in con.execute(
            "SELECT partition_key, status, row_count, checksum FROM partitions")}
    finally:
        con.close()


def warehouse_days(warehouse_file: Path, scratch: Path) -> dict:
    """{day: (rows, sum of hashes)} read by an independent DuckDB from a copy on a healthy disk
    (opening the file in place would need room to replay its WAL)."""
    import duckdb
    copy = scratch / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir(parents=True)
    for suffix in ("", ".wal"):
        source = Path(str(warehouse_file) + suffix)
        if source.exists():
            shutil.copy(source, copy / (warehouse_file.name + suffix))
    con = duckdb.connect(str(copy / warehouse_file.name))
    try:
        tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'marts' "
                             "AND table_name = 'events'").fetchone()[0]
        if not tables:
            return {}
        return {str(day): (rows, int(total)) for day, rows, total in con.execute(
            "SELECT CAST(event_at AS DATE), count(*), sum(v) FROM marts.events GROUP BY 1").fetchall()}
    finally:
        con.close()


def assert_computed_are_durable(state: dict, days: dict) -> None:
    computed = {key: rows for key, (status, rows, _) in state.items() if status == "Computed"}
    assert computed, "nothing was computed before the disk filled up; the test proves nothing"
    lost = {key: (rows, days.get(key, (0, 0))[0]) for key, rows in computed.items()
            if days.get(key, (0, 0))[0] != rows}
    assert not lost, f"Computed partitions without their rows (state rows, warehouse rows): {lost}"


def assert_stopped_cleanly(result, file_hint: str) -> dict:
    assert result.returncode == 2, repr(result)
    report = result.json
    assert report["status"] in ("partial_failure", "failure"), report["status"]
    codes = {e["code"] for e in report["errors"]}
    assert codes & {"WarehouseStorage", "Io"}, report["errors"]
    storage = [e for e in report["errors"] if e["code"] in ("WarehouseStorage", "Io")]
    assert any(file_hint in e["message"] for e in storage), storage
    assert any("space" in e["message"].lower() or "full" in e["message"].lower()
               for e in storage), storage
    # Each failure is reported once: one partition may carry a warehouse error and the state
    # store's, but never the same error twice (with or without notes added).
    reported = [(e["model"], e["partition"], e["message"].split("\n")[0])
                for e in report["errors"] if e.get("partition")]
    assert len(reported) == len(set(reported)), report["errors"]
    summary = report["partition_summaries"][0]
    assert summary["partitions_succeeded"] > 0
    assert (summary["partitions_succeeded"] + summary["partitions_failed"]
            + summary["partitions_skipped"]) == summary["partitions_planned"]
    return report


def resume_until_done(project: Project) -> None:
    for _ in range(3):
        result = project.run("--missing", expect=None, timeout=300)
        if result.returncode == 0:
            return
    raise AssertionError(f"--missing did not finish after the disk was grown: {result!r}")


def clean_state(tmp_path: Path, strata_bin: str) -> tuple[dict, dict]:
    root = tmp_path / "clean"
    root.mkdir()
    state = root / "state.db"
    project = make_project(root, strata_bin, state_path=state)
    project.run("--missing", timeout=300)
    return state_rows(project, state), warehouse_days(project.warehouse_path, tmp_path / "c")


def run_full_disk_case(tmp_path, strata_bin, small_disk, state_on_full_disk: bool) -> None:
    disk = small_disk("20m")
    root = disk.path / "proj"
    root.mkdir()
    state = (root / "models" / ".strata-state.db") if state_on_full_disk else tmp_path / "state.db"
    project = make_project(root, strata_bin, state_path=None if state_on_full_disk else state)

    result = project.run(*BACKFILL, expect=None, timeout=300)
    file_hint = str(root / "warehouse.duckdb") if not state_on_full_disk else str(root)
    assert_stopped_cleanly(result, file_hint)
    assert_computed_are_durable(state_rows(project, state),
                                warehouse_days(project.warehouse_path, tmp_path / "w1"))

    disk.grow("400m")
    resume_until_done(project)
    expected_state, expected_days = clean_state(tmp_path, strata_bin)
    got_state = state_rows(project, state)
    assert {k: v for k, v in got_state.items()} == expected_state
    assert warehouse_days(project.warehouse_path, tmp_path / "w2") == expected_days


def test_full_disk_with_the_state_store_on_a_healthy_disk(tmp_path, strata_bin, small_disk):
    run_full_disk_case(tmp_path, strata_bin, small_disk, state_on_full_disk=False)


def test_full_disk_with_the_state_store_on_the_full_disk(tmp_path, strata_bin, small_disk):
    run_full_disk_case(tmp_path, strata_bin, small_disk, state_on_full_disk=True)


def test_state_store_alone_on_a_full_disk(tmp_path, strata_bin, small_disk):
    """The warehouse has room; the state store's disk is full. Nothing may be called Computed that
    the state store could not record, and the run must still print its document."""
    disk = small_disk("4m")
    root = tmp_path / "proj"
    root.mkdir()
    state = disk.path / "state.db"
    project = make_project(root, strata_bin, state_path=state)
    project.run("--from", "2026-01-01", "--to", "2026-01-02", "--parallel", "1")
    # Leave the state store room for a few partitions' records (its WAL grows by some pages per
    # transaction), so the disk fills in the middle of the run.
    filler = disk.path / "filler"
    stat = os.statvfs(disk.path)
    spare = 96 * 1024
    with open(filler, "wb") as out:
        out.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - spare))
    result = project.run(*BACKFILL, expect=None, timeout=300)
    assert result.returncode in (1, 2), repr(result)
    if result.returncode == 2:
        assert_stopped_cleanly(result, str(state))
    else:
        # Refused before anything ran (the run could not even be recorded): a coded error.
        errors = result.json["errors"]
        assert errors and errors[0]["code"] in ("Io", "StateStore"), errors
        assert str(state) in errors[0]["message"], errors
    assert_computed_are_durable(state_rows(project, state),
                                warehouse_days(project.warehouse_path, tmp_path / "w1"))
    os.remove(filler)
    disk.grow("64m")  # saved plans of a whole backfill need more than the little disk had
    resume_until_done(project)
    expected_state, expected_days = clean_state(tmp_path, strata_bin)
    assert state_rows(project, state) == expected_state
    assert warehouse_days(project.warehouse_path, tmp_path / "w2") == expected_days
