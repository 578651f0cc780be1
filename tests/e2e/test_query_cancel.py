"""Ctrl-C on `strata query` cancels the warehouse's statement (issue 39, item 5): on PostgreSQL the
server would otherwise run the query on after strata exited.

The slow query reads a view that sleeps in the server (pg_sleep), so it is running until it is
cancelled; pg_stat_activity, read with psql, is the independent witness.
"""
from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

DSN_ENV = "STRATA_E2E_PG_DSN"

MODEL = """\
entities:
  - name: Nap
    table: raw.nap
    dimensions:
      - { name: bucket, type: number }
    measures:
      - { name: total, agg: sum, sql: digest }
"""

# Recognised in pg_stat_activity by the view's name.
RUNNING = ("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
           "AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE '%raw%nap%'")


@pytest.fixture
def napping(pg_server, project, monkeypatch):
    database = pg_server.create_database("cancel")
    monkeypatch.setenv(DSN_ENV, database.dsn)
    project.write("strata.toml", "[project]\nname = \"cancel\"\n\n[warehouse]\ntype = \"postgres\"\n"
                  f"dsn_env = \"{DSN_ENV}\"\n")
    project.write("semantic/model.yml", MODEL)
    database.execute(
        "CREATE SCHEMA raw",
        "CREATE VIEW raw.nap AS SELECT g AS bucket, g AS digest "
        "FROM generate_series(1, 3) AS g, LATERAL (SELECT pg_sleep(600)) AS s")
    return project, database


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def start_query(project):
    return subprocess.Popen(
        [project.bin, "query", json.dumps({"measures": ["Nap.total"]}), "--project",
         str(project.root), "--output", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=project.root)


def test_sigint_cancels_the_running_statement_on_postgres(napping):
    project, database = napping
    process = start_query(project)
    try:
        wait_until(lambda: database.scalar(RUNNING) == "1" or process.poll() is not None, 60,
                   "the query to run on the server")
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, (process.returncode, out, err)
    assert [e["code"] for e in json.loads(out)["errors"]] == ["Interrupted"], out
    # The server stops the statement: bounded, and no timing asserted.
    wait_until(lambda: database.scalar(RUNNING) == "0", 60, "the statement to leave the server")

