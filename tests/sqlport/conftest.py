"""Fixtures of the SQL port tests: a real `strata serve` with `[serve] sql_port` on the serve
tests' project (tests/e2e/test_serve.py: 600 orders in DuckDB, a built rollup, four data roles),
and the real clients scripts/sqlport_clients.sh installs (psql, psycopg 3, SQLAlchemy 2 with
pandas, pgjdbc on Java 17).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))

import test_serve as serve_tests  # noqa: E402  (the serve tests' project, tokens and Server)


@pytest.fixture(scope="session")
def strata_bin() -> str:
    path = os.environ.get("STRATA_BIN")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("STRATA_BIN must name the strata binary", pytrace=False)
    return os.path.abspath(path)


def make_tls_files(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1/localhost, made with the openssl CLI."""
    cert, key = folder / "server.crt", folder / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.fixture(scope="session")
def sql_project(strata_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("sqlport")
    (root / "semantic").mkdir()
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(serve_tests.MODEL_YAML)
    cert, key = make_tls_files(root)
    serve_tests.write_toml(root, serve_tests.serve_toml(
        sql_port=0, tls_cert_file=f'"{cert.name}"', tls_key_file=f'"{key.name}"',
        request_timeout_ms=120000))
    serve_tests.make_warehouse(root / "warehouse.duckdb")
    built = subprocess.run([strata_bin, "rollups", "build", "--project", str(root), "--output",
                            "json"], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    return root


@pytest.fixture(scope="session")
def server(strata_bin, sql_project):
    running = serve_tests.Server(strata_bin, sql_project)
    import time
    deadline = time.monotonic() + 30
    while "sql" not in running.ports:
        assert time.monotonic() < deadline, "no SQL port:\n" + "\n".join(running.lines)
        time.sleep(0.02)
    running.sql_port = running.ports["sql"]
    yield running
    running.stop()


def token_for(role: str = "admin", seconds: int = 600) -> str:
    import time
    return serve_tests.token({"role": role, "exp": int(time.time()) + seconds})
