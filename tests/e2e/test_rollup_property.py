"""Property test (issue 10): random rollup definitions (dimensions, grains, partition.by,
sketches, sort_by, build_range, live_tail; seeded) over the small copy of the example data, and
random queries; each answer equals the same query answered live (ENGINE_ROLLUP_STORE_DIR
pointing at an empty folder: every rollup not_built), within sketch error. Enough queries must
hit a rollup for the test to mean something.
"""
from __future__ import annotations

import random

import pytest

pytest.register_assert_rewrite("semantic_harness", "rollup_harness")

from rollup_corpus import GRAINS, DERIVABLE, MEASURES, PERCENTILE_TOLERANCE, PERCENTILES, rollups_yaml
from rollup_harness import STORE_ENV, missed_of, route_of, rows_in_query_order
from semantic_corpus import flt, q, td
from semantic_harness import compare_answer

pytest_plugins = ["semantic_harness", "rollup_harness"]

# Full tier only (scripts/test.sh; `--fast` skips it): a property test over random rollups.
pytestmark = pytest.mark.slow

SEED = 20261201
DIMENSIONS = {"status": "Order.status", "customer.region": "Customer.region",
              "customer.segment": "Customer.segment"}
ORDER_MEASURES = [m.split(".")[1] for m in MEASURES if m.startswith("Order.")]
SKETCHABLE = [m for m in ORDER_MEASURES
              if MEASURES["Order." + m][0] in PERCENTILES | {"count_distinct_approx"}]
# A year grain too (issue 39): a year rollup must not answer an April fiscal year.
STORED_GRAINS = ["hour", "day", "week", "month", "quarter", "year"]
PARTITIONS = {"hour": ["month", "quarter", None], "day": ["week", "month", "year", None],
              "week": ["week", None], "month": ["month", "year", None], "quarter": ["quarter", "year", None],
              "year": ["year", None]}
ROLLUPS, QUERIES, MIN_HITS = 15, 60, 15


def random_rollups(rng: random.Random) -> list[dict]:
    out = []
    for i in range(ROLLUPS):
        dims = [(d, None) for d in rng.sample(list(DIMENSIONS), rng.randint(0, 3))]
        grain = rng.choice(STORED_GRAINS) if rng.random() < 0.85 else None
        rollup = {"name": f"p{i}", "entity": "Order", "measures": rng.sample(ORDER_MEASURES, rng.randint(2, 6))}
        if grain:
            dims.insert(rng.randrange(len(dims) + 1), ("order_date", grain))
            rollup["partition"] = rng.choice(PARTITIONS[grain])
            if rollup["partition"] and rng.random() < 0.2:
                rollup["build_range"] = 200
            elif rng.random() < 0.1:
                rollup["live_tail"] = True
        if not dims:
            dims = [("status", None)]
        rollup["dimensions"] = dims
        rollup["sketches"] = [m for m in rollup["measures"] if m in SKETCHABLE and rng.random() < 0.7]
        rollup["sort_by"] = rng.sample([d for d, _ in dims], rng.randint(0, len(dims)))
        out.append(rollup)
    return out


def random_query(rng: random.Random, rollups: list[dict], d) -> dict:
    base = rng.choice(rollups) if rng.random() < 0.7 else None
    pool = base["measures"] if base else ORDER_MEASURES
    measures = ["Order." + m for m in rng.sample(pool, rng.randint(1, min(3, len(pool))))]
    if rng.random() < 0.1:
        measures.append("Order.average_order_value")
    stored = dict(base["dimensions"]) if base else {**{k: None for k in DIMENSIONS}, "order_date": "hour"}
    names = [k for k in stored if k in DIMENSIONS]
    dims = [DIMENSIONS[k] for k in rng.sample(names, rng.randint(0, len(names)))]
    time_dimensions, filters = [], []
    grain = stored.get("order_date")
    if grain and rng.random() < 0.8:
        wanted = rng.choice(sorted(DERIVABLE[grain]) if rng.random() < 0.85 else GRAINS)
        span = None
        if rng.random() < 0.6:
            a = rng.randint(0, 16)
            span = (d.month(a), d.month(rng.randint(a + 1, 18))) if rng.random() < 0.8 else \
                (d.day(rng.randint(0, 400)), d.day(rng.randint(401, 560)))
        time_dimensions.append(td("Order.order_date", wanted, span))
    if rng.random() < 0.3:
        filters.append(flt("Order.status", "equals", *rng.sample(["paid", "shipped", "refunded"], 2)))
    if rng.random() < 0.2:
        filters.append(flt("Customer.region", "not_equals", rng.choice(["north", "east"])))
    return q(measures, dims, time_dimensions, filters)


def test_random_rollups_answer_like_live(small_warehouse, strata_bin, tmp_path):
    rng = random.Random(SEED)
    # And one year rollup for certain (issue 39): the seed may draw none.
    rollups = random_rollups(rng) + [
        {"name": "p_year", "entity": "Order", "measures": ["revenue", "order_count", "avg_amount"],
         "dimensions": [("order_date", "year"), ("status", None)], "partition": "year",
         "sketches": [], "sort_by": []}]
    project = small_warehouse.project(tmp_path / "property", strata_bin, rollups_yaml(rollups))
    report = project.build(parallel=2)
    assert report["status"] == "success", report
    empty = tmp_path / "no_store"
    empty.mkdir()
    names = {r["name"] for r in rollups}
    hits = 0
    for i in range(QUERIES):
        query = random_query(rng, rollups, small_warehouse.dates)
        stored = project.query(query)
        live = project.query(query, env={STORE_ENV: str(empty)})
        assert live.ok, f"query {i} {query}: live failed\n{live!r}"
        assert set(missed_of(live).values()) == {"not_built"}, route_of(live)
        case = {"id": f"property_{i}", "query": query,
                "tolerance": {m: PERCENTILE_TOLERANCE for m in query["measures"]
                              if MEASURES.get(m, ("",))[0] in PERCENTILES}}
        compare_answer(case, stored, rows_in_query_order(live, query))
        route = route_of(stored)
        if route.get("used"):
            assert route["used"] in names, route
            hits += 1
        else:
            assert set(missed_of(stored)) == names, route
    assert hits >= MIN_HITS, f"only {hits} of {QUERIES} random queries hit a rollup"
    # The year rollup answers calendar years, never the example's April fiscal years.
    for grain, used in (("year", "p_year"), ("fiscal_year", None)):
        query = q(["Order.revenue", "Order.order_count"], ["Order.status"],
                  [td("Order.order_date", grain, None)])
        stored = project.query(query)
        live = project.query(query, env={STORE_ENV: str(empty)})
        compare_answer({"id": f"year_{grain}", "query": query, "tolerance": {}}, stored,
                       rows_in_query_order(live, query))
        route = route_of(stored)
        if used:
            assert route.get("used") == used, route
        else:  # another rollup (a quarter one) may answer; the year one never
            assert route.get("used") != "p_year", route
            if route.get("missed") is not None:
                assert missed_of(stored)["p_year"] == "grain_not_derivable", route
