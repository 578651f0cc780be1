"""time_interval and full_refresh models on a real PostgreSQL server, through the strata binary.

The server is started once per session by scripts/pg_test_server.sh (pg_server.py); every test
gets its own database, named in the environment variable the project's `dsn_env` points at. The
tests skip only when the PostgreSQL server binaries are not installed.
"""
from __future__ import annotations

import datetime as dt
import textwrap
from decimal import Decimal

import pytest

from conftest import DAILY_SQL, expected_daily, in_days, mats_by_key, strategy_toml

DSN_ENV = "STRATA_E2E_PG_DSN"
DAYS = ["2026-04-03", "2026-04-04", "2026-04-05", "2026-04-06", "2026-04-07"]

STAGING_SQL = "SELECT order_id, customer_id, amount, order_at FROM orders\n"


@pytest.fixture
def pg(pg_server, project, monkeypatch):
    """(project, database): a project whose default warehouse is a fresh PostgreSQL database."""
    database = pg_server.create_database()
    monkeypatch.setenv(DSN_ENV, database.dsn)
    project.write("strata.toml", pg_project_toml())
    return project, database


def pg_project_toml(extra: str = "") -> str:
    """The e2e project's strata.toml on the PostgreSQL database named by DSN_ENV, then `extra`."""
    return textwrap.dedent(f"""\
        [project]
        name = "e2e_pg"

        [warehouse]
        type = "postgres"
        dsn_env = "{DSN_ENV}"
        """) + extra


def order_rows(days, per_day=4, start_id=1, scale=1):
    rows, order_id = [], start_id
    for d in days:
        for i in range(per_day):
            rows.append((order_id, 1 + i % 3, f"{order_id * scale}.25", f"{d} {i * 3:02d}:30:00"))
            order_id += 1
    return rows


def load_orders(database, rows, create=True):
    statements = []
    if create:
        statements += ["CREATE SCHEMA IF NOT EXISTS raw",
                       "DROP TABLE IF EXISTS raw.orders",
                       "CREATE TABLE raw.orders (order_id integer, customer_id integer, "
                       "amount numeric(12, 2), order_at timestamp)"]
    if rows:
        values = ", ".join(f"({r[0]}, {r[1]}, {r[2]}, TIMESTAMP '{r[3]}')" for r in rows)
        statements.append(f"INSERT INTO raw.orders VALUES {values}")
    database.execute(*statements)


def add_models(project, daily_sql=DAILY_SQL):
    project.add_model("stg_orders", STAGING_SQL, sources=(("raw", "orders"),),
                      target=("staging", "stg_orders"), catalog=None)
    project.add_model("fct_daily_orders", daily_sql,
                      strategy_toml("day", first_partition=DAYS[0]), depends_on=["stg_orders"],
                      sources=(), catalog=None)


def daily_table(database) -> dict:
    rows = database.query("SELECT CAST(order_date AS date), customer_id, order_count, revenue "
                          "FROM marts.fct_daily_orders")
    out = {}
    for d, customer, count, revenue in rows:
        key = (dt.date.fromisoformat(d), int(customer))
        assert key not in out, f"duplicate row for {key}"
        out[key] = (int(count), Decimal(revenue))
    return out


def checksums(report, model="fct_daily_orders") -> dict:
    return {k: (m["row_count"], m["checksum"]) for k, m in mats_by_key(report, model).items()}


def test_backfill_and_full_refresh_on_postgres_are_idempotent(pg):
    project, database = pg
    rows = order_rows(DAYS)
    load_orders(database, rows)
    add_models(project)

    first = project.run("--from", DAYS[0], "--to", DAYS[-1]).json
    assert first["status"] == "success", first["errors"]
    summaries = {s["model"]: s for s in first["partition_summaries"]}
    assert summaries["stg_orders"]["partitions_succeeded"] == 1
    daily = summaries["fct_daily_orders"]
    assert (daily["partitions_planned"], daily["partitions_succeeded"]) == (5, 5)
    assert database.scalar("SELECT count(*) FROM staging.stg_orders") == str(len(rows))
    staging = [m for m in first["materializations"] if m["model"] == "stg_orders"]
    assert staging[0]["status"] == "Computed" and staging[0]["row_count"] == len(rows)

    assert daily_table(database) == expected_daily(rows)
    first_sums = checksums(first)
    assert set(first_sums) == set(DAYS)
    for key, (row_count, checksum) in first_sums.items():
        assert row_count == len(expected_daily(rows, in_days(key)))
        assert isinstance(checksum, str) and checksum
    state = project.partition_map("fct_daily_orders")
    assert all(state[k]["status"] == "Computed" for k in DAYS)

    # Re-running the same window rewrites every partition to the same rows: no duplicates.
    second = project.run("--from", DAYS[0], "--to", DAYS[-1]).json
    assert second["status"] == "success", second["errors"]
    assert checksums(second) == first_sums
    assert daily_table(database) == expected_daily(rows)
    assert database.scalar("SELECT count(*) FROM staging.stg_orders") == str(len(rows))
    state_again = project.partition_map("fct_daily_orders")
    assert {k: state_again[k]["checksum"] for k in DAYS} == {k: v[1] for k, v in first_sums.items()}

    # Changed data in one day changes exactly that day's checksum.
    load_orders(database, [(1000, 1, "5.00", f"{DAYS[2]} 12:00:00")], create=False)
    third = project.run("--from", DAYS[0], "--to", DAYS[-1]).json
    changed = {k for k, v in checksums(third).items() if v != first_sums[k]}
    assert changed == {DAYS[2]}


def test_parallel_runs_use_several_connections_and_match_serial(pg_server, make_project,
                                                                monkeypatch):
    results = {}
    for parallel in ("1", "4"):
        project = make_project(f"p{parallel}")
        database = pg_server.create_database(f"par{parallel}")
        env = f"{DSN_ENV}_{parallel}"
        monkeypatch.setenv(env, database.dsn)
        project.write("strata.toml", f'[project]\nname = "p"\n\n[warehouse]\ntype = "postgres"\n'
                                     f'dsn_env = "{env}"\n')
        load_orders(database, order_rows(DAYS, per_day=6))
        add_models(project)
        report = project.run("--from", DAYS[0], "--to", DAYS[-1], "--parallel", parallel).json
        assert report["status"] == "success", report["errors"]
        results[parallel] = checksums(report)
        assert daily_table(database) == expected_daily(order_rows(DAYS, per_day=6))
    assert results["1"] == results["4"]


def failing_sql(bad_day: str) -> str:
    """DAILY_SQL, but a cast of 'boom' fails for rows of `bad_day` only."""
    return f"""\
SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount * CAST(CASE WHEN CAST(order_at AS DATE) = DATE '{bad_day}' THEN 'boom' ELSE '1' END
                      AS INTEGER)) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at <  @end_date
GROUP BY 1, 2
"""


def test_failing_partition_rolls_back_while_others_commit(pg):
    project, database = pg
    rows = order_rows(DAYS)
    load_orders(database, rows)
    add_models(project)
    project.run("--from", DAYS[0], "--to", DAYS[-1])
    before = daily_table(database)

    # New orders on every day; the model now fails on one day. That day's DELETE is rolled back
    # (its old rows stay); every other day is rewritten with the new orders.
    bad = DAYS[2]
    extra = order_rows(DAYS, per_day=2, start_id=500, scale=3)
    load_orders(database, extra, create=False)
    project.set_sql("fct_daily_orders", failing_sql(bad))
    result = project.run("--from", DAYS[0], "--to", DAYS[-1], "--parallel", "2", expect=2)
    report = result.json
    assert report["status"] == "partial_failure"
    assert [e["partition"] for e in report["errors"]] == [bad]
    assert "boom" in report["errors"][0]["message"]
    m = mats_by_key(report, "fct_daily_orders")
    assert m[bad]["status"] == "Failed" and m[bad]["row_count"] is None
    assert all(m[k]["status"] == "Computed" for k in DAYS if k != bad)

    after = daily_table(database)
    everything = expected_daily(rows + extra)
    for (d, customer), value in after.items():
        if str(d) == bad:
            assert value == before[(d, customer)]
        else:
            assert value == everything[(d, customer)]
    assert {k for k in after if str(k[0]) == bad} == {k for k in before if str(k[0]) == bad}
    state = project.partition_map("fct_daily_orders")
    assert state[bad]["status"] == "Failed"

    # Fixed model: the failed partition runs again and catches up.
    project.set_sql("fct_daily_orders", DAILY_SQL)
    fixed = project.run("--partition", bad).json
    assert fixed["status"] == "success", fixed["errors"]
    assert set(mats_by_key(fixed, "fct_daily_orders")) == {bad}
    assert daily_table(database) == everything


def test_rows_outside_the_window_are_refused_and_rolled_back(pg):
    project, database = pg
    rows = order_rows(DAYS[:2])
    load_orders(database, rows)
    add_models(project)
    project.run("--partition", DAYS[0])
    before = daily_table(database)
    # The time column shifted by a day for one customer: rows land outside the window.
    shifted = ("CASE WHEN customer_id = 2 THEN DATE_TRUNC('day', order_at) + INTERVAL '1 day' "
               "ELSE DATE_TRUNC('day', order_at) END")
    project.set_sql("fct_daily_orders", DAILY_SQL.replace("DATE_TRUNC('day', order_at)", shifted, 1))
    report = project.run("--partition", DAYS[0], expect=2).json
    assert [e["code"] for e in report["errors"]] == ["OutputOutsideWindow"], report["errors"]
    assert mats_by_key(report, "fct_daily_orders")[DAYS[0]]["status"] == "Failed"
    assert daily_table(database) == before  # the DELETE and the INSERT were rolled back


def test_exit_codes_for_missing_dsn_and_unreachable_server(pg, monkeypatch):
    project, database = pg
    load_orders(database, order_rows(DAYS[:1]))
    add_models(project)
    monkeypatch.delenv(DSN_ENV)
    missing = project.run("--partition", DAYS[0], expect=1)
    assert [e["code"] for e in missing.json["errors"]] == ["Config"]
    assert DSN_ENV in missing.json["errors"][0]["message"]

    # Nothing can run without the server: exit 1, like any error before the run starts.
    monkeypatch.setenv(DSN_ENV, "postgresql://strata@127.0.0.1:1/postgres")
    unreachable = project.run("--partition", DAYS[0], expect=1)
    assert [e["code"] for e in unreachable.json["errors"]] == ["WarehouseConnection"]
    assert "127.0.0.1" in unreachable.json["errors"][0]["message"]

    monkeypatch.setenv(DSN_ENV, database.dsn)
    ok = project.run("--partition", DAYS[0]).json
    assert ok["status"] == "success", ok["errors"]


def test_plan_shows_postgres_sql_without_connecting(pg, monkeypatch):
    project, database = pg
    add_models(project)
    monkeypatch.setenv(DSN_ENV, "postgresql://strata@127.0.0.1:1/postgres")
    result = project.strata("plan", "--partition", DAYS[0])
    assert result.returncode == 0, repr(result)
    models = {m["model"]: m for m in result.json["models"]}
    statements = models["fct_daily_orders"]["batches"][0]["statements"]
    assert statements["begin"] == "BEGIN"
    assert statements["delete"].startswith('DELETE FROM "marts"."fct_daily_orders"')
    assert statements["insert"].startswith('INSERT INTO "marts"."fct_daily_orders"\nSELECT * FROM (')
    assert "DROP TABLE IF EXISTS \"staging\".\"stg_orders\"" in models["stg_orders"]["statements"]


def test_a_failed_full_refresh_rolls_back_and_the_session_goes_on(pg):
    """A full_refresh is BEGIN; DROP; CREATE AS; COMMIT on PostgreSQL. When CREATE fails, the
    runner ends the transaction with the emitter's ROLLBACK (whatever the statements' text), so
    the old table survives and the next model on the same connection (--parallel 1) runs."""
    project, database = pg
    load_orders(database, order_rows(DAYS[:1]))
    project.add_model("a_totals", "SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY 1\n",
                      sources=(("raw", "orders"),), target=("marts", "a_totals"), catalog=None)
    project.add_model("b_count", "SELECT COUNT(*) AS n FROM orders\n",
                      sources=(("raw", "orders"),), target=("marts", "b_count"), catalog=None)
    project.run("--parallel", "1")
    before = sorted(database.query("SELECT customer_id, total FROM marts.a_totals"))
    assert before
    project.set_sql("a_totals", "SELECT customer_id, SUM(amount) / 0 AS total FROM orders GROUP BY 1\n")
    database.execute("INSERT INTO raw.orders VALUES (99, 1, 1.00, TIMESTAMP '2026-04-03 01:00:00')")
    report = project.run("--parallel", "1", expect=2).json
    assert report["warnings"] == []
    status = {m["model"]: m["status"] for m in report["materializations"]}
    assert status == {"a_totals": "Failed", "b_count": "Computed"}, report
    assert sorted(database.query("SELECT customer_id, total FROM marts.a_totals")) == before
    assert database.query("SELECT n FROM marts.b_count")[0][0] in (5, "5")


def test_the_state_check_reads_postgres_too(pg):
    """Rows deleted behind the state store are W040 and --missing rebuilds them (the grouped
    count runs on PostgreSQL: to_char(date_trunc(...)))."""
    project, database = pg
    load_orders(database, order_rows(DAYS))
    add_models(project)
    project.run("--missing")
    clean = project.run("--missing").json
    assert clean["warnings"] == [], clean["warnings"]
    database.execute("DELETE FROM marts.fct_daily_orders WHERE order_date = DATE '2026-04-05'")
    report = project.run("--missing").json
    assert [(w["code"], w["partition"]) for w in report["warnings"]] == [("W040", "2026-04-05")]
    assert sorted(mats_by_key(report, "fct_daily_orders")) == ["2026-04-05"]
    assert daily_table(database) == expected_daily(order_rows(DAYS))


def test_batched_statistics_equal_per_partition_ones(pg_server, make_project, monkeypatch):
    """batch_size = 3 reads each batch's row counts and checksums in one grouped scan
    (Emitter::WindowStatsByKey); they equal batch_size = 1's one query per partition, an empty
    day (0 rows, checksum 0) included."""
    days = DAYS[:1] + DAYS[2:]  # DAYS[1] has no rows
    results = {}
    for batch_size in (1, 3):
        project = make_project(f"b{batch_size}")
        database = pg_server.create_database(f"batch{batch_size}")
        env = f"{DSN_ENV}_B{batch_size}"
        monkeypatch.setenv(env, database.dsn)
        project.write("strata.toml", f'[project]\nname = "b"\n\n[warehouse]\ntype = "postgres"\n'
                                     f'dsn_env = "{env}"\n')
        load_orders(database, order_rows(days, per_day=5))
        project.add_model("stg_orders", STAGING_SQL, sources=(("raw", "orders"),),
                          target=("staging", "stg_orders"), catalog=None)
        project.add_model("fct_daily_orders", DAILY_SQL,
                          strategy_toml("day", first_partition=DAYS[0], batch_size=batch_size),
                          depends_on=["stg_orders"], sources=(), catalog=None)
        report = project.run("--from", DAYS[0], "--to", DAYS[-1]).json
        assert report["status"] == "success", report["errors"]
        results[batch_size] = checksums(report)
        state = project.partition_map("fct_daily_orders")
        assert {k: (state[k]["row_count"], state[k]["checksum"]) for k in DAYS} == \
            results[batch_size]
    assert set(results[1]) == set(DAYS)
    assert results[1][DAYS[1]][0] == 0
    assert results[3] == results[1]


def window_checksums(database, table, hash_sql) -> dict:
    """Each day's (row count, checksum) of `table` as PostgreSQL computes it with `hash_sql` of
    the row `r`: the wrapping sum mod 2^64 of the rows' hashes, as 16 hex digits."""
    rows = database.query(f"SELECT CAST(order_date AS date), count(*), sum({hash_sql}) "
                          f"FROM {table} AS r GROUP BY 1")
    return {dt.date.fromisoformat(d): (int(n), f"{int(s) % 2 ** 64:016x}") for d, n, s in rows}


def test_checksums_hash_rows_by_their_columns_unless_a_type_has_no_hash(pg):
    """On PostgreSQL 14+ a target whose column types all have a hash function is checksummed
    with hash_record_extended (cheaper than the row's text), by one query per partition
    (batch_size 1) or one grouped scan per batch (batch_size 3). A target with a json column, or
    a text column under a nondeterministic (case-insensitive) collation, which would hash 'paid'
    and 'PAID' alike, falls back to the row's text. Either way each day's checksum is the sum
    PostgreSQL itself gives."""
    project, database = pg
    assert int(database.scalar("SHOW server_version_num")) >= 140000
    database.execute("CREATE COLLATION public.strata_ci "
                     "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
    load_orders(database, order_rows(DAYS))
    add_models(project)
    added = {
        "fct_daily_json": ("SUM(amount) AS revenue, json_build_object('n', COUNT(*)) AS doc", 1),
        "fct_daily_ci": ("SUM(amount) AS revenue, CASE WHEN customer_id % 2 = 0 THEN 'paid' "
                         "ELSE 'PAID' END COLLATE public.strata_ci AS label", 1),
        "fct_daily_b3": ("SUM(amount) AS revenue", 3),
    }
    for name, (columns, batch_size) in added.items():
        project.add_model(name, DAILY_SQL.replace("SUM(amount) AS revenue", columns),
                          strategy_toml("day", first_partition=DAYS[0], batch_size=batch_size),
                          depends_on=["stg_orders"], sources=(), catalog=None)
    assert database.scalar("SELECT count(*) FROM pg_collation WHERE collname = 'strata_ci' "
                           "AND NOT collisdeterministic") == "1"
    by_columns, by_text = "hash_record_extended(r, 0)", "hashtextextended(CAST(r AS text), 0)"
    hashes = {"fct_daily_orders": by_columns, "fct_daily_b3": by_columns,
              "fct_daily_json": by_text, "fct_daily_ci": by_text}
    for batching in ("auto", "off"):
        project.write("strata.toml", pg_project_toml(f'\n[run]\nbatching = "{batching}"\n'))
        report = project.run("--from", DAYS[0], "--to", DAYS[-1]).json
        assert report["status"] == "success", report["errors"]
        for model, hash_sql in hashes.items():
            expected = window_checksums(database, f"marts.{model}", hash_sql)
            assert len(expected) == len(DAYS), model
            assert {dt.date.fromisoformat(k): v
                    for k, v in checksums(report, model).items()} == expected, (batching, model)
    # The label column kept its collation, and under it the two spellings are one value.
    assert database.scalar("SELECT count(DISTINCT label) FROM marts.fct_daily_ci") == "1"
    assert database.scalar("SELECT count(DISTINCT CAST(label AS text) COLLATE \"C\") "
                           "FROM marts.fct_daily_ci") == "2"