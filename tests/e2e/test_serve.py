"""`strata serve`, the query port, driven over real HTTP on 127.0.0.1 (stdlib http.client, no
client library): every route and status, JWT refusals, roles' row filters on rollup and live
answers, HTTP answers equal to `strata query --output json`, the limits (body size, header size,
request timeout, the concurrency cap and its queue), the access log and a SIGTERM drain.

The project is small and built here (a few hundred orders in DuckDB, one rollup built once per
module), plus an entity over a view that computes an md5 per row of a large range(): the
"slow" query that holds a query slot long enough to probe the limits, and that the request
timeout cancels. Tokens are signed here with hmac/hashlib, independently of strata's JWT code.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import os
import signal
import subprocess
import textwrap
import threading
import time
from pathlib import Path

import pytest

SECRET_ENV = "STRATA_E2E_JWT_SECRET"
SECRET = "e2e-serve-secret-that-is-long-enough-0123456789"
START_TIMEOUT = 60
# The slow entity's rows: enough md5 work to take a second or more on the 2-core machine. Tests
# that run it raise request_timeout_ms far above its duration (no timing thresholds).
SLOW_ROWS = 10_000_000

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
  - name: Slow
    table: raw.slow
    primary_key: id
    dimensions:
      - { name: id, type: number }
      - { name: bucket, type: number }
    measures:
      - { name: digest_sum, agg: sum, sql: digest }
  - name: Endless
    table: raw.endless
    dimensions:
      - { name: bucket, type: number }
    measures:
      - { name: digest_sum, agg: sum, sql: digest }

rollups:
  - name: daily_orders
    entity: Order
    dimensions:
      - status
      - { name: order_date, grain: day }
      - customer.region
    measures: [revenue, order_count]
    partition:
      by: month

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

REGIONS = ["north", "south", "east"]
STATUSES = ["paid", "shipped", "refunded"]


def make_warehouse(path: Path) -> None:
    import duckdb
    con = duckdb.connect(str(path))
    try:
        con.execute("CREATE SCHEMA raw")
        con.execute("CREATE TABLE raw.customers (customer_id INTEGER, region VARCHAR, "
                    "segment VARCHAR)")
        con.executemany("INSERT INTO raw.customers VALUES (?, ?, ?)",
                        [(c, REGIONS[c % 3], "smb" if c % 2 else "enterprise")
                         for c in range(1, 31)])
        con.execute("CREATE TABLE raw.orders (order_id INTEGER, customer_id INTEGER, "
                    "status VARCHAR, amount DECIMAL(12, 2), order_at TIMESTAMP)")
        con.execute("""
            INSERT INTO raw.orders
            SELECT i, 1 + (i * 7) % 30, ['paid', 'shipped', 'refunded'][1 + i % 3],
                   CAST(10 + (i * 37) % 500 AS DECIMAL(12, 2)) / 4,
                   TIMESTAMP '2026-01-01' + INTERVAL (i * 7) HOUR
            FROM range(1, 601) t(i)""")
        con.execute(f"""
            CREATE VIEW raw.slow AS
            SELECT r AS id, r % 3 AS bucket, hash(md5(CAST(r AS VARCHAR))) % 1000 AS digest
            FROM range({SLOW_ROWS}) t(r)""")
        # Minutes of md5 work: only ever cancelled by the request timeout.
        con.execute("""
            CREATE VIEW raw.endless AS
            SELECT r % 3 AS bucket, hash(md5(CAST(r AS VARCHAR))) % 1000 AS digest
            FROM range(100000000000) t(r)""")
    finally:
        con.close()


def write_toml(root: Path, serve: str) -> None:
    (root / "strata.toml").write_text(
        '[project]\nname = "serve"\n\n[warehouse]\ntype = "duckdb"\npath = "warehouse.duckdb"\n\n'
        + serve)


def serve_toml(**limits) -> str:
    lines = ["[serve]", f'jwt_secret_env = "{SECRET_ENV}"']
    lines += [f"{key} = {value}" for key, value in limits.items()]
    return "\n".join(lines) + "\n"


# ----- tokens (independent of strata's implementation) --------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(claims: dict | None = None, header: dict | None = None, secret: str = SECRET,
          sign: bool = True) -> str:
    header = header if header is not None else {"alg": "HS256", "typ": "JWT"}
    claims = claims if claims is not None else {"role": "admin", "exp": int(time.time()) + 600}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + (b64url(signature) if sign else "")


def bearer(role: str = "admin", **claims) -> dict:
    return {"Authorization": "Bearer " + token({"role": role, "exp": int(time.time()) + 600,
                                                **claims})}


# ----- the server -------------------------------------------------------------------------------

class Response:
    def __init__(self, status: int, headers, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def code(self):
        return self.json["error"]["code"]

    def __repr__(self):
        return f"<{self.status} {self.body[:400]!r}>"


class Server:
    """`strata serve --port 0` on a project; the port comes from the "listening" log line."""

    def __init__(self, strata_bin: str, root: Path, extra_args=(), env=None):
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [strata_bin, "serve", "--project", str(root), "--port", "0", *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, SECRET_ENV: SECRET, **(env or {})})
        self.port = None   # the query port
        self.ports = {}    # {"query": port, "control": port}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + START_TIMEOUT
        while self.port is None:
            if self.process.poll() is not None:
                self._reader.join(5)
                raise AssertionError(f"strata serve exited {self.process.returncode}:\n"
                                     + "\n".join(self.lines))
            assert time.monotonic() < deadline, "strata serve did not start:\n" + "\n".join(self.lines)
            time.sleep(0.02)

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "listening":
                self.ports[event.get("api", "query")] = event["port"]
                if event.get("api", "query") == "query":
                    self.port = event["port"]

    def request(self, method: str, path: str, body=None, headers=None, timeout=120,
                api: str = "query") -> Response:
        connection = http.client.HTTPConnection("127.0.0.1", self.ports[api], timeout=timeout)
        try:
            data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
            connection.request(method, path, body=data, headers=headers or {})
            response = connection.getresponse()
            return Response(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def query(self, query, role="admin", **kwargs) -> Response:
        return self.request("POST", "/v1/query", query, bearer(role), **kwargs)

    def access_log(self) -> list[dict]:
        entries = []
        for line in list(self.lines):
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "request":
                entries.append(event)
        return entries

    def stop(self, sig=signal.SIGTERM, timeout=60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        code = self.process.wait(timeout)
        self._reader.join(5)
        return code

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture(scope="module")
def project(strata_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    (root / "semantic").mkdir()
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(MODEL_YAML)
    write_toml(root, serve_toml())
    make_warehouse(root / "warehouse.duckdb")
    built = subprocess.run([strata_bin, "rollups", "build", "--project", str(root), "--output",
                            "json"], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    return root


@pytest.fixture()
def limited(project, tmp_path):
    """A copy of the project (its warehouse file and rollup store included) whose [serve] table
    the test writes: configure(max_body_bytes=1024) returns the copy's folder."""
    import shutil
    root = tmp_path / "limited"
    shutil.copytree(project, root)

    def configure(**limits):
        write_toml(root, serve_toml(**limits))
        return root
    return configure


@pytest.fixture(scope="module")
def server(strata_bin, project):
    running = Server(strata_bin, project)
    yield running
    assert running.stop() == 0


def cli_query(strata_bin, root: Path, query: dict, role: str) -> dict:
    completed = subprocess.run([strata_bin, "query", json.dumps(query), "--project", str(root),
                                "--role", role, "--output", "json"],
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads(completed.stdout)


def without_duration(answer: dict) -> dict:
    meta = dict(answer["meta"])
    meta.pop("duration_ms", None)
    return {**answer, "meta": meta}


SLOW_QUERY = {"measures": ["Slow.digest_sum"], "dimensions": ["Slow.bucket"]}
FAST_QUERY = {"measures": ["Order.order_count"]}

QUERIES = [
    {"measures": ["Order.revenue"], "dimensions": ["Order.status"]},
    {"measures": ["Order.revenue", "Order.order_count"],
     "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]},
    {"measures": ["Order.revenue"], "dimensions": ["Customer.region"],
     "time_dimensions": [{"dimension": "Order.order_date", "grain": "week",
                          "range": ["2026-01-05", "2026-02-02"]}]},
    {"measures": ["Order.order_count"], "dimensions": ["Order.status"],
     "filters": [{"member": "Order.status", "op": "equals", "values": ["paid", "refunded"]}]},
    {"measures": ["Order.average_order_value"], "dimensions": ["Customer.region"],
     "order": [{"member": "Order.average_order_value", "desc": True}]},
    {"measures": ["Order.revenue"], "dimensions": ["Order.status"],
     "order": [{"member": "Order.revenue", "desc": True}], "limit": 2},
    {"measures": ["Order.avg_amount"], "dimensions": ["Order.status"]},
    {"measures": ["Order.customers"], "dimensions": ["Customer.region"]},
    {"measures": ["Order.revenue"], "dimensions": ["Customer.segment"]},
    {"measures": ["Customer.customer_count"], "dimensions": ["Customer.region"]},
    {"measures": ["Order.revenue"],
     "filters": [{"member": "Order.revenue", "op": "gt", "values": [100]}],
     "dimensions": ["Order.status"]},
    {"measures": ["Order.order_count"],
     "time_dimensions": [{"dimension": "Order.order_date", "grain": "day",
                          "range": ["2026-01-10", "2026-01-13"]}]},
]


# ----- routes and statuses ----------------------------------------------------------------------

def test_health_and_readiness_need_no_token(server):
    listening = json.loads(server.lines[0])
    assert listening["event"] == "listening" and listening["host"] == "127.0.0.1"
    health = server.request("GET", "/healthz")
    assert health.status == 200 and health.json == {"status": "ok"}
    ready = server.request("GET", "/readyz")
    assert ready.status == 200 and ready.json["status"] == "ready", ready


def test_readyz_is_503_when_the_warehouse_is_unreachable(strata_bin, limited):
    root = limited()
    (root / "warehouse.duckdb").unlink()
    running = Server(strata_bin, root)
    try:
        ready = running.request("GET", "/readyz")
        assert ready.status == 503 and ready.code == "WarehouseConnection", ready
        assert running.request("GET", "/healthz").status == 200
    finally:
        assert running.stop() == 0


@pytest.mark.parametrize("method,path", [
    ("POST", "/v1/hooks/rollups/rebuild"), ("GET", "/v1/rollups"), ("GET", "/v1/rollups/jobs/1"),
    ("GET", "/"), ("GET", "/v1/querys"), ("POST", "/v1/query/extra")])
def test_unknown_and_control_routes_are_404(server, method, path):
    response = server.request(method, path, body="{}" if method == "POST" else None,
                              headers=bearer())
    assert response.status == 404, response
    assert response.code == "RouteNotFound"
    assert set(response.json["error"]) == {"code", "message", "hint"}


@pytest.mark.parametrize("method,path,allow", [
    ("GET", "/v1/query", "POST"), ("PUT", "/v1/query", "POST"), ("DELETE", "/v1/meta", "GET, HEAD"),
    ("POST", "/healthz", "GET, HEAD")])
def test_wrong_method_is_405(server, method, path, allow):
    response = server.request(method, path, body="{}" if method in ("POST", "PUT") else None)
    assert response.status == 405, response
    assert response.code == "MethodNotAllowed"
    assert response.headers.get("Allow") == allow


def test_bad_queries_are_400(server):
    for body in ["{", "[]", json.dumps({"measures": ["Order.revnue"]}),
                 json.dumps({"measures": ["Order.revenue"], "limit": -1}), ""]:
        response = server.request("POST", "/v1/query", body, bearer())
        assert response.status == 400, (body, response)
        assert response.code == "QueryInvalid", response
        assert response.json["error"]["message"]


def test_meta_lists_what_the_role_may_read(server):
    admin = server.request("GET", "/v1/meta", headers=bearer("admin"))
    assert admin.status == 200, admin
    assert {e["name"] for e in admin.json["entities"]} == {"Order", "Customer", "Slow", "Endless"}
    assert [r["name"] for r in admin.json["rollups"]] == ["daily_orders"]
    paid = server.request("GET", "/v1/meta", headers=bearer("paid_only"))
    assert paid.status == 200
    assert [e["name"] for e in paid.json["entities"]] == ["Order"]
    assert paid.json["data_roles"] == ["paid_only"]
    assert server.request("GET", "/v1/meta").status == 401
    unknown = server.request("GET", "/v1/meta", headers=bearer("guest"))
    assert unknown.status == 403 and unknown.code == "AccessDenied"


# ----- the same answers as strata query ---------------------------------------------------------

@pytest.mark.parametrize("index", range(len(QUERIES)))
def test_http_answers_equal_strata_query(server, strata_bin, project, index):
    query = QUERIES[index]
    over_http = server.query(query)
    assert over_http.status == 200, over_http
    from_cli = cli_query(strata_bin, project, query, "admin")
    assert without_duration(over_http.json) == without_duration(from_cli)
    assert list(over_http.json) == ["columns", "rows", "meta"]


def test_the_corpus_has_rollup_hits_and_live_answers(server):
    routes = [server.query(query).json["meta"]["rollup"] for query in QUERIES]
    assert any(route.get("used") == "daily_orders" for route in routes), routes
    assert any("missed" in route for route in routes), routes


# ----- roles ------------------------------------------------------------------------------------

def test_a_roles_row_filter_applies_on_rollup_and_live_answers(server, strata_bin, project):
    hit = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Customer.region"]}
    live = {"measures": ["Order.customers", "Order.avg_amount"], "dimensions": ["Customer.region"]}
    for query, routed in [(hit, "used"), (live, "missed")]:
        response = server.query(query, role="north_analyst")
        assert response.status == 200, response
        body = response.json
        assert routed in body["meta"]["rollup"], body["meta"]
        assert [row[0] for row in body["rows"]] == ["north"], body["rows"]
        assert without_duration(body) == without_duration(
            cli_query(strata_bin, project, query, "north_analyst"))
        everyone = server.query(query, role="admin").json
        assert len(everyone["rows"]) == 3
        assert body["rows"][0] in everyone["rows"]
    paid = server.query({"measures": ["Order.order_count"], "dimensions": ["Order.status"]},
                        role="paid_only").json
    assert [row[0] for row in paid["rows"]] == ["paid"]


def test_a_role_may_not_read_other_entities(server):
    denied = server.query({"measures": ["Customer.customer_count"]}, role="paid_only")
    assert denied.status == 403 and denied.code == "AccessDenied", denied


# ----- authentication ---------------------------------------------------------------------------

def tampered_signature() -> str:
    good = token()
    return good[:-2] + ("BB" if good.endswith("AA") else "AA")


def tampered() -> str:
    header, _, signature = token({"role": "north_analyst"}).split(".")
    return header + "." + b64url(json.dumps({"role": "admin"}).encode()) + "." + signature


REFUSED_TOKENS = {
    "tampered_signature": tampered_signature,
    "tampered_payload": tampered,
    "other_secret": lambda: token(secret="another-secret-that-is-also-long-enough!!"),
    "alg_none_unsigned": lambda: token(header={"alg": "none", "typ": "JWT"}, sign=False),
    "alg_none_signed": lambda: token(header={"alg": "none"}),
    "alg_rs256": lambda: token(header={"alg": "RS256", "typ": "JWT"}),
    "alg_hs512": lambda: token(header={"alg": "HS512", "typ": "JWT"}),
    "expired": lambda: token({"role": "admin", "exp": int(time.time()) - 3600}),
    "not_yet_valid": lambda: token({"role": "admin", "nbf": int(time.time()) + 3600}),
    "missing_role": lambda: token({"sub": "someone", "exp": int(time.time()) + 600}),
    "empty_role": lambda: token({"role": "", "exp": int(time.time()) + 600}),
    "garbage": lambda: "not.a.token",
}


@pytest.mark.parametrize("case", sorted(REFUSED_TOKENS))
def test_bad_tokens_are_401(server, case):
    bad = REFUSED_TOKENS[case]()
    response = server.request("POST", "/v1/query", FAST_QUERY, {"Authorization": "Bearer " + bad})
    assert response.status == 401, (case, response)
    assert response.code == "Unauthenticated"
    assert bad not in response.body.decode()


def test_missing_or_other_scheme_is_401_and_unknown_role_403(server):
    assert server.request("POST", "/v1/query", FAST_QUERY).code == "Unauthenticated"
    basic = server.request("POST", "/v1/query", FAST_QUERY, {"Authorization": "Basic YTpi"})
    assert basic.status == 401
    unknown = server.query(FAST_QUERY, role="superuser")
    assert unknown.status == 403 and unknown.code == "AccessDenied", unknown


def test_the_access_log_has_one_line_per_request_and_no_tokens(server):
    secret_token = token({"role": "admin", "exp": int(time.time()) + 600, "jti": "log-probe"})
    assert server.request("POST", "/v1/query", QUERIES[0],
                          {"Authorization": "Bearer " + secret_token}).status == 200
    assert server.request("GET", "/v1/nothing").status == 404
    time.sleep(0.2)  # the reader thread catches up with stderr
    log = server.access_log()
    assert all(secret_token not in line and SECRET not in line for line in server.lines)
    query_line = [e for e in log if e["route"] == "/v1/query" and e["status"] == 200][-1]
    assert query_line["role"] == "admin" and query_line["method"] == "POST"
    assert query_line["rollup"] == "daily_orders"
    assert isinstance(query_line["duration_ms"], int)
    missing = [e for e in log if e["route"] == "/v1/nothing"][-1]
    assert missing["status"] == 404 and missing["role"] is None and missing["rollup"] is None
    live = server.query(QUERIES[6])
    assert "missed" in live.json["meta"]["rollup"]
    time.sleep(0.2)
    assert server.access_log()[-1]["rollup"] == "live"


# ----- startup refusals -------------------------------------------------------------------------

def test_refuses_to_start_without_the_secret(strata_bin, limited):
    root = limited()
    env = {k: v for k, v in os.environ.items() if k != SECRET_ENV}
    completed = subprocess.run([strata_bin, "serve", "--project", str(root), "--port", "0",
                                "--output", "json"], capture_output=True, text=True, env=env,
                               timeout=60)
    assert completed.returncode == 1
    error = json.loads(completed.stdout)["errors"][0]
    assert error["code"] == "Config" and SECRET_ENV in error["message"] and error["hint"]
    short = subprocess.run([strata_bin, "serve", "--project", str(root), "--port", "0",
                            "--output", "json"], capture_output=True, text=True,
                           env={**env, SECRET_ENV: "short"}, timeout=60)
    assert short.returncode == 1
    error = json.loads(short.stdout)["errors"][0]
    assert error["code"] == "Config" and "at least 32" in error["message"]
    assert "short" not in error["message"]  # never the secret itself


def test_refuses_to_start_without_a_serve_table(strata_bin, limited):
    root = limited()
    write_toml(root, "")
    completed = subprocess.run([strata_bin, "serve", "--project", str(root), "--port", "0",
                                "--output", "json"], capture_output=True, text=True, timeout=60,
                               env={**os.environ, SECRET_ENV: SECRET})
    assert completed.returncode == 1
    error = json.loads(completed.stdout)["errors"][0]
    assert error["code"] == "Config" and "jwt_secret_env" in error["message"]


def test_a_secret_in_place_of_the_variable_name_is_refused(strata_bin, limited):
    root = limited()
    write_toml(root, '[serve]\njwt_secret_env = "s3cr3t value!"\n')
    completed = subprocess.run([strata_bin, "serve", "--project", str(root), "--output", "json"],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 1
    assert json.loads(completed.stdout)["errors"][0]["code"] == "Config"


# ----- limits -----------------------------------------------------------------------------------

def test_a_body_over_the_limit_is_413(strata_bin, limited):
    running = Server(strata_bin, limited(max_body_bytes=1024))
    try:
        big = json.dumps({"measures": ["Order.revenue"], "dimensions": ["Order.status"] * 200})
        assert len(big) > 1024
        response = running.request("POST", "/v1/query", big, bearer())
        assert response.status == 413, response
        assert response.code == "RequestTooLarge"
        assert running.query(QUERIES[0]).status == 200
    finally:
        assert running.stop() == 0


def test_a_form_encoded_body_over_8_kib_names_the_content_type(server):
    # curl -d sends application/x-www-form-urlencoded, which cpp-httplib caps at 8 KiB.
    big = json.dumps({"measures": ["Order.revenue"], "dimensions": ["Order.status"] * 600})
    form = server.request("POST", "/v1/query", big, {
        **bearer(), "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 413 and form.code == "RequestTooLarge", form
    assert "application/json" in form.json["error"]["hint"]
    as_json = server.request("POST", "/v1/query", big, {
        **bearer(), "Content-Type": "application/json"})
    assert as_json.status == 400 and as_json.code == "QueryInvalid", as_json  # read, then judged


def test_headers_over_the_limit_are_431(server):
    headers = {**bearer(), **{f"X-Padding-{i}": "x" * 6000 for i in range(4)}}
    response = server.request("POST", "/v1/query", FAST_QUERY, headers)
    assert response.status == 431, response
    assert response.code == "HeadersTooLarge"
    assert server.query(FAST_QUERY).status == 200


def start_slow(running: Server, results: list) -> threading.Thread:
    thread = threading.Thread(target=lambda: results.append(running.query(SLOW_QUERY)))
    thread.start()
    return thread


def occupy_the_slot(running: Server):
    """Starts the slow query and probes with fast ones until a probe is refused because the slow
    one holds the only slot. Returns (the slow query's thread, its result list, the refusal).
    A probe can win the slot first (then the slow query is the one refused): start again."""
    for _ in range(20):
        results: list = []
        slow = start_slow(running, results)
        while slow.is_alive():
            probe = running.query(FAST_QUERY)
            if probe.status == 503:
                return slow, results, probe
            assert probe.status == 200, probe
        slow.join()
        assert results and results[0].status in (200, 503), results
    raise AssertionError("no probe found the slot busy:\n" + "\n".join(running.lines))


def test_the_concurrency_cap_answers_503_and_keeps_serving(strata_bin, limited):
    running = Server(strata_bin, limited(max_concurrent_queries=1, max_queued_queries=0,
                                     request_timeout_ms=600_000))
    try:
        slow, results, refused = occupy_the_slot(running)
        assert refused.code == "Overloaded" and refused.json["error"]["hint"]
        # health, readiness and meta need no query slot
        assert running.request("GET", "/healthz").status == 200
        assert running.request("GET", "/v1/meta", headers=bearer()).status == 200
        slow.join(300)
        assert results and results[0].status == 200, results
        assert running.query(FAST_QUERY).status == 200
    finally:
        assert running.stop() == 0


def test_a_queued_query_waits_for_the_slot(strata_bin, limited):
    running = Server(strata_bin, limited(max_concurrent_queries=1, max_queued_queries=1,
                                     request_timeout_ms=600_000))
    try:
        # One slot and one place in the queue: of two slow queries sent together, one runs and
        # the other waits for it rather than being refused.
        results: list = []
        threads = [start_slow(running, results) for _ in range(2)]
        for thread in threads:
            thread.join(300)
        assert [r.status for r in results] == [200, 200], results
        assert results[0].json["rows"] == results[1].json["rows"]
    finally:
        assert running.stop() == 0


def test_the_request_timeout_cancels_the_query(strata_bin, limited):
    running = Server(strata_bin, limited(request_timeout_ms=300))
    try:
        # (Without the timeout the request would not end: http.client's own 120 s would fail it.)
        timed_out = running.query({"measures": ["Endless.digest_sum"],
                                   "dimensions": ["Endless.bucket"]})
        assert timed_out.status == 504, timed_out
        assert timed_out.code == "QueryTimeout"
        # The worker's connections were replaced: the next queries are answered normally.
        for query in QUERIES[:3] + [QUERIES[6]]:
            assert running.query(query).status == 200
    finally:
        assert running.stop() == 0


def test_sigterm_drains_the_request_in_flight_and_exits_0(strata_bin, limited):
    running = Server(strata_bin, limited(max_concurrent_queries=1, max_queued_queries=0,
                                         request_timeout_ms=600_000, shutdown_drain_ms=300_000))
    try:
        slow, results, _ = occupy_the_slot(running)
        running.process.send_signal(signal.SIGTERM)
        slow.join(300)
        assert results and results[0].status == 200, results
        assert len(results[0].json["rows"]) == 3
        assert running.process.wait(60) == 0
        assert json.loads(running.lines[-1]) == {"event": "stopped", "api": "query"}
    finally:
        running.kill()


def test_sigterm_after_the_drain_bound_cancels_and_exits_0(strata_bin, limited):
    running = Server(strata_bin, limited(max_concurrent_queries=1, max_queued_queries=0,
                                         request_timeout_ms=600_000, shutdown_drain_ms=0))
    try:
        slow, results, _ = occupy_the_slot(running)
        running.process.send_signal(signal.SIGTERM)
        slow.join(300)
        assert results and results[0].status == 503, results
        assert results[0].code == "Overloaded"
        assert running.process.wait(60) == 0
    finally:
        running.kill()


def test_serve_listens_on_localhost_by_default(strata_bin):
    completed = subprocess.run([strata_bin, "serve", "--help"], capture_output=True, text=True,
                               timeout=30)
    assert completed.returncode == 0
    assert "127.0.0.1" in completed.stdout and "--port" in completed.stdout


# ----- robustness -------------------------------------------------------------------------------

def test_dropped_and_stalled_connections_do_not_stop_the_others(server):
    import socket
    for _ in range(200):
        socket.create_connection(("127.0.0.1", server.port), timeout=10).close()
    # Half a request, then silence: that connection waits for its read timeout alone.
    stalled = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
    for connection in stalled:
        connection.sendall(b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    try:
        assert server.query(QUERIES[0]).status == 200
        assert server.request("GET", "/healthz").status == 200
        garbage = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        garbage.sendall(b"\x00\x01 not http at all\r\n\r\n")
        reply = garbage.recv(4096)
        garbage.close()
        assert reply.startswith(b"HTTP/1.1 400"), reply
        assert server.query(QUERIES[1]).status == 200
    finally:
        for connection in stalled:
            connection.close()


def test_a_port_in_use_is_refused(strata_bin, project, server):
    completed = subprocess.run([strata_bin, "serve", "--project", str(project), "--port",
                                str(server.port), "--output", "json"], capture_output=True,
                               text=True, timeout=60, env={**os.environ, SECRET_ENV: SECRET})
    assert completed.returncode == 1
    error = json.loads(completed.stdout)["errors"][0]
    assert error["code"] == "Io" and str(server.port) in error["message"] and error["hint"]
