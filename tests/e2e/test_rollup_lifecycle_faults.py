"""kill -9 during the lifecycle's writes (issue 11, "Tests: Compaction" and "Append"):

- `strata rollups compact` killed at random moments (>= 20 trials, each from the same day-file
  store): the manifest in force is the day files' version or the compacted one (one month file
  per ended month), never a mix, every file it names is read by pyarrow, and answers equal
  hand-written SQL;
- an append refresh killed at random moments (>= 20 trials, a new batch of orders each): the
  manifest in force is the previous version or the appended one, and the next refresh answers
  exactly as the warehouse (no batch counted twice or lost).
"""
from __future__ import annotations

import random
import shutil
import signal
import subprocess
import time

import pytest

pytest.register_assert_rewrite("semantic_harness", "rollup_harness")

from rollup_harness import check_store_files, route_of
from semantic_harness import DuckDbOracle, compare_answer
from test_rollup_faults import _kill_queries  # the same three queries as the build kill test

pytest_plugins = ["semantic_harness", "rollup_harness"]

# Full tier only (scripts/test.sh; `--fast` skips it): kill -9 trials.
pytestmark = pytest.mark.slow

DAILY = """rollups:
  - name: k_daily
    entity: Order
    dimensions:
      - status
      - { name: order_date, grain: day }
      - customer.region
    measures: [revenue, order_count, customer_id_approx]
    sketches: [customer_id_approx]
    sort_by: [order_date]
    partition: { by: day }
"""

APPEND = """rollups:
  - name: k_daily
    entity: Order
    dimensions:
      - status
      - { name: order_date, grain: day }
      - customer.region
    measures: [revenue, order_count, customer_id_approx]
    sketches: [customer_id_approx]
    sort_by: [order_date]
    refresh: { when_changed: loaded_at }
    partition: { by: month, append: true }
"""

TRIALS = 20


def _check_answers(project, oracle, cases) -> None:
    for case in cases:
        result = project.query(case["query"])
        compare_answer(case, result, oracle.rows(case["sql"]))
        assert route_of(result).get("used") == "k_daily", (case["id"], route_of(result))


def _killed(project, strata_bin, args, delay) -> None:
    process = subprocess.Popen([strata_bin, *args, "--project", str(project.root), "--output",
                                "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=project.root)
    time.sleep(delay)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)


def _spans(manifest) -> list:
    return sorted((f["start"] or "", f["end"] or "", f["null_time"]) for f in manifest["files"])


def test_kill9_during_compaction(small_warehouse, strata_bin, tmp_path):
    project = small_warehouse.project(tmp_path / "kill_compact", strata_bin, DAILY)
    assert project.build()["status"] == "success"
    cases = _kill_queries(small_warehouse.dates)
    _check_answers(project, small_warehouse.oracle, cases)
    # The same definition with compact (not part of the definition hash: the store stays valid).
    (project.root / "semantic" / "rollups.yml").write_text(
        DAILY.replace("partition: { by: day }", "partition: { by: day, compact: month }"))
    snapshot = tmp_path / "day_files"
    shutil.copytree(project.store, snapshot)
    before = check_store_files(project, "k_daily")
    started = time.monotonic()
    completed = project.strata("rollups", "compact")
    seconds = time.monotonic() - started
    assert completed.returncode == 0, completed.stdout + completed.stderr
    compacted = check_store_files(project, "k_daily")
    assert len(compacted["files"]) < len(before["files"]) // 5, len(compacted["files"])
    rng = random.Random(20261201)
    outcomes = {"old": 0, "new": 0}
    for trial in range(TRIALS):
        shutil.rmtree(project.store)
        shutil.copytree(snapshot, project.store)
        _killed(project, strata_bin, ["rollups", "compact"], rng.uniform(0.005, seconds * 1.1))
        manifest = check_store_files(project, "k_daily")
        if manifest["version"] == before["version"]:
            assert manifest == before, f"trial {trial}: same version, other content"
            outcomes["old"] += 1
        else:
            assert manifest["version"] == before["version"] + 1, (trial, manifest["version"])
            assert _spans(manifest) == _spans(compacted), f"trial {trial}: a mixed store"
            outcomes["new"] += 1
        _check_answers(project, small_warehouse.oracle, [cases[trial % len(cases)]])
    print(f"kill -9 outcomes: {outcomes}")
    assert outcomes["old"] >= 1, outcomes


def _insert_batch(path, batch: int) -> None:
    """Every 25th order again under a new id, loaded an hour after everything before."""
    import duckdb
    con = duckdb.connect(str(path))
    try:
        con.execute(f"""
            INSERT INTO raw.orders
            SELECT * REPLACE (order_id + {(batch + 1) * 100_000_000} AS order_id,
                              (SELECT max(loaded_at) FROM raw.orders) + INTERVAL 1 HOUR
                                AS loaded_at)
            FROM raw.orders WHERE order_id % 25 = 0 AND order_id < 100000000""")
    finally:
        con.close()


def test_kill9_during_append(small_warehouse, strata_bin, tmp_path):
    project = small_warehouse.project(tmp_path / "kill_append", strata_bin, APPEND,
                                      copy_warehouse=True)
    warehouse = tmp_path / "kill_append" / "warehouse.duckdb"
    assert project.build()["status"] == "success"
    cases = _kill_queries(small_warehouse.dates)
    rng = random.Random(20261202)
    outcomes = {"old": 0, "new": 0}
    for trial in range(TRIALS):
        previous = check_store_files(project, "k_daily")
        _insert_batch(warehouse, trial)
        started = time.monotonic()
        _killed(project, strata_bin, ["rollups", "build"], rng.uniform(0.01, 0.6))
        elapsed = time.monotonic() - started
        manifest = check_store_files(project, "k_daily")
        if manifest["version"] == previous["version"]:
            assert manifest == previous, f"trial {trial}: same version, other content"
            outcomes["old"] += 1
        else:
            assert manifest["version"] == previous["version"] + 1, (trial, manifest["version"])
            assert manifest["append_marker"] != previous["append_marker"], trial
            outcomes["new"] += 1
        # The next refresh takes whatever the killed one did not publish, once.
        report = project.build()
        assert report["status"] == "success", report
        oracle = DuckDbOracle(warehouse)
        try:
            _check_answers(project, oracle, [cases[trial % len(cases)]])
        finally:
            oracle.close()
        assert elapsed < 60
    statuses = [p["status"] for p in project.build()["rollups"][0]["periods"]]
    assert statuses == [], statuses  # skipped: nothing new
    oracle = DuckDbOracle(warehouse)
    try:
        _check_answers(project, oracle, cases)
    finally:
        oracle.close()
    print(f"kill -9 outcomes: {outcomes}")
    assert outcomes["old"] >= 1, outcomes
