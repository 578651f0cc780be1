"""The client corpus (tests/sqlport/corpus/*.sql, README.md) replayed end to end: every statement
that psql, psycopg, SQLAlchemy, pandas, pgjdbc, DBeaver, Metabase, Superset, Tableau and Power BI
send, in file order on one connection per client, through a real `strata serve` on the example
project (whose entities the corpus names), each with its bound parameters over the extended
protocol. `answer`, `semantic` and `session` (cursor) statements must be answered; `refuse X`
and `semantic-refuse X` ones refused with SQLSTATE X. The catalog test replays the catalog's share in-process; this is
the one that runs the entity-table and cursor statements for real.
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import psycopg
import pytest

import test_serve as serve_tests
from conftest import token_for

CORPUS = Path(__file__).resolve().parent / "corpus"


def blocks(path: Path):
    current = None
    for line in path.read_text().splitlines():
        if line.startswith("-- @statement"):
            if current:
                yield current
            current = {"expect": None, "params": [], "sql": [], "source": ""}
        elif current is None:
            continue
        elif line.startswith("-- expect:"):
            current["expect"] = line.split(":", 1)[1].strip()
        elif line.startswith("-- source:"):
            current["source"] = line.split(":", 1)[1].strip()
        elif line.startswith("-- param-null"):
            current["params"].append(None)
        elif line.startswith("-- param:"):
            current["params"].append(line.split(":", 1)[1][1:])
        elif line.startswith("-- ") and not current["sql"]:
            continue
        else:
            current["sql"].append(line)
    if current:
        yield current


@pytest.fixture(scope="module")
def example_server(strata_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus") / "shop"
    subprocess.run([strata_bin, "init", str(root), "--example", "--output", "json"], check=True,
                   capture_output=True, timeout=600)
    toml = (root / "strata.toml").read_text()
    assert 'jwt_secret_env = "STRATA_JWT_SECRET"' in toml
    toml = toml.replace('jwt_secret_env = "STRATA_JWT_SECRET"',
                        f'jwt_secret_env = "{serve_tests.SECRET_ENV}"\nsql_port = 0')
    (root / "strata.toml").write_text(toml)
    server = serve_tests.Server(strata_bin, root)
    deadline = time.monotonic() + 30
    while "sql" not in server.ports:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    yield server
    server.stop()


@pytest.mark.parametrize("client", sorted(path.stem for path in CORPUS.glob("*.sql")))
def test_corpus(example_server, client):
    connection = psycopg.connect(host="127.0.0.1", port=example_server.ports["sql"],
                                 user="analyst", dbname="strata", password=token_for(),
                                 sslmode="disable", autocommit=True)
    failures = []
    try:
        for block in blocks(CORPUS / f"{client}.sql"):
            sql = "\n".join(block["sql"]).strip().rstrip(";")
            expect = block["expect"]
            pgconn = connection.pgconn
            if block["params"]:
                result = pgconn.exec_params(sql.encode(), [
                    None if p is None else p.encode() for p in block["params"]])
            else:
                result = pgconn.exec_(sql.encode())
            ok = result.status in (psycopg.pq.ExecStatus.TUPLES_OK,
                                   psycopg.pq.ExecStatus.COMMAND_OK,
                                   psycopg.pq.ExecStatus.EMPTY_QUERY)
            state = (result.error_field(psycopg.pq.DiagnosticField.SQLSTATE) or b"").decode()
            message = (result.error_message or b"").decode()
            if expect.split()[0] in ("refuse", "semantic-refuse"):
                wanted = expect.split()[1]
                if ok or state != wanted:
                    failures.append((block["source"], sql[:120], f"wanted {wanted}, got "
                                     f"{'an answer' if ok else state + ' ' + message}"))
            elif not ok:
                failures.append((block["source"], sql[:120], f"{state} {message}"))
            if pgconn.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                pgconn.exec_(b"ROLLBACK")
    finally:
        connection.close()
    assert not failures, "\n".join(map(str, failures))
