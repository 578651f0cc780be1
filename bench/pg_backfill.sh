#!/usr/bin/env bash
# PostgreSQL backfill benchmark (issue 4): `strata run` over the 365 daily partitions of 2025 with
# --parallel 1, 2 and 4, against a baseline that sends the same statements through psql in one
# session (bench/plan_to_psql.cc), and in 2 and 4 concurrent sessions (psql_p2, psql_p4: the context
# for --parallel 2 and 4), in one script, on a throw-away server (scripts/pg_test_server.sh:
# 127.0.0.1, the same for every case). DURABLE=1 (the default) runs it with PostgreSQL's durable
# defaults (fsync, synchronous_commit, full_page_writes on: every commit waits for its WAL
# flush, as on a production server); DURABLE=0 with durability off, as the tests run it.
#
#   bench/pg_backfill.sh [BUILD_DIR]     (default: build next to this folder)
#   env: ROWS=5000000  ROUNDS=3  DURABLE=1  KEEP=1 (keep the server and folder)
#
# raw.events has an index on ts, and the target is created once (by a first strata run) and given
# an index on its time column, as a production table would have; each measurement starts from an
# emptied target (TRUNCATE) and no state store. Rounds rotate the order of the cases; the report
# gives medians.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
STRATA=$BUILD/src/cli/strata
TO_PSQL=$BUILD/bench/plan_to_psql
ROWS=${ROWS:-5000000}
ROUNDS=${ROUNDS:-3}
for binary in "$STRATA" "$TO_PSQL"; do
  [[ -x $binary ]] || { echo "missing $binary: ninja -C $BUILD strata plan_to_psql" >&2; exit 1; }
done
PSQL=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)

WORK=$(mktemp -d /tmp/strata-pg-bench.XXXXXX)
chmod 755 "$WORK"
cleanup() {
  if [[ -z ${KEEP:-} ]]; then
    bash "$HERE/../scripts/pg_test_server.sh" stop "$WORK/pg" >/dev/null 2>&1 || true
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
DURABLE=${DURABLE:-1}
DSN=$(PG_DURABLE=$DURABLE bash "$HERE/../scripts/pg_test_server.sh" start "$WORK/pg" | tail -1)
"$PSQL" -X -q -d "$DSN" -c "CREATE DATABASE bench"
DB_DSN=${DSN%/*}/bench
sql() { "$PSQL" -X -q -v ON_ERROR_STOP=1 -d "$DB_DSN" "$@"; }

PROJ=$WORK/project
mkdir -p "$PROJ/models"
# set_batching auto|off: the project's [run] batching (docs/batching.md).
set_batching() {
  cat >"$PROJ/strata.toml" <<TOML
[project]
name = "pg_backfill_bench"

[warehouse]
type = "postgres"
dsn = "$DB_DSN"

[run]
batching = "$1"
TOML
}
set_batching auto
cat >"$PROJ/models/fct_daily_events.toml" <<'TOML'
name = "fct_daily_events"

[[sources]]
schema = "raw"
table = "events"

[strategy]
type = "time_interval"
time_column = "event_day"
granularity = "day"

[target]
schema = "marts"
table = "fct_daily_events"
TOML
cat >"$PROJ/models/fct_daily_events.sql" <<'SQL'
SELECT
    DATE_TRUNC('day', ts) AS event_day,
    customer_id,
    COUNT(*) AS event_count,
    SUM(amount) AS revenue
FROM events
WHERE ts >= @start_date
  AND ts <  @end_date
GROUP BY 1, 2
SQL

echo "== generating raw.events: $ROWS rows over 2025"
sql <<SQL
CREATE SCHEMA raw;
CREATE TABLE raw.events AS
SELECT i AS event_id,
       (hashint4(i) & 2147483647) % 5000 AS customer_id,
       ((hashint4(i + 7) & 2147483647) % 100000) / 100.0 AS amount,
       TIMESTAMP '2025-01-01' + (i * (31536000.0 / $ROWS)) * INTERVAL '1 second' AS ts
FROM generate_series(0, $ROWS - 1) AS g(i);
CREATE INDEX events_ts ON raw.events (ts);
ANALYZE raw.events;
SQL
# The target: created by strata's bootstrap, then indexed on its time column.
"$STRATA" run --project "$PROJ" --output json --partition 2025-01-01 >/dev/null
sql -c "CREATE INDEX fct_daily_events_day ON marts.fct_daily_events (event_day)"

"$STRATA" plan --project "$PROJ" --output json --from 2025-01-01 --to 2025-12-31 >"$WORK/plan.json"
"$TO_PSQL" "$WORK/plan.json" fct_daily_events event_day >"$WORK/baseline.sql"
"$TO_PSQL" "$WORK/plan.json" fct_daily_events event_day --stats >"$WORK/baseline_stats.sql"
echo "== plan: $(grep -c '^BEGIN;' "$WORK/baseline.sql") batches"
# psql_pN (N = 2, 4): the same transactions in N concurrent psql sessions, each a consecutive
# Nth of the year: what N sessions of this server can do on this machine, the context for
# strata's --parallel N. baseline_pN_K.sql is session K's part.
TRANSACTIONS=$(grep -c '^BEGIN;' "$WORK/baseline.sql")
for n in 2 4; do
  awk -v n="$n" -v total="$TRANSACTIONS" -v prefix="$WORK/baseline_p${n}_" \
    '/^BEGIN;/ { t++ } { print > (prefix int((t > 0 ? t - 1 : 0) * n / total) ".sql") }' \
    "$WORK/baseline.sql"
done

fresh() {
  sql -c "TRUNCATE marts.fct_daily_events"
  rm -f "$PROJ"/models/.strata-state.db*
}

declare -A TIMES
TIMEFORMAT='%3R'
run_case() {
  local name=$1 status=0
  fresh
  case $name in
    strata_*)
      if [[ $name == strata_off_* ]]; then set_batching off; else set_batching auto; fi
      { time "$STRATA" run --project "$PROJ" --output json --from 2025-01-01 --to 2025-12-31 \
          --parallel "${name##*_p}" >"$WORK/out" 2>"$WORK/err" || status=$?; } 2>"$WORK/time"
      set_batching auto
      if [[ $status -ne 0 ]] || ! grep -q '"status": *"success"' "$WORK/out"; then
        echo "strata run failed ($status)" >&2; tail -c 2000 "$WORK/out" "$WORK/err" >&2; exit 1
      fi ;;
    psql) { time sql -f "$WORK/baseline.sql" >/dev/null; } 2>"$WORK/time" ;;
    psql_stats) { time sql -f "$WORK/baseline_stats.sql" >/dev/null; } 2>"$WORK/time" ;;
    psql_p*)
      local sessions=${name#psql_p} pids=() k
      { time {
        for ((k = 0; k < sessions; k++)); do
          sql -f "$WORK/baseline_p${sessions}_$k.sql" >/dev/null 2>"$WORK/err_$k" &
          pids+=($!)
        done
        for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
      }; } 2>"$WORK/time"
      if [[ $status -ne 0 ]]; then
        echo "$name failed ($status)" >&2; cat "$WORK"/err_* >&2; exit 1
      fi ;;
  esac
  TIMES[$name]="${TIMES[$name]:-} $(awk '{ printf "%d", $1 * 1000 }' "$WORK/time")"
  # Every case must leave the same table.
  local digest
  digest=$(sql -At -c "SELECT count(*), sum(event_count), sum(revenue) FROM marts.fct_daily_events")
  if [[ -z ${DIGEST:-} ]]; then DIGEST=$digest; fi
  [[ $digest == "$DIGEST" ]] || { echo "$name left a different table: $digest vs $DIGEST" >&2; exit 1; }
}

# strata_p*: batching = "auto" (the default); strata_off_p1: batching = "off".
CASES=(psql psql_stats psql_p2 psql_p4 strata_p1 strata_off_p1 strata_p2 strata_p4)
for ((round = 0; round < ROUNDS; round++)); do
  for ((k = 0; k < ${#CASES[@]}; k++)); do
    name=${CASES[$(((k + round) % ${#CASES[@]}))]}
    run_case "$name"
    echo "round $((round + 1)) $name: $(echo "${TIMES[$name]}" | awk '{ print $NF }') ms"
  done
done

median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
BASE=$(median "${TIMES[psql]}")
echo
echo "== PostgreSQL backfill (durable=$DURABLE): 365 daily partitions, $ROWS source rows (table: $DIGEST), medians of $ROUNDS"
for name in "${CASES[@]}"; do
  m=$(median "${TIMES[$name]}")
  awk -v n="$name" -v m="$m" -v b="$BASE" 'BEGIN { printf "  %-14s %7d ms   %.3f x psql\n", n, m, m / b }'
done
for n in 2 4; do
  awk -v n="$n" -v s="$(median "${TIMES[strata_p$n]}")" -v p="$(median "${TIMES[psql_p$n]}")" \
    'BEGIN { printf "  strata_p%d / psql_p%d (%d sessions each): %.3f\n", n, n, n, s / p }'
done
