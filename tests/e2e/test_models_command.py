"""`strata models` (issue 13): the project's models as JSON for orchestrators, and the schemas
`strata schema models-output` / `partitions-output` that the documents validate against."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import strategy_toml

DAILY_SQL = ("SELECT CAST(order_at AS DATE) AS order_date, count(*) AS orders\n"
             "FROM stg_orders\nWHERE order_at >= @start_date AND order_at < @end_date\n"
             "GROUP BY 1\n")


def schema(strata_bin, name):
    completed = subprocess.run([strata_bin, "schema", name], capture_output=True, text=True,
                               timeout=30)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def validator(strata_bin, name):
    jsonschema = pytest.importorskip("jsonschema")
    document = schema(strata_bin, name)
    cls = jsonschema.validators.validator_for(document)
    cls.check_schema(document)
    return cls(document), jsonschema


def models_json(project, *args):
    result = project.strata("models", *args)
    assert result.returncode == 0, repr(result)
    return result.json


def small_project(project):
    project.add_model("stg_copy", "SELECT * FROM stg_orders\n", None, target=("raw", "stg_copy"),
                      extra='labels = { team = "core" }')
    project.add_model("fct_daily", DAILY_SQL.replace("stg_orders", "stg_copy"),
                      strategy_toml("day", first_partition="2026-04-01", lookback=2,
                                    batch_size=3),
                      depends_on=("stg_copy",), sources=(("raw", "stg_copy"),))
    project.add_model("fct_hourly", DAILY_SQL.replace("CAST(order_at AS DATE)",
                                                      "date_trunc('hour', order_at)"),
                      strategy_toml("hour", time_column="order_date"), catalog=None)


def test_models_lists_targets_dependencies_and_strategies(project, strata_bin):
    small_project(project)
    out = models_json(project)
    assert out["project"] == "e2e" and out["warehouse"] == {"name": "default", "type": "duckdb"}
    assert out["project_dir"] == str(project.root.resolve())
    by_name = {m["name"]: m for m in out["models"]}
    names = [m["name"] for m in out["models"]]
    assert names.index("stg_copy") < names.index("fct_daily")  # dependency order
    copy, daily, hourly = by_name["stg_copy"], by_name["fct_daily"], by_name["fct_hourly"]
    assert copy["asset_key"] == ["warehouse", "raw", "stg_copy"]
    assert copy["strategy"] == "full_refresh" and copy["time_interval"] is None
    assert copy["labels"] == {"team": "core"} and copy["depends_on"] == []
    assert copy["sources"] == [{"catalog": "warehouse", "schema": "raw", "table": "stg_orders",
                                "asset_key": ["warehouse", "raw", "stg_orders"]}]
    assert daily["depends_on"] == ["stg_copy"]
    assert daily["target"] == {"catalog": "warehouse", "schema": "marts", "table": "fct_daily",
                               "asset_key": ["warehouse", "marts", "fct_daily"]}
    assert daily["time_interval"] == {"granularity": "day", "time_column": "order_date",
                                      "first_partition": "2026-04-01", "lookback": 2,
                                      "batch_size": 3, "key_format": "%Y-%m-%d",
                                      "timezone": "UTC", "naive_time": "utc"}
    assert hourly["asset_key"] == ["marts", "fct_hourly"]
    assert hourly["target"]["catalog"] is None
    assert hourly["time_interval"]["first_partition"] is None
    assert hourly["time_interval"]["key_format"] == "%Y-%m-%dT%H"
    # A zoned model's hourly keys carry their offset (docs/timezones.md).
    project.add_model("fct_ny_hourly", "SELECT order_at FROM raw.stg_orders\n"
                      "WHERE order_at >= @start_date AND order_at < @end_date\n",
                      '[strategy]\ntype = "time_interval"\ntime_column = "order_at"\n'
                      'granularity = "hour"\ntimezone = "America/New_York"\n')
    zoned = {m["name"]: m for m in models_json(project)["models"]}["fct_ny_hourly"]
    assert zoned["time_interval"]["timezone"] == "America/New_York"
    assert zoned["time_interval"]["key_format"] == "%Y-%m-%dT%H%:z"
    assert daily["sql_path"] == str((project.root / "models" / "fct_daily.sql").resolve())
    check, _ = validator(strata_bin, "models-output")
    check.validate(out)


def test_models_selection_human_output_and_errors(project):
    small_project(project)
    only = models_json(project, "--model", "fct_daily")
    assert [m["name"] for m in only["models"]] == ["fct_daily"]
    labelled = models_json(project, "--filter", "team=core")
    assert [m["name"] for m in labelled["models"]] == ["stg_copy"]
    human = project.strata("models", output="human")
    assert human.returncode == 0, repr(human)
    assert "fct_daily" in human.stdout and "time_interval (day)" in human.stdout
    assert "3 models" in human.stdout
    unknown = project.strata("models", "--model", "nope")
    assert unknown.returncode == 1
    assert unknown.json["errors"][0]["code"] == "ModelNotFound", unknown.json


def test_models_refuses_a_broken_project(project):
    project.write("models/bad.toml", 'name = "bad"\nlookbak = 3\n')
    project.write("models/bad.sql", "SELECT 1 AS x\n")
    result = project.strata("models")
    assert result.returncode == 1 and result.json["errors"], repr(result)


def test_partitions_output_validates_against_its_schema(project, strata_bin):
    project.create_orders([(1, 10, "5.00", "2026-04-01 10:00:00")])
    small_project(project)
    project.run("--model", "stg_copy")
    project.run("--model", "fct_daily", "--from", "2026-04-01", "--to", "2026-04-02")
    out = project.strata("partitions").json
    # lookback = 2 recomputes the two days before the range too
    assert [p["partition_key"] for p in out["partitions"]] == [
        "2026-03-30", "2026-03-31", "2026-04-01", "2026-04-02"]
    check, jsonschema = validator(strata_bin, "partitions-output")
    check.validate(out)
    with pytest.raises(jsonschema.ValidationError):
        check.validate({"partitions": [{"model": "x"}]})


def test_refusals_validate_against_the_errors_schema(project, strata_bin):
    small_project(project)
    check, jsonschema = validator(strata_bin, "errors-output")
    project.write("models/bad.toml", 'name = "bad"\nlookbak = 3\n')
    project.write("models/bad.sql", "SELECT 1 AS x\n")
    refusals = [project.strata("models"), project.strata("run", "--model", "nope"),
                project.strata("run", "--bogus-flag")]
    for refused in refusals:
        assert refused.returncode == 1, repr(refused)
        check.validate(refused.json)
    assert any("file" in e for r in refusals for e in r.json["errors"]), refusals[0].json
    with pytest.raises(jsonschema.ValidationError):
        check.validate({"errors": []})
    with pytest.raises(jsonschema.ValidationError):
        check.validate({"errors": [{"code": "Usage"}]})


def test_schema_names(strata_bin):
    for name in ("run-output", "models-output", "partitions-output", "errors-output"):
        assert schema(strata_bin, name)["$schema"].startswith("https://json-schema.org/")
    completed = subprocess.run([strata_bin, "schema", "nope"], capture_output=True, text=True,
                               timeout=30)
    # A usage error: on a pipe, one {"errors": [...]} document on stdout (test_day_one.py).
    assert completed.returncode == 1 and completed.stderr == "", completed
    [error] = json.loads(completed.stdout)["errors"]
    assert error["code"] == "Usage" and "models-output" in error["hint"], error
