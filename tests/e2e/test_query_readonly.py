"""`strata query` only reads, so it opens a DuckDB warehouse read-only: any number of queries (two
dashboard users, a query while a notebook reads the file) share it; a query never creates a
missing warehouse file; a writer holding the file (a running `strata run`, a read-write client) is
named with its pid and command line. Also: number values beyond a double (1e999) in a filter and
in a result cell are handled, never an internal error.

Each test holds the conflicting connection itself (the `duckdb` Python package, in this process),
so what the query meets is decided before it starts.
"""
from __future__ import annotations

import json
import os
import subprocess
import textwrap

import duckdb
import pytest

MODEL = """\
entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: amount, type: number }
      - { name: reading, type: number }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
"""

QUERY = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
         "order": [{"member": "Order.status"}]}
EXPECTED_ROWS = [["paid", 30.0, 2], ["shipped", 5.0, 1]]


@pytest.fixture
def shop(project):
    """A project with raw.orders (3 rows; `reading` is text, as a VARCHAR column declared a
    number) and a semantic model over it. No connection is left open."""
    project.write("semantic/model.yml", MODEL)
    project.execute(
        "CREATE SCHEMA raw",
        "CREATE TABLE raw.orders (order_id INTEGER, status VARCHAR, amount DECIMAL(12, 2), "
        "reading VARCHAR)",
        "INSERT INTO raw.orders VALUES (1, 'paid', 10, '1e999'), (2, 'paid', 20, '-1e999'), "
        "(3, 'shipped', 5, '12345678901234567890')")
    return project


def query(project, body, output="json", timeout=60):
    return project.strata("query", json.dumps(body), output=output, timeout=timeout)


def start_query(project, body):
    argv = [project.bin, "query", json.dumps(body), "--project", str(project.root),
            "--output", "json"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=project.root)


def test_queries_share_the_file_with_other_readers(shop):
    reader = duckdb.connect(str(shop.warehouse_path), read_only=True)
    try:
        assert reader.execute("SELECT count(*) FROM raw.orders").fetchall() == [(3,)]
        first, second = start_query(shop, QUERY), start_query(shop, QUERY)
        outputs = [process.communicate(timeout=60) for process in (first, second)]
        for process, (out, err) in zip((first, second), outputs):
            assert process.returncode == 0, f"{out}\n{err}"
            assert json.loads(out)["rows"] == EXPECTED_ROWS
        # The reader is still there and still reads: nobody took the file from it.
        assert reader.execute("SELECT sum(amount) FROM raw.orders").fetchall()[0][0] == 35
    finally:
        reader.close()


def test_a_writer_holding_the_file_is_named(shop):
    writer = duckdb.connect(str(shop.warehouse_path))  # read-write: holds the write lock
    try:
        as_json = query(shop, QUERY)
        human = query(shop, QUERY, output="table")
    finally:
        writer.close()
    assert as_json.returncode == 1, repr(as_json)
    error = json.loads(as_json.stdout)["errors"][0]
    assert error["code"] == "WarehouseConnection"
    pid = str(os.getpid())
    assert f"process {pid}" in error["message"], error["message"]
    assert "python" in error["message"].lower(), error["message"]  # its command line
    assert "wait for that process to finish" in error["hint"], error
    assert human.returncode == 1
    assert "error[WarehouseConnection]" in human.stderr and f"process {pid}" in human.stderr
    assert "hint:" in human.stderr, human.stderr
    # Once the writer has gone, the same query answers.
    again = query(shop, QUERY)
    assert again.returncode == 0, repr(again)
    assert again.json["rows"] == EXPECTED_ROWS


def test_a_missing_warehouse_file_is_an_error_and_is_not_created(project):
    project.write("semantic/model.yml", MODEL)
    assert not project.warehouse_path.exists()
    result = query(project, QUERY)
    assert result.returncode == 1, repr(result)
    error = result.json["errors"][0]
    assert error["code"] == "WarehouseConnection"
    assert str(project.warehouse_path) in error["message"] and "does not exist" in error["message"]
    assert "strata run" in error["hint"]
    assert not project.warehouse_path.exists()
    assert not project.warehouse_path.with_name("warehouse.duckdb.wal").exists()


def test_a_number_filter_value_beyond_a_double_is_refused(shop):
    for value in ["1e999", "-1e999"]:
        result = query(shop, {"measures": ["Order.order_count"],
                              "filters": [{"member": "Order.amount", "op": "lt",
                                           "values": [value]}]})
        assert result.returncode == 1, repr(result)
        error = result.json["errors"][0]
        assert error["code"] == "QueryInvalid", error
        assert value in error["message"], error
        assert "Order.amount" in json.dumps(error), error


def test_number_cells_beyond_a_double_come_back_as_their_text(shop):
    result = query(shop, {"dimensions": ["Order.order_id", "Order.reading"],
                          "order": [{"member": "Order.order_id"}]})
    assert result.returncode == 0, repr(result)
    assert result.json["rows"] == [[1, "1e999"], [2, "-1e999"], [3, 12345678901234567890]]


PG_DSN_ENV = "STRATA_E2E_QUERY_READONLY_DSN"
# `nextval` writes (it advances a sequence), so it fails in a read-only transaction: the entity
# reads through it only to prove that the query's session is read-only.
PG_MODEL = """\
entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: status, type: string }
    measures:
      - { name: revenue, agg: sum, sql: amount }
  - name: Ticket
    sql: "SELECT nextval('raw.ticket_ids') AS ticket_id"
    primary_key: ticket_id
    measures:
      - { name: ticket_count, agg: count }
"""


def test_postgres_query_sessions_are_read_only(pg_server, project, monkeypatch):
    database = pg_server.create_database("query_ro")
    monkeypatch.setenv(PG_DSN_ENV, database.dsn)
    project.write("strata.toml", textwrap.dedent(f"""\
        [project]
        name = "e2e_pg_query"

        [warehouse]
        type = "postgres"
        dsn_env = "{PG_DSN_ENV}"
        """))
    project.write("semantic/model.yml", PG_MODEL)
    database.execute("CREATE SCHEMA raw",
                     "CREATE TABLE raw.orders (order_id integer, status text, amount numeric(12, 2))",
                     "INSERT INTO raw.orders VALUES (1, 'paid', 10), (2, 'paid', 20), (3, 'shipped', 5)",
                     "CREATE SEQUENCE raw.ticket_ids")
    reads = query(project, {"measures": ["Order.revenue"], "dimensions": ["Order.status"],
                            "order": [{"member": "Order.status"}]})
    assert reads.returncode == 0, repr(reads)
    assert reads.json["rows"] == [["paid", 30.0], ["shipped", 5.0]]
    writes = query(project, {"measures": ["Ticket.ticket_count"]})
    assert writes.returncode == 1, repr(writes)
    error = writes.json["errors"][0]
    assert "read-only transaction" in error["message"], error
    assert database.scalar("SELECT is_called FROM raw.ticket_ids") == "f"  # never advanced


def test_a_semantic_only_project_without_models_answers(shop):
    """A missing models/ folder is an empty project: queries, meta and compile work."""
    import shutil
    shutil.rmtree(shop.models_dir)
    answered = query(shop, QUERY)
    assert answered.returncode == 0, repr(answered)
    assert json.loads(answered.stdout)["rows"] == EXPECTED_ROWS
    compiled = shop.strata("compile")
    assert compiled.returncode == 0, repr(compiled)
    assert compiled.json["models"] == 0
