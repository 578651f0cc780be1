"""The incremental strategy on DuckDB and PostgreSQL: rows newer than the target's watermark via
@incremental_filter, unique_key upserts with lookback for late rows, --full-refresh, compile
checks, and a failing load that leaves the target untouched."""
from __future__ import annotations

import textwrap

import pytest

INCREMENTAL_SQL = """\
SELECT event_id, customer_id, amount, updated_at
FROM events
WHERE @incremental_filter
"""

SOURCE_COLUMNS = "event_id, customer_id, amount, updated_at"


def incremental_toml(unique_key=True, lookback=None):
    lines = ['[strategy]', 'type = "incremental"', 'watermark = "updated_at"']
    if unique_key:
        lines.append('unique_key = ["event_id"]')
    if lookback:
        lines.append(f'lookback = "{lookback}"')
    return "\n".join(lines) + "\n"


class Warehouse:
    """The source and target of one project, on DuckDB or PostgreSQL."""

    def __init__(self, kind, project, database=None):
        self.kind, self.project, self.database = kind, project, database

    def execute(self, *statements):
        if self.kind == "duckdb":
            self.project.execute(*statements)
        else:
            self.database.execute(*statements)

    def rows(self, table):
        sql = f"SELECT {SOURCE_COLUMNS} FROM {table} ORDER BY event_id"
        if self.kind == "duckdb":
            return [(str(a), str(b), f"{float(c):.2f}", str(d)) for a, b, c, d in self.project.query(sql)]
        return [(a, b, f"{float(c):.2f}", d) for a, b, c, d in self.database.query(sql)]


@pytest.fixture(params=["duckdb", "postgres"])
def warehouse(request, project):
    if request.param == "duckdb":
        wh = Warehouse("duckdb", project)
    else:
        server = request.getfixturevalue("pg_server")
        database = server.create_database("incr")
        project.write("strata.toml", textwrap.dedent(f"""\
            [project]
            name = "incremental"

            [warehouse]
            type = "postgres"
            dsn = "{database.dsn}"
            """))
        wh = Warehouse("postgres", project, database)
    wh.execute("CREATE SCHEMA raw",
               "CREATE TABLE raw.events (event_id integer, customer_id integer, "
               "amount numeric(12, 2), updated_at timestamp)",
               "INSERT INTO raw.events VALUES (1, 10, 5.00, TIMESTAMP '2026-04-01 10:00:00'), "
               "(2, 11, 7.50, TIMESTAMP '2026-04-01 11:00:00'), "
               "(3, 10, 2.25, TIMESTAMP '2026-04-01 12:00:00')")
    return wh


def add_model(project, sql=INCREMENTAL_SQL, strategy=None):
    project.add_model("events_inc", sql, strategy or incremental_toml(lookback="1 hour"),
                      sources=(("raw", "events"),), target=("marts", "events_inc"), catalog=None)


def only(report):
    [m] = report["materializations"]
    return m


def test_first_run_loads_everything_then_only_new_and_changed_rows(warehouse):
    project = warehouse.project
    add_model(project)
    m = only(project.run().json)
    assert m["metadata"]["strategy"] == "incremental" and m["metadata"]["load"] == "full"
    assert m["row_count"] == 3 and m["metadata"]["watermark"].startswith("2026-04-01 12:00:00")
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")

    # a new row, and a new version of event 1 (the source updates it in place)
    warehouse.execute("INSERT INTO raw.events VALUES (4, 12, 9.00, TIMESTAMP '2026-04-01 13:00:00')",
                      "UPDATE raw.events SET amount = 6.00, updated_at = TIMESTAMP '2026-04-01 13:30:00' "
                      "WHERE event_id = 1")
    m = only(project.run().json)
    assert m["metadata"]["load"] == "incremental"
    # rows after the target's watermark minus the lookback (12:00 - 1 hour = 11:00): event 3
    # (12:00, re-read by the lookback), 4 (13:00) and the new version of 1 (13:30)
    assert m["row_count"] == 3
    assert m["metadata"]["watermark"].startswith("2026-04-01 13:30:00")
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")

    # nothing new: the lookback re-reads the last hour, the upsert leaves the table as it is
    m = only(project.run().json)
    assert m["row_count"] == 2  # events 4 (13:00) and 1 (13:30) are within an hour of 13:30
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")


def test_lookback_picks_up_late_rows_and_full_refresh_the_rest(warehouse):
    project = warehouse.project
    add_model(project)
    project.run()
    # late rows: one inside the lookback (11:30 > 12:00 - 1h), one far older
    warehouse.execute("INSERT INTO raw.events VALUES (5, 13, 1.00, TIMESTAMP '2026-04-01 11:30:00'), "
                      "(6, 14, 2.00, TIMESTAMP '2026-03-01 00:00:00')")
    project.run()
    loaded = {r[0] for r in warehouse.rows("marts.events_inc")}
    assert "5" in loaded and "6" not in loaded
    m = only(project.run("--full-refresh").json)
    assert m["metadata"]["load"] == "full" and m["row_count"] == 5
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")


def test_several_versions_of_a_key_in_one_load_keep_the_newest(warehouse):
    project = warehouse.project
    add_model(project, strategy=incremental_toml())
    project.run()
    warehouse.execute("INSERT INTO raw.events VALUES (2, 11, 8.00, TIMESTAMP '2026-04-02 09:00:00'), "
                      "(2, 11, 9.00, TIMESTAMP '2026-04-02 10:00:00')")
    project.run()
    rows = warehouse.rows("marts.events_inc")
    assert [r for r in rows if r[0] == "2"] == [("2", "11", "9.00", rows[1][3])]
    assert rows[1][3].startswith("2026-04-02 10:00:00")
    assert len(rows) == 3


def test_append_only_without_unique_key(warehouse):
    project = warehouse.project
    add_model(project, strategy=incremental_toml(unique_key=False))
    project.run()
    warehouse.execute("INSERT INTO raw.events VALUES (7, 15, 3.00, TIMESTAMP '2026-04-02 00:00:00')")
    assert only(project.run().json)["row_count"] == 1
    assert only(project.run().json)["row_count"] == 0
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")


def test_failing_load_rolls_back_and_the_next_run_recovers(warehouse):
    project = warehouse.project
    fails_for_99 = INCREMENTAL_SQL.replace(
        "SELECT event_id,", "SELECT CAST(CASE WHEN event_id = 99 THEN 'boom' ELSE '1' END AS INTEGER) * event_id AS event_id,")
    add_model(project, sql=fails_for_99)
    project.run()
    before = warehouse.rows("marts.events_inc")
    warehouse.execute("INSERT INTO raw.events VALUES (8, 16, 4.00, TIMESTAMP '2026-04-03 00:00:00'), "
                      "(99, 16, 4.00, TIMESTAMP '2026-04-03 01:00:00')")
    report = project.run(expect=2).json
    assert only(report)["status"] == "Failed" and report["errors"][0]["model"] == "events_inc"
    assert warehouse.rows("marts.events_inc") == before  # nothing of the failed load is visible
    warehouse.execute("DELETE FROM raw.events WHERE event_id = 99")
    project.run()
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")


def test_plan_and_apply_an_incremental_load(warehouse):
    project = warehouse.project
    add_model(project)
    project.run()
    plan = project.strata("plan").json
    [model] = plan["models"]
    assert model["strategy"] == "incremental"
    assert "max(" in model["incremental"]["stage"] and model["incremental"]["delete"]
    warehouse.execute("INSERT INTO raw.events VALUES (9, 17, 1.50, TIMESTAMP '2026-04-04 00:00:00')")
    applied = project.strata("apply", plan["plan_id"])
    assert applied.returncode == 0, applied
    assert warehouse.rows("marts.events_inc") == warehouse.rows("raw.events")


@pytest.mark.parametrize("sql, strategy, code", [
    ("SELECT event_id, customer_id, amount, updated_at FROM events\n", incremental_toml(), "E028"),
    ("SELECT event_id, updated_at FROM events WHERE @incremental_filter AND updated_at < @end_date\n",
     incremental_toml(), "E028"),
    ("SELECT event_id, amount FROM events WHERE @incremental_filter\n", incremental_toml(), "E029"),
])
def test_compile_checks_for_incremental_models(project, sql, strategy, code):
    add_model(project, sql=sql, strategy=strategy)
    result = project.strata("compile")
    assert result.returncode == 1, result
    assert code in {d["code"] for d in result.json["diagnostics"]}, result.json


@pytest.mark.parametrize("strategy, needle", [
    (incremental_toml(unique_key=False, lookback="2 days"), "unique_key"),
    (incremental_toml(lookback="two days"), "duration"),
    ('[strategy]\ntype = "incremental"\n', "watermark"),
])
def test_bad_incremental_config_is_refused(project, strategy, needle):
    add_model(project, strategy=strategy)
    result = project.strata("run", output="human")
    assert result.returncode == 1, result
    assert needle in result.stderr, result.stderr
