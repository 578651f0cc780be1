"""Planning for the cloud warehouses: `strata plan --warehouse NAME` shows each dialect's exact SQL
without connecting (no connector exists yet), and `strata run` says the connector is not available.

The statements themselves are pinned by tests/golden/emit/<dialect>.txt; here only the path from
strata.toml through the CLI is checked, plus each dialect's distinctive shape.
"""
from __future__ import annotations

import pytest

from conftest import DAILY_SQL, strategy_toml

UNSET_DSN = "STRATA_E2E_CLOUD_DSN_THAT_IS_NOT_SET"

CLOUD_TYPES = ["snowflake", "databricks", "bigquery", "redshift", "trino"]


@pytest.fixture
def cloud_project(project, monkeypatch):
    monkeypatch.delenv(UNSET_DSN, raising=False)
    toml = project.root / "strata.toml"
    text = toml.read_text()
    for kind in CLOUD_TYPES:
        if kind == "trino":
            # Trino has no DSN; nothing listens on port 9 (discard), so planning cannot reach it.
            text += '\n[warehouses.trino]\ntype = "trino"\nurl = "http://127.0.0.1:9"\nuser = "u"\n'
            continue
        text += f'\n[warehouses.{kind}]\ntype = "{kind}"\ndsn_env = "{UNSET_DSN}"\n'
    text += f'\n[warehouses.sf]\ntype = "snowflake"\ndsn_env = "{UNSET_DSN}"\n'
    toml.write_text(text)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.add_model("stg_copy", "SELECT order_id, amount FROM stg_orders\n",
                      '[strategy]\ntype = "full_refresh"\n')
    return project


def planned_model(plan: dict, name: str) -> dict:
    return next(m for m in plan["models"] if m["model"] == name)


def test_plan_for_snowflake_shows_its_statements_without_connecting(cloud_project):
    result = cloud_project.strata("plan", "--warehouse", "sf", "--partition", "2026-04-07")
    assert result.returncode == 0, repr(result)
    plan = result.json
    assert plan["warehouse"] == "sf"

    daily = planned_model(plan, "fct_daily_orders")
    assert "error" not in daily, daily
    assert daily["bootstrap"][0] == 'CREATE SCHEMA IF NOT EXISTS "warehouse"."marts"'
    assert daily["bootstrap"][1].startswith(
        'CREATE TABLE "warehouse"."marts"."fct_daily_orders" AS\n')
    [batch] = daily["batches"]
    assert batch["keys"] == ["2026-04-07"]
    statements = batch["statements"]
    assert statements["begin"] == "BEGIN"
    assert statements["delete"] == (
        'DELETE FROM "warehouse"."marts"."fct_daily_orders"\n'
        "WHERE \"order_date\" >= '2026-04-07 00:00:00' AND \"order_date\" < '2026-04-08 00:00:00'")
    insert = statements["insert"]
    assert insert.startswith('INSERT INTO "warehouse"."marts"."fct_daily_orders"\nSELECT\n'), insert
    assert 'FROM "warehouse"."raw"."stg_orders"' in insert
    assert "order_at >= '2026-04-07 00:00:00'" in insert
    assert "order_at <  '2026-04-08 00:00:00'" in insert
    assert "BY NAME" not in insert
    assert statements["commit"] == "COMMIT"
    assert statements["rollback"] == "ROLLBACK"

    copy = planned_model(plan, "stg_copy")
    assert copy["statements"] == [
        'CREATE SCHEMA IF NOT EXISTS "warehouse"."marts"',
        'CREATE OR REPLACE TABLE "warehouse"."marts"."stg_copy" AS\n'
        'SELECT order_id, amount FROM "warehouse"."raw"."stg_orders"\n',
    ]


@pytest.mark.parametrize("kind", CLOUD_TYPES)
def test_every_cloud_dialect_plans_its_own_shape(cloud_project, kind):
    result = cloud_project.strata("plan", "--warehouse", kind, "--partition", "2026-04-07")
    if kind != "trino":
        assert result.returncode == 0, repr(result)
    daily = planned_model(result.json, "fct_daily_orders")
    if kind == "trino":
        # Its statements follow the catalog's connector (docs/trino.md); planned without reaching
        # the catalog, neither a window replacement nor a table replacement (the full_refresh
        # model) can be shown atomic, and both are refused (exit 1: no model is planned).
        assert result.returncode == 1, repr(result)
        copy = planned_model(result.json, "stg_copy")
        for refused in (daily, copy):
            assert refused["error"]["code"] == "WarehouseUnsupported", refused
            assert "atomically" in refused["error"]["message"], refused
        return
    assert "error" not in daily, daily
    statements = daily["batches"][0]["statements"]
    if kind == "databricks":
        assert statements["begin"] == statements["delete"] == statements["commit"] == ""
        assert statements["insert"].startswith(
            "INSERT INTO `warehouse`.`marts`.`fct_daily_orders`\n"
            "REPLACE WHERE `order_date` >= '2026-04-07 00:00:00' AND "
            "`order_date` < '2026-04-08 00:00:00'\nSELECT\n")
    elif kind == "bigquery":
        assert statements["begin"] == statements["delete"] == statements["commit"] == ""
        script = statements["insert"]
        assert script.startswith(
            "BEGIN TRANSACTION;\nDELETE FROM `warehouse`.`marts`.`fct_daily_orders`\n"
            "WHERE `order_date` >= TIMESTAMP '2026-04-07 00:00:00' AND "
            "`order_date` < TIMESTAMP '2026-04-08 00:00:00';\n"
            "INSERT INTO `warehouse`.`marts`.`fct_daily_orders`\nSELECT\n"), script
        assert script.endswith("\n;\nCOMMIT TRANSACTION")
    elif kind == "redshift":
        assert statements["begin"] == "BEGIN"
        assert statements["commit"] == "COMMIT"
        # PostgreSQL's unbound insert, bound to the model's columns by the runner.
        assert statements["insert"].startswith(
            'INSERT INTO "warehouse"."marts"."fct_daily_orders"\nSELECT * FROM (\n')
    else:
        assert statements["begin"] == "BEGIN"


def test_run_on_snowflake_says_the_connector_is_not_available(cloud_project):
    result = cloud_project.run("--warehouse", "sf", "--partition", "2026-04-07", expect=1)
    assert "not available yet" in result.stdout + result.stderr, repr(result)
    # Nothing was written anywhere: the default DuckDB warehouse was not touched either.
    assert not cloud_project.table_exists("marts", "fct_daily_orders")
