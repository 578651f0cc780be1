"""Filter groups ({"or"}, {"and"}, {"not"}, nested) and `offset` end to end on the example project
(`strata init --example`): every answer is compared with the same question written by hand in SQL
and run by the Python `duckdb` package on a copy of the warehouse file (an independent reader),
live on the session's example (its rollup never built) and from `monthly_order_summary` built in
a copy of the project, whose meta.rollup must say it answered (or why not: filter_not_stored when
a group reads a member the rollup does not store).

`not` is SQL's NOT: a row whose member is NULL is neither kept by a filter nor by its negation
(every 97th customer has no signup date: the test counts them out of both).
"""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

pytest.register_assert_rewrite("semantic_harness")

from semantic_harness import SemanticProject, compare_answer

pytest_plugins = ["semantic_harness"]

ROLLUP = "monthly_order_summary"


def eq(member, *values):
    return {"member": member, "op": "equals", "values": list(values)}


def op(member, name, *values):
    return {"member": member, "op": name, "values": list(values)}


@pytest.fixture(scope="module")
def built(semantic_example, strata_bin, tmp_path_factory):
    """A copy of the example project with monthly_order_summary built (the session's example
    stays unbuilt: other tests expect not_built)."""
    root = tmp_path_factory.mktemp("groups") / "shop"
    shutil.copytree(semantic_example.project.root, root,
                    ignore=shutil.ignore_patterns(".strata", "q-*.json"))
    completed = subprocess.run([strata_bin, "rollups", "build", "--rollup", ROLLUP, "--project",
                                str(root), "--output", "json"],
                               capture_output=True, text=True, timeout=600, cwd=root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return SemanticProject(root, strata_bin, "duckdb")


def check(project, oracle, case_id, query, sql, used=None, missed=None):
    """Strata's answer to `query` on `project` equals `sql` on the oracle, row for row in order;
    meta.rollup names `used`, or lists `missed` as the rollup's reason."""
    result = project.query(query)
    compare_answer({"id": case_id, "query": query, "ordered": True}, result, oracle.rows(sql))
    rollup = result.body["meta"]["rollup"]
    if used:
        assert rollup.get("used") == used, f"[{case_id}] {rollup}"
    else:
        assert "used" not in rollup, f"[{case_id}] {rollup}"
    if missed:
        assert {"rollup": ROLLUP, "reason": missed} in rollup["missed"], f"[{case_id}] {rollup}"
    return result.body


def test_groups_and_offset_live(semantic_example):
    project, oracle = semantic_example.project, semantic_example.oracle
    query = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
             "filters": [{"or": [eq("Customer.segment", "smb"),
                                 {"not": op("Order.amount", "lt", 100)}]}],
             "order": [{"member": "Order.revenue", "desc": True}], "limit": 2, "offset": 1}
    check(project, oracle, "or_not_limit_offset", query, """
        SELECT o.status, SUM(o.amount), COUNT(*)
        FROM raw.orders o LEFT JOIN raw.customers c ON o.customer_id = c.customer_id
        WHERE c.segment = 'smb' OR NOT (o.amount < 100)
        GROUP BY 1 ORDER BY 2 DESC NULLS LAST LIMIT 2 OFFSET 1""", missed="not_built")

    # Nested groups on dimensions ANDed with a group on measures (after aggregation), and an
    # offset without a limit after the default order (the dimensions).
    query = {"measures": ["Order.revenue", "Order.avg_amount"],
             "dimensions": ["Customer.region", "Order.status"],
             "filters": [{"not": {"or": [eq("Order.status", "cancelled"),
                                         {"and": [eq("Customer.region", "west"),
                                                  op("Customer.segment", "not_equals", "smb")]}]}},
                         {"or": [op("Order.order_count", "gt", 60000),
                                 {"not": op("Order.avg_amount", "lt", 127.5)}]}],
             "offset": 3}
    check(project, oracle, "nested_and_measure_group_offset", query, """
        SELECT c.region, o.status, SUM(o.amount),
               CAST(SUM(o.amount) AS DOUBLE) / NULLIF(COUNT(o.amount), 0)
        FROM raw.orders o LEFT JOIN raw.customers c ON o.customer_id = c.customer_id
        WHERE NOT (o.status = 'cancelled' OR (c.region = 'west' AND
                   (c.segment <> 'smb' OR c.segment IS NULL)))
        GROUP BY 1, 2
        HAVING COUNT(*) > 60000 OR NOT (CAST(SUM(o.amount) AS DOUBLE) / NULLIF(COUNT(o.amount), 0) < 127.5)
        ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST OFFSET 3""", missed="not_built")


def test_not_keeps_no_null_rows(semantic_example):
    project, oracle = semantic_example.project, semantic_example.oracle
    cutoff = semantic_example.dates.month(6)
    before = op("Customer.signup_date", "lt", cutoff)

    def counts(filters):
        query = {"measures": ["Customer.customer_count"], "dimensions": ["Customer.region"],
                 "filters": filters}
        result = project.query(query)
        assert result.ok, result
        return {row[0]: row[1] for row in result.body["rows"]}, query

    negated, query = counts([{"not": before}])
    compare_answer({"id": "not_lt", "query": query, "ordered": True},
                   project.query(query), oracle.rows(f"""
        SELECT region, COUNT(*) FROM raw.customers
        WHERE NOT (signup_at < TIMESTAMP '{cutoff} 00:00:00')
        GROUP BY 1 ORDER BY 1 NULLS LAST"""))
    kept, _ = counts([before])
    unknown, _ = counts([op("Customer.signup_date", "not_set")])
    everyone, _ = counts([])
    assert sum(unknown.values()) > 0
    for region, total in everyone.items():
        assert kept.get(region, 0) + negated.get(region, 0) + unknown.get(region, 0) == total


def test_groups_and_offset_from_the_rollup(semantic_example, built):
    oracle, dates = semantic_example.oracle, semantic_example.dates
    start, middle, stop = dates.month(12), dates.month(14), dates.month(16)
    time = {"dimension": "Order.order_date", "grain": "month", "range": [start, stop]}
    base = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Customer.region"],
            "time_dimensions": [time]}
    window = (f"o.order_at >= TIMESTAMP '{start} 00:00:00' "
              f"AND o.order_at < TIMESTAMP '{stop} 00:00:00'")
    joined = "raw.orders o LEFT JOIN raw.customers c ON o.customer_id = c.customer_id"
    cases = [
        ("rollup_or_not_nested_offset",
         {**base, "filters": [{"or": [eq("Order.status", "paid"),
                                      {"not": {"and": [eq("Customer.region", "north"),
                                                       op("Order.order_date", "gte", middle)]}}]}],
          "order": [{"member": "Order.revenue", "desc": True}], "limit": 3, "offset": 2},
         f"""SELECT c.region, date_trunc('month', o.order_at), SUM(o.amount), COUNT(*)
             FROM {joined}
             WHERE {window} AND (o.status = 'paid' OR NOT (c.region = 'north'
                   AND o.order_at >= TIMESTAMP '{middle} 00:00:00'))
             GROUP BY 1, 2 ORDER BY 3 DESC NULLS LAST LIMIT 3 OFFSET 2"""),
        ("rollup_not_or_measure_group",
         {**base, "filters": [{"not": {"or": [eq("Order.status", "cancelled", "refunded"),
                                              eq("Customer.region", "east")]}},
                              {"or": [op("Order.order_count", "gte", 20000),
                                      {"not": op("Order.revenue", "gt", 2500000)}]}],
          "offset": 4},
         f"""SELECT c.region, date_trunc('month', o.order_at), SUM(o.amount), COUNT(*)
             FROM {joined}
             WHERE {window} AND NOT (o.status IN ('cancelled', 'refunded') OR c.region = 'east')
             GROUP BY 1, 2
             HAVING COUNT(*) >= 20000 OR NOT (SUM(o.amount) > 2500000)
             ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST OFFSET 4"""),
    ]
    for case_id, query, sql in cases:
        body = check(built, oracle, case_id, query, sql, used=ROLLUP)
        assert body["rows"], f"[{case_id}] the test means nothing without rows"
        # The same query live (the session's example has no built rollup) is the same answer.
        check(semantic_example.project, oracle, case_id + "_live", query, sql,
              missed="not_built")

    # A group that reads a member the rollup does not store (Order.amount) goes live.
    query = {**base, "filters": [{"or": [eq("Order.status", "paid"),
                                         op("Order.amount", "gt", 200)]}]}
    check(built, oracle, "rollup_group_not_stored", query, f"""
        SELECT c.region, date_trunc('month', o.order_at), SUM(o.amount), COUNT(*)
        FROM {joined}
        WHERE {window} AND (o.status = 'paid' OR o.amount > 200)
        GROUP BY 1, 2 ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST""", missed="filter_not_stored")


def test_group_and_offset_errors(semantic_example):
    project = semantic_example.project
    for bad in ({"filters": [{"or": []}]},
                {"filters": [{"not": [eq("Order.status", "paid")]}]},
                {"filters": [{"or": [eq("Order.status", "paid"), op("Order.revenue", "gt", 1)]}]},
                {"offset": -1},
                {"offset": "10"}):
        result = project.query({"measures": ["Order.revenue"], **bad})
        assert result.returncode == 1, result
        assert result.error_codes() == ["QueryInvalid"], result
    mixed = project.query({"measures": ["Order.revenue"], "filters": [
        {"or": [eq("Order.status", "paid"), op("Order.revenue", "gt", 1)]}]})
    assert json.loads(mixed.stdout)["errors"][0].get("hint"), mixed
