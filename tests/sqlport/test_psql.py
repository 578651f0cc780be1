"""psql (Debian's) against the SQL port: the README's one-liner, \\dt and \\d, and a query whose
answer equals POST /v1/query's."""
from __future__ import annotations

import os
import subprocess

from conftest import token_for


def psql(server, *args, role="admin"):
    dsn = (f"host=127.0.0.1 port={server.sql_port} user=analyst dbname=strata "
           f"password={token_for(role)} sslmode=disable")
    return subprocess.run(["psql", dsn, "-X", "-v", "ON_ERROR_STOP=1", *args],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PGCONNECT_TIMEOUT": "10"})


def test_query_matches_http(server):
    done = psql(server, "-At", "-F", "|", "-c",
                'SELECT status, SUM(revenue) FROM strata."Order" GROUP BY status ORDER BY status')
    assert done.returncode == 0, done.stderr
    http = server.query({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
                         "order": [{"member": "Order.status"}]}).json["rows"]
    lines = done.stdout.strip().splitlines()
    assert [line.split("|")[0] for line in lines] == [row[0] for row in http]
    assert [float(line.split("|")[1]) for line in lines] == [float(row[1]) for row in http]


def test_dt_lists_the_roles_tables(server):
    admin = psql(server, "-c", r"\dt strata.*")
    assert admin.returncode == 0, admin.stderr
    for entity in ("Order", "Customer", "Slow", "Endless"):
        assert entity in admin.stdout
    paid = psql(server, "-c", r"\dt strata.*", role="paid_only")
    assert paid.returncode == 0, paid.stderr
    assert "Order" in paid.stdout and "Customer" not in paid.stdout


def test_d_describes_a_table(server):
    described = psql(server, "-c", r'\d strata."Order"')
    assert described.returncode == 0, described.stderr
    for column, kind in (("status", "text"), ("order_date", "timestamp with time zone"),
                         ("revenue", "numeric"), ("order_count", "bigint"),
                         ("customer__region", "text")):
        assert column in described.stdout, described.stdout
        line = next(line for line in described.stdout.splitlines() if f" {column} " in line)
        assert kind in line, line
