"""pgjdbc (org.postgresql:postgresql, Java 17) against the SQL port: DatabaseMetaData and a
PreparedStatement (named after five runs, binary transfer for timestamps), compared with POST
/v1/query. The jar comes from scripts/sqlport_clients.sh (STRATA_PGJDBC_JAR)."""
from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import token_for

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    jar = os.environ.get("STRATA_PGJDBC_JAR")
    if not jar or not Path(jar).is_file():
        pytest.fail("STRATA_PGJDBC_JAR must name the pgjdbc jar (scripts/sqlport_clients.sh)",
                    pytrace=False)
    java_home = os.environ.get("STRATA_JAVA17_HOME", "")
    javac = str(Path(java_home) / "bin" / "javac") if java_home else shutil.which("javac")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    out = tmp_path_factory.mktemp("jdbc")
    subprocess.run([javac, "-d", str(out), "-cp", jar, str(HERE / "JdbcClient.java")],
                   check=True, capture_output=True, text=True)
    return [java, "-cp", f"{out}{os.pathsep}{jar}", "JdbcClient"]


def run(client, server, role="admin"):
    done = subprocess.run([*client, str(server.sql_port), token_for(role)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split("\t") for line in done.stdout.splitlines()]


def test_metadata_and_prepared_statements(client, server):
    lines = run(client, server)
    assert ["table", "Order"] in lines and ["table", "Customer"] in lines
    columns = {line[1]: line[2:] for line in lines if line[0] == "column"}
    assert columns["status"][0] == "text"
    assert columns["order_count"][0] == "int8"
    assert columns["revenue"][0] == "numeric"
    assert columns["order_date"][0] == "timestamptz"
    assert "strata" in [line[1] for line in lines if line[0] == "schema"]
    http = server.query({
        "measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
        "filters": [{"member": "Order.status", "op": "not_equals", "values": ["refunded"]},
                    {"member": "Order.order_date", "op": "gte", "values": ["2026-02-01"]}],
        "order": [{"member": "Order.status"}]}).json["rows"]
    for run_index in range(6):
        got = [line[1:] for line in lines if line[0] == f"row{run_index}"]
        assert [row[0] for row in got] == [row[0] for row in http]
        assert [float(row[1]) for row in got] == [float(row[1]) for row in http]
        assert [int(row[2]) for row in got] == [int(row[2]) for row in http]
    months = [line[1:] for line in lines if line[0] == "month"]
    http_months = server.query({"measures": ["Order.revenue"], "time_dimensions": [
        {"dimension": "Order.order_date", "grain": "month"}],
        "order": [{"member": "Order.order_date.month"}]}).json["rows"]
    assert [dt.datetime.fromisoformat(m[0].replace("Z", "+00:00")) for m in months] == [
        dt.datetime.fromisoformat(row[0].replace("Z", "+00:00")) for row in http_months]
    assert [float(m[1]) for m in months] == [float(row[1]) for row in http_months]


def test_role_isolation_in_metadata(client, server):
    lines = run(client, server, role="paid_only")
    assert ["table", "Order"] in lines and ["table", "Customer"] not in lines
