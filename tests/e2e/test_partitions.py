"""Partition windows, idempotence, backfills, late data, batching and grains."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

from conftest import (DAILY_SQL, expected_daily, in_days, mats_by_key, strategy_toml)

PASS_THROUGH_SQL = """\
SELECT order_id, customer_id, amount, order_at
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
"""

ORDERS = [
    # order_id, customer_id, amount, order_at
    (1, 10, "5.00", "2026-04-05 23:59:59"),
    (2, 10, "7.25", "2026-04-06 00:00:00"),
    (3, 11, "1.50", "2026-04-06 08:30:00"),
    (4, 10, "2.00", "2026-04-06 23:59:59.999999"),
    (5, 12, "9.99", "2026-04-07 00:00:00"),
    (6, 11, "3.00", "2026-04-07 12:00:00"),
    (7, 12, "4.00", "2026-04-08 00:00:00"),
    (8, 10, "6.00", "2026-04-08 18:00:00"),
    (9, 13, "8.00", "2026-04-09 00:00:00"),
    (10, 13, "1.00", "2026-04-10 10:00:00"),
]


def daily_project(project, rows=ORDERS, **strategy):
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day", **strategy),
                      depends_on=())
    return project


def test_single_partition_writes_only_its_window_half_open(project):
    project.create_orders(ORDERS)
    project.add_model("orders_by_day", PASS_THROUGH_SQL,
                      strategy_toml("day", time_column="order_at"))
    report = project.run("--partition", "2026-04-06").json
    assert report["status"] == "success"
    ids = sorted(r[0] for r in project.query("SELECT order_id FROM marts.orders_by_day"))
    # 00:00:00 of the day is in; 00:00:00 of the next day (@end_date) is out; the previous day's
    # last second is out.
    assert ids == [2, 3, 4]
    m = mats_by_key(report)
    assert list(m) == ["2026-04-06"]
    assert m["2026-04-06"]["row_count"] == 3
    assert m["2026-04-06"]["partition"]["start"] == "2026-04-06T00:00:00Z"
    assert m["2026-04-06"]["partition"]["end"] == "2026-04-07T00:00:00Z"

    # The next day gets the row at exactly its @start_date and nothing from 04-06.
    project.run("--partition", "2026-04-07")
    rows = project.query("SELECT order_id, order_at FROM marts.orders_by_day ORDER BY order_id")
    assert [r[0] for r in rows] == [2, 3, 4, 5, 6]
    state = project.partition_map("orders_by_day")
    assert set(state) == {"2026-04-06", "2026-04-07"}
    assert state["2026-04-07"]["row_count"] == 2


def test_rerun_same_partition_is_idempotent(project):
    daily_project(project)
    first = project.run("--from", "2026-04-06", "--to", "2026-04-08").json
    state_first = project.partition_map("fct_daily_orders")
    table_first = project.daily_table()
    second = project.run("--from", "2026-04-06", "--to", "2026-04-08").json
    state_second = project.partition_map("fct_daily_orders")

    m1, m2 = mats_by_key(first), mats_by_key(second)
    assert set(m1) == set(m2) == {"2026-04-06", "2026-04-07", "2026-04-08"}
    for key in m1:
        assert m1[key]["row_count"] == m2[key]["row_count"]
        assert m1[key]["checksum"] == m2[key]["checksum"] and m1[key]["checksum"] is not None
        assert state_first[key]["row_count"] == state_second[key]["row_count"] == m2[key]["row_count"]
        assert state_first[key]["checksum"] == state_second[key]["checksum"] == m2[key]["checksum"]
        assert state_second[key]["status"] == "Computed"
        assert state_second[key]["run_id"] == second["run_id"] != first["run_id"]
    # No duplicates: daily_table() asserts one row per (day, customer); it equals the inputs.
    assert project.daily_table() == table_first == expected_daily(
        ORDERS, in_days("2026-04-06", "2026-04-07", "2026-04-08"))
    total = project.query("SELECT count(*) FROM marts.fct_daily_orders")[0][0]
    assert total == sum(m["row_count"] for m in m2.values())


def test_backfill_json_shape_matches_seed(project):
    daily_project(project)
    result = project.run("--from", "2026-04-06", "--to", "2026-04-09", "--parallel", "1")
    report = result.json
    assert report["status"] == "success"
    assert isinstance(report["run_id"], str) and report["run_id"]
    assert report["errors"] == []
    keys = [m["partition"]["key"] for m in report["materializations"]]
    assert keys == ["2026-04-06", "2026-04-07", "2026-04-08", "2026-04-09"], "a backfill walks in order"
    for m in report["materializations"]:
        assert m["asset_key"] == ["warehouse", "marts", "fct_daily_orders"]
        assert isinstance(m["duration_ms"], int) and m["duration_ms"] >= 0
        assert m["metadata"] == {"strategy": "time_interval", "watermark": None}
        key = m["partition"]["key"]
        start = dt.date.fromisoformat(key)
        end = start + dt.timedelta(days=1)
        assert m["partition"] == {"key": key, "start": f"{start}T00:00:00Z",
                                  "end": f"{end}T00:00:00Z", "batched_with": []}
        assert isinstance(m["row_count"], int)
        assert isinstance(m["checksum"], str)
    summaries = report["partition_summaries"]
    assert len(summaries) == 1
    s = summaries[0]
    assert {k: s[k] for k in ("model", "partitions_planned", "partitions_succeeded",
                              "partitions_failed")} == {
        "model": "fct_daily_orders", "partitions_planned": 4, "partitions_succeeded": 4,
        "partitions_failed": 0}
    assert project.daily_table() == expected_daily(
        ORDERS, in_days("2026-04-06", "2026-04-07", "2026-04-08", "2026-04-09"))
    # row counts per key agree with the inputs
    expected = expected_daily(ORDERS)
    for m in report["materializations"]:
        d = dt.date.fromisoformat(m["partition"]["key"])
        assert m["row_count"] == sum(1 for (day, _c) in expected if day == d)


def test_late_row_and_lookback(project):
    daily_project(project, lookback=5)
    project.run("--from", "2026-04-06", "--to", "2026-04-08", "--lookback", "0")
    before = project.partition_map("fct_daily_orders")

    # A late row lands in the already computed 2026-04-06 for a new customer.
    late = [(100, 99, "50.00", "2026-04-06 10:00:00")]
    project.insert_orders(late)
    report = project.run("--partition", "2026-04-06", "--lookback", "0").json
    assert list(mats_by_key(report)) == ["2026-04-06"], "CLI --lookback 0 beats TOML lookback = 5"
    m = mats_by_key(report)["2026-04-06"]
    assert m["row_count"] == before["2026-04-06"]["row_count"] + 1
    assert m["checksum"] != before["2026-04-06"]["checksum"]
    all_rows = ORDERS + late
    assert project.daily_table() == expected_daily(
        all_rows, in_days("2026-04-06", "2026-04-07", "2026-04-08"))

    # Another late row for an existing customer of 04-06; --partition 04-08 --lookback 2 redoes 04-06.
    late2 = [(101, 10, "0.75", "2026-04-06 11:00:00")]
    project.insert_orders(late2)
    all_rows += late2
    report = project.run("--partition", "2026-04-08", "--lookback", "2").json
    assert sorted(mats_by_key(report)) == ["2026-04-06", "2026-04-07", "2026-04-08"]
    assert project.daily_table() == expected_daily(
        all_rows, in_days("2026-04-06", "2026-04-07", "2026-04-08"))

    # Without --lookback the TOML lookback (5) applies.
    report = project.run("--partition", "2026-04-08").json
    assert sorted(mats_by_key(report)) == [f"2026-04-0{d}" for d in range(3, 9)]


def test_batch_size_three_batches_and_gaps(project):
    today = dt.datetime.now(dt.timezone.utc).date()
    days = [today - dt.timedelta(days=i) for i in range(8, -1, -1)]  # 9 days ending today
    rows = []
    for i, d in enumerate(days):
        rows.append((i * 2 + 1, 1, "1.00", f"{d} 01:00:00"))
        rows.append((i * 2 + 2, 2, "2.00", f"{d} 13:00:00"))
    daily_project(project, rows, batch_size=3, first_partition=str(days[0]))

    keys = [str(d) for d in days]
    report = project.run("--from", keys[0], "--to", keys[6]).json
    m = mats_by_key(report)
    assert sorted(m) == keys[:7]
    assert sorted(m[keys[0]]["partition"]["batched_with"]) == [keys[1], keys[2]]
    assert sorted(m[keys[1]]["partition"]["batched_with"]) == [keys[0], keys[2]]
    assert sorted(m[keys[4]]["partition"]["batched_with"]) == [keys[3], keys[5]]
    assert m[keys[6]]["partition"]["batched_with"] == []
    for key in keys[:7]:
        assert m[key]["row_count"] == 2
        assert isinstance(m[key]["checksum"], str)
        # each key's own window, not the batch's
        assert m[key]["partition"]["start"] == f"{key}T00:00:00Z"
    state = project.partition_map("fct_daily_orders")
    assert all(state[k]["status"] == "Computed" and state[k]["row_count"] == 2 for k in keys[:7])

    # Make a gap: forget days[1] and days[2] (delete their state by failing them is awkward), so
    # instead use --missing on a fresh model with one computed key in the middle.
    project.add_model("fct_daily_b", DAILY_SQL,
                      strategy_toml("day", batch_size=3, first_partition=keys[0]),
                      target=("marts", "fct_daily_b"))
    project.run("--model", "fct_daily_b", "--partition", keys[2])
    report = project.run("--model", "fct_daily_b", "--missing").json
    m = mats_by_key(report, "fct_daily_b")
    # missing = keys[0], keys[1], keys[3..8]; the gap at keys[2] starts a new batch.
    assert sorted(m) == [keys[0], keys[1]] + keys[3:]
    assert sorted(m[keys[0]]["partition"]["batched_with"]) == [keys[1]]
    assert sorted(m[keys[1]]["partition"]["batched_with"]) == [keys[0]]
    assert sorted(m[keys[3]]["partition"]["batched_with"]) == [keys[4], keys[5]]
    assert sorted(m[keys[6]]["partition"]["batched_with"]) == [keys[7], keys[8]]
    for key in m:
        assert m[key]["row_count"] == 2 and isinstance(m[key]["checksum"], str)
    got = project.daily_table("marts.fct_daily_b")
    assert got == expected_daily(rows)


HOURLY_SQL = """\
SELECT DATE_TRUNC('hour', order_at) AS order_hour, COUNT(*) AS order_count, SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY 1
"""

MONTHLY_SQL = """\
SELECT DATE_TRUNC('month', order_at) AS order_month, COUNT(*) AS order_count, SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY 1
"""

YEARLY_SQL = """\
SELECT DATE_TRUNC('year', order_at) AS order_year, COUNT(*) AS order_count
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY 1
"""


def test_hourly_monthly_yearly_windows(project):
    rows = [
        (1, 1, "1.00", "2026-04-07 22:59:59.999999"),
        (2, 1, "2.00", "2026-04-07 23:00:00"),
        (3, 1, "3.00", "2026-04-07 23:59:59"),
        (4, 1, "4.00", "2026-04-08 00:00:00"),
        (5, 1, "5.00", "2026-04-08 01:00:00"),  # the end of --to 2026-04-08T00: out
        (10, 1, "10.00", "2024-01-31 23:59:59"),
        (11, 1, "11.00", "2024-02-01 00:00:00"),
        (12, 1, "12.00", "2024-02-29 00:00:00"),
        (13, 1, "13.00", "2024-02-29 23:59:59"),
        (14, 1, "14.00", "2024-03-01 00:00:00"),
        (15, 1, "15.00", "2024-12-31 23:59:59"),
        (16, 1, "16.00", "2025-01-01 00:00:00"),
    ]
    project.create_orders(rows)
    project.add_model("fct_hourly", HOURLY_SQL, strategy_toml("hour", time_column="order_hour"))
    project.add_model("fct_monthly", MONTHLY_SQL, strategy_toml("month", time_column="order_month"))
    project.add_model("fct_yearly", YEARLY_SQL, strategy_toml("year", time_column="order_year"))

    report = project.run("--model", "fct_hourly", "--from", "2026-04-07T23", "--to",
                         "2026-04-08T00").json
    m = mats_by_key(report)
    assert sorted(m) == ["2026-04-07T23", "2026-04-08T00"]
    assert m["2026-04-07T23"]["partition"]["start"] == "2026-04-07T23:00:00Z"
    assert m["2026-04-07T23"]["partition"]["end"] == "2026-04-08T00:00:00Z"
    assert m["2026-04-08T00"]["partition"]["end"] == "2026-04-08T01:00:00Z"
    got = {(h, c, r) for h, c, r in project.query(
        "SELECT CAST(order_hour AS VARCHAR), order_count, revenue FROM marts.fct_hourly")}
    assert got == {("2026-04-07 23:00:00", 2, Decimal("5.00")),
                   ("2026-04-08 00:00:00", 1, Decimal("4.00"))}

    report = project.run("--model", "fct_hourly", "--partition", "2026-04-07T13").json
    m = mats_by_key(report)["2026-04-07T13"]
    assert (m["partition"]["start"], m["partition"]["end"]) == ("2026-04-07T13:00:00Z",
                                                                "2026-04-07T14:00:00Z")
    assert m["row_count"] == 0

    report = project.run("--model", "fct_monthly", "--from", "2024-01", "--to", "2024-03").json
    m = mats_by_key(report)
    assert sorted(m) == ["2024-01", "2024-02", "2024-03"]
    assert (m["2024-02"]["partition"]["start"], m["2024-02"]["partition"]["end"]) == (
        "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z")
    assert m["2024-01"]["partition"]["end"] == "2024-02-01T00:00:00Z"
    assert m["2024-03"]["partition"]["end"] == "2024-04-01T00:00:00Z"
    got = {(mo, c, r) for mo, c, r in project.query(
        "SELECT strftime(order_month, '%Y-%m'), order_count, revenue FROM marts.fct_monthly")}
    assert got == {("2024-01", 1, Decimal("10.00")), ("2024-02", 3, Decimal("36.00")),
                   ("2024-03", 1, Decimal("14.00"))}

    report = project.run("--model", "fct_monthly", "--partition", "2024-12").json
    m = mats_by_key(report)["2024-12"]
    assert (m["partition"]["start"], m["partition"]["end"]) == ("2024-12-01T00:00:00Z",
                                                                "2025-01-01T00:00:00Z")
    assert m["row_count"] == 1

    report = project.run("--model", "fct_yearly", "--partition", "2024").json
    m = mats_by_key(report)["2024"]
    assert (m["partition"]["start"], m["partition"]["end"]) == ("2024-01-01T00:00:00Z",
                                                                "2025-01-01T00:00:00Z")
    in_2024 = sum(1 for r in rows if r[3].startswith("2024-"))
    assert project.query("SELECT order_count FROM marts.fct_yearly") == [(in_2024,)]

    # A daily model accepts the leap day 2024-02-29 and its window ends on 03-01.
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    report = project.run("--model", "fct_daily_orders", "--partition", "2024-02-29").json
    m = mats_by_key(report)["2024-02-29"]
    assert m["partition"]["end"] == "2024-03-01T00:00:00Z"
    assert project.daily_table() == expected_daily(rows, in_days("2024-02-29"))


def test_parallel_1_and_4_give_identical_checksums(make_project):
    rows = []
    oid = 0
    for d in range(1, 13):
        for h in (0, 5, 11, 23):
            for c in range(3):
                oid += 1
                rows.append((oid, c + h % 2, f"{oid}.{c}0", f"2026-03-{d:02d} {h:02d}:{c * 7:02d}:00"))
    results = {}
    for parallel in ("1", "4"):
        p = make_project(f"p{parallel}")
        daily_project(p, rows, batch_size=1)
        report = p.run("--from", "2026-03-01", "--to", "2026-03-12", "--parallel", parallel).json
        assert report["status"] == "success"
        results[parallel] = {k: (m["row_count"], m["checksum"]) for k, m in mats_by_key(report).items()}
        state = {k: (r["row_count"], r["checksum"]) for k, r in p.partition_map().items()}
        assert state == results[parallel]
        assert p.daily_table() == expected_daily(rows)
    assert len(results["1"]) == 12
    assert results["1"] == results["4"]


def test_default_selection_is_latest_and_microbatch_defaults_to_hour(project):
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    rows = [(1, 1, "1.00", now.strftime("%Y-%m-%d 00:00:00")),
            (2, 1, "2.00", "2026-04-07 13:00:00"), (3, 1, "3.00", "2026-04-07 14:00:00")]
    project.create_orders(rows)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    # microbatch = time_interval with granularity hour by default; quoted placeholders work too,
    # while a placeholder in a comment or inside a longer string literal is left alone.
    project.add_model("mb", "-- window: @start_date .. @end_date\n"
                      "SELECT order_id, order_at, 'x@start_date' AS note FROM stg_orders\n"
                      "WHERE order_at >= '@start_date' AND order_at < '@end_date';\n",
                      '[strategy]\ntype = "microbatch"\ntime_column = "order_at"\n')
    before = dt.datetime.now(dt.timezone.utc)
    report = project.run().json
    after = dt.datetime.now(dt.timezone.utc)
    daily = mats_by_key(report, "fct_daily_orders")
    assert list(daily) in ([before.strftime("%Y-%m-%d")], [after.strftime("%Y-%m-%d")])
    assert list(daily.values())[0]["row_count"] == (1 if list(daily)[0] == now.strftime("%Y-%m-%d") else 0)
    hourly = mats_by_key(report, "mb")
    assert list(hourly) in ([before.strftime("%Y-%m-%dT%H")], [after.strftime("%Y-%m-%dT%H")])

    report = project.run("--model", "mb", "--partition", "2026-04-07T13").json
    assert mats_by_key(report)["2026-04-07T13"]["row_count"] == 1
    got = project.query("SELECT order_id, note FROM marts.mb WHERE order_at < TIMESTAMP '2026-05-01'")
    assert got == [(2, "x@start_date")]


def test_batched_statistics_equal_per_partition_ones(make_project):
    """batch_size = 4 reads each batch's row counts and checksums in one grouped scan
    (Emitter::WindowStatsByKey); they equal batch_size = 1's one query per partition, for days
    with rows, an empty day and a batch cut short by the range."""
    days = ["2026-04-01", "2026-04-02", "2026-04-04", "2026-04-05", "2026-04-06", "2026-04-08"]
    rows = []
    for n, day in enumerate(days):
        for i in range(n + 2):
            rows.append((len(rows) + 1, 1 + i % 3, f"{len(rows) + 1}.75", f"{day} {i:02d}:15:00"))
    results = {}
    for batch_size in (1, 4):
        project = make_project(f"b{batch_size}")
        project.create_orders(rows)
        project.add_model("fct_daily_orders", DAILY_SQL,
                          strategy_toml("day", batch_size=batch_size))
        report = project.run("--from", "2026-04-01", "--to", "2026-04-08").json
        assert report["status"] == "success", report["errors"]
        results[batch_size] = {k: (m["row_count"], m["checksum"])
                               for k, m in mats_by_key(report).items()}
        state = project.partition_map("fct_daily_orders")
        assert {k: (s["row_count"], s["checksum"]) for k, s in state.items()} == \
            results[batch_size]
    assert len(results[1]) == 8 and results[1]["2026-04-03"][0] == 0
    assert results[4] == results[1]


def test_partitions_model_and_filter_select_rows_and_apply_refuses_a_selection(project):
    project.create_orders(ORDERS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"),
                      extra='labels = { team = "red" }\n')
    project.add_model("orders_by_day", PASS_THROUGH_SQL,
                      strategy_toml("day", time_column="order_at"),
                      extra='labels = { team = "blue" }\n')
    project.run("--from", "2026-04-06", "--to", "2026-04-07")

    def models_of(*args):
        result = project.strata("partitions", *args)
        assert result.returncode == 0, repr(result)
        return sorted({p["model"] for p in result.json["partitions"]})
    assert models_of() == ["fct_daily_orders", "orders_by_day"]
    assert models_of("--model", "orders_by_day") == ["orders_by_day"]
    assert models_of("orders_by_day") == ["orders_by_day"]
    assert models_of("--filter", "team=red") == ["fct_daily_orders"]
    assert models_of("--model", "orders_by_day", "--model", "fct_daily_orders") == [
        "fct_daily_orders", "orders_by_day"]
    unknown = project.strata("partitions", "--model", "nope")
    assert unknown.returncode == 1 and unknown.json["errors"][0]["code"] == "ModelNotFound"

    # apply runs exactly its plan: a model selection there is refused, not ignored
    plan_id = project.strata("plan", "--partition", "2026-04-08").json["plan_id"]
    refused = project.strata("apply", plan_id, "--model", "orders_by_day")
    assert refused.returncode == 1, repr(refused)
    assert "--model" in refused.stdout + refused.stderr, repr(refused)
    assert "2026-04-08" not in {p["partition_key"] for p in
                                project.strata("partitions").json["partitions"]}
