"""A throw-away PostgreSQL server for the end-to-end tests, and a small reader/writer over psql.

The server comes from scripts/pg_test_server.sh (initdb into a folder under /tmp, 127.0.0.1 only, a
free port, trust authentication for the superuser `strata`). Each test gets its own database.
psql (postgresql-client, installed with the postgresql package) is the independent client: no
Python driver is needed.
"""
from __future__ import annotations

import csv
import glob
import io
import shutil
import subprocess
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "pg_test_server.sh"
NO_SERVER_BINARIES = 3  # pg_test_server.sh's exit status when PostgreSQL is not installed


def psql_bin() -> str:
    found = shutil.which("psql")
    if found:
        return found
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    if not candidates:
        raise RuntimeError("psql not found: install postgresql-client (scripts/setup.sh)")
    return candidates[-1]


class PgServer:
    def __init__(self, directory: str, dsn: str):
        self.directory = directory
        self.dsn = dsn  # the maintenance database `postgres`
        self._databases = 0

    @classmethod
    def start(cls) -> "PgServer | None":
        """A running server, or None when the server binaries are not installed."""
        directory = tempfile.mkdtemp(prefix="strata-pg-e2e-", dir="/tmp")
        completed = subprocess.run([str(SCRIPT), "start", directory], capture_output=True,
                                   text=True, timeout=180)
        if completed.returncode == NO_SERVER_BINARIES:
            shutil.rmtree(directory, ignore_errors=True)
            return None
        if completed.returncode != 0:
            raise RuntimeError(f"pg_test_server.sh start failed ({completed.returncode}):\n"
                               f"{completed.stdout}\n{completed.stderr}")
        return cls(directory, completed.stdout.strip().splitlines()[-1])

    def stop(self) -> None:
        subprocess.run([str(SCRIPT), "stop", self.directory], capture_output=True, timeout=120)
        shutil.rmtree(self.directory, ignore_errors=True)

    def create_database(self, prefix: str = "e2e") -> "PgDatabase":
        self._databases += 1
        name = f"{prefix}_{self._databases}"
        admin = PgDatabase(self.dsn)
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"')
        return PgDatabase(self.dsn.rsplit("/", 1)[0] + "/" + name)


class PgDatabase:
    def __init__(self, dsn: str):
        self.dsn = dsn

    def _psql(self, *args: str, sql: str) -> str:
        completed = subprocess.run(
            [psql_bin(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.dsn, *args],
            input=sql, capture_output=True, text=True, timeout=60)
        if completed.returncode != 0:
            raise AssertionError(f"psql failed ({completed.returncode}): {completed.stderr}\n{sql}")
        return completed.stdout

    def execute(self, *statements: str) -> None:
        """Runs each statement in its own transaction (CREATE DATABASE cannot be in one)."""
        self._psql(sql="".join(statement.rstrip().rstrip(";") + ";\n" for statement in statements))

    def query(self, sql: str) -> list[tuple]:
        """Rows as tuples of text (NULL as None)."""
        out = self._psql("--csv", "-t", "-P", "null=\\N", sql=sql.rstrip().rstrip(";") + ";\n")
        return [tuple(None if cell == "\\N" else cell for cell in row)
                for row in csv.reader(io.StringIO(out)) if row]

    def scalar(self, sql: str):
        rows = self.query(sql)
        assert len(rows) == 1 and len(rows[0]) == 1, rows
        return rows[0][0]

    def table_exists(self, schema: str, table: str) -> bool:
        return self.scalar("SELECT count(*) FROM information_schema.tables "
                           f"WHERE table_schema = '{schema}' AND table_name = '{table}'") == "1"
