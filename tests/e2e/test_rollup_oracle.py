"""The rollup oracle (issue 10, "Tests: Oracle"): every case of rollup_corpus.py answered by
`strata query` with the corpus's rollups built, compared with the hand-written SQL run directly
on the warehouse (DuckDB and PostgreSQL), and its routing asserted: the rollup
used, or the exact miss reason of every rollup of the queried entities.

Comparison rules: semantic_harness.compare_answer (exact for additive and exact measures, HLL
within its approx tolerance), plus percentiles within 1e-9 relative (the case's `tolerance`).
"""
from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest

pytest.register_assert_rewrite("semantic_harness", "rollup_harness")

from rollup_corpus import BUILT, ROLLUPS, Store, build_corpus, case_ids
from rollup_harness import check_route, check_sketch_equals_live
from semantic_harness import Dates, compare_answer

pytest_plugins = ["semantic_harness", "rollup_harness"]

# Full tier only (scripts/test.sh; `--fast` skips it): the oracle, on DuckDB and PostgreSQL.
pytestmark = pytest.mark.slow

CASES = [case_id for case_id, _ in case_ids()]
REASONS = {"measure_not_stored", "dimension_not_stored", "grain_not_derivable", "not_additive",
           "filter_not_stored", "range_not_aligned", "outside_build_range", "partition_missing",
           "not_built", "row_security", "join_rollup_incomplete", "live_tail_in_join",
           "distinct_across_entities"}
# store_error: test_rollup_faults.py; timezone_mismatch: test_semantic_timezone.py (the corpus's
# rollups are all UTC).


def _dates_for(now: dt.datetime) -> Dates:
    """The example's data range for an init on `now`'s day (src/cli/example_project.cc)."""
    total = now.year * 12 + now.month - 1 - 19
    first = dt.datetime(total // 12, total % 12 + 1, 1)
    return Dates(first, dt.datetime(now.year, now.month, now.day), first + dt.timedelta(days=270))


@pytest.mark.parametrize("now", [dt.datetime(2026, 12, 1, 9), dt.datetime(2026, 7, 15, 3),
                                 dt.datetime(2027, 3, 31, 23), dt.datetime(2026, 10, 2, 12),
                                 dt.datetime(2028, 2, 29, 0, 30)])
def test_corpus_design(now):
    """Without strata: each case's hand-written `use` is what the routing rules give on any day,
    the corpus has >= 200 queries, and every miss reason this issue produces occurs in a live
    case (store_error: test_rollup_faults.py)."""
    cases = build_corpus(_dates_for(now), now)
    assert len(cases) >= 200
    for case in cases:
        declared = sorted(case["use"]) if case["use"] else None
        computed = sorted(case["expected_used"]) if case["expected_used"] else None
        assert declared == computed, (case["id"], case["why"], declared, computed, case["missed"])
    seen = Counter(reason for case in cases if not case["expected_used"]
                   for reason in set(case["missed"].values()))
    assert REASONS <= set(seen), REASONS - set(seen)
    assert all(seen[reason] >= 3 for reason in REASONS), seen
    # A hit lists the rollups it did not read too; an eligible one that reads more is costlier.
    assert sum("costlier" in case["missed"].values() for case in cases
               if case["expected_used"]) >= 3
    hits = Counter(name for case in cases if case["expected_used"] for name in case["expected_used"])
    assert set(hits) == set(BUILT), set(BUILT) - set(hits)


# The time column of each rollup entity's rows (rollup_corpus: Order.order_date, Ticket.opened_date).
NULL_TIME_SOURCE = {"Order": ("raw.orders", "order_at"), "Ticket": ("raw.tickets", "opened_at")}


def test_build_report(rollup_duckdb):
    """The build's JSON (issue 10: per rollup and period the rows, bytes, duration and status),
    what it wrote, and `strata rollups status`."""
    report = rollup_duckdb.report
    assert report["status"] == "success", report
    by_name = {r["rollup"]: r for r in report["rollups"]}
    assert sorted(by_name) == sorted(BUILT)
    store = Store(rollup_duckdb.dates.first, rollup_duckdb.dates.end, rollup_duckdb.now)
    project = rollup_duckdb.project
    for name, outcome in by_name.items():
        assert outcome["status"] == "built" and outcome["error"] is None, outcome
        assert outcome["version"] >= 1 and isinstance(outcome["duration_ms"], (int, float))
        assert outcome["rows"] == sum(p["rows"] for p in outcome["periods"]) > 0, outcome
        for period in outcome["periods"]:
            assert period["status"] == "built" and period["error"] is None, period
            assert period["bytes"] > 0 and period["duration_ms"] >= 0, period
        manifest = project.manifest(name)
        assert manifest["rollup"] == name and manifest["version"] == outcome["version"]
        assert sum(f["rows"] for f in manifest["files"]) == outcome["rows"]
        definition = next(r for r in ROLLUPS if r["name"] == name)
        if name in store.ranges:
            start, end = store.ranges[name]
            assert (manifest["range_start"], manifest["range_end"]) == (
                start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")), \
                (name, manifest["range_start"], manifest["range_end"])
            periods = [p for p in outcome["periods"] if not p["null_time"]]
            assert periods and periods[0]["start"] == manifest["range_start"] and \
                periods[-1]["end"] == manifest["range_end"], (name, periods[0], periods[-1])
            assert all(a["end"] == b["start"] for a, b in zip(periods, periods[1:])), name
            # A partitioned rollup without build_range or live_tail has a null_time file when
            # some of its entity's rows have no time, and none otherwise.
            nulls = [p for p in outcome["periods"] if p["null_time"]]
            table, column = NULL_TIME_SOURCE[definition["entity"]]
            [(null_rows,)] = rollup_duckdb.oracle.rows(
                f"SELECT count(*) FROM {table} WHERE {column} IS NULL")
            wants_null = null_rows > 0 and not (definition.get("build_range") or
                                                definition.get("live_tail"))
            assert len(nulls) == (1 if wants_null else 0), (name, nulls, null_rows)
            if wants_null:
                assert nulls[0]["rows"] > 0, nulls
        else:
            assert len(outcome["periods"]) == 1 and outcome["periods"][0]["start"] is None
    status = project.status()
    assert status["store"] == str(project.store)
    states = {r["rollup"]: r for r in status["rollups"]}
    assert sorted(states) == sorted(r["name"] for r in ROLLUPS)
    assert states["r_unbuilt"]["state"] == "not_built"
    for name in BUILT:
        assert states[name]["state"] == "built", states[name]
        assert states[name]["rows"] == by_name[name]["rows"]
        assert states[name]["version"] == by_name[name]["version"]
        assert states[name]["entity"] == next(r["entity"] for r in ROLLUPS if r["name"] == name)
        definition = next(r for r in ROLLUPS if r["name"] == name)
        assert states[name]["live_tail"] == bool(definition.get("live_tail"))
        if definition.get("compact"):
            # Ended periods were merged after the build: fewer files than periods built.
            grains = states[name]["files_by_grain"]
            assert grains.get(definition["compact"], 0) >= 1, (name, grains)
            assert by_name[name]["compacted_files"] >= 2, by_name[name]
            assert states[name]["files"] < len(by_name[name]["periods"]), (name, grains)
            assert sum(grains.values()) == states[name]["files"], grains
        assert states[name]["last_refresh"]["status"] == "built", states[name]


@pytest.mark.parametrize("case_id", CASES)
def test_rollup_oracle_duckdb(case_id, rollup_duckdb, rollup_duckdb_cases):
    case = rollup_duckdb_cases[case_id]
    result = rollup_duckdb.project.query(case["query"], role=case.get("role"))
    compare_answer(case, result, rollup_duckdb.oracle.rows(case["sql"]))
    check_route(case, result)
    check_sketch_equals_live(case, rollup_duckdb.project, result)


@pytest.mark.parametrize("case_id", CASES)
def test_rollup_oracle_postgres(case_id, rollup_pg, rollup_pg_cases):
    case = rollup_pg_cases[case_id]
    result = rollup_pg.project.query(case["query"], role=case.get("role"))
    compare_answer(case, result, rollup_pg.oracle.rows(case.get("postgres_sql") or case["sql"]))
    check_route(case, result)
    check_sketch_equals_live(case, rollup_pg.project, result)


def test_human_output_names_the_route(rollup_duckdb, rollup_duckdb_cases):
    """`--output table` ends with "N rows in X ms (rollup NAME)" on a hit and
    "(live; name: reason, ...)" on a miss."""
    project = rollup_duckdb.project
    hit = rollup_duckdb_cases["total_by_region"]
    result = project.query(hit["query"], output="table")
    assert result.returncode == 0, repr(result)
    last = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"5 rows in [0-9.]+ ms \(rollup r_segment_total\)", last), last
    miss = rollup_duckdb_cases["live_not_aligned_ticket"]
    result = project.query(miss["query"], output="table")
    assert result.returncode == 0, repr(result)
    last = result.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"\d+ rows in [0-9.]+ ms \(live; (.*)\)", last)
    assert match, last
    listed = dict(item.split(": ") for item in match.group(1).split(", "))
    assert listed == miss["missed"], (listed, miss["missed"])
