"""`strata init DIR --example` end to end: run --missing, idempotent second run, independent sums."""
from __future__ import annotations

import datetime as dt
import json
import subprocess

import pytest

from conftest import Project

# Full tier only (scripts/test.sh; `--fast` skips it): generates and backfills the 1.2 M-order
# example.
pytestmark = pytest.mark.slow


def _hour_floor(t: dt.datetime) -> dt.datetime:
    return t.replace(minute=0, second=0, microsecond=0)


def test_example_project_missing_then_nothing_and_sums_match(tmp_path, strata_bin):
    root = tmp_path / "shop"
    init = subprocess.run([strata_bin, "init", str(root), "--example", "--output", "json"],
                          capture_output=True, text=True, timeout=120)
    assert init.returncode == 0, init.stderr

    project = Project.__new__(Project)  # reuse the helpers without rewriting strata.toml
    project.root, project.bin = root, strata_bin
    project.models_dir, project.warehouse_path = root / "models", root / "warehouse.duckdb"

    t0 = dt.datetime.now(dt.timezone.utc)
    first = project.run("--missing", timeout=240).json
    assert first["status"] == "success", first["errors"]
    summaries = {s["model"]: s for s in first["partition_summaries"]}
    assert set(summaries) == {"stg_orders", "fct_daily_orders", "fct_hourly_orders",
                              "fct_monthly_revenue"}
    for s in summaries.values():
        assert s["partitions_failed"] == 0 and s["partitions_succeeded"] == s["partitions_planned"]
    # The example's data starts on the first day of the month 19 months before today's month.
    today = t0.date()
    months_back = today.year * 12 + today.month - 1 - 19
    first_day = dt.date(months_back // 12, months_back % 12 + 1, 1)
    assert f'first_partition = "{first_day.isoformat()}"' in (
        root / "models" / "fct_daily_orders.toml").read_text()
    expected_days = (today - first_day).days + 1
    (oldest,), = project.query("SELECT CAST(min(order_at) AS DATE) FROM raw.orders")
    assert oldest == first_day
    assert summaries["fct_daily_orders"]["partitions_planned"] == expected_days

    second = project.run("--missing", timeout=120).json
    t1 = dt.datetime.now(dt.timezone.utc)
    assert second["status"] == "success"
    planned = {s["model"]: s["partitions_planned"] for s in second["partition_summaries"]}
    if _hour_floor(t0) == _hour_floor(t1):
        for model in ("fct_daily_orders", "fct_hourly_orders", "fct_monthly_revenue"):
            assert planned.get(model, 0) == 0, (model, second["partition_summaries"])
    else:  # the clock crossed an hour (or day) boundary between the runs: only new keys
        for m in second["materializations"]:
            if m.get("partition"):
                assert m["partition"]["start"] >= _hour_floor(t0).strftime("%Y-%m-%dT%H:00:00Z")

    # Independent reader: the daily model equals a direct aggregate over raw.stg_orders, and
    # raw.stg_orders is raw.orders without the cancelled ones.
    (stg, raw_kept), = project.query(
        "SELECT (SELECT count(*) FROM raw.stg_orders), "
        "(SELECT count(*) FROM raw.orders WHERE status <> 'cancelled')")
    assert stg == raw_kept > 0
    diff = project.query("""
        WITH direct AS (
            SELECT CAST(order_at AS DATE) AS d, customer_id, count(*) AS n, sum(amount) AS revenue
            FROM raw.stg_orders GROUP BY 1, 2),
        model AS (
            SELECT CAST(order_date AS DATE) AS d, customer_id, order_count AS n, revenue
            FROM marts.fct_daily_orders)
        SELECT count(*) FROM direct FULL OUTER JOIN model USING (d, customer_id)
        WHERE direct.n IS DISTINCT FROM model.n OR direct.revenue IS DISTINCT FROM model.revenue""")
    assert diff == [(0,)]
    (daily_total, direct_total, daily_n, direct_n), = project.query(
        "SELECT (SELECT sum(revenue) FROM marts.fct_daily_orders), (SELECT sum(amount) FROM raw.stg_orders), "
        "(SELECT sum(order_count) FROM marts.fct_daily_orders), (SELECT count(*) FROM raw.stg_orders)")
    assert daily_total == direct_total and daily_n == direct_n
    # hourly and monthly agree with the same source
    hourly_diff = project.query("""
        SELECT count(*) FROM (
            SELECT date_trunc('hour', order_at) AS h, region, count(*) AS n, sum(amount) AS r
            FROM raw.stg_orders GROUP BY 1, 2) direct
        FULL OUTER JOIN marts.fct_hourly_orders m ON m.order_hour = direct.h AND m.region = direct.region
        WHERE direct.n IS DISTINCT FROM m.order_count OR direct.r IS DISTINCT FROM m.revenue""")
    assert hourly_diff == [(0,)]
    monthly_diff = project.query("""
        SELECT count(*) FROM (
            SELECT date_trunc('month', order_at) AS mo, count(*) AS n, sum(amount) AS r,
                   count(DISTINCT customer_id) AS c
            FROM raw.stg_orders GROUP BY 1) direct
        FULL OUTER JOIN marts.fct_monthly_revenue m ON m.order_month = direct.mo
        WHERE direct.n IS DISTINCT FROM m.order_count OR direct.r IS DISTINCT FROM m.revenue
           OR direct.c IS DISTINCT FROM m.active_customers""")
    assert monthly_diff == [(0,)]


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except json.JSONDecodeError:
        return False


def test_init_with_output_json_keeps_stdout_json(tmp_path, strata_bin):
    # project.md: "`--output json` never mixes human text into stdout."
    init = subprocess.run([strata_bin, "init", str(tmp_path / "empty"), "--output", "json"],
                          capture_output=True, text=True, timeout=30)
    assert init.returncode == 0, init.stderr
    assert (tmp_path / "empty" / "strata.toml").exists()
    assert init.stdout.strip() == "" or _is_json(init.stdout), \
        f"`strata init --output json` printed human text on stdout: {init.stdout!r}"
    again = subprocess.run([strata_bin, "init", str(tmp_path / "empty"), "--output", "json"],
                           capture_output=True, text=True, timeout=30)
    assert again.returncode == 1
    assert [e["code"] for e in json.loads(again.stdout)["errors"]] == ["Usage"]
