"""psycopg 3 against a real `strata serve` SQL port: the simple and the extended protocol (server
side parameters), text and binary results, each answer equal to POST /v1/query's for the same
semantic query; TLS with sslmode=require; the roles' catalog; refusals with their SQLSTATEs;
a CancelRequest that stops a slow live query; an expired token ending the session.
"""
from __future__ import annotations

import threading
import time

import psycopg
import pytest

from answers import PAIRS, same_rows
from conftest import token_for


def connect(server, role="admin", **kwargs):
    params = dict(host="127.0.0.1", port=server.sql_port, user="analyst",
                  password=token_for(role), dbname="strata", sslmode="disable")
    params.update(kwargs)
    return psycopg.connect(**params, autocommit=True)


def http_rows(server, query, role="admin"):
    response = server.query(query, role)
    assert response.status == 200, response
    return response.json["rows"]


@pytest.mark.parametrize("sql,query", PAIRS, ids=[str(i) for i in range(len(PAIRS))])
def test_simple_protocol_answers_as_http(server, sql, query):
    with connect(server) as connection:
        rows = connection.execute(sql, prepare=False).fetchall()
    assert same_rows(rows, http_rows(server, query)), (sql, rows)


@pytest.mark.parametrize("sql,query", PAIRS, ids=[str(i) for i in range(len(PAIRS))])
def test_binary_results_answer_as_http(server, sql, query):
    with connect(server) as connection:
        with connection.cursor(binary=True) as cursor:
            rows = cursor.execute(sql).fetchall()
    assert same_rows(rows, http_rows(server, query)), (sql, rows)


def test_parameters_are_bound_server_side(server):
    sql = ('SELECT status, SUM(revenue) FROM strata."Order" WHERE status = %s '
           "AND order_id > %s GROUP BY status ORDER BY status")
    query = {"measures": ["Order.revenue"], "dimensions": ["Order.status"],
             "filters": [{"member": "Order.status", "op": "equals", "values": ["shipped"]},
                         {"member": "Order.order_id", "op": "gt", "values": [100]}],
             "order": [{"member": "Order.status"}]}
    with connect(server) as connection:
        for _ in range(3):  # prepared after a few runs by psycopg: Parse once, Bind again
            rows = connection.execute(sql, ("shipped", 100)).fetchall()
            assert same_rows(rows, http_rows(server, query))
        # A quote in a value is a value, never SQL.
        rows = connection.execute(sql, ("x' OR '1'='1", 0)).fetchall()
        assert rows == []


def test_tls_with_sslmode_require(server):
    with connect(server, sslmode="require") as connection:
        assert connection.info.pgconn.ssl_in_use
        rows = connection.execute(PAIRS[0][0]).fetchall()
    assert same_rows(rows, http_rows(server, PAIRS[0][1]))


def test_role_sees_only_its_entities(server):
    with connect(server, role="paid_only") as connection:
        tables = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'strata' "
            "ORDER BY 1").fetchall()
        assert tables == [("Order",)]
        with pytest.raises(psycopg.errors.UndefinedTable):
            connection.execute('SELECT region FROM strata."Customer"')
    with connect(server, role="paid_only") as connection:
        rows = connection.execute(PAIRS[0][0]).fetchall()
    assert same_rows(rows, http_rows(server, PAIRS[0][1], role="paid_only"))
    assert {row[0] for row in rows} == {"paid"}


def test_refusals_carry_sqlstates(server):
    with connect(server) as connection:
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute('SELECT status, STDDEV(revenue) FROM strata."Order" GROUP BY 1')
        with pytest.raises(psycopg.errors.UndefinedTable):
            connection.execute('SELECT * FROM strata."Nope"')
        with pytest.raises(psycopg.Error) as unknown:
            connection.execute('SELECT nope FROM strata."Order"')
        assert unknown.value.sqlstate == "42703"
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute("CREATE TABLE strata.x (a int)")
        # The session survives its errors.
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_transactions_keep_postgres_status(server):
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=token_for(), sslmode="disable") as connection:
        # Not autocommit: psycopg sends BEGIN first.
        assert connection.execute(PAIRS[0][0]).fetchall()
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute('SELECT STDDEV(revenue) FROM strata."Order"')
        with pytest.raises(psycopg.errors.InFailedSqlTransaction):
            connection.execute("SELECT 1")
        connection.rollback()
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_cancel_stops_a_slow_live_query(server):
    with connect(server) as connection:
        errors = []

        def run():
            try:
                connection.execute('SELECT bucket, SUM(digest_sum) FROM strata."Endless" GROUP BY 1')
            except psycopg.Error as error:
                errors.append(error)

        worker = threading.Thread(target=run)
        started = time.monotonic()
        worker.start()
        time.sleep(1.0)
        connection.cancel_safe()
        worker.join(60)
        assert not worker.is_alive()
        assert errors and errors[0].sqlstate == "57014", errors
        assert time.monotonic() - started < 60
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_expired_token_ends_the_session(server):
    # exp is checked with strata's 30 s clock-skew allowance (serve/jwt.h): a token that expired
    # 27 s ago still connects, and is refused 3 s later.
    connection = psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                                 password=token_for(seconds=-27), sslmode="disable",
                                 autocommit=True)
    assert connection.execute("SELECT 1").fetchone() == (1,)
    time.sleep(4.5)
    with pytest.raises(psycopg.OperationalError) as ended:
        connection.execute("SELECT 1")
    assert "28000" in str(ended.value.sqlstate or "") or "token" in str(ended.value)
    connection.close()


def test_bad_token_is_refused_at_connect(server):
    with pytest.raises(psycopg.OperationalError) as refused:
        psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                        password="not-a-jwt", sslmode="disable")
    assert "token" in str(refused.value).lower() or "28000" in str(refused.value)


def test_explain_shows_the_semantic_query_and_routing(server):
    with connect(server) as connection:
        lines = [row[0] for row in connection.execute(
            'EXPLAIN SELECT status, SUM(revenue) FROM strata."Order" GROUP BY status').fetchall()]
    text = "\n".join(lines)
    assert '"Order.revenue"' in text and "meta.rollup" in text
    assert "daily_orders" in text  # used, or named among the missed


def test_cursors_fetch_in_pieces(server):
    with connect(server) as connection:
        with connection.transaction():
            connection.execute('DECLARE c1 NO SCROLL CURSOR FOR SELECT order_id, SUM(revenue) '
                               'FROM strata."Order" GROUP BY 1 ORDER BY 1')
            first = connection.execute("FETCH 250 FROM c1").fetchall()
            second = connection.execute("FETCH ALL FROM c1").fetchall()
            connection.execute("CLOSE c1")
    everything = http_rows(server, {"measures": ["Order.revenue"],
                                    "dimensions": ["Order.order_id"],
                                    "order": [{"member": "Order.order_id"}]})
    assert len(first) == 250
    assert same_rows(first + second, everything)


def test_access_log_has_one_line_per_statement_without_secrets(server):
    secret = token_for()
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=secret, sslmode="disable", autocommit=True) as connection:
        connection.execute("SELECT 'canary-value-123'")
    time.sleep(0.2)
    text = "\n".join(server.lines)
    assert secret not in text
    assert "canary-value-123" not in text
    assert '"api":"sql"' in text


def test_discard_all_over_the_extended_protocol(server):
    # Parse/Bind/Describe/Execute of DISCARD ALL drops the portal that runs it: the session must
    # answer it and go on (pgjdbc sends it so for Statement.execute).
    with connect(server) as connection:
        connection.execute("SELECT 1", prepare=True)
        result = connection.pgconn.exec_params(b"DISCARD ALL", [])
        assert result.status == psycopg.pq.ExecStatus.COMMAND_OK, result.error_message
        assert connection.execute(PAIRS[0][0], prepare=True).fetchall()


def test_server_side_cursor_with_parameters(server):
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=token_for(), sslmode="disable") as connection:
        for _ in range(2):  # a WITHOUT HOLD cursor ends with its transaction: declared again
            with connection.cursor("orders") as cursor:
                cursor.execute('SELECT order_id, SUM(revenue) FROM strata."Order" '
                               "WHERE status = %s GROUP BY 1 ORDER BY 1", ("paid",))
                first = cursor.fetchmany(10)
                rest = cursor.fetchall()
            connection.commit()
    http = http_rows(server, {
        "measures": ["Order.revenue"], "dimensions": ["Order.order_id"],
        "filters": [{"member": "Order.status", "op": "equals", "values": ["paid"]}],
        "order": [{"member": "Order.order_id"}]})
    assert len(first) == 10 and same_rows(first + rest, http)


def test_rollback_to_savepoint_keeps_the_block(server):
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=token_for(), sslmode="disable", autocommit=True) as connection:
        connection.execute("BEGIN")
        connection.execute("SAVEPOINT s1")
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute('SELECT STDDEV(revenue) FROM strata."Order"')
        connection.execute("ROLLBACK TO SAVEPOINT s1")
        assert connection.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        assert connection.execute("SELECT 1").fetchone() == (1,)
        connection.execute("COMMIT")
        assert connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_set_is_reported_with_parameter_status(server):
    with connect(server) as connection:
        assert connection.info.parameter_status("TimeZone") == "UTC"
        connection.execute("SET TimeZone = 'Europe/Paris'")
        assert connection.info.parameter_status("TimeZone") == "Europe/Paris"
        connection.execute("SET application_name = 'notebook'")
        assert connection.info.parameter_status("application_name") == "notebook"


def test_binary_results_of_catalog_arrays_come_as_text(server):
    with connect(server) as connection:
        with connection.cursor(binary=True) as cursor:
            schemas = cursor.execute("SELECT current_schemas(true)").fetchone()[0]
    assert "strata" in schemas
