"""The rollup advisor (issue 44) end to end: `POST /v1/rollups/advise` on serve's query port,
`strata rollups advise --query` and `--from-log`, and the access log's query shapes they read.

The advice is checked by its effect, not by its text: the YAML it prints is appended to the
model's `rollups:` block, `strata rollups build` builds it, and the same queries are then answered
from the advised rollups (`meta.rollup.used`) with the rows the warehouse gave live before.

The project is built here: 200,000 orders over the first half of 2026 (so that a live query takes
a few milliseconds, which the --from-log ranking weighs) and 300 customers in three regions, a
model with no rollups, and the roles of test_serve.py (north_analyst's rows are filtered by
customer.region, paid_only's by status, and paid_only may not read Customer). Tokens are signed
with hmac/hashlib (test_serve.py), independently of strata's JWT code.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from test_serve import SECRET, Server, bearer, serve_toml, token, write_toml

MODEL_YAML = """\
entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: order_date, type: time, sql: order_at }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: customers, agg: count_distinct, sql: customer_id }
      - { name: customers_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: p90_amount, agg: p90, sql: amount }
    metrics:
      - { name: average_order_value, expr: revenue / order_count }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: region, type: string }
      - { name: segment, type: string }
    measures:
      - { name: customer_count, agg: count }

data_roles:
  - name: admin
    access: all
  - name: north_analyst
    access:
      - { entity: Order, row_filter: { member: customer.region, op: equals, values: [north] } }
      - { entity: Customer, row_filter: { member: region, op: equals, values: [north] } }
  - name: paid_only
    access:
      - { entity: Order, row_filter: { member: status, op: equals, values: [paid] } }
"""

ORDERS = 200_000


def make_warehouse(path: Path) -> None:
    import duckdb
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE SCHEMA raw")
        con.execute("""
            CREATE TABLE raw.customers AS
            SELECT c AS customer_id, ['north', 'south', 'east'][1 + c % 3] AS region,
                   CASE WHEN c % 2 = 0 THEN 'enterprise' ELSE 'smb' END AS segment
            FROM range(1, 301) t(c)""")
        # One order every 75 s from 2026-01-01: the data ends in late June 2026.
        con.execute(f"""
            CREATE TABLE raw.orders AS
            SELECT i AS order_id, CAST(1 + (i * 7) % 300 AS INTEGER) AS customer_id,
                   ['paid', 'shipped', 'refunded'][1 + (i // 7) % 3] AS status,
                   CAST(CAST(10 + (i * 37) % 500 AS DECIMAL(12, 2)) / 4 AS DECIMAL(12, 2))
                       AS amount,
                   TIMESTAMP '2026-01-01' + INTERVAL (i * 75) SECOND AS order_at
            FROM range(1, {ORDERS + 1}) t(i)""")
    finally:
        con.close()


@pytest.fixture(scope="module")
def base(strata_bin, tmp_path_factory) -> Path:
    """The project with no rollups (copied by the tests that change its model or build)."""
    root = tmp_path_factory.mktemp("advisor") / "base"
    (root / "semantic").mkdir(parents=True)
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(MODEL_YAML)
    write_toml(root, serve_toml(result_cache_bytes=0))
    make_warehouse(root / "warehouse.duckdb")
    return root


@pytest.fixture(scope="module")
def server(strata_bin, base):
    running = Server(strata_bin, base)
    yield running
    assert running.stop() == 0


@pytest.fixture
def copy(base, tmp_path):
    def make(name="proj") -> Path:
        root = tmp_path / name
        shutil.copytree(base, root)
        return root
    return make


# ----- helpers ------------------------------------------------------------------------------------

def advise(server, query, role="admin", **kwargs):
    return server.request("POST", "/v1/rollups/advise", query, bearer(role), **kwargs)


def strata(strata_bin, *args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([strata_bin, *args], capture_output=True, text=True, timeout=timeout)


def build(strata_bin, root: Path) -> dict:
    built = strata(strata_bin, "rollups", "build", "--project", str(root), "--output", "json")
    assert built.returncode == 0, built.stdout + built.stderr
    return json.loads(built.stdout) if built.stdout.strip() else {}


def add_rollups(root: Path, yaml_text: str) -> None:
    """Appends the advice's `rollups:` YAML to the model: the whole block when the model has no
    `rollups:` key, else its list items at the end of the block (which ends at `data_roles:`)."""
    assert yaml_text.startswith("rollups:\n"), yaml_text
    model = root / "semantic" / "model.yml"
    text = model.read_text()
    cut = text.index("\ndata_roles:") + 1
    if "\nrollups:" in text:
        block = yaml_text[len("rollups:\n"):]
    else:
        block = yaml_text
    model.write_text(text[:cut] + block.rstrip("\n") + "\n\n" + text[cut:])


def yaml_block(human: str) -> str:
    """The `rollups:` block of a human output (comment lines before it dropped)."""
    start = human.index("rollups:\n")
    return human[start:]


def close(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def sort_key(row):
    return json.dumps([round(v, 6) if isinstance(v, float) else v for v in row], default=str)


def same_answer(before: dict, after: dict) -> bool:
    if before["columns"] != after["columns"] or len(before["rows"]) != len(after["rows"]):
        return False
    return all(len(x) == len(y) and all(close(a, b) for a, b in zip(x, y))
               for x, y in zip(sorted(before["rows"], key=sort_key),
                               sorted(after["rows"], key=sort_key)))


def used(answer: dict):
    return answer["meta"]["rollup"].get("used")


def wait_for(predicate, what: str, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def reloads(server) -> list[dict]:
    return [json.loads(line) for line in list(server.lines) if '"event":"reload"' in line]


def month(start: str, end: str, dimension="Order.order_date", grain="month") -> dict:
    return {"dimension": dimension, "grain": grain, "range": [start, end]}


# A live query of every kind the advisor stores exactly: sums, a count, an avg, a joined
# dimension, a month grain over a month-aligned range.
REVENUE_BY_MONTH = {
    "measures": ["Order.revenue", "Order.order_count", "Order.avg_amount"],
    "dimensions": ["Order.status", "Customer.region"],
    "time_dimensions": [month("2026-02-01", "2026-05-01")],
}
# Sketched measures and a metric, for north_analyst too (it names customer.region).
SKETCHED = {
    "measures": ["Order.customers_approx", "Order.p90_amount", "Order.average_order_value"],
    "dimensions": ["Customer.region"],
    "time_dimensions": [{"dimension": "Order.order_date", "grain": "week"}],
}


# ----- POST /v1/rollups/advise --------------------------------------------------------------------

def test_advised_rollup_answers_the_query_once_built(strata_bin, copy):
    """The issue's loop: a live query, its advice from the endpoint, the YAML into the model (the
    server reloads it), `strata rollups build`, and the same query is answered from the advised
    rollup with the live rows."""
    root = copy()
    server = Server(strata_bin, root)
    try:
        live = server.query(REVENUE_BY_MONTH)
        assert live.status == 200, live
        assert used(live.json) is None, live.json["meta"]
        assert live.json["rows"], "the live answer is empty: the test data does not cover it"

        response = advise(server, REVENUE_BY_MONTH)
        assert response.status == 200, response
        advice = response.json
        assert advice["answers"] is True, advice
        assert advice["unanswerable"] == [], advice
        assert len(advice["rollups"]) == 1, advice
        rollup = advice["rollups"][0]
        assert rollup["entity"] == "Order"
        names = {d for d in rollup["dimensions"] if isinstance(d, str)}
        assert {"status", "customer.region"} <= names, rollup
        assert {"name": "order_date", "grain": "month"} in rollup["dimensions"], rollup
        assert {"revenue", "order_count"} <= set(rollup["measures"]), rollup
        assert rollup["name"] in advice["yaml"] and advice["yaml"].startswith("rollups:\n")

        seen = len(reloads(server))
        add_rollups(root, advice["yaml"])
        wait_for(lambda: len(reloads(server)) > seen, "the reload of the model with the advice")
        assert reloads(server)[-1]["ok"] is True, reloads(server)[-1]
        build(strata_bin, root)
        # The build publishes a manifest: the next query switches to it (no restart).
        def from_rollup():
            response = server.query(REVENUE_BY_MONTH)
            return response if used(response.json) else None
        served = wait_for(from_rollup, "the query to be answered from the advised rollup",
                          timeout=30)
        assert served.status == 200
        assert used(served.json) == rollup["name"], served.json["meta"]
        assert same_answer(live.json, served.json), (live.json["rows"][:5], served.json["rows"][:5])
    finally:
        assert server.stop() == 0
    # A fresh server over the same store answers it from the rollup too.
    again = Server(strata_bin, root)
    try:
        answer = again.query(REVENUE_BY_MONTH)
        assert used(answer.json) == rollup["name"], answer.json["meta"]
        assert same_answer(live.json, answer.json)
    finally:
        assert again.stop() == 0


def test_advise_refusals(server):
    query = {"measures": ["Order.revenue"], "dimensions": ["Order.status"]}
    unauthenticated = server.request("POST", "/v1/rollups/advise", query)
    assert unauthenticated.status == 401, unauthenticated
    assert unauthenticated.code == "Unauthenticated", unauthenticated
    bad_token = server.request("POST", "/v1/rollups/advise", query,
                               {"Authorization": "Bearer " + token(secret="not-the-secret-" * 4)})
    assert bad_token.status == 401, bad_token

    bad = advise(server, {"measures": ["Order.no_such_measure"]})
    assert bad.status == 400 and bad.code == "QueryInvalid", bad
    error = bad.json["error"]
    assert error["message"] and error["hint"], error
    assert "no_such_measure" in json.dumps(error), error
    malformed = advise(server, "{not json")
    assert malformed.status == 400 and malformed.code == "QueryInvalid", malformed

    # paid_only may not read Customer: refused as POST /v1/query refuses it.
    denied = advise(server, {"measures": ["Customer.customer_count"]}, role="paid_only")
    assert denied.status == 403 and denied.code == "AccessDenied", denied
    assert server.query({"measures": ["Customer.customer_count"]}, role="paid_only").status == 403
    unknown_role = advise(server, query, role="superuser")
    assert unknown_role.status == 403 and unknown_role.code == "AccessDenied", unknown_role

    wrong_method = server.request("GET", "/v1/rollups/advise", headers=bearer())
    assert wrong_method.status == 405 and wrong_method.code == "MethodNotAllowed", wrong_method
    assert wrong_method.headers.get("Allow") == "POST", wrong_method.headers


def test_row_filtered_role_is_not_advised_a_rollup_that_reveals_its_filter(server, base,
                                                                             strata_bin, tmp_path):
    """north_analyst's rows are filtered by customer.region: a query that does not name it gets no
    rollup (one would have to store region, which the advisor never adds), and the answer does
    not say which member filters the role."""
    query = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
             "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]}
    response = advise(server, query, role="north_analyst")
    assert response.status == 200, response
    advice = response.json
    assert advice["answers"] is False, advice
    assert any(u["reason"] == "row_security" for u in advice["unanswerable"]), advice
    assert "region" not in response.body.decode().lower(), advice
    assert "north" not in response.body.decode().lower(), advice
    # The same from the CLI.
    path = tmp_path / "q.json"
    path.write_text(json.dumps(query))
    cli = strata(strata_bin, "rollups", "advise", "--project", str(base), "--query", str(path),
                 "--role", "north_analyst", "--output", "json")
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert json.loads(cli.stdout) == advice
    assert "region" not in cli.stdout.lower()
    # Naming customer.region makes it answerable for the role; admin is advised a rollup for the
    # query as it is.
    named = advise(server, {**query, "dimensions": ["Order.status", "Customer.region"]},
                   role="north_analyst").json
    assert named["answers"] is True and named["rollups"], named
    assert advise(server, query).json["answers"] is True


# ----- the access log -----------------------------------------------------------------------------

def test_the_access_log_has_query_shapes_and_no_values(server):
    status_value = "zq-status-probe-8813"
    region_value = "zq-region-probe-5527"
    order_id = 987654321
    probe_token = token({"role": "admin", "exp": int(time.time()) + 600,
                         "jti": "zq-jti-probe-3141"})
    queries = [
        {"measures": ["Order.revenue", "Order.p90_amount"], "dimensions": ["Order.status"],
         "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                              "range": ["2026-01-07", "2026-03-19"]}],
         "filters": [{"member": "Order.status", "op": "equals", "values": [status_value]},
                     {"or": [{"member": "Order.order_id", "op": "gt", "values": [order_id]},
                             {"not": {"member": "Customer.region", "op": "equals",
                                      "values": [region_value]}}]}]},
        {"measures": ["Order.order_count"], "dimensions": ["Customer.segment"],
         "time_dimensions": [{"dimension": "Order.order_date", "grain": "week",
                              "range": ["2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z"]}],
         "order": [{"member": "Order.order_count", "desc": True}], "limit": 3},
    ]
    before = len(server.lines)
    for query in queries:
        response = server.request("POST", "/v1/query", query,
                                  {"Authorization": "Bearer " + probe_token})
        assert response.status == 200, response
    wait_for(lambda: len([e for e in server.access_log() if e.get("route") == "/v1/query"]) >= 2
             and len(server.lines) >= before + 2, "the access log lines")
    time.sleep(0.2)
    log_text = "\n".join(server.lines)
    for value in (status_value, region_value, str(order_id), "2026-01-07", "2026-03-19",
                  "2026-02-01", "2026-04-01", probe_token, probe_token.split(".")[1],
                  "zq-jti-probe", SECRET):
        assert value not in log_text, f"{value!r} is in serve's stderr"
    lines = [e for e in server.access_log() if e.get("route") == "/v1/query"
             and e.get("method") == "POST"]
    assert all("query" in e for e in lines if e["status"] == 200), \
        [e for e in lines if e["status"] == 200 and "query" not in e]
    first, second = [e["query"] for e in lines[-2:]]
    assert first["measures"] == ["Order.revenue", "Order.p90_amount"], first
    assert first["dimensions"] == ["Order.status"], first
    (time_dimension,) = first["time_dimensions"]
    assert time_dimension["dimension"] == "Order.order_date" and time_dimension["grain"] == "day"
    assert time_dimension["range"] == "day", time_dimension
    text = json.dumps(first["filters"])
    for member, op in (("Order.status", "equals"), ("Order.order_id", "gt"),
                       ("Customer.region", "equals")):
        assert member in text and op in text, first["filters"]
    assert '"or"' in text and '"not"' in text, first["filters"]
    assert "values" not in text, first["filters"]
    assert second["time_dimensions"][0]["range"] == "month", second
    assert second["measures"] == ["Order.order_count"], second
    assert second["dimensions"] == ["Customer.segment"], second
    for key in ("order", "limit", "offset"):
        assert key not in second, second


# ----- strata rollups advise --query --------------------------------------------------------------

def test_cli_advise_query_yaml_loads_and_json_equals_the_endpoint(server, base, copy, strata_bin,
                                                                  tmp_path):
    path = tmp_path / "q.json"
    path.write_text(json.dumps(SKETCHED))
    for role in ("admin", "north_analyst"):
        cli = strata(strata_bin, "rollups", "advise", "--project", str(base), "--query",
                     str(path), "--role", role, "--output", "json")
        assert cli.returncode == 0, cli.stdout + cli.stderr
        http = advise(server, SKETCHED, role=role)
        assert http.status == 200, http
        assert json.loads(cli.stdout) == http.json, role
        assert http.json["answers"] is True, http.json
        sketches = set(http.json["rollups"][0]["sketches"])
        assert sketches >= {"customers_approx", "p90_amount"}, http.json

    human = strata(strata_bin, "rollups", "advise", "--project", str(base), "--query", str(path),
                   "--output", "human")
    assert human.returncode == 0, human.stdout + human.stderr
    assert human.stdout.startswith("rollups:\n"), human.stdout
    assert human.stdout == http_yaml(server, SKETCHED)
    # The YAML loads in the model, builds, and answers the query.
    root = copy("cli")
    add_rollups(root, human.stdout)
    build(strata_bin, root)
    answer = strata(strata_bin, "query", json.dumps(SKETCHED), "--project", str(root),
                    "--output", "json")
    assert answer.returncode == 0, answer.stdout + answer.stderr
    assert used(json.loads(answer.stdout)), json.loads(answer.stdout)["meta"]

    usage = strata(strata_bin, "rollups", "advise", "--project", str(base), "--output", "json")
    assert usage.returncode != 0, usage.stdout


def http_yaml(server, query, role="admin") -> str:
    return advise(server, query, role=role).json["yaml"]


# ----- strata rollups advise --from-log -----------------------------------------------------------

BY_STATUS = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
             "time_dimensions": [month("2026-01-01", "2026-04-01")]}
BY_SEGMENT = {"measures": ["Customer.customer_count"], "dimensions": ["Customer.segment"]}
NORTH_DAYS = {"measures": ["Order.revenue"], "dimensions": ["Customer.region"],
              "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                                   "range": ["2026-03-02", "2026-03-09"]}]}
# (role, query, repetitions): three shapes, each needing its own rollup.
LOGGED = [("admin", BY_STATUS, 6), ("north_analyst", NORTH_DAYS, 2), ("admin", BY_SEGMENT, 1)]


def test_advise_from_log_ranks_by_live_time_and_its_advice_answers_them(strata_bin, copy,
                                                                       tmp_path):
    root = copy("fromlog")
    server = Server(strata_bin, root)
    live = {}
    try:
        for role, query, times in LOGGED:
            for _ in range(times):
                response = server.query(query, role=role)
                assert response.status == 200, response
                assert used(response.json) is None
                live[(role, json.dumps(query))] = response.json
    finally:
        assert server.stop() == 0
    log = tmp_path / "serve.log"
    log.write_text("\n".join(server.lines) + "\n")

    # The log's own numbers per shape: what each proposal must report.
    requests = [e for e in server.access_log() if e.get("route") == "/v1/query"]
    assert len(requests) == sum(times for _, _, times in LOGGED)
    assert all(e["rollup"] == "live" and "query" in e for e in requests), requests
    groups = {}
    for e in requests:
        key = (e["role"], json.dumps(e["query"], sort_keys=True))
        queries, ms = groups.get(key, (0, 0))
        groups[key] = (queries + 1, ms + e["duration_ms"])
    assert len(groups) == 3, groups

    result = strata(strata_bin, "rollups", "advise", "--project", str(root), "--from-log",
                    str(log), "--output", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    advice = json.loads(result.stdout)
    assert advice["live_queries"] == len(requests) and advice["skipped"] == 0, advice
    assert advice["live_ms"] == sum(e["duration_ms"] for e in requests), advice
    rollups = advice["rollups"]
    assert len(rollups) == 3, advice  # the default top is 3
    # Each proposal answers one shape: its queries, time and role are that shape's.
    got = sorted((r["queries"], r["live_ms"], tuple(r["roles"])) for r in rollups)
    assert got == sorted((q, ms, (role,)) for (role, _), (q, ms) in groups.items()), (got, groups)
    # Greedy by live time: best first.
    assert [r["live_ms"] for r in rollups] == sorted((r["live_ms"] for r in rollups), reverse=True)
    assert "build_range" not in advice["yaml"] and all("build_range" not in r for r in rollups)
    by_entity = {r["entity"] for r in rollups}
    assert by_entity == {"Order", "Customer"}, rollups

    top1 = strata(strata_bin, "rollups", "advise", "--project", str(root), "--from-log", str(log),
                  "--top", "1", "--output", "json")
    assert top1.returncode == 0, top1.stdout + top1.stderr
    assert json.loads(top1.stdout)["rollups"] == rollups[:1]

    human = strata(strata_bin, "rollups", "advise", "--project", str(root), "--from-log",
                   str(log), "--output", "human")
    assert human.returncode == 0, human.stdout + human.stderr
    assert yaml_block(human.stdout) == advice["yaml"]

    add_rollups(root, advice["yaml"])
    build(strata_bin, root)
    server = Server(strata_bin, root)
    try:
        names = {r["name"] for r in rollups}
        for role, query, _ in LOGGED:
            answer = server.query(query, role=role)
            assert answer.status == 200, answer
            assert used(answer.json) in names, (role, query, answer.json["meta"])
            assert same_answer(live[(role, json.dumps(query))], answer.json), (role, query)
    finally:
        assert server.stop() == 0
