"""Row-level security and injection probes against `strata query --role`.

Every attempt to read another region (north_analyst) or another status (paid_orders_only) through
filters, OR shapes, member paths, metrics and crafted strings (quotes, comments, `;`, wildcards, NUL)
in values and member names either fails with a JSON error or returns exactly the rows the role
may see (the hand-written SQL applies the role's row filter). Entities a role does not list are
refused with AccessDenied, also when reached through a path, a filter or a metric. After all
probes the raw tables are intact. Cases: semantic_corpus.py (category `security`; the role
cases run from test_semantic_oracle.py).
"""
from __future__ import annotations

import pytest

pytest.register_assert_rewrite("semantic_harness")

from semantic_corpus import case_ids
from semantic_harness import check_case

# Full tier only (scripts/test.sh; `--fast` skips it): part of the semantic oracle (data-role
# escape attempts, DuckDB and PostgreSQL).
pytestmark = pytest.mark.slow

pytest_plugins = ["semantic_harness"]

CASES = [case_id for case_id, cat in case_ids() if cat == "security"]
TABLE_COUNTS = "SELECT (SELECT count(*) FROM raw.orders), (SELECT count(*) FROM raw.customers), " \
               "(SELECT count(*) FROM raw.tickets)"


@pytest.mark.parametrize("case_id", CASES)
def test_security_duckdb(case_id, semantic_example, semantic_cases):
    check_case(semantic_cases[case_id], semantic_example.project, semantic_example.oracle, "duckdb")


@pytest.mark.parametrize("case_id", CASES)
def test_security_postgres(case_id, semantic_pg, semantic_cases):
    project, oracle = semantic_pg
    check_case(semantic_cases[case_id], project, oracle, "postgres")


def test_tables_intact_after_probes_duckdb(semantic_example):
    import duckdb
    connection = duckdb.connect(str(semantic_example.project.root / "warehouse.duckdb"), read_only=True)
    try:
        counts = connection.execute(TABLE_COUNTS).fetchall()
    finally:
        connection.close()
    assert counts == semantic_example.oracle.rows(TABLE_COUNTS)
    assert counts[0][0] == 1_200_000 and counts[0][1] == 40_000


def test_tables_intact_after_probes_postgres(semantic_pg):
    project, oracle = semantic_pg
    orders, customers, tickets = (int(v) for v in oracle.rows(TABLE_COUNTS)[0])
    assert (orders, customers, tickets) == (150_000, 40_000, 75_000)


def test_role_cannot_be_widened_by_the_query_file(semantic_example):
    """A `role` key inside the query JSON must not override --role."""
    result = semantic_example.project.query(
        {"measures": ["Order.revenue"], "dimensions": ["Customer.region"], "role": "admin"},
        role="north_analyst")
    if result.returncode != 0:
        assert result.error_codes(), repr(result)
        return
    regions = [row[[c["name"] for c in result.body["columns"]].index("Customer.region")]
               for row in result.body["rows"]]
    assert regions == ["north"], regions
