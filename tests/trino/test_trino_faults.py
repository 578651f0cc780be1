"""Faults against a real Trino 476 (issue 41): readers during rebuilds, strata killed with -9 in
a backfill, and the Trino server killed with -9 under a running backfill.

Each crashed backfill is resumed with `strata run --missing` and compared, day by day (row count
and Trino's checksum of the rows), with a clean run's table over the same source. The clean run is
made once for the module on the session's Trino; the checksums compare across servers because
every project generates the same source rows and both servers are the same Trino.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import SCRIPT
from trino_project import DAYS, STATEMENT, TrinoProject, computed, last_days, trino

# scripts/trino_statement.py's run(), in this process: the reader's queries start no interpreter.
_spec = importlib.util.spec_from_file_location("trino_statement", STATEMENT)
trino_statement = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(trino_statement)

# The crash tests' backfill: enough days that it is still running when the first few are
# Computed (a MERGE per day, one at a time), few enough to keep the folder within its CI budget.
BACKFILL_DAYS = last_days(12)
BACKFILL_ORDERS = 111 * len(BACKFILL_DAYS)  # 13 minutes apart: every day has orders
WAIT_SECONDS = 240  # bound of every wait below; a wait that runs out fails the test


def backfill_project(root: Path, url: str, strata: str) -> TrinoProject:
    return TrinoProject(root, url, "iceberg", strata, days=BACKFILL_DAYS, orders=BACKFILL_ORDERS)


def backfill(project: TrinoProject) -> subprocess.Popen:
    """Starts `strata run` over every backfill day, one MERGE at a time."""
    return subprocess.Popen(project.command("run", "--from", str(BACKFILL_DAYS[0]), "--to",
                                            str(BACKFILL_DAYS[-1]), "--parallel", "1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_computed(project: TrinoProject, process: subprocess.Popen, count: int) -> None:
    """Waits until the state store has `count` Computed partitions; the run must still be going."""
    deadline = time.monotonic() + WAIT_SECONDS
    while sum(s[0] == "Computed" for s in project.state().values()) < count:
        assert process.poll() is None, f"the run ended first:\n{process.communicate()}"
        assert time.monotonic() < deadline, f"fewer than {count} days Computed in {WAIT_SECONDS} s"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def clean_days(trino_url, strata_bin, tmp_path_factory) -> dict[str, tuple]:
    """Per day, the row count and checksum of a clean backfill's table."""
    project = backfill_project(tmp_path_factory.mktemp("clean"), trino_url, strata_bin)
    report = project.strata("run", "--from", str(BACKFILL_DAYS[0]), "--to",
                            str(BACKFILL_DAYS[-1]), "--parallel", "2")
    assert report["status"] == "success", report
    days = project.day_checksums()
    assert sorted(days) == [str(d) for d in BACKFILL_DAYS]
    return days


def assert_state_matches(project: TrinoProject, clean_days: dict[str, tuple]) -> None:
    """Every backfill day is Computed with the clean run's count and checksum, and the table holds
    exactly the clean run's rows."""
    assert project.day_checksums() == clean_days
    assert project.state() == {day: ("Computed", count, checksum.lower())
                               for day, (count, checksum) in clean_days.items()}


def read_during_rebuilds(project: TrinoProject, day: str, rebuilds: int) -> list[tuple]:
    """Rebuilds `day` `rebuilds` times while a thread reads its window, and returns each read as
    (number, count or the error, version, during): the version is the first data file behind the
    window, which every rebuild replaces; `during` is true when the read began and ended while the
    rebuilds ran."""
    literal = f"TIMESTAMP '{day} 00:00:00'" if project.catalog == "iceberg" else f"DATE '{day}'"
    reads, rebuilding, stop = [], threading.Event(), threading.Event()

    def read():
        while not stop.is_set():
            number, during = len(reads), rebuilding.is_set()
            try:
                _, count, version = trino_statement.run(
                    project.url, f'SELECT {number} AS read, count(*), min("$path") FROM '
                                 f"{project.target} WHERE order_date = {literal}")[0]
            except RuntimeError as error:  # Trino's error: the caller judges it
                count, version = str(error), None
            reads.append((number, count, version, during and rebuilding.is_set()))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        rebuilding.set()
        for _ in range(rebuilds):
            project.strata("run", "--partition", day)
        rebuilding.clear()
    finally:
        stop.set()
        reader.join()
    # The reads interleaved with the rebuilds: those made while they ran saw at least two
    # versions of the window, so some read came between two rebuilds' commits.
    assert len({version for _, _, version, during in reads if during}) >= 2, reads
    return reads


def test_iceberg_readers_see_whole_windows(iceberg):
    """A reader counting one window's rows while it is rebuilt 20 times (one MERGE, one snapshot
    each) sees the old window or the new, never 0 rows or a part."""
    day = str(DAYS[1])
    iceberg.strata("run", "--partition", day)
    whole = len(iceberg.expected_rows(DAYS[1:2]))
    reads = read_during_rebuilds(iceberg, day, 20)
    assert {count for _, count, _, _ in reads} == {whole}, reads


def test_hive_readers_see_whole_windows_but_at_commit(hive):
    """A reader counting one window's rows while it is rebuilt 20 times (START TRANSACTION;
    DELETE; INSERT; COMMIT) never sees a part of it, nor the window deleted while the INSERT runs.
    Trino's Hive connector does not isolate readers from the COMMIT itself (docs/trino.md): it
    moves the partition's old folder away, then the new one in, so a read overlapping a COMMIT
    may count 0 rows or fail (HIVE_CANNOT_OPEN_SPLIT: its file was moved). Such a read must
    overlap one of strata's COMMIT statements, as Trino's query history tells."""
    day = str(DAYS[1])
    hive.strata("run", "--partition", day)
    whole = len(hive.expected_rows(DAYS[1:2]))
    reads = read_during_rebuilds(hive, day, 20)
    assert {count for _, count, _, _ in reads if isinstance(count, int)} <= {whole, 0}, reads
    odd = {number: count for number, count, _, _ in reads if count != whole}
    if not odd:
        return
    history = trino(hive.url, "SELECT regexp_extract(query, '^SELECT (\\d+) AS read', 1), query, "
                              'to_unixtime(created), to_unixtime("end") FROM system.runtime.queries '
                              f"WHERE query LIKE '%{hive.target}%' OR (source = 'strata' AND "
                              "query = 'COMMIT')")
    commits = [(start, end) for _, query, start, end in history if query == "COMMIT"]
    spans = {int(number): (start, end) for number, _, start, end in history if number}
    for number, count in odd.items():
        start, end = spans[number]
        assert any(start <= commit_end and commit_start <= end
                   for commit_start, commit_end in commits), (count, spans[number], commits)


def test_kill_9_of_strata_mid_backfill_then_missing(trino_url, strata_bin, tmp_path, clean_days):
    """strata killed with -9 after some days are Computed: the next `--missing` run marks what the
    dead run left InProgress Interrupted, runs every day not Computed, and the table and state
    equal a clean run's."""
    project = backfill_project(tmp_path / "killed", trino_url, strata_bin)
    process = backfill(project)
    try:
        wait_for_computed(project, process, 3)
    finally:
        process.kill()
        process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == -signal.SIGKILL
    left = project.state()
    done = {day for day, (status, _, _) in left.items() if status == "Computed"}
    in_progress = {day for day, (status, _, _) in left.items() if status == "InProgress"}
    assert len(done) >= 3 and len(done) < len(BACKFILL_DAYS), left

    report = project.strata("run", "--missing")
    assert report["status"] == "success", report
    assert not report["warnings"], report["warnings"]  # every Computed day holds its rows
    rerun = {m["partition"]["key"] for m in report["materializations"]}
    assert rerun == {str(d) for d in BACKFILL_DAYS} - done, (rerun, left)
    assert_state_matches(project, clean_days)
    # What the dead run left InProgress is Interrupted in its run history.
    history = project.state_rows("SELECT r.partition_key, r.status FROM run_partitions r JOIN runs "
                                 "USING (run_id) WHERE runs.status = 'interrupted'")
    assert in_progress <= {day for day, status in history if status == "Interrupted"}, history


@pytest.fixture
def own_trino():
    """A Trino of the test's own in a fresh folder, to be killed: (folder, start), where start()
    starts it (again: the same port, catalogs and data) and returns its URL."""
    folder = Path(tempfile.mkdtemp(prefix="strata-trino-killed-"))

    def start() -> str:
        started = subprocess.run(["bash", str(SCRIPT), "start", str(folder)], capture_output=True,
                                 text=True, timeout=900)
        assert started.returncode == 0, f"Trino did not start:\n{started.stderr[-4000:]}"
        return started.stdout.strip().splitlines()[-1]

    try:
        yield folder, start
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(folder)], capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


def test_trino_killed_mid_backfill_then_missing(own_trino, strata_bin, tmp_path, clean_days):
    """The Trino server killed with -9 under a backfill: strata ends with a coded error (exit 2),
    the days it had not finished are Failed or Interrupted, and every Computed day's rows are
    still there once Trino is back; `--missing` then finishes the table as a clean run's."""
    folder, start = own_trino
    project = backfill_project(tmp_path / "trino-killed", start(), strata_bin)
    process = backfill(project)
    try:
        wait_for_computed(project, process, 3)
        os.kill(int((folder / "pid").read_text()), signal.SIGKILL)
        out, err = process.communicate(timeout=WAIT_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 2, (process.returncode, out, err)
    report = json.loads(out)
    assert report["status"] == "partial_failure", report
    assert report["errors"] and {e["code"] for e in report["errors"]} == {"WarehouseConnection"}, \
        report["errors"]
    statuses = {m["partition"]["key"]: m["status"] for m in report["materializations"]}
    assert sorted(statuses) == [str(d) for d in BACKFILL_DAYS], statuses
    done = {day for day, status in statuses.items() if status == "Computed"}
    assert len(done) >= 3 and len(done) < len(BACKFILL_DAYS), statuses
    state = project.state()
    for day, status in statuses.items():
        if day in done:
            assert state[day] == ("Computed", *computed(report)[day]), (day, state)
        else:
            assert status in ("Failed", "Interrupted"), statuses
            assert state[day][0] == status, (day, state)

    start()  # the same folder: the committed windows are on its disk
    rows = project.day_checksums()
    for day in done:
        assert rows[day] == clean_days[day], day
        assert (state[day][1], state[day][2]) == (rows[day][0], rows[day][1].lower()), day
    report = project.strata("run", "--missing")
    assert report["status"] == "success", report
    assert_state_matches(project, clean_days)
