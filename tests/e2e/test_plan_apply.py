"""strata plan / apply, and the run-output JSON Schema."""
from __future__ import annotations

import datetime as dt
import json
import sqlite3
import subprocess

import pytest

from conftest import DAILY_SQL, expected_daily, mats_by_key, strategy_toml


def rows_for(days):
    return [(i + 1, 1 + i % 3, f"{i + 1}.25", f"{d} {(i * 7) % 24:02d}:00:00")
            for i, d in enumerate(d for d in days for _ in range(3))]


def test_plan_then_apply_runs_exactly_the_plan(project):
    today = dt.datetime.now(dt.timezone.utc).date()
    days = [str(today - dt.timedelta(days=i)) for i in range(3, -1, -1)]
    rows = rows_for(days)
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day", first_partition=days[0]))

    planned = project.strata("plan", "--missing")
    assert planned.returncode == 0, repr(planned)
    plan = planned.json
    plan_id = plan["plan_id"]
    assert isinstance(plan_id, str) and plan_id
    again = project.strata("plan", "--missing")
    assert again.returncode == 0 and again.json["plan_id"] == plan_id, "same plan, same id"
    assert project.partitions() == [], "plan must not run anything"
    assert not project.table_exists("marts", "fct_daily_orders")

    # The state changes after planning: days[1] gets computed. The plan still holds all 4 keys.
    project.run("--partition", days[1])
    other = project.strata("plan", "--missing")
    assert other.json["plan_id"] != plan_id, "a different selection result gives a different id"

    applied = project.strata("apply", plan_id)
    assert applied.returncode == 0, repr(applied)
    report = applied.json
    assert report["plan_id"] == plan_id
    assert sorted(mats_by_key(report)) == days
    assert project.daily_table() == expected_daily(rows)


def test_plan_from_to_is_deterministic_and_apply_refuses_stale_plan(project):
    rows = rows_for(["2026-04-06", "2026-04-07", "2026-04-08"])
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    ids = {project.strata("plan", "--from", "2026-04-06", "--to", "2026-04-07").json["plan_id"]
           for _ in range(2)}
    assert len(ids) == 1
    plan_id = ids.pop()

    # Edit the SQL (a comment is enough): the saved plan is stale.
    project.set_sql("fct_daily_orders", "-- reviewed\n" + DAILY_SQL)
    stale = project.strata("apply", plan_id)
    assert stale.returncode == 1, repr(stale)
    codes = [e["code"] for e in stale.json["errors"]]
    assert codes == ["PlanStale"]
    assert "fct_daily_orders" in stale.json["errors"][0]["message"]
    assert project.partitions() == []
    assert not project.table_exists("marts", "fct_daily_orders")

    # Human output goes to stderr with the code.
    human = project.strata("apply", plan_id, output="human")
    assert human.returncode == 1 and "PlanStale" in human.stderr

    missing = project.strata("apply", "0123456789abcdef")
    assert missing.returncode == 1
    assert [e["code"] for e in missing.json["errors"]] == ["PlanNotFound"]

    # A fresh plan after the edit applies.
    fresh = project.strata("plan", "--from", "2026-04-06", "--to", "2026-04-07").json["plan_id"]
    assert fresh != plan_id
    report = project.strata("apply", fresh)
    assert report.returncode == 0, repr(report)
    assert sorted(mats_by_key(report.json)) == ["2026-04-06", "2026-04-07"]


def test_apply_refuses_a_plan_saved_in_an_older_format(project):
    project.create_orders(rows_for(["2026-04-06", "2026-04-07"]))
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    plan_id = project.strata("plan", "--from", "2026-04-06", "--to", "2026-04-07").json["plan_id"]
    # What an older strata saved: the same plan without "format".
    path = project.root / "models" / ".strata-state.db"
    con = sqlite3.connect(path, timeout=10)
    try:
        [(body,)] = con.execute("SELECT body FROM plans WHERE plan_id = ?", (plan_id,)).fetchall()
        old = json.loads(body)
        assert old.pop("format") == 2
        con.execute("UPDATE plans SET body = ? WHERE plan_id = ?", (json.dumps(old), plan_id))
        con.commit()
    finally:
        con.close()
    stale = project.strata("apply", plan_id)
    assert stale.returncode == 1, repr(stale)
    [error] = stale.json["errors"]
    assert error["code"] == "PlanStale", error
    assert "strata plan" in error["hint"], error
    assert project.partitions() == []
    assert not project.table_exists("marts", "fct_daily_orders")
    # Planning again gives a plan this version applies.
    fresh = project.strata("plan", "--from", "2026-04-06", "--to", "2026-04-07").json["plan_id"]
    assert project.strata("apply", fresh).returncode == 0


def test_run_output_validates_against_published_schema(project, strata_bin):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed; "
                                     "cannot validate run output against the schema")
    completed = subprocess.run([strata_bin, "schema", "run-output"], capture_output=True,
                               text=True, timeout=30)
    assert completed.returncode == 0, completed.stderr
    schema = json.loads(completed.stdout)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)

    rows = rows_for(["2026-04-06", "2026-04-07"])
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day", batch_size=2))
    project.add_model("stg_copy", "SELECT * FROM stg_orders\n", None,
                      target=("raw", "stg_copy"))
    # the schema must reject a bad document (so that validation can fail at all)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"run_id": "x"})

    ok = project.run("--from", "2026-04-06", "--to", "2026-04-07").json
    validator.validate(ok)
    # a partial failure (unknown column) also validates
    project.set_sql("fct_daily_orders", DAILY_SQL.replace("customer_id", "no_such_column"))
    failed = project.run("--partition", "2026-04-06", expect=2).json
    assert failed["status"] == "partial_failure"
    validator.validate(failed)
    # plan + apply output has the same shape
    plan_id = project.strata("plan", "--model", "stg_copy").json["plan_id"]
    applied = project.strata("apply", plan_id)
    assert applied.returncode == 0, repr(applied)
    validator.validate(applied.json)


def test_apply_refuses_a_plan_whose_warehouse_now_points_elsewhere(project):
    project.create_orders(rows_for(["2026-04-06"]))
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    plan_id = project.strata("plan", "--partition", "2026-04-06").json["plan_id"]
    config = project.root / "strata.toml"
    original = config.read_text()
    config.write_text(original.replace('path = "warehouse.duckdb"', 'path = "other.duckdb"'))
    moved = project.strata("apply", plan_id)
    assert moved.returncode == 1, repr(moved)
    [error] = moved.json["errors"]
    assert error["code"] == "PlanStale" and "another location" in error["message"], error
    assert not (project.root / "other.duckdb").exists()  # nothing was opened or created there
    config.write_text(original)
    assert project.strata("apply", plan_id).returncode == 0
