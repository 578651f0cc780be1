"""The semantic-layer correctness oracle: every corpus case (semantic_corpus.py) answered by
`strata query` over the `strata init --example` data and compared with a hand-written SQL answer
run directly in DuckDB, and the same corpus against a PostgreSQL copy of the data.

Fan-out traps and security probes of the same corpus run from test_semantic_fanout.py and
test_semantic_security.py. Comparison rules: semantic_harness.py. Time values: a time dimension
at a grain is the start of its period; weeks start on Monday; the example's fiscal year starts
in April, so fiscal_year 2025-04-01 is the year April 2025 - March 2026 (semantic_corpus.py).
"""
from __future__ import annotations

import json
from collections import Counter

import pytest

pytest.register_assert_rewrite("semantic_harness")

from semantic_corpus import build_corpus, case_ids
from semantic_harness import Dates, MEMBER_TYPES, check_case, expected_columns

# Full tier only (scripts/test.sh; `--fast` skips it): the semantic oracle (251 queries against
# hand-written SQL, DuckDB and PostgreSQL).
pytestmark = pytest.mark.slow

pytest_plugins = ["semantic_harness"]

ORACLE_CATEGORIES = ("grain", "range", "filter", "having", "agg", "metric", "order", "role")
CASES = [case_id for case_id, cat in case_ids() if cat in ORACLE_CATEGORIES]


@pytest.mark.parametrize("case_id", CASES)
def test_oracle_duckdb(case_id, semantic_example, semantic_cases):
    check_case(semantic_cases[case_id], semantic_example.project, semantic_example.oracle, "duckdb")


@pytest.mark.parametrize("case_id", CASES)
def test_oracle_postgres(case_id, semantic_pg, semantic_cases):
    project, oracle = semantic_pg
    check_case(semantic_cases[case_id], project, oracle, "postgres")


def test_corpus_covers_the_issue():
    """Issue 5's list, checked on the corpus itself: >= 150 queries, every grain, every filter op
    on dimensions and on measures, every aggregation, metrics, multi-entity queries, roles."""
    import datetime as dt
    cases = build_corpus(Dates(dt.datetime(2025, 4, 1), dt.datetime(2026, 11, 1),
                               dt.datetime(2026, 1, 29, 12)))
    assert len(cases) >= 150
    grains, dimension_ops, measure_ops, measures, roles, entities_per_query = \
        set(), set(), set(), set(), set(), Counter()
    for case in cases:
        query = case["query"]
        for time_dimension in query.get("time_dimensions", []):
            grains.add(time_dimension.get("grain"))
        for item in query.get("filters", []):
            if "member" not in item:
                continue
            is_dimension = item["member"] in MEMBER_TYPES or item["member"].count(".") == 2
            (dimension_ops if is_dimension else measure_ops).add(item["op"])
        measures.update(query.get("measures", []))
        roles.add(case.get("role"))
        entities = {m.split(".")[0] for m in query.get("measures", [])}
        entities_per_query[len(entities)] += 1
    assert {"hour", "day", "week", "month", "quarter", "year", "fiscal_quarter", "fiscal_year"} <= grains
    every_op = {"equals", "not_equals", "gt", "gte", "lt", "lte", "contains", "starts_with", "set", "not_set"}
    assert every_op <= dimension_ops, every_op - dimension_ops
    assert {"equals", "gt", "gte", "lt", "lte", "set", "not_set"} <= measure_ops
    assert {"Order.revenue", "Order.order_count", "Order.min_amount", "Order.max_amount",
            "Order.avg_amount", "Order.customers", "Order.customer_id_approx",
            "Order.median_amount", "Order.p90_amount", "Order.paid_revenue",
            "Ticket.p95_resolution_hours", "Order.average_order_value", "Order.paid_share",
            "Order.tickets_per_order"} <= measures
    assert {None, "admin", "north_analyst", "paid_orders_only", "nobody"} <= roles
    assert entities_per_query[2] + entities_per_query[3] >= 10


def test_response_format(semantic_example):
    """spec/semantic.md: columns with name and type, rows of JSON scalars (numbers as JSON
    numbers, times as ISO 8601 UTC strings), meta.rollup.missed naming the unbuilt rollup with
    reason not_built, meta.sql and meta.duration_ms."""
    d = semantic_example.dates
    query = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
             "time_dimensions": [{"dimension": "Order.order_date", "grain": "month",
                                  "range": [d.month(12), d.month(15)]}]}
    result = semantic_example.project.query(query)
    assert result.ok, repr(result)
    body = result.body
    assert [c["name"] for c in body["columns"]] and \
        sorted(c["name"] for c in body["columns"]) == sorted(expected_columns(query))
    types = {c["name"]: c["type"] for c in body["columns"]}
    assert types == {"Order.status": "string", "Order.order_date.month": "time",
                     "Order.revenue": "number", "Order.order_count": "number"}
    names = [c["name"] for c in body["columns"]]
    assert len(body["rows"]) == 4 * 3
    for row in body["rows"]:
        cells = dict(zip(names, row))
        assert isinstance(cells["Order.status"], str)
        assert isinstance(cells["Order.revenue"], (int, float)) and not isinstance(cells["Order.revenue"], bool)
        assert isinstance(cells["Order.order_count"], int)
        assert isinstance(cells["Order.order_date.month"], str) and \
            cells["Order.order_date.month"].endswith("T00:00:00Z") and \
            cells["Order.order_date.month"][8:10] == "01", cells
    meta = body["meta"]
    assert meta["rollup"]["missed"] == [{"rollup": "monthly_order_summary", "reason": "not_built"}], meta
    assert isinstance(meta.get("sql"), str) and meta["sql"]
    assert isinstance(meta["duration_ms"], (int, float)) and meta["duration_ms"] >= 0


def test_query_errors_are_json_with_codes(semantic_example):
    project = semantic_example.project
    unknown = project.query({"measures": ["Order.revenu"]})
    assert unknown.returncode == 1 and unknown.error_codes() == ["QueryInvalid"], repr(unknown)
    bad_grain = project.query({"measures": ["Order.revenue"], "time_dimensions": [
        {"dimension": "Order.order_date", "grain": "fortnight"}]})
    assert bad_grain.returncode == 1 and bad_grain.error_codes() == ["QueryInvalid"], repr(bad_grain)
    bad_op = project.query({"measures": ["Order.revenue"],
                            "filters": [{"member": "Order.status", "op": "like", "values": ["p%"]}]})
    assert bad_op.returncode == 1 and bad_op.error_codes() == ["QueryInvalid"], repr(bad_op)
    malformed = project.query(None, raw_text='{"measures": ["Order.revenue"')
    assert malformed.returncode == 1 and malformed.error_codes() == ["QueryInvalid"], repr(malformed)
    not_json_member = project.query({"measures": [42]})
    assert not_json_member.returncode == 1 and not_json_member.error_codes() == ["QueryInvalid"]


def test_example_data_shape(semantic_example):
    """What issue 5 asks of the generated data (and what the corpus relies on)."""
    oracle = semantic_example.oracle
    (orders, customers, tickets), = oracle.rows(
        "SELECT (SELECT count(*) FROM raw.orders), (SELECT count(*) FROM raw.customers), "
        "(SELECT count(*) FROM raw.tickets)")
    assert (orders, customers) == (1_200_000, 40_000) and 140_000 <= tickets <= 160_000
    assert oracle.rows("SELECT min(customer_id), max(customer_id), count(DISTINCT customer_id) "
                       "FROM raw.customers") == [(1, 40_000, 40_000)]
    # An order's region is its customer's region.
    assert oracle.rows("SELECT count(*) FROM raw.orders o JOIN raw.customers c "
                       "ON c.customer_id = o.customer_id WHERE o.region <> c.region") == [(0,)]
    assert oracle.rows("SELECT count(*) FROM raw.orders o LEFT JOIN raw.customers c "
                       "ON c.customer_id = o.customer_id WHERE c.customer_id IS NULL") == [(0,)]
    assert {r[0] for r in oracle.rows("SELECT DISTINCT segment FROM raw.customers")} == \
        {"consumer", "smb", "enterprise"}
    assert {r[0] for r in oracle.rows("SELECT DISTINCT priority FROM raw.tickets")} == \
        {"low", "normal", "high", "urgent"}
    assert {r[0] for r in oracle.rows("SELECT DISTINCT channel FROM raw.tickets")} == {"email", "chat", "phone"}
    # Open tickets, and only they, have no resolution time.
    assert oracle.rows("SELECT count(*) FROM raw.tickets "
                       "WHERE (status = 'open') <> (resolution_hours IS NULL)") == [(0,)]
    # Tickets span the same months as the orders.
    assert oracle.rows("SELECT date_trunc('month', min(opened_at)), date_trunc('month', max(opened_at)) "
                       "FROM raw.tickets") == oracle.rows(
        "SELECT date_trunc('month', min(order_at)), date_trunc('month', max(order_at)) FROM raw.orders")
    # Signups precede first orders.
    assert oracle.rows("SELECT count(*) FROM raw.customers c JOIN (SELECT customer_id, min(order_at) AS f "
                       "FROM raw.orders GROUP BY 1) o ON o.customer_id = c.customer_id "
                       "WHERE c.signup_at > o.f") == [(0,)]
    # Several orders and tickets per customer for most customers.
    (several,), = oracle.rows(
        "SELECT count(*) FROM (SELECT customer_id FROM raw.tickets GROUP BY 1 HAVING count(*) > 1) t "
        "JOIN (SELECT customer_id FROM raw.orders GROUP BY 1 HAVING count(*) > 1) o USING (customer_id)")
    assert several > 30_000
    # The semantic model and the fiscal year start are part of the example.
    assert "fiscal_year_start_month = 4" in (semantic_example.project.root / "strata.toml").read_text()


@pytest.mark.parametrize("start_month", [1, 2, 11])
def test_fiscal_start_month_variants(start_month, semantic_example, tmp_path):
    """fiscal_quarter / fiscal_year for other fiscal_year_start_month values, over the example's
    warehouse (a second project pointing at the same file): with a start in month m the period
    of t is date_trunc(unit, t - (m-1) months) + (m-1) months, labelled by its start. Month 1
    (also the default when [semantic] is absent) makes them the calendar periods."""
    root = tmp_path / f"fiscal_{start_month}"
    (root / "semantic").mkdir(parents=True)
    (root / "models").mkdir()
    example = semantic_example.project.root
    (root / "semantic" / "model.yml").write_text((example / "semantic" / "model.yml").read_text())
    semantic_section = "" if start_month == 1 else \
        f"\n[semantic]\nfiscal_year_start_month = {start_month}\n"
    (root / "strata.toml").write_text(
        f'[project]\nname = "fiscal"\n\n[warehouse]\ntype = "duckdb"\n'
        f'path = "{example / "warehouse.duckdb"}"\n{semantic_section}')
    from semantic_harness import SemanticProject
    project = SemanticProject(root, semantic_example.project.bin, "duckdb")
    shift = start_month - 1
    for grain, unit in (("fiscal_quarter", "quarter"), ("fiscal_year", "year")):
        case = {"id": f"fiscal_{start_month}_{grain}", "cat": "grain",
                "query": {"measures": ["Order.revenue", "Order.order_count"],
                 "dimensions": ["Order.status"],
                 "time_dimensions": [{"dimension": "Order.order_date", "grain": grain}]},
                "sql": f"SELECT o.status, date_trunc('{unit}', o.order_at - INTERVAL '{shift} months') "
                       f"+ INTERVAL '{shift} months', sum(o.amount), count(*) FROM raw.orders o GROUP BY 1, 2"}
        check_case(case, project, semantic_example.oracle, "duckdb")
