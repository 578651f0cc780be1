"""The session's zone and the server's life: a client's TimeZone (startup or SET) is the semantic
query's zone, answers equal POST /v1/query's with that `timezone`; SIGTERM ends an idle session
with 57P01 and the server exits 0; sql_max_connections refuses the next client with 53300."""
from __future__ import annotations

import signal
import time

import psycopg
import pytest

import test_serve as serve_tests
from answers import same_rows
from conftest import token_for

DAILY = ("SELECT DATE_TRUNC('day', order_date) AS day, SUM(revenue) FROM strata.\"Order\" "
         "WHERE order_date >= '2026-01-02' AND order_date < '2026-01-05' GROUP BY 1 ORDER BY 1")


def daily_query(zone):
    return {"measures": ["Order.revenue"],
            "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                                 "range": ["2026-01-02", "2026-01-05"]}],
            "order": [{"member": "Order.order_date.day"}], "timezone": zone}


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata"])
def test_startup_timezone_is_the_querys_zone(server, zone):
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=token_for(), sslmode="disable", autocommit=True,
                         options=f"-c TimeZone={zone}") as connection:
        assert connection.execute("SHOW TimeZone").fetchone() == (zone,)
        rows = connection.execute(DAILY).fetchall()
    http = server.query(daily_query(zone)).json["rows"]
    assert same_rows(rows, http), (rows, http)
    utc = server.query(daily_query("UTC")).json["rows"]
    assert not same_rows(rows, utc)  # the zone changed the buckets


def test_set_timezone_applies_to_the_next_statement(server):
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=token_for(), sslmode="disable", autocommit=True) as connection:
        connection.execute("SET TimeZone = 'Europe/Berlin'")
        rows = connection.execute(DAILY).fetchall()
        with pytest.raises(psycopg.Error) as bad:
            connection.execute("SET TimeZone = 'Mars/Olympus'")
        assert bad.value.sqlstate == "22023"
    assert same_rows(rows, server.query(daily_query("Europe/Berlin")).json["rows"])


def start(strata_bin, root):
    server = serve_tests.Server(strata_bin, root)
    deadline = time.monotonic() + 30
    while "sql" not in server.ports:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return server


def test_sigterm_ends_idle_sessions_and_the_server(strata_bin, sql_project):
    server = start(strata_bin, sql_project)
    try:
        connection = psycopg.connect(host="127.0.0.1", port=server.ports["sql"],
                                     user="analyst", password=token_for(), sslmode="disable",
                                     autocommit=True)
        assert connection.execute('SELECT COUNT(*) FROM strata."Order"').fetchone() == (600,)
        assert server.stop(signal.SIGTERM, timeout=60) == 0
        with pytest.raises(psycopg.OperationalError):
            connection.execute("SELECT 1")
        connection.close()
        assert any('"event":"stopped","api":"sql"' in line for line in server.lines)
    finally:
        server.kill()


def test_connection_limit(strata_bin, sql_project, tmp_path):
    import shutil
    root = tmp_path / "limited"
    shutil.copytree(sql_project, root)
    toml = (root / "strata.toml").read_text().replace("sql_port = 0",
                                                      "sql_port = 0\nsql_max_connections = 2")
    (root / "strata.toml").write_text(toml)
    server = start(strata_bin, root)
    try:
        params = dict(host="127.0.0.1", port=server.ports["sql"], user="analyst",
                      password=token_for(), sslmode="disable", autocommit=True)
        first, second = psycopg.connect(**params), psycopg.connect(**params)
        with pytest.raises(psycopg.OperationalError) as refused:
            psycopg.connect(**params)
        assert "too many clients" in str(refused.value)
        first.close()
        time.sleep(0.3)
        with psycopg.connect(**params) as third:
            assert third.execute("SELECT 1").fetchone() == (1,)
        second.close()
    finally:
        server.stop()


def test_idle_sessions_time_out(strata_bin, sql_project, tmp_path):
    import shutil
    root = tmp_path / "idle"
    shutil.copytree(sql_project, root)
    toml = (root / "strata.toml").read_text().replace("sql_port = 0",
                                                      "sql_port = 0\nsql_idle_timeout_ms = 500")
    (root / "strata.toml").write_text(toml)
    server = start(strata_bin, root)
    try:
        connection = psycopg.connect(host="127.0.0.1", port=server.ports["sql"],
                                     user="analyst", password=token_for(), sslmode="disable",
                                     autocommit=True)
        assert connection.execute("SELECT 1").fetchone() == (1,)
        time.sleep(1.5)
        with pytest.raises(psycopg.OperationalError) as ended:
            connection.execute("SELECT 1")
        assert "idle" in str(ended.value)
        connection.close()
    finally:
        server.stop()
