"""[run] batching = "auto" (docs/batching.md): consecutive partitions share a transaction, a failing
transaction is split until the failing partitions are alone, and the result is the one
batching = "off" gives, partition by partition.

Failures are injected with DuckDB's error() on chosen days: the model's statement fails exactly
when its window holds one of them."""
from __future__ import annotations

import datetime as dt
import random
import signal
import time

import duckdb
import pytest

from conftest import expected_daily, in_days, mats_by_key, stop, strategy_toml
from conftest import rows_for_days as order_rows



def last_days(count: int) -> list[str]:
    """The `count` days up to today (UTC), so --missing selects exactly the ones not Computed."""
    today = dt.datetime.now(dt.timezone.utc).date()
    return [str(today - dt.timedelta(days=i)) for i in range(count - 1, -1, -1)]


def daily_sql(bad_days=(), slow_rows=0) -> str:
    """The daily aggregate; error('boom DAY') for rows of each day in `bad_days`; `slow_rows` > 0
    joins a generate_series so each statement takes a while."""
    fail = ""
    if bad_days:
        listed = ", ".join(f"DATE '{d}'" for d in bad_days)
        fail = (f"    AND CASE WHEN CAST(order_at AS DATE) IN ({listed})\n"
                "             THEN error('boom ' || CAST(CAST(order_at AS DATE) AS VARCHAR))\n"
                "             ELSE true END\n")
    slow_from = f",\n     (SELECT count(*) AS n FROM generate_series(1, {slow_rows}) AS g(i)) AS slow" \
        if slow_rows else ""
    slow_where = "  AND slow.n > 0\n" if slow_rows else ""
    return ("SELECT\n    DATE_TRUNC('day', order_at) AS order_date,\n    customer_id,\n"
            "    COUNT(*) AS order_count,\n    SUM(amount) AS revenue\n"
            f"FROM stg_orders{slow_from}\n"
            "WHERE order_at >= @start_date\n  AND order_at <  @end_date\n"
            f"{fail}{slow_where}GROUP BY 1, 2\n")


ROLLUP_SQL = """\
SELECT order_date, SUM(order_count) AS order_count, SUM(revenue) AS revenue
FROM fct_daily_orders
WHERE order_date >= @start_date AND order_date < @end_date
GROUP BY 1
"""


def set_batching(project, batching: str) -> None:
    project.write("strata.toml", (project.root / "strata.toml").read_text()
                  + f'\n[run]\nbatching = "{batching}"\nretry_base_ms = 1\n')


def build(project, batching, rows, days, bad_days, batch_size, rollup_batch_size):
    set_batching(project, batching)
    project.create_orders(rows)
    project.add_model("fct_daily_orders", daily_sql(bad_days),
                      strategy_toml("day", first_partition=days[0], batch_size=batch_size))
    project.add_model("daily_rollup", ROLLUP_SQL,
                      strategy_toml("day", first_partition=days[0], batch_size=rollup_batch_size),
                      depends_on=["fct_daily_orders"], sources=())


def state_of(project) -> dict:
    return {(p["model"], p["partition_key"]): (p["status"], p["row_count"], p["checksum"],
                                               p.get("error") or "")
            for p in project.partitions()}


def tables_of(project) -> dict:
    return {
        "fct": sorted(tuple(str(v) for v in r) for r in project.query(
            "SELECT CAST(order_date AS DATE), customer_id, order_count, revenue "
            "FROM marts.fct_daily_orders")),
        "rollup": sorted(tuple(str(v) for v in r) for r in project.query(
            "SELECT CAST(order_date AS DATE), order_count, revenue FROM marts.daily_rollup")),
    }


def outcome_of(report) -> dict:
    return {(m["model"], m["partition"]["key"]): (m["status"], m["row_count"], m["checksum"])
            for m in report["materializations"] if m.get("partition")}


PROPERTY_TRIALS = 12
PROPERTY_SEED = 20261202


def test_auto_equals_off_for_random_selections_failures_and_parallelism(make_project):
    rng = random.Random(PROPERTY_SEED)
    grouped_seen = split_seen = 0
    for trial in range(PROPERTY_TRIALS):
        n_days = rng.randint(20, 90)
        days = last_days(n_days)
        rows = order_rows(days)
        bad_days = sorted(rng.sample(days, rng.randint(0, 3)))
        batch_size = rng.choice([1, 1, 2, 3])
        rollup_batch_size = rng.choice([1, 2])
        # A first run over a random range (state for the sizing rule, gaps for --missing), then
        # a random selection: --missing, or another range.
        a, b = sorted(rng.sample(range(n_days), 2))
        first_run = ["--from", days[a], "--to", days[b]]
        second_run = ["--missing"] if rng.random() < 0.6 else \
            ["--from", days[rng.randint(0, a)], "--to", days[rng.randint(b, n_days - 1)]]
        parallel = [str(rng.randint(1, 4)), str(rng.randint(1, 4))]
        where = (f"trial {trial} (seed {PROPERTY_SEED}): {n_days} days, bad {bad_days}, "
                 f"batch_size {batch_size}/{rollup_batch_size}, runs {first_run} {second_run}, "
                 f"--parallel {parallel}")
        results = {}
        for batching in ("auto", "off"):
            project = make_project(f"t{trial}_{batching}")
            build(project, batching, rows, days, bad_days, batch_size, rollup_batch_size)
            reports = []
            for args, workers in ((first_run, parallel[0]), (second_run, parallel[1])):
                result = project.run(*args, "--parallel", workers, expect=None)
                assert result.returncode in (0, 2), f"{where}: {result!r}"
                reports.append(result.json)
            results[batching] = (state_of(project), tables_of(project),
                                 [outcome_of(r) for r in reports], reports)
        auto, off = results["auto"], results["off"]
        assert auto[0] == off[0], f"{where}: partition states differ"
        assert auto[1] == off[1], f"{where}: tables differ"
        assert auto[2] == off[2], f"{where}: per-partition run outcomes differ"
        # Exactly the bad days' batches failed (the dependents were skipped, in both).
        failed = {key for (model, key), s in auto[0].items() if s[0] == "Failed"}
        for key in failed:
            assert any(f"boom {d}" in auto[0][("fct_daily_orders", key)][3] for d in bad_days), where
        for report in auto[3]:
            assert all(m["transaction_partitions"] >= 1
                       for m in report["materializations"] if m["status"] != "Skipped"), where
            grouped_seen += sum(1 for m in report["materializations"]
                                if m["status"] == "Computed"
                                and m["transaction_partitions"]
                                > 1 + len(m["partition"]["batched_with"]))
            split_seen += len(report["bisection"])
        for report in off[3]:
            assert report["bisection"] == [], where
            assert all(m["transaction_partitions"] == 1 + len(m["partition"]["batched_with"])
                       for m in report["materializations"] if m["status"] != "Skipped"), where
    # The trials exercised what they claim to: grouping and bisection both happened.
    assert grouped_seen > 0 and split_seen > 0, (grouped_seen, split_seen)


def test_a_year_with_three_failing_days_fails_exactly_those(project):
    days = last_days(365)
    rows = order_rows(days, per_day=2)
    bad_days = [days[17], days[200], days[201]]
    set_batching(project, "auto")
    project.create_orders(rows)
    project.add_model("fct_daily_orders", daily_sql(bad_days),
                      strategy_toml("day", first_partition=days[0]))
    # A first, clean week gives the sizing rule a measured cost: the year then runs in large
    # transactions.
    project.run("--from", days[0], "--to", days[6])
    result = project.run("--from", days[0], "--to", days[-1], expect=2)
    report = result.json
    assert report["status"] == "partial_failure"
    m = mats_by_key(report)
    assert len(m) == 365
    failed = sorted(k for k, v in m.items() if v["status"] == "Failed")
    assert failed == bad_days
    for key in bad_days:
        assert f"boom {key}" in m[key]["error"]
        assert all(f"boom {other}" not in m[key]["error"] for other in bad_days if other != key)
        assert m[key]["attempts"] >= 2  # the failing group, then the partition alone
        assert m[key]["transaction_partitions"] == 1
    assert sorted(e["partition"] for e in report["errors"]) == bad_days
    computed = [v for v in m.values() if v["status"] == "Computed"]
    assert len(computed) == 362
    # Grouped: how large the transactions are follows the first week's measured cost per
    # partition (a time budget per transaction, transaction_groups.h, unit-tested there), so a
    # slow machine makes them smaller; that they hold several partitions does not depend on it.
    assert max(v["transaction_partitions"] for v in computed) > 1
    # The splits are reported, each with the error that caused it.
    assert report["bisection"], report["bisection"]
    assert all(s["partitions"] >= 2 and s["code"] for s in report["bisection"])
    state = project.partition_map("fct_daily_orders")
    assert sorted(k for k, p in state.items() if p["status"] == "Failed") == bad_days
    assert sum(1 for p in state.values() if p["status"] == "Computed") == 362
    for key in bad_days:
        assert f"boom {key}" in state[key]["error"]
    good = [d for d in days if d not in bad_days]
    assert project.daily_table() == expected_daily(rows, in_days(*good))
    for key in good:
        assert state[key]["row_count"] == m[key]["row_count"] == 2  # two customers a day
        assert state[key]["checksum"] == m[key]["checksum"]

    # Fixed, --missing runs exactly the three.
    project.set_sql("fct_daily_orders", daily_sql())
    report = project.run("--missing").json
    assert sorted(mats_by_key(report)) == bad_days
    assert project.daily_table() == expected_daily(rows)


def test_each_partition_keeps_its_own_statistics_in_a_grouped_transaction(make_project):
    days = last_days(40)
    rows = order_rows(days)
    # Different row counts per day: one customer on even days, two on odd ones.
    rows = [r for r in rows if not (dt.date.fromisoformat(r[3][:10]).day % 2 == 0 and r[1] == 2)]
    runs = {}
    for batching in ("auto", "off"):
        project = make_project(batching)
        set_batching(project, batching)
        project.create_orders(rows)
        project.add_model("fct_daily_orders", daily_sql(),
                          strategy_toml("day", first_partition=days[0], batch_size=3))
        report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1").json
        runs[batching] = (report, project.partition_map("fct_daily_orders"))
    auto, off = runs["auto"], runs["off"]
    assert {k: (p["row_count"], p["checksum"]) for k, p in auto[1].items()} == \
        {k: (p["row_count"], p["checksum"]) for k, p in off[1].items()}
    assert len({p["row_count"] for p in auto[1].values()}) == 2
    assert max(m["transaction_partitions"] for m in auto[0]["materializations"]) > 3
    # Each partition's duration is its share of its transaction's (by rows): on one worker they
    # add up to no more than the run took.
    assert sum(m["duration_ms"] for m in auto[0]["materializations"]) <= auto[0]["duration_ms"]


FIRST_SEEN_SQL = """\
SELECT DATE_TRUNC('day', order_at) AS order_date, customer_id, COUNT(*) AS order_count,
       SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
  AND customer_id NOT IN (SELECT customer_id FROM fct_daily_orders WHERE order_date < @start_date)
GROUP BY 1, 2
"""


def test_a_model_that_reads_its_own_table_sees_the_batches_before_it(make_project):
    """A "first seen" model reads the days written before its own: grouped, each batch must still
    see them, as it does in a transaction of its own."""
    days = last_days(30)
    rows = [(i * 10 + j, c, "1.50", f"{d} 0{j}:00:00")
            for i, d in enumerate(days) for j, c in enumerate(((i * 3) % 11, (i * 5) % 13))]
    tables = {}
    for batching in ("auto", "off"):
        project = make_project(batching)
        set_batching(project, batching)
        project.create_orders(rows)
        con = duckdb.connect(str(project.warehouse_path))
        con.execute("CREATE SCHEMA marts")
        con.execute("CREATE TABLE marts.fct_daily_orders AS SELECT DATE_TRUNC('day', order_at) AS "
                    "order_date, customer_id, COUNT(*) AS order_count, SUM(amount) AS revenue "
                    "FROM raw.stg_orders WHERE false GROUP BY 1, 2")
        con.close()
        project.add_model("fct_daily_orders", FIRST_SEEN_SQL,
                          strategy_toml("day", first_partition=days[0]))
        report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1").json
        if batching == "auto":
            assert max(m["transaction_partitions"] for m in report["materializations"]) > 1
        tables[batching] = sorted(project.query(
            "SELECT CAST(order_date AS DATE), customer_id FROM marts.fct_daily_orders"))
    assert tables["auto"] == tables["off"]
    customers = [c for _, c in tables["off"]]
    assert len(customers) == len(set(customers)) < 2 * len(days)


WINDOW_DEPENDENT_SQL = {
    # A window function: over one day, the day's orders; over a fused range, the range's.
    "window_total": """\
SELECT DATE_TRUNC('day', order_at) AS order_date, customer_id, COUNT(*) AS order_count,
       SUM(COUNT(*)) OVER () AS window_orders
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY 1, 2
""",
    # The window's start in the SELECT list: each day's own, whatever the transaction.
    "window_start": """\
SELECT order_at AS order_date, order_id, CAST(@start_date AS DATE) AS window_day
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
""",
}
SEPARABLE_SQL = {
    # Row by row, scalar functions only.
    "row_by_row": """\
SELECT order_at AS order_date, order_id, customer_id * 10 + 1 AS code,
       lower(CAST(amount AS VARCHAR)) AS amount_text
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
""",
    # Grouped by the day, with a distinct count and HAVING.
    "daily_customers": """\
SELECT DATE_TRUNC('day', order_at) AS order_date, COUNT(DISTINCT customer_id) AS customers,
       SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY DATE_TRUNC('day', order_at)
HAVING COUNT(*) > 0
""",
    # The same by a cast: not proven (a cast also takes a string), one SELECT per batch.
    "daily_customers_cast": """\
SELECT CAST(order_at AS DATE) AS order_date, COUNT(DISTINCT customer_id) AS customers
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY 1
""",
}


def test_fused_or_not_every_model_gets_what_one_statement_per_day_gives(make_project):
    """Grouped transactions read one SELECT over their range only for models the compiler proves
    window-separable (analysis/window_separable.h); a model whose rows depend on the window keeps
    one SELECT per batch. Either way, every table equals batching = "off"'s, and the window-
    dependent columns hold each day's own values."""
    days = last_days(60)
    rows = order_rows(days, per_day=4)
    models = {**WINDOW_DEPENDENT_SQL, **SEPARABLE_SQL}
    tables, states = {}, {}
    for batching in ("auto", "off"):
        project = make_project(batching)
        set_batching(project, batching)
        project.create_orders(rows)
        for name, sql in models.items():
            project.add_model(name, sql, strategy_toml("day", first_partition=days[0]))
        report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1").json
        assert report["status"] == "success", report["errors"]
        if batching == "auto":
            # Measured after the first transaction, then grouped.
            for name in models:
                assert max(m["transaction_partitions"] for m in report["materializations"]
                           if m["model"] == name) > 8, name
        tables[batching] = {name: sorted(tuple(str(v) for v in r)
                                         for r in project.query(f"SELECT * FROM marts.{name}"))
                            for name in models}
        states[batching] = state_of(project)
    assert tables["auto"] == tables["off"]
    assert states["auto"] == states["off"]
    per_day = {d: sum(1 for r in rows if r[3].startswith(d)) for d in days}
    window_total = tables["auto"]["window_total"]
    assert {(r[0][:10], r[3]) for r in window_total} == {(d, str(n)) for d, n in per_day.items()}
    assert all(r[0][:10] == r[2] for r in tables["auto"]["window_start"])
    assert len(tables["auto"]["row_by_row"]) == len(rows)


def test_a_warehouse_macro_named_like_a_scalar_function_keeps_one_select_per_day(make_project):
    """The proof takes upper(...) for DuckDB's scalar function; a macro of that name in the
    warehouse can hide a window function. A model calling it is not fused: each day's count is
    that day's own, as batching = "off" gives."""
    days = last_days(40)
    rows = order_rows(days, per_day=3)
    sql = SEPARABLE_SQL["row_by_row"].replace("lower(", "upper(")
    tables = {}
    for batching in ("auto", "off"):
        project = make_project(batching)
        set_batching(project, batching)
        project.create_orders(rows)
        project.execute("CREATE MACRO upper(x) AS CAST(count(x) OVER () AS VARCHAR)")
        project.add_model("row_by_row", sql, strategy_toml("day", first_partition=days[0]))
        report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1").json
        assert report["status"] == "success", report["errors"]
        if batching == "auto":
            assert max(m["transaction_partitions"] for m in report["materializations"]) > 8
        tables[batching] = sorted(tuple(str(v) for v in r) for r in project.query(
            "SELECT CAST(order_date AS DATE), order_id, amount_text FROM marts.row_by_row"))
    assert tables["auto"] == tables["off"]
    per_day = {d: sum(1 for r in rows if r[3].startswith(d)) for d in days}
    assert {(r[0], r[2]) for r in tables["auto"]} == {(d, str(n)) for d, n in per_day.items()}


def test_apply_reads_the_tables_its_plan_read_even_when_fusing_could_read_others(project):
    """A plan fingerprints its own models only. Applied after a model it reads was moved to
    another table, each batch's planned SELECT still reads the old one; a fused SELECT compiled
    at apply time would read the new one, so the run fuses only when the project compiles the
    plan's statements unchanged (materialize/runner.cc, MayFuse)."""
    days = last_days(40)
    rows = order_rows(days, per_day=2)
    set_batching(project, "auto")
    project.create_orders(rows)
    project.add_model("orders", "SELECT * FROM stg_orders\n")
    project.add_model("fct_daily_orders", daily_sql().replace("FROM stg_orders", "FROM orders"),
                      strategy_toml("day", first_partition=days[0]),
                      depends_on=["orders"], sources=())
    first = project.run("--from", days[0], "--to", days[-1], "--parallel", "1")
    assert first.json["status"] == "success", first.json["errors"]
    before = tables_of_fct(project)
    plan = project.strata("plan", "--model", "fct_daily_orders", "--from", days[0],
                          "--to", days[-1], "--parallel", "1")
    assert plan.returncode == 0, repr(plan)
    # The upstream model now writes elsewhere, and that table holds other amounts.
    project.add_model("orders", "SELECT * FROM stg_orders\n", None, target=("marts", "orders_v2"))
    project.execute("CREATE TABLE marts.orders_v2 AS SELECT order_id, customer_id, amount * 2 AS "
                    "amount, order_at FROM raw.stg_orders")
    applied = project.strata("apply", plan.json["plan_id"])
    assert applied.returncode == 0, repr(applied)
    assert max(m["transaction_partitions"] for m in applied.json["materializations"]) > 1
    assert tables_of_fct(project) == before


def tables_of_fct(project):
    return sorted(tuple(str(v) for v in r) for r in project.query(
        "SELECT CAST(order_date AS DATE), customer_id, order_count, revenue "
        "FROM marts.fct_daily_orders"))


def test_the_output_guard_checks_every_partition_of_a_grouped_transaction(project):
    days = last_days(30)
    rows = order_rows(days)
    set_batching(project, "auto")
    project.create_orders(rows)
    # Shifts the rows of one day (the 10th) into the day before, which the same transaction
    # wrote just before: the transaction's total is right, only the per-batch check sees it.
    sql = daily_sql().replace(
        "DATE_TRUNC('day', order_at) AS order_date",
        f"CASE WHEN CAST(order_at AS DATE) = DATE '{days[9]}' THEN DATE_TRUNC('day', order_at) "
        "- INTERVAL 1 DAY ELSE DATE_TRUNC('day', order_at) END AS order_date")
    project.add_model("fct_daily_orders", sql, strategy_toml("day", first_partition=days[0]))
    report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1", expect=2).json
    m = mats_by_key(report)
    assert sorted(k for k, v in m.items() if v["status"] == "Failed") == [days[9]]
    assert m[days[8]]["status"] == "Computed" and m[days[8]]["row_count"] == 2
    assert "outside the window" in m[days[9]]["error"]
    # The guard runs per batch, so it names the batch that wrote outside its window: one split,
    # around that day, not a search through halves.
    assert len(report["bisection"]) == 1, report["bisection"]
    split = report["bisection"][0]
    assert split["code"] == "OutputOutsideWindow" and split["partitions"] > 2
    assert f"[{days[9]} 00:00:00" in split["message"], split["message"]
    good = [d for d in days if d != days[9]]
    assert project.daily_table() == expected_daily(rows, in_days(*good))


# Macros named like the built-ins strata's own statements call: DuckDB resolves a macro of the
# current schema before its built-ins, so each would switch the output guard off or change a
# partition's row count, checksum or key if strata called the unqualified name.
SHADOWING_MACROS = (
    "CREATE MACRO error(x) AS NULL",
    "CREATE MACRO hash(a, b, c, d) AS 42",
    "CREATE MACRO count_star() AS 7",
    "CREATE MACRO sum(x) AS 0",
    "CREATE MACRO date_diff(u, a, b) AS 0",
    "CREATE MACRO date_trunc(u, x) AS x",
    "CREATE MACRO strftime(x, f) AS 'zz'",
    "CREATE MACRO current_database() AS 'elsewhere'",
)


def test_warehouse_macros_named_like_built_ins_change_no_guard_count_or_checksum(make_project):
    """The same run with and without SHADOWING_MACROS in the warehouse: the guard still fails the
    day written outside its window, and every partition keeps its row count and checksum."""
    days = last_days(30)
    rows = order_rows(days)
    sql = ("SELECT CASE WHEN CAST(order_at AS DATE) = DATE '" + days[9] + "' "
           "THEN order_at - INTERVAL 1 DAY ELSE order_at END AS order_date,\n"
           "       order_id, customer_id, amount\nFROM stg_orders\n"
           "WHERE order_at >= @start_date AND order_at < @end_date\n")
    outcomes, tables = {}, {}
    for variant in ("plain", "macros"):
        project = make_project(variant)
        set_batching(project, "auto")
        project.create_orders(rows)
        if variant == "macros":
            project.execute(*SHADOWING_MACROS)
        project.add_model("fct_orders", sql, strategy_toml("day", first_partition=days[0]))
        report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1",
                             expect=2).json
        m = mats_by_key(report, "fct_orders")
        assert sorted(k for k, v in m.items() if v["status"] == "Failed") == [days[9]], variant
        assert "outside the window" in m[days[9]]["error"]
        assert max(v["transaction_partitions"] for v in m.values()) > 8
        outcomes[variant] = state_of(project)
        tables[variant] = sorted(tuple(str(v) for v in r) for r in project.query(
            "SELECT CAST(order_date AS VARCHAR), order_id FROM marts.fct_orders"))
    assert outcomes["macros"] == outcomes["plain"]
    assert tables["macros"] == tables["plain"]
    assert len(tables["plain"]) == sum(1 for r in rows if not r[3].startswith(days[9]))


def test_a_downstream_partition_runs_when_its_upstream_partition_committed_in_a_group(project):
    days = last_days(24)
    rows = order_rows(days)
    bad = days[5]
    set_batching(project, "auto")
    project.create_orders(rows)
    project.add_model("fct_daily_orders", daily_sql([bad]),
                      strategy_toml("day", first_partition=days[0]))
    project.add_model("daily_rollup", ROLLUP_SQL, strategy_toml("day", first_partition=days[0]),
                      depends_on=["fct_daily_orders"], sources=())
    report = project.run("--from", days[0], "--to", days[-1], "--parallel", "1", expect=2).json
    up = mats_by_key(report, "fct_daily_orders")
    down = mats_by_key(report, "daily_rollup")
    assert up[bad]["status"] == "Failed"
    assert down[bad]["status"] == "Skipped" and "upstream" in down[bad]["error"]
    assert all(v["status"] == "Computed" for k, v in down.items() if k != bad)
    assert all(v["status"] == "Computed" for k, v in up.items() if k != bad)


KILL_TRIALS = 20
KILL_SEED = 20261203


@pytest.mark.slow
def test_kill_9_during_a_large_transaction_leaves_nothing_partial(make_project):
    days = last_days(48)
    rows = order_rows(days)

    def make(label):
        project = make_project(label)
        set_batching(project, "auto")
        project.create_orders(rows)
        project.add_model("fct_daily_orders", daily_sql(slow_rows=300_000),
                          strategy_toml("day", first_partition=days[0]))
        return project

    clean = make("clean")
    started = time.monotonic()
    report = clean.run("--missing", timeout=180).json
    duration = time.monotonic() - started
    assert report["status"] == "success"
    assert max(m["transaction_partitions"] for m in report["materializations"]) > 4
    clean_rows = clean.daily_table()
    clean_state = {k: (p["status"], p["row_count"], p["checksum"])
                   for k, p in clean.partition_map().items()}

    rng = random.Random(KILL_SEED)
    kills = attempts = in_flight = 0
    horizon = duration
    while kills < KILL_TRIALS:
        attempts += 1
        assert attempts <= 5 * KILL_TRIALS, "the runs keep finishing before the kill"
        delay = rng.uniform(0.0, horizon)
        project = make(f"k{attempts}")
        assert project.partitions() == []
        process = project.popen("run", "--missing")
        time.sleep(delay)
        stop(process, signal.SIGKILL)
        where = f"trial {attempts} (seed {KILL_SEED}, kill after {delay:.3f}s)"
        if process.returncode != -signal.SIGKILL:
            assert process.returncode == 0, where
            horizon *= 0.8
            continue
        kills += 1
        # Nothing partial: each day is all there, or not at all; and a Computed day is there.
        table = project.daily_table() if project.table_exists("marts", "fct_daily_orders") else {}
        present = {d for d, _ in table}
        for (d, customer), value in table.items():
            assert clean_rows[(d, customer)] == value, where
        for d in present:
            assert {k for k in clean_rows if k[0] == d} <= set(table), f"{where}: {d} is partial"
        for key, p in project.partition_map().items():
            if p["status"] == "Computed":
                assert dt.date.fromisoformat(key) in present, where
            in_flight += p["status"] == "InProgress"
        report = project.run("--missing", timeout=180).json
        assert report["status"] == "success", where
        assert project.daily_table() == clean_rows, where
        assert {k: (p["status"], p["row_count"], p["checksum"])
                for k, p in project.partition_map().items()} == clean_state, where
    print(f"\nclean run {duration:.2f}s; {kills} kills in {attempts} attempts; "
          f"{in_flight} partitions InProgress at the kill")
    assert in_flight > 0, "no kill landed inside a transaction"


def test_postgres_groups_partitions_and_isolates_failures_the_same_way(make_project, pg_server):
    """The same grouping and bisection on PostgreSQL, compared with batching = "off" there."""
    days = last_days(60)
    rows = order_rows(days)
    bad_days = [days[9], days[40]]
    # A per-day cast failure both dialects raise, naming the day.
    listed = ", ".join(f"DATE '{d}'" for d in bad_days)
    sql = daily_sql().replace(
        "    SUM(amount) AS revenue",
        "    SUM(amount * CAST(CASE WHEN CAST(order_at AS DATE) IN (" + listed + ")\n"
        "        THEN 'boom ' || CAST(CAST(order_at AS DATE) AS VARCHAR) ELSE '1' END AS INTEGER))"
        " AS revenue")
    results = {}
    for batching in ("auto", "off"):
        project = make_project(f"pg_{batching}")
        database = pg_server.create_database("batching")
        project.write("strata.toml", "[project]\nname = \"pg_batching\"\n\n[warehouse]\n"
                      f"type = \"postgres\"\ndsn = \"{database.dsn}\"\n")
        set_batching(project, batching)
        values = ", ".join(f"({r[0]}, {r[1]}, {r[2]}, TIMESTAMP '{r[3]}')" for r in rows)
        database.execute("CREATE SCHEMA raw",
                         "CREATE TABLE raw.stg_orders (order_id integer, customer_id integer, "
                         "amount numeric(12, 2), order_at timestamp)",
                         f"INSERT INTO raw.stg_orders VALUES {values}")
        project.add_model("fct_daily_orders", sql, strategy_toml("day", first_partition=days[0]),
                          catalog=None)
        report = project.run("--missing", "--parallel", "1", expect=2).json
        table = sorted(tuple(str(v) for v in r) for r in database.query(
            "SELECT CAST(order_date AS date), customer_id, order_count, revenue "
            "FROM marts.fct_daily_orders"))
        results[batching] = (report, state_of(project), table)
    auto, off = results["auto"], results["off"]
    m = mats_by_key(auto[0])
    assert sorted(k for k, v in m.items() if v["status"] == "Failed") == bad_days
    for key in bad_days:
        assert f"boom {key}" in m[key]["error"]
    assert max(v["transaction_partitions"] for v in m.values()) > 1
    assert auto[0]["bisection"]
    assert auto[1] == off[1], "partition states differ between auto and off"
    assert auto[2] == off[2], "tables differ between auto and off"
    assert len(auto[2]) == 2 * (len(days) - len(bad_days))
