#!/usr/bin/env bash
# Trino backfill benchmark (issue 41): a 100-day backfill of one day-grain time_interval model into
# an Iceberg table, `strata run --parallel 1` against dbt-trino 1.11.0 (incremental_strategy
# 'microbatch', batch_size 'day': dbt's per-day backfill, one DELETE then one INSERT per day) and
# against a hand replay of strata's per-day MERGE sent one by one through the REST API. Then an
# atomicity probe: while each tool rebuilds one already-built day 10 times, a reader counts that
# day's rows over and over; a count other than the full one is a partial window a reader saw.
#
#   bench/trino_backfill.sh [TRINO_URL]
#   env: ROWS=2000000 (a multiple of 10,000; spread over 100 days from 2026-01-01)
#        REBUILDS=10  VENV=DIR (reuse a venv that has dbt-trino 1.11.0)  KEEP=1 (keep the schema
#        and the work folder)  STRATA=path (default: build/src/cli/strata next to this folder)
#
# Without TRINO_URL a throw-away server is started (scripts/trino_test_server.sh) and stopped at
# the end. With one, a schema bench_<random> is created in its `iceberg` catalog and dropped at
# the end. dbt needs PyPI (pip install into a venv under the work folder).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
STRATA=${STRATA:-$ROOT/build/src/cli/strata}
ROWS=${ROWS:-2000000}
REBUILDS=${REBUILDS:-10}
DBT_TRINO_VERSION=1.11.0
DBT_CORE_VERSION=1.11.16 # pinned: unpinned, pip (2026-12-07) picked a dbt-core that builds a parser wheel from GitHub
[[ -x $STRATA ]] || { echo "missing $STRATA: build strata first" >&2; exit 1; }
(( ROWS % 10000 == 0 && ROWS >= 10000 )) || { echo "ROWS must be a multiple of 10000" >&2; exit 1; }

WORK=$(mktemp -d /tmp/strata-trino-bench.XXXXXX)
SCHEMA=bench_$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')
URL=${1:-}
STARTED=
SCHEMA_MADE=
PY=$WORK/bench.py

cleanup() {
  set +e
  if [[ -n $SCHEMA_MADE && -z ${KEEP:-} ]]; then
    for t in orders daily_revenue dbt_daily_revenue daily_revenue_replay; do
      python3 "$PY" sql "$URL" "DROP TABLE IF EXISTS iceberg.$SCHEMA.$t" >/dev/null 2>&1
    done
    # dbt may leave its __dbt_tmp tables behind after a failure
    for t in $(python3 "$PY" sql "$URL" "SHOW TABLES FROM iceberg.$SCHEMA" 2>/dev/null); do
      python3 "$PY" sql "$URL" "DROP TABLE IF EXISTS iceberg.$SCHEMA.\"$t\"" >/dev/null 2>&1 ||
        python3 "$PY" sql "$URL" "DROP VIEW IF EXISTS iceberg.$SCHEMA.\"$t\"" >/dev/null 2>&1
    done
    python3 "$PY" sql "$URL" "DROP SCHEMA IF EXISTS iceberg.$SCHEMA" >/dev/null 2>&1 ||
      echo "could not drop iceberg.$SCHEMA" >&2
  fi
  [[ -n $STARTED ]] && bash "$ROOT/scripts/trino_test_server.sh" stop "$WORK/trino" >/dev/null 2>&1
  if [[ -z ${KEEP:-} ]]; then rm -rf "$WORK"; else echo "kept $WORK (schema iceberg.$SCHEMA)" >&2; fi
}
trap cleanup EXIT

# --- the Python helper: statements, the hand replay and the reader ----------------------------
cat >"$PY" <<'PYEOF'
import sys, time, datetime
from trino_statement import run

def days(first, n):
    d = datetime.date.fromisoformat(first)
    return [(d + datetime.timedelta(i)).isoformat() for i in range(n)]

def main():
    cmd, url = sys.argv[1], sys.argv[2]
    if cmd == "sql":
        for row in run(url, sys.argv[3]):
            print("\t".join("NULL" if v is None else str(v) for v in row))
    elif cmd == "replay":
        # strata's window MERGE (docs/trino.md), bound by hand, one statement per day, in order
        schema, first, n = sys.argv[3], sys.argv[4], int(sys.argv[5])
        cols = ['"order_date"', '"customer_id"', '"orders"', '"revenue"']
        t0 = time.monotonic()
        for i, day in enumerate(days(first, n + 1)[:-1]):
            end = days(day, 2)[1]
            start_l, end_l = f"TIMESTAMP '{day} 00:00:00.000000'", f"TIMESTAMP '{end} 00:00:00.000000'"
            select = (f"SELECT CAST(date_trunc('day', order_at) AS timestamp(6)) AS order_date, "
                      f"customer_id, count(*) AS orders, sum(amount) AS revenue "
                      f"FROM iceberg.{schema}.orders "
                      f"WHERE order_at >= CAST('{day}' AS timestamp(6)) "
                      f"AND order_at < CAST('{end}' AS timestamp(6)) GROUP BY 1, 2")
            sql = (f"MERGE INTO iceberg.{schema}.daily_revenue_replay AS strata_target USING ("
                   f"SELECT {', '.join(cols)}, false AS strata_marker FROM ({select}) AS strata_insert "
                   f"WHERE IF(\"order_date\" >= {start_l} AND \"order_date\" < {end_l}, true, "
                   f"CAST(fail('strata output guard failed in batch {i}') AS boolean)) "
                   f"UNION ALL SELECT NULL, NULL, NULL, NULL, true) AS strata_source "
                   f"ON (strata_source.strata_marker AND strata_target.\"order_date\" >= {start_l} "
                   f"AND strata_target.\"order_date\" < {end_l}) "
                   f"WHEN MATCHED THEN DELETE "
                   f"WHEN NOT MATCHED AND NOT strata_source.strata_marker THEN INSERT ({', '.join(cols)}) "
                   f"VALUES ({', '.join('strata_source.' + c for c in cols)})")
            run(url, sql)
        print(f"{time.monotonic() - t0:.3f}")
    elif cmd == "reader":
        # count the day's rows until STOPFILE exists (at least MIN reads); print reads and partial
        import os
        table, day, full, stop, minimum = sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6], int(sys.argv[7])
        reads = partial = 0
        seen = {}
        while not os.path.exists(stop) or reads < minimum:
            c = run(url, f"SELECT count(*) FROM {table} WHERE order_date = TIMESTAMP '{day} 00:00:00.000000'")[0][0]
            reads += 1
            seen[c] = seen.get(c, 0) + 1
            if c != full:
                partial += 1
        print(reads, partial, " ".join(f"{k}:{v}" for k, v in sorted(seen.items())))
    else:
        sys.exit(f"unknown {cmd}")

main()
PYEOF
sed -i "s|^from trino_statement import run|sys.path.insert(0, '$ROOT/scripts')\nfrom trino_statement import run|" "$PY"
sql() { python3 "$PY" sql "$URL" "$1"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$(now) - $1:.3f}')"; }

if [[ -z $URL ]]; then
  URL=$(bash "$ROOT/scripts/trino_test_server.sh" start "$WORK/trino" | tail -1)
  STARTED=1
fi
echo "trino: $URL  schema: iceberg.$SCHEMA  rows: $ROWS  work: $WORK"

# --- 1. dbt-trino in a venv --------------------------------------------------------------------
if [[ -n ${VENV:-} ]]; then
  DBT=$VENV/bin/dbt
else
  python3 -m venv "$WORK/venv" || { echo "cannot create a python venv (python3 -m venv)" >&2; exit 1; }
  if ! "$WORK/venv/bin/pip" install -q "dbt-trino==$DBT_TRINO_VERSION" "dbt-core==$DBT_CORE_VERSION" \
      >"$WORK/pip.log" 2>&1; then
    tail -20 "$WORK/pip.log" >&2
    echo "pip install dbt-trino==$DBT_TRINO_VERSION dbt-core==$DBT_CORE_VERSION failed (no PyPI?): cannot run the dbt side" >&2
    exit 1
  fi
  DBT=$WORK/venv/bin/dbt
fi
"$DBT" --version | head -5

# --- 2. source data ----------------------------------------------------------------------------
sql "CREATE SCHEMA iceberg.$SCHEMA"
SCHEMA_MADE=1
OUTER=$((ROWS / 10000 - 1))
PER_DAY=$((ROWS / 100))
t=$(now)
sql "CREATE TABLE iceberg.$SCHEMA.orders AS
  SELECT n AS order_id, (n / 100) % 1000 AS customer_id,
    CAST((n % 9973) * 0.01 + 1 AS decimal(12, 2)) AS amount,
    date_add('second', CAST(n % 100 AS bigint) * 86400 + (n / 100) * 86400 / $PER_DAY,
             TIMESTAMP '2026-01-01 00:00:00.000000') AS order_at
  FROM (SELECT a * 10000 + b AS n
        FROM UNNEST(sequence(0, $OUTER)) AS x(a) CROSS JOIN UNNEST(sequence(0, 9999)) AS y(b))" >/dev/null
echo "source: $(sql "SELECT count(*), min(order_at), max(order_at), count(DISTINCT CAST(order_at AS date)) FROM iceberg.$SCHEMA.orders") ($(elapsed "$t") s)"

# --- 3. strata ---------------------------------------------------------------------------------
P=$WORK/strata_project
mkdir -p "$P/models"
cat >"$P/strata.toml" <<TOML
[project]
name = "trino_backfill_bench"

[warehouse]
type = "trino"
url = "$URL"
user = "strata"
catalog = "iceberg"
schema = "$SCHEMA"
TOML
cat >"$P/models/daily_revenue.toml" <<TOML
name = "daily_revenue"

[[sources]]
catalog = "iceberg"
schema = "$SCHEMA"
table = "orders"

[strategy]
type = "time_interval"
time_column = "order_date"
granularity = "day"
first_partition = "2026-01-01"

[target]
catalog = "iceberg"
schema = "$SCHEMA"
table = "daily_revenue"
TOML
cat >"$P/models/daily_revenue.sql" <<'SQL'
SELECT
    CAST(date_trunc('day', order_at) AS timestamp(6)) AS order_date,
    customer_id,
    count(*) AS orders,
    sum(amount) AS revenue
FROM orders
WHERE order_at >= CAST(@start_date AS timestamp(6))
  AND order_at <  CAST(@end_date AS timestamp(6))
GROUP BY 1, 2
SQL
t=$(now)
"$STRATA" run --project "$P" --from 2026-01-01 --to 2026-04-10 --parallel 1 --output json >"$WORK/strata_run.json" ||
  { echo "strata run failed" >&2; tail -c 2000 "$WORK/strata_run.json" >&2; exit 1; }
STRATA_S=$(elapsed "$t")
echo "strata: ${STRATA_S} s ($(grep -o '"Computed"' "$WORK/strata_run.json" | wc -l) \"Computed\" in the run document)"

# --- 4. dbt-trino, microbatch ------------------------------------------------------------------
D=$WORK/dbt_project
mkdir -p "$D/models"
PORT=${URL##*:}
PORT=${PORT%%/*}
cat >"$D/dbt_project.yml" <<YML
name: trino_backfill_bench
version: "1.0"
config-version: 2
profile: trino_backfill_bench
model-paths: ["models"]
YML
cat >"$D/profiles.yml" <<YML
trino_backfill_bench:
  target: bench
  outputs:
    bench:
      type: trino
      method: none
      host: 127.0.0.1
      port: $PORT
      http_scheme: http
      user: strata
      catalog: iceberg
      schema: $SCHEMA
      threads: 1
YML
cat >"$D/models/sources.yml" <<YML
version: 2
sources:
  - name: bench
    database: iceberg
    schema: $SCHEMA
    tables:
      - name: orders
        config:
          event_time: order_at
YML
# the same SELECT; microbatch filters the source by order_at per day itself
cat >"$D/models/dbt_daily_revenue.sql" <<'SQL'
{{ config(materialized='incremental', incremental_strategy='microbatch',
          event_time='order_date', begin='2026-01-01', batch_size='day') }}
SELECT
    CAST(date_trunc('day', order_at) AS timestamp(6)) AS order_date,
    customer_id,
    count(*) AS orders,
    sum(amount) AS revenue
FROM {{ source('bench', 'orders') }}
GROUP BY 1, 2
SQL
dbt() { (cd "$D" && DBT_SEND_ANONYMOUS_USAGE_STATS=false "$DBT" --no-use-colors "$@" --profiles-dir "$D" --project-dir "$D"); }
t=$(now)
dbt run --select dbt_daily_revenue --event-time-start 2026-01-01 --event-time-end 2026-04-11 >"$WORK/dbt_run.log" 2>&1 ||
  { tail -40 "$WORK/dbt_run.log" >&2; echo "dbt run failed" >&2; exit 1; }
DBT_S=$(elapsed "$t")
echo "dbt: ${DBT_S} s ($(grep -c -i 'batch .* of ' "$WORK/dbt_run.log" || true) batch lines in its log)"

# --- 5. hand replay of strata's MERGE, one per day -----------------------------------------------
sql "CREATE TABLE iceberg.$SCHEMA.daily_revenue_replay WITH (partitioning = ARRAY['day(order_date)']) AS
  SELECT * FROM iceberg.$SCHEMA.daily_revenue WITH NO DATA" >/dev/null
REPLAY_S=$(python3 "$PY" replay "$URL" "$SCHEMA" 2026-01-01 100)
echo "replay: ${REPLAY_S} s"

# --- contents ----------------------------------------------------------------------------------
check() {
  sql "SELECT count(*), sum(revenue), sum(orders), to_hex(checksum(ROW(order_date, customer_id, orders, revenue)))
       FROM iceberg.$SCHEMA.$1"
}
C_STRATA=$(check daily_revenue)
C_DBT=$(check dbt_daily_revenue)
C_REPLAY=$(check daily_revenue_replay)
echo "contents (count, sum(revenue), sum(orders), checksum):"
echo "  strata: $C_STRATA"
echo "  dbt:    $C_DBT"
echo "  replay: $C_REPLAY"
if [[ $C_STRATA == "$C_DBT" && $C_STRATA == "$C_REPLAY" ]]; then SAME=identical; else SAME=DIFFERENT; fi
echo "contents: $SAME"

# --- 6. atomicity: rebuild one built day REBUILDS times under a reader -------------------------
DAY=2026-02-15
NEXT=2026-02-16
FULL=$(sql "SELECT count(*) FROM iceberg.$SCHEMA.daily_revenue WHERE order_date = TIMESTAMP '$DAY 00:00:00.000000'")
probe() { # table, then the rebuild command
  local table=$1 stop=$WORK/stop.$1
  shift
  rm -f "$stop"
  python3 "$PY" reader "$URL" "iceberg.$SCHEMA.$table" "$DAY" "$FULL" "$stop" 50 >"$WORK/reader.$table" &
  local reader=$!
  for _ in $(seq "$REBUILDS"); do "$@" >>"$WORK/rebuild.$table.log" 2>&1 || { echo "rebuild failed: $*" >&2; touch "$stop"; wait $reader; exit 1; }; done
  touch "$stop"
  wait $reader
  cat "$WORK/reader.$table"
}
A_STRATA=$(probe daily_revenue "$STRATA" run --project "$P" --from $DAY --to $DAY --parallel 1 --output json)
A_DBT=$(probe dbt_daily_revenue dbt run --select dbt_daily_revenue --event-time-start $DAY --event-time-end $NEXT)
echo "atomicity (day $DAY, $FULL rows, $REBUILDS rebuilds each; reads partial counts:seen):"
echo "  strata: $A_STRATA"
echo "  dbt:    $A_DBT"

# --- 7. summary --------------------------------------------------------------------------------
python3 - "$STRATA_S" "$DBT_S" "$REPLAY_S" "$A_STRATA" "$A_DBT" "$SAME" <<'PYEOF'
import sys
s, d, r = map(float, sys.argv[1:4])
a_s, a_d = sys.argv[4].split(), sys.argv[5].split()
print("---- summary (100 days, --parallel 1 / threads 1) ----")
print(f"strata_s={s:.3f} dbt_s={d:.3f} dbt/strata={d / s:.3f}")
print(f"replay_s={r:.3f} strata/replay={s / r:.3f}")
print(f"partial_reads strata={a_s[1]}/{a_s[0]} dbt={a_d[1]}/{a_d[0]}")
print(f"contents={sys.argv[6]}")
PYEOF
