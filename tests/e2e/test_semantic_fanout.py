"""Fan-out traps: measures of several entities joined through one_to_many relationships
(Customer -> Order, Customer -> Ticket). A naive join of orders and tickets per customer
multiplies every order by the customer's ticket count (and vice versa); the answers here are the
per-entity aggregates joined on the shared dimensions. Dimensions only reachable across a
one_to_many are refused with FanOut. Cases: semantic_corpus.py (category `fanout`).
"""
from __future__ import annotations

import pytest

pytest.register_assert_rewrite("semantic_harness")

from semantic_corpus import case_ids
from semantic_harness import check_case

# Full tier only (scripts/test.sh; `--fast` skips it): part of the semantic oracle (fan-out traps,
# DuckDB and PostgreSQL).
pytestmark = pytest.mark.slow

pytest_plugins = ["semantic_harness"]

CASES = [case_id for case_id, cat in case_ids() if cat == "fanout"]


@pytest.mark.parametrize("case_id", CASES)
def test_fanout_duckdb(case_id, semantic_example, semantic_cases):
    check_case(semantic_cases[case_id], semantic_example.project, semantic_example.oracle, "duckdb")


@pytest.mark.parametrize("case_id", CASES)
def test_fanout_postgres(case_id, semantic_pg, semantic_cases):
    project, oracle = semantic_pg
    check_case(semantic_cases[case_id], project, oracle, "postgres")


def test_naive_join_would_double_count(semantic_example):
    """The trap is real in this data: joining orders and tickets per customer inflates both."""
    (naive_orders, true_orders, naive_tickets, true_tickets), = semantic_example.oracle.rows("""
        SELECT count(o.order_id), (SELECT count(*) FROM raw.orders),
               count(t.ticket_id), (SELECT count(*) FROM raw.tickets)
        FROM raw.customers c JOIN raw.orders o ON o.customer_id = c.customer_id
        JOIN raw.tickets t ON t.customer_id = c.customer_id""")
    assert naive_orders > 2 * true_orders and naive_tickets > 2 * true_tickets
    (only_orders, only_tickets), = semantic_example.oracle.rows("""
        SELECT count(*) FILTER (WHERE has_orders AND NOT has_tickets),
               count(*) FILTER (WHERE has_tickets AND NOT has_orders)
        FROM (SELECT c.customer_id,
                     EXISTS (SELECT 1 FROM raw.orders o WHERE o.customer_id = c.customer_id) AS has_orders,
                     EXISTS (SELECT 1 FROM raw.tickets t WHERE t.customer_id = c.customer_id) AS has_tickets
              FROM raw.customers c)""")
    assert only_orders > 0 and only_tickets > 0
