"""`strata run` of a day-grain time_interval model on the session's real Trino (issue 41).

Iceberg replaces each window with one MERGE, Hive in START TRANSACTION ... COMMIT, the memory
connector is refused; docs/trino.md has the matrix. Each test writes a small project in a fresh
folder and schema, drives the `strata` binary and compares the target with the same aggregate
computed by Trino from the source. Readers during rebuilds and crashes: test_trino_faults.py.
"""
from __future__ import annotations

import datetime as dt
import json
import sqlite3

from trino_project import DAY_EXPRESSIONS, DAYS, MODEL_SQL, TrinoProject, computed, trino


def test_iceberg_backfill_rerun_missing_and_a_failing_partition(iceberg):
    first, last = str(DAYS[0]), str(DAYS[-1])
    report = iceberg.strata("run", "--from", first, "--to", last)
    assert report["status"] == "success", report
    stats = computed(report)
    assert sorted(stats) == [str(d) for d in DAYS]
    assert iceberg.rows() == iceberg.expected_rows()
    assert sum(count for count, _ in stats.values()) == len(iceberg.rows())
    create = trino(iceberg.url, f"SHOW CREATE TABLE {iceberg.target}")[0][0]
    assert "partitioning = ARRAY['day(order_date)']" in create, create

    # Idempotent: the same rows, counts and checksums, and one snapshot per window replaced.
    snapshots = trino(iceberg.url, f'SELECT count(*) FROM iceberg.{iceberg.schema}."daily$snapshots"')
    again = iceberg.strata("run", "--from", first, "--to", last)
    assert computed(again) == stats
    assert iceberg.rows() == iceberg.expected_rows()
    after = trino(iceberg.url, f'SELECT count(*) FROM iceberg.{iceberg.schema}."daily$snapshots"')
    assert after[0][0] == snapshots[0][0] + len(DAYS)

    # Rows deleted behind the state store: W040, and --missing rebuilds exactly that day.
    lost = str(DAYS[2])
    trino(iceberg.url, f"DELETE FROM {iceberg.target} WHERE order_date >= TIMESTAMP '{lost} "
                       f"00:00:00' AND order_date < TIMESTAMP '{DAYS[3]} 00:00:00'")
    missing = iceberg.strata("run", "--missing")
    assert [(w["code"], w["partition"]) for w in missing["warnings"]] == [("W040", lost)]
    assert computed(missing) == {lost: stats[lost]}
    assert iceberg.rows() == iceberg.expected_rows()

    # A model failing on one day: that partition Failed and its old rows kept (the MERGE never
    # committed); the others Computed.
    broken = str(DAYS[3])
    iceberg.set_sql(MODEL_SQL.format(day=DAY_EXPRESSIONS["iceberg"]).replace(
        "sum(amount) AS revenue",
        f"sum(amount) / IF(min(order_at) >= TIMESTAMP '{broken} 00:00:00' AND min(order_at) < "
        f"TIMESTAMP '{DAYS[4]} 00:00:00', 0, 1) AS revenue"))
    failing = iceberg.strata("run", "--from", first, "--to", last, expect=2)
    statuses = {m["partition"]["key"]: m["status"] for m in failing["materializations"]}
    assert statuses == {**{str(d): "Computed" for d in DAYS}, broken: "Failed"}, statuses
    assert failing["status"] == "partial_failure"
    assert any(e["partition"] == broken for e in failing["errors"]), failing["errors"]
    assert iceberg.rows() == iceberg.expected_rows()


def test_iceberg_window_without_rows_empties_it(iceberg):
    """The MERGE's marker row deletes the old window even when the model returns no rows."""
    iceberg.strata("run", "--partition", str(DAYS[0]))
    before = str(DAYS[0] - dt.timedelta(days=1))
    trino(iceberg.url, f"INSERT INTO {iceberg.target} VALUES (TIMESTAMP '{before} 05:00:00', 1, 1, "
                       "CAST(1 AS decimal(38, 2)))")
    report = iceberg.strata("run", "--partition", before)
    assert computed(report) == {before: (0, "0000000000000000")}
    assert iceberg.rows() == iceberg.expected_rows(DAYS[:1])


def test_iceberg_output_outside_the_window_is_refused_inside_the_merge(iceberg):
    iceberg.strata("run", "--partition", str(DAYS[1]))
    kept = iceberg.rows()
    iceberg.set_sql(MODEL_SQL.format(day="CAST(date_trunc('day', order_at) AS timestamp(6)) "
                                         "+ INTERVAL '1' DAY"))
    report = iceberg.strata("run", "--partition", str(DAYS[1]), expect=2)
    assert report["status"] == "failure"
    assert [e["code"] for e in report["errors"]] == ["OutputOutsideWindow"], report["errors"]
    assert iceberg.rows() == kept


def test_hive_backfill_in_transactions(hive):
    first, last = str(DAYS[0]), str(DAYS[-1])
    report = hive.strata("run", "--from", first, "--to", last)
    assert report["status"] == "success", report
    stats = computed(report)
    assert sorted(stats) == [str(d) for d in DAYS]
    assert hive.rows() == hive.expected_rows()
    create = trino(hive.url, f"SHOW CREATE TABLE {hive.target}")[0][0]
    assert "partitioned_by = ARRAY['order_date']" in create, create
    again = hive.strata("run", "--from", first, "--to", last)
    assert computed(again) == stats
    assert hive.rows() == hive.expected_rows()

    # A whole partition deleted behind the state store: --missing rebuilds exactly it.
    lost = str(DAYS[1])
    trino(hive.url, f"DELETE FROM {hive.target} WHERE order_date = DATE '{lost}'")
    missing = hive.strata("run", "--missing")
    assert [(w["code"], w["partition"]) for w in missing["warnings"]] == [("W040", lost)]
    assert computed(missing) == {lost: stats[lost]}
    assert hive.rows() == hive.expected_rows()

    # A day whose INSERT fails after its DELETE ran: ROLLBACK restores the window.
    broken = str(DAYS[2])
    hive.set_sql(MODEL_SQL.format(day=DAY_EXPRESSIONS["hive"]).replace(
        "sum(amount) AS revenue",
        f"sum(amount) / IF(min(order_at) >= TIMESTAMP '{broken} 00:00:00' AND min(order_at) < "
        f"TIMESTAMP '{DAYS[3]} 00:00:00', 0, 1) AS revenue"))
    failing = hive.strata("run", "--partition", broken, expect=2)
    assert [m["status"] for m in failing["materializations"]] == ["Failed"]
    assert hive.rows() == hive.expected_rows()


def test_hive_table_not_partitioned_by_the_time_column_is_refused(hive):
    trino(hive.url, f"CREATE TABLE {hive.target} (order_date date, customer_id bigint, "
                    "order_count bigint, revenue decimal(38, 2))")
    report = hive.strata("run", "--partition", str(DAYS[0]), expect=1)
    assert [e["code"] for e in report["errors"]] == ["WarehouseUnsupported"], report["errors"]
    assert "partitioned_by" in report["errors"][0]["message"] + report["errors"][0].get("hint", "")
    assert [m["status"] for m in report["materializations"]] == ["Failed"]


def test_memory_catalog_is_refused_with_a_hint(trino_url, strata_bin, tmp_path):
    project = TrinoProject(tmp_path / "memory", trino_url, "memory", strata_bin)
    report = project.strata("run", "--partition", str(DAYS[0]), expect=1)
    assert [e["code"] for e in report["errors"]] == ["WarehouseUnsupported"], report["errors"]
    assert [m["status"] for m in report["materializations"]] == ["Failed"]


def test_apply_refuses_a_plan_made_for_another_connector(iceberg):
    """A plan records the capabilities its statements were made for; a target that now reports
    others (here: the saved plan says DELETE+INSERT, as if the catalog had been re-created with
    another connector) is refused before anything is written."""
    plan = iceberg.strata("plan", "--partition", str(DAYS[0]))
    assert "overwrite=2" in plan["capabilities"], plan["capabilities"]  # kMergeWindow
    state = iceberg.root / "models" / ".strata-state.db"
    with sqlite3.connect(state) as db:
        [(body,)] = db.execute("SELECT body FROM plans WHERE plan_id = ?", (plan["plan_id"],))
        saved = json.loads(body)
        saved["capabilities"] = saved["capabilities"].replace("overwrite=2", "overwrite=0")
        db.execute("UPDATE plans SET body = ? WHERE plan_id = ?",
                   (json.dumps(saved), plan["plan_id"]))
    report = iceberg.strata("apply", plan["plan_id"], expect=1)
    assert [e["code"] for e in report["errors"]] == ["PlanStale"], report
    assert trino(iceberg.url, "SELECT count(*) FROM iceberg.information_schema.tables WHERE "
                              f"table_schema = '{iceberg.schema}' AND table_name = 'daily'") == [[0]]
    applied = iceberg.strata("apply", iceberg.strata("plan", "--partition", str(DAYS[0]))["plan_id"])
    assert applied["status"] == "success", applied
