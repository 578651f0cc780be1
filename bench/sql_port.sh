#!/usr/bin/env bash
# The SQL port against the HTTP query port, in the same run, on the same server: queries per
# second of one rollup-hit query (revenue by status, answered from the rollup daily_orders) over
# 1 and 16 connections — pgbench with a custom script on the SQL port (simple protocol, and the
# extended protocol with a statement prepared once), wrk POSTing the same semantic query to
# /v1/query. Prints each rate and the ratio SQL/HTTP.
#
#   bash bench/sql_port.sh [build/src/cli/strata] [SECONDS per run, default 10] [CACHE bytes]
#
# CACHE is [serve] result_cache_bytes (default 0: every request runs the query; with a cache,
# both ports answer a repeated rollup-hit query from the one result cache they share).
# The project is tests/e2e/test_serve.py's (600 orders in DuckDB, the rollup built). Every
# SQL answer is checked in the access log to have come from daily_orders. Results and the command:
# docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
strata=$(realpath "${1:-$root/build/src/cli/strata}")
seconds=${2:-10}
cache=${3:-0}
work=$(mktemp -d /tmp/strata-sqlbench-XXXX)
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
secret=e2e-serve-secret-that-is-long-enough-0123456789

python3 - "$work" "$strata" "$cache" "$root" <<'PY'
import subprocess, sys
from pathlib import Path
sys.path.insert(0, str(Path(sys.argv[4]) / "tests" / "e2e"))
import test_serve as t
root = Path(sys.argv[1])
(root / "semantic").mkdir(); (root / "models").mkdir()
(root / "semantic" / "model.yml").write_text(t.MODEL_YAML)
t.write_toml(root, t.serve_toml(sql_port=0, result_cache_bytes=int(sys.argv[3])))
t.make_warehouse(root / "warehouse.duckdb")
subprocess.run([sys.argv[2], "rollups", "build", "--project", str(root)], check=True,
               capture_output=True)
PY
STRATA_E2E_JWT_SECRET=$secret "$strata" serve --project "$work" --port 0 2>"$work/serve.log" &
server=$!
for _ in $(seq 1 300); do
  grep -q '"api":"sql"' "$work/serve.log" 2>/dev/null && grep -q '"api":"query"' "$work/serve.log" && break
  sleep 0.1
done
port_of() { python3 -c "import json,sys
for line in open(sys.argv[1]):
    try: e = json.loads(line)
    except ValueError: continue
    if e.get('event') == 'listening' and e.get('api') == sys.argv[2]: print(e['port'])" "$work/serve.log" "$1"; }
http_port=$(port_of query)
sql_port=$(port_of sql)
token=$(cd "$root/tests/e2e" && python3 -c "import time, test_serve as t; print(t.token({'role': 'admin', 'exp': int(time.time()) + 86400}))")

echo 'SELECT status, SUM(revenue) FROM strata."Order" GROUP BY status' > "$work/query.sql"
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"measures": ["Order.revenue"], "dimensions": ["Order.status"]}'
wrk.headers["Authorization"] = "Bearer $token"
wrk.headers["Content-Type"] = "application/json"
LUA

pgbench_qps() {  # connections mode
  local threads=$(( $1 < 2 ? $1 : 2 ))
  PGPASSWORD=$token pgbench -n -h 127.0.0.1 -p "$sql_port" -U analyst -d strata -M "$2" \
    -f "$work/query.sql" -c "$1" -j "$threads" -T "$seconds" 2>&1 |
    awk '/^tps/ {print $3}' | cut -d. -f1
}
wrk_qps() {
  local threads=$(( $1 < 2 ? $1 : 2 ))
  wrk -t "$threads" -c "$1" -d "${seconds}s" -s "$work/post.lua" \
    "http://127.0.0.1:$http_port/v1/query" | awk '/Requests\/sec/ {print $2}' | cut -d. -f1
}

# Warm both ports (the role's catalog, the engine's footers).
PGPASSWORD=$token psql "host=127.0.0.1 port=$sql_port user=analyst dbname=strata" -Atc \
  "$(cat "$work/query.sql")" >/dev/null
echo "result_cache_bytes=$cache, ${seconds}s a run"
for connections in 1 16; do
  http=$(wrk_qps "$connections")
  simple=$(pgbench_qps "$connections" simple)
  prepared=$(pgbench_qps "$connections" prepared)
  python3 -c "import sys
h, s, p = map(float, sys.argv[2:5])
print(f'{sys.argv[1]:>2} connections: HTTP {h:,.0f} q/s | SQL simple {s:,.0f} q/s ({s / h:.2f}x) | SQL prepared {p:,.0f} q/s ({p / h:.2f}x)')" \
    "$connections" "$http" "$simple" "$prepared"
done
live=$(grep '"api":"sql"' "$work/serve.log" | grep '"kind":"semantic"' | grep -vc '"rollup":"daily_orders"' || true)
echo "SQL statements not answered from daily_orders: $live"
[ "$live" = 0 ]
