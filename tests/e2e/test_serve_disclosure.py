"""What the query port reveals (issue 39, item 3; spec/semantic.md "Serving"), over real HTTP.

With `[serve] expose_sql = false` (the default) no answer, error, hint or /v1/meta document names
a physical table or column, holds the model's SQL text or a row filter's values, a forced
warehouse failure included (it is answered by code and members, its text kept for the log); serve's
stderr never holds a token, the JWT secret or a row filter's value. With `expose_sql = true`
meta.sql and the storage in /v1/meta are there. And meta.rollup.missed lists, on a hit too, every
rollup not read (`costlier` for one that answers but reads more rows).

The project's physical names (schema, tables, columns, an entity over a SELECT, a measure filter)
are all spelled unlike any semantic name, so a leak is a plain substring.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from test_serve import SECRET, Server, bearer, serve_toml, token, write_toml

ZONE = "zone_secret_m1"  # the row filter's value: in the data, never in an answer
ENTITY_SQL = ("SELECT * FROM phys_vault.tbl_cust_k3 WHERE col_flag_p8 IS NOT TRUE")

MODEL = f"""\
entities:
  - name: Order
    table: phys_vault.tbl_ord_q7
    primary_key: col_pk_s6
    dimensions:
      - {{ name: order_id, type: number, sql: col_pk_s6 }}
      - {{ name: status, type: string, sql: col_state_w2 }}
      - {{ name: order_date, type: time, sql: col_when_v3 }}
    measures:
      - {{ name: revenue, agg: sum, sql: col_amt_z1 }}
      - {{ name: order_count, agg: count }}
      - {{ name: buyers, agg: count_distinct, sql: col_buyer_u4 }}
      - {{ name: paid_revenue, agg: sum, sql: col_amt_z1, filter: "col_state_w2 = 'paid'" }}
    relationships:
      - {{ name: customer, entity: Customer, type: many_to_one, foreign_key: col_buyer_u4,
          references: col_cust_pk_r7 }}
  - name: Customer
    sql: "{ENTITY_SQL}"
    primary_key: col_cust_pk_r7
    dimensions:
      - {{ name: customer_id, type: number, sql: col_cust_pk_r7 }}
      - {{ name: region, type: string, sql: col_zone_t5 }}
      # A number over text: the warehouse fails at run time, quoting the value it read.
      - {{ name: region_number, type: number, sql: "CAST(col_zone_t5 AS INTEGER)" }}
    measures:
      - {{ name: customer_count, agg: count }}

rollups:
  - name: by_day
    entity: Order
    dimensions: [status, {{ name: order_date, grain: day }}, customer.region]
    measures: [revenue, order_count]
  - name: by_status
    entity: Order
    dimensions: [status, customer.region]
    measures: [revenue, order_count]

data_roles:
  - name: admin
    access: all
  - name: analyst
    access:
      - {{ entity: Order, row_filter: {{ member: customer.region, op: equals, values: [{ZONE}] }} }}
      - {{ entity: Customer, row_filter: {{ member: region, op: equals, values: [{ZONE}] }} }}
"""

# Every physical name and SQL text of the model, and the row filter's value.
PHYSICAL = ["phys_vault", "tbl_ord_q7", "tbl_cust_k3", "col_pk_s6", "col_state_w2",
            "col_when_v3", "col_amt_z1", "col_buyer_u4", "col_cust_pk_r7", "col_zone_t5",
            "col_flag_p8", ENTITY_SQL, "col_state_w2 = 'paid'"]
FILTER_VALUES = [ZONE]

QUERIES = [
    {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"]},
    {"measures": ["Order.revenue"], "time_dimensions": [
        {"dimension": "Order.order_date", "grain": "month", "range": ["2026-01-01", "2026-03-01"]}]},
    {"measures": ["Order.buyers", "Order.paid_revenue"], "dimensions": ["Order.status"]},
    {"measures": ["Customer.customer_count"]},
]
BROKEN = {"measures": ["Customer.customer_count"], "dimensions": ["Customer.region_number"]}
REFUSED = [
    {"measures": ["Order.revnue"]},                                  # did you mean
    {"measures": ["Order.revenue"], "dimensions": ["Order.order_id"],
     "filters": [{"member": "Order.order_id", "op": "gt", "values": ["abc"]}]},
    {"measures": ["Order.revenue"], "dimensions": ["Customer.regoin"]},
]


def make_warehouse(path: Path) -> None:
    import duckdb
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE SCHEMA phys_vault")
        con.execute("CREATE TABLE phys_vault.tbl_cust_k3 (col_cust_pk_r7 INTEGER, "
                    "col_zone_t5 VARCHAR, col_flag_p8 BOOLEAN)")
        con.executemany("INSERT INTO phys_vault.tbl_cust_k3 VALUES (?, ?, ?)",
                        [(c, ZONE if c % 2 else "zone_open", c == 7) for c in range(1, 21)])
        con.execute("CREATE TABLE phys_vault.tbl_ord_q7 (col_pk_s6 INTEGER, col_buyer_u4 INTEGER, "
                    "col_state_w2 VARCHAR, col_amt_z1 DECIMAL(12, 2), col_when_v3 TIMESTAMP)")
        con.execute("""
            INSERT INTO phys_vault.tbl_ord_q7
            SELECT i, 1 + i % 20, ['paid', 'shipped'][1 + i % 2], i * 1.5,
                   TIMESTAMP '2026-01-01' + INTERVAL (i * 5) HOUR
            FROM range(1, 301) t(i)""")
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(strata_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("disclosure")
    (root / "semantic").mkdir()
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(MODEL)
    write_toml(root, serve_toml())
    make_warehouse(root / "warehouse.duckdb")
    completed = subprocess.run([strata_bin, "rollups", "build", "--project", str(root),
                                "--output", "json"], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return root


def exchanges(server: Server) -> list[tuple[str, object]]:
    """Every kind of request of the query port, as admin and as analyst: (what, Response)."""
    seen = [("healthz", server.request("GET", "/healthz")),
            ("readyz", server.request("GET", "/readyz")),
            ("404", server.request("GET", "/v1/nothing", headers=bearer("analyst")))]
    for role in ("admin", "analyst"):
        seen.append((f"meta {role}", server.request("GET", "/v1/meta", headers=bearer(role))))
        for query in QUERIES + REFUSED + [BROKEN]:
            seen.append((f"{role} {json.dumps(query)}", server.query(query, role=role)))
    return seen


def leaks(text: str, names) -> list[str]:
    return [name for name in names if name.lower() in text.lower()]


def test_the_query_port_names_no_table_column_sql_or_row_filter_value(strata_bin, built):
    server = Server(strata_bin, built)
    try:
        seen = exchanges(server)
        by_role = {role: server.query(QUERIES[0], role=role).json for role in ("admin", "analyst")}
    finally:
        assert server.stop() == 0
    for what, response in seen:
        assert not leaks(response.body.decode(), PHYSICAL + FILTER_VALUES), (what, response)
    answers = {what: r.json for what, r in seen if r.status == 200 and what.startswith(("admin {",
                                                                                       "analyst {"))}
    assert len(answers) == 2 * len(QUERIES), sorted(answers)
    assert all("sql" not in answer["meta"] for answer in answers.values())
    # The row filter applied: the analyst sees fewer orders than admin.
    assert by_role["analyst"]["rows"] != by_role["admin"]["rows"]
    # The forced warehouse failure: 502 by code and members, its text in the log only.
    failed = dict(seen)[f"analyst {json.dumps(BROKEN)}"]
    assert failed.status == 502 and failed.code.startswith("Warehouse"), failed
    assert "Customer.region_number" in failed.json["error"]["message"], failed
    logged = [json.loads(line) for line in server.lines if '"reference"' in line]
    assert any(line["reference"] in failed.json["error"]["hint"] and line.get("detail")
               for line in logged), (failed, logged)
    # serve's stderr: no token (every one starts with the same header part), no secret, no row
    # filter value.
    stderr = "\n".join(server.lines)
    assert not leaks(stderr, [token().split(".")[0], SECRET] + FILTER_VALUES), stderr


def test_with_expose_sql_the_query_port_shows_the_sql(strata_bin, built, tmp_path):
    import shutil
    root = tmp_path / "exposed"
    shutil.copytree(built, root)
    write_toml(root, serve_toml(expose_sql="true"))
    server = Server(strata_bin, root)
    try:
        answer = server.query(QUERIES[2], role="analyst")
        meta = server.request("GET", "/v1/meta", headers=bearer("analyst"))
        failed = server.query(BROKEN, role="analyst")
    finally:
        assert server.stop() == 0
    assert answer.status == 200, answer
    assert "tbl_ord_q7" in answer.json["meta"]["sql"] and ZONE in answer.json["meta"]["sql"]
    entities = {e["name"]: e for e in meta.json["entities"]}
    assert entities["Order"]["table"] == "phys_vault.tbl_ord_q7", entities
    assert entities["Customer"]["sql"] == ENTITY_SQL
    assert failed.status == 502 and "INT" in failed.json["error"]["message"], failed
    assert not leaks("\n".join(server.lines), [SECRET] + FILTER_VALUES), server.lines


def test_a_hit_lists_every_rollup_it_did_not_read(strata_bin, built):
    server = Server(strata_bin, built)
    try:
        by_status = server.query(QUERIES[0], role="analyst").json["meta"]["rollup"]
        by_month = server.query(QUERIES[1], role="analyst").json["meta"]["rollup"]
        live = server.query(QUERIES[2], role="analyst").json["meta"]["rollup"]
    finally:
        assert server.stop() == 0
    assert by_status == {"used": "by_status",
                         "missed": [{"rollup": "by_day", "reason": "costlier"}]}, by_status
    assert by_month["used"] == "by_day", by_month
    assert [m["rollup"] for m in by_month["missed"]] == ["by_status"], by_month
    assert by_month["missed"][0]["reason"] != "costlier", by_month
    assert "used" not in live and {m["rollup"] for m in live["missed"]} == {"by_day", "by_status"}
