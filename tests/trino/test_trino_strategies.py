"""incremental, full_refresh and view models on the session's real Trino (issue 41).

Iceberg loads increments with one INSERT, or with unique_key one MERGE, and replaces tables with
CREATE OR REPLACE TABLE; Hive appends with one INSERT and refuses unique_key and full_refresh
(no MERGE, no atomic table replacement); docs/trino.md has the matrix. Each test writes its models
into a TrinoProject (test_trino_run.py) and compares the targets with rows Trino computes straight
from the source.
"""
from __future__ import annotations

import threading
import time

import pytest

from trino_project import TrinoProject, trino

EVENTS_SQL = "SELECT event_id, customer_id, amount, updated_at FROM events WHERE @incremental_filter\n"
# Hive keeps timestamps in milliseconds (the server's hive.timestamp-precision): its models cast.
HIVE_SQL = EVENTS_SQL.replace("updated_at FROM", "CAST(updated_at AS timestamp(3)) AS updated_at FROM")
COLUMNS = ("event_id, customer_id, CAST(amount AS varchar), "
           "CAST(CAST(updated_at AS timestamp(3)) AS varchar)")


class Models:
    """Models of one TrinoProject (its own time_interval model removed) over `iceberg.<s>.events`."""

    def __init__(self, project: TrinoProject):
        self.p = project
        for suffix in ("toml", "sql"):
            (project.root / "models" / f"daily.{suffix}").unlink()
        trino(project.url, f"CREATE TABLE iceberg.{project.schema}.events AS SELECT CAST(n AS bigint) "
                           "AS event_id, CAST(n % 3 AS bigint) AS customer_id, CAST(n * 1.5 AS "
                           "decimal(12, 2)) AS amount, CAST(TIMESTAMP '2026-04-01 00:00:00' + n * "
                           "INTERVAL '1' HOUR AS timestamp(6)) AS updated_at "
                           "FROM UNNEST(sequence(1, 6)) AS t(n)")

    def add(self, name: str, sql: str, strategy: str, source: str = "events") -> str:
        p = self.p
        (p.root / "models" / f"{name}.toml").write_text(
            f'name = "{name}"\n\n[[sources]]\ncatalog = "iceberg"\nschema = "{p.schema}"\n'
            f'table = "{source}"\n\n{strategy}\n[target]\ncatalog = "{p.catalog}"\n'
            f'schema = "{p.schema}"\ntable = "{name}"\n')
        (p.root / "models" / f"{name}.sql").write_text(sql)
        return f"{p.catalog}.{p.schema}.{name}"

    def source(self, sql: str) -> None:
        trino(self.p.url, sql.replace("EVENTS", f"iceberg.{self.p.schema}.events"))

    def rows(self, table: str) -> list[list]:
        return sorted(trino(self.p.url, f"SELECT {COLUMNS} FROM {table}"), key=repr)

    def newest_per_key(self) -> list[list]:
        """What an upsert by event_id holds: each key's newest row, computed from the source."""
        return sorted(trino(self.p.url, f"SELECT {COLUMNS} FROM (SELECT *, row_number() OVER "
                                        "(PARTITION BY event_id ORDER BY updated_at DESC) AS rank "
                                        f"FROM iceberg.{self.p.schema}.events) WHERE rank = 1"),
                      key=repr)

    def exists(self, name: str) -> bool:
        return trino(self.p.url, f"SELECT count(*) FROM {self.p.catalog}.information_schema.tables "
                                 f"WHERE table_schema = '{self.p.schema}' AND table_name = "
                                 f"'{name}'") == [[1]]


def incremental(unique_key: bool) -> str:
    keys = 'unique_key = ["event_id"]\nlookback = "1 hour"\n' if unique_key else ""
    return f'[strategy]\ntype = "incremental"\nwatermark = "updated_at"\n{keys}'


def by_model(report: dict) -> dict[str, dict]:
    return {m["model"]: m for m in report["materializations"]}


@pytest.fixture
def iceberg_models(trino_url, strata_bin, tmp_path):
    return Models(TrinoProject(tmp_path / "iceberg", trino_url, "iceberg", strata_bin))


@pytest.fixture
def hive_models(trino_url, strata_bin, tmp_path):
    return Models(TrinoProject(tmp_path / "hive", trino_url, "hive", strata_bin))


def test_iceberg_incremental_append_and_upsert(iceberg_models):
    models = iceberg_models
    upsert = models.add("events_upsert", EVENTS_SQL, incremental(unique_key=True))
    append = models.add("events_append", EVENTS_SQL, incremental(unique_key=False))
    first = by_model(models.p.strata("run"))
    for name in ("events_upsert", "events_append"):
        assert first[name]["metadata"]["load"] == "full", first[name]
        assert first[name]["row_count"] == 6
        assert first[name]["metadata"]["watermark"].startswith("2026-04-01 06:00:00")
    assert models.rows(upsert) == models.rows(append) == models.newest_per_key()

    # Two new rows; event 2 updated in place; two versions of the new event 8 in one load.
    models.source("INSERT INTO EVENTS VALUES (7, 1, 7.00, TIMESTAMP '2026-04-01 07:30:00'), "
                  "(8, 2, 8.00, TIMESTAMP '2026-04-01 08:00:00'), "
                  "(8, 2, 9.00, TIMESTAMP '2026-04-01 09:00:00')")
    models.source("UPDATE EVENTS SET amount = 2.50, updated_at = TIMESTAMP '2026-04-01 08:30:00' "
                  "WHERE event_id = 2")
    second = by_model(models.p.strata("run"))
    assert second["events_append"]["metadata"]["load"] == "incremental"
    assert second["events_append"]["row_count"] == 4  # rows after 06:00: 7, 8, 8, the new 2
    appended = models.rows(append)
    assert len(appended) == 10 and [r for r in appended if r[0] == 2] == [
        [2, 2, "2.50", "2026-04-01 08:30:00.000"], [2, 2, "3.00", "2026-04-01 02:00:00.000"]]
    # The upsert re-reads the last hour (lookback) too: event 6 (06:00) and the four new rows;
    # the MERGE deletes the old rows of the keys 2 and 6 and inserts 2, 6, 7, 8 (the newest 8).
    assert second["events_upsert"]["metadata"]["load"] == "incremental"
    assert second["events_upsert"]["row_count"] == 6
    assert second["events_upsert"]["metadata"]["watermark"].startswith("2026-04-01 09:00:00")
    assert models.rows(upsert) == models.newest_per_key()
    assert len(models.newest_per_key()) == 8

    # Nothing new: the append adds nothing, the upsert rewrites the lookback's rows as they were.
    third = by_model(models.p.strata("run"))
    assert third["events_append"]["row_count"] == 0
    assert models.rows(append) == appended
    assert models.rows(upsert) == models.newest_per_key()

    # A NULL key could never replace its old row through the MERGE's `=`: refused, nothing
    # written.
    before = models.rows(upsert)
    models.source("INSERT INTO EVENTS VALUES (NULL, 1, 1.00, TIMESTAMP '2026-04-01 10:00:00')")
    failed = models.p.strata("run", expect=2)
    assert [(e["model"], e["code"]) for e in failed["errors"]] == [
        ("events_upsert", "WarehouseUnsupported")], failed["errors"]
    assert "NULL" in failed["errors"][0]["message"]
    assert models.rows(upsert) == before


def test_iceberg_full_refresh_replaces_the_table_atomically(iceberg_models):
    """A reader counting the table while it is replaced again and again sees the old rows or the
    new, never an error, a missing table or a part of the rows."""
    models = iceberg_models
    all_rows = "SELECT order_id, customer_id, amount FROM orders\n"
    some_rows = "SELECT order_id, customer_id, amount FROM orders WHERE order_id <= 300\n"
    table = models.add("orders_copy", all_rows, '[strategy]\ntype = "full_refresh"\n', "orders")
    report = models.p.strata("run")
    assert by_model(report)["orders_copy"]["row_count"] == 500
    seen, refreshing, stop = [], [], threading.Event()

    def read():
        while not stop.is_set():
            started = time.monotonic()
            try:
                count = trino(models.p.url, f"SELECT count(*) FROM {table}")[0][0]
            except AssertionError as error:  # trino() asserts the statement succeeded
                count = str(error)
            seen.append((started, time.monotonic(), count))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for sql in (some_rows, all_rows, some_rows, all_rows):
            (models.p.root / "models" / "orders_copy.sql").write_text(sql)
            started = time.monotonic()
            counted = by_model(models.p.strata("run"))["orders_copy"]["row_count"]
            refreshing.append((started, time.monotonic()))
            assert counted == (300 if sql == some_rows else 500)
    finally:
        stop.set()
        reader.join()
    assert {count for _, _, count in seen} <= {300, 500}, seen
    during = [r for r in seen if any(s < r[1] and r[0] < e for s, e in refreshing)]
    assert len(during) >= 4, (len(seen), refreshing)
    snapshots = trino(models.p.url, f'SELECT count(*) FROM iceberg.{models.p.schema}."orders_copy$snapshots"')
    assert snapshots[0][0] >= 5  # one table, replaced in place: its history kept

    # A failing model leaves the old table as it was.
    (models.p.root / "models" / "orders_copy.sql").write_text(
        "SELECT order_id, customer_id, amount / 0 AS amount FROM orders\n")
    failed = models.p.strata("run", expect=2)
    assert [m["status"] for m in failed["materializations"]] == ["Failed"]
    assert trino(models.p.url, f"SELECT count(*) FROM {table}") == [[500]]


def test_hive_appends_and_refuses_unique_key_and_full_refresh(hive_models):
    models = hive_models
    append = models.add("events_append", HIVE_SQL, incremental(unique_key=False))
    models.add("events_upsert", HIVE_SQL, incremental(unique_key=True))
    models.add("copy", "SELECT event_id, amount FROM events\n", '[strategy]\ntype = "full_refresh"\n')
    view = models.add("events_view", "SELECT event_id, customer_id, amount, updated_at FROM events "
                                     "WHERE customer_id = 1\n", '[strategy]\ntype = "view"\n')

    # Refused when planning, with a hint, before anything runs.
    plan = {m["model"]: m for m in models.p.strata("plan", expect=2)["models"]}
    for name, needle in (("events_upsert", "MERGE"), ("copy", "atomically")):
        assert plan[name]["error"]["code"] == "WarehouseUnsupported", plan[name]
        assert needle in plan[name]["error"]["message"], plan[name]
        assert "Iceberg" in plan[name]["error"]["message"], plan[name]  # the hint
    assert "error" not in plan["events_append"] and "error" not in plan["events_view"]

    first = models.p.strata("run", expect=2)
    statuses = {m["model"]: m["status"] for m in first["materializations"]}
    assert statuses == {"events_append": "Computed", "events_view": "Computed"}, statuses
    assert sorted((e["model"], e["code"]) for e in first["errors"]) == [
        ("copy", "WarehouseUnsupported"), ("events_upsert", "WarehouseUnsupported")], first["errors"]
    assert not models.exists("events_upsert") and not models.exists("copy")
    assert models.rows(append) == models.newest_per_key()
    assert models.rows(view) == [r for r in models.newest_per_key() if r[1] == 1]

    models.source("INSERT INTO EVENTS VALUES (7, 1, 7.00, TIMESTAMP '2026-04-01 07:00:00')")
    second = by_model(models.p.strata("run", "--model", "events_append", "--model", "events_view"))
    assert second["events_append"]["metadata"]["load"] == "incremental"
    assert second["events_append"]["row_count"] == 1
    assert models.rows(append) == models.newest_per_key()
    assert models.rows(view) == [r for r in models.newest_per_key() if r[1] == 1]  # a view: live
    again = by_model(models.p.strata("run", "--model", "events_append"))
    assert again["events_append"]["row_count"] == 0
    assert models.rows(append) == models.newest_per_key()

    # --full-refresh would replace the table: refused too, the table kept.
    refused = models.p.strata("run", "--model", "events_append", "--full-refresh", expect=1)
    assert [e["code"] for e in refused["errors"]] == ["WarehouseUnsupported"], refused["errors"]
    assert models.rows(append) == models.newest_per_key()
