#!/usr/bin/env bash
# Backfill benchmark: `strata run` over the 365 daily partitions of 2025 against the same SQL
# replayed back to back through the DuckDB C API (bench/backfill_baseline.cc), in one script.
#
#   bench/backfill.sh [BUILD_DIR]        (default: build-bench next to this folder)
#   env: ROWS=10000000  ROUNDS=3  KEEP=1 (keep the temp folder)  WORK=/path (use this folder)
#
# Every measurement starts from the same state: a fresh copy of a warehouse file holding only
# raw.events (no target table) and no state store. Each is a whole process timed from outside
# (process start, project load, opening DuckDB, the work, the checkpoint on close). Rounds rotate
# the order of the cases; the report gives the median of ROUNDS runs of each.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../build-bench}" && pwd)
STRATA=$BUILD/src/cli/strata
BASELINE=$BUILD/bench/backfill_baseline
ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-3}
for binary in "$STRATA" "$BASELINE"; do
  [[ -x $binary ]] || { echo "missing $binary: ninja -C $BUILD strata backfill_baseline" >&2; exit 1; }
done

if [[ -n ${WORK:-} ]]; then
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/strata-backfill.XXXXXX)
fi
if [[ -z ${KEEP:-} ]]; then trap 'rm -rf "$WORK"' EXIT; fi
PROJ=$WORK/project
DB=$PROJ/warehouse.duckdb
rm -rf "$PROJ"
mkdir -p "$PROJ/models"

cat >"$PROJ/strata.toml" <<'EOF'
[project]
name = "backfill_bench"

[warehouse]
type = "duckdb"
path = "warehouse.duckdb"
EOF
cat >"$PROJ/models/fct_daily_events.toml" <<'EOF'
name = "fct_daily_events"

[[sources]]
schema = "raw"
table = "events"

[strategy]
type = "time_interval"
time_column = "event_day"
granularity = "day"
batch_size = 1
first_partition = "2025-01-01"

[target]
schema = "marts"
table = "fct_daily_events"
EOF
cat >"$PROJ/models/fct_daily_events.sql" <<'EOF'
SELECT
    DATE_TRUNC('day', ts) AS event_day,
    customer_id,
    COUNT(*) AS event_count,
    SUM(amount) AS revenue
FROM events
WHERE ts >= @start_date
  AND ts <  @end_date
GROUP BY 1, 2
EOF
# (c) context: the same model as one CREATE TABLE AS over the whole year.
{
  echo 'CREATE SCHEMA IF NOT EXISTS marts;'
  echo 'CREATE TABLE marts.fct_daily_events AS'
  sed -e "s/@start_date/TIMESTAMP '2025-01-01 00:00:00'/" \
      -e "s/@end_date/TIMESTAMP '2026-01-01 00:00:00'/" \
      -e 's/FROM events/FROM raw.events/' "$PROJ/models/fct_daily_events.sql"
  echo ';'
} >"$WORK/ctas.sql"

echo "== generating raw.events: $ROWS rows over 2025 in $WORK/base.duckdb"
if [[ ! -f $WORK/base.duckdb ]]; then "$BASELINE" generate "$WORK/base.duckdb" "$ROWS"; fi

fresh() {
  rm -f "$DB" "$DB.wal" "$PROJ"/models/.strata-state.db*
  cp "$WORK/base.duckdb" "$DB"
}

# The exact statements strata will run (the plan is deterministic for --from/--to).
fresh
"$STRATA" plan --project "$PROJ" --output json --from 2025-01-01 --to 2025-12-31 --parallel 1 \
  >"$WORK/plan.json"
BATCHES=$(grep -o '"keys":' "$WORK/plan.json" | wc -l)
echo "== plan: $BATCHES batches ($(wc -c <"$WORK/plan.json") bytes of JSON)"
[[ $BATCHES -eq 365 ]] || { echo "expected 365 batches" >&2; exit 1; }

now_ns() { date +%s%N; }
declare -A TIMES STATS
EXPECTED_STATS=""

# run_case NAME: one measurement from a fresh warehouse; appends the wall time in ms to TIMES[NAME].
run_case() {
  local name=$1 out=$WORK/out.$1 start end
  fresh
  start=$(now_ns)
  case $name in
    strata_p1|strata_p2|strata_p4)
      local status=0
      "$STRATA" run --project "$PROJ" --output json --from 2025-01-01 --to 2025-12-31 \
        --parallel "${name#strata_p}" >"$out" 2>&1 || status=$?
      end=$(now_ns)
      if [[ $status -ne 0 ]]; then echo "strata run failed ($status):" >&2; tail -c 2000 "$out" >&2; exit 1; fi
      ;;
    baseline) "$BASELINE" replay "$DB" "$WORK/plan.json" >"$out"; end=$(now_ns) ;;
    baseline_stats) "$BASELINE" replay "$DB" "$WORK/plan.json" --stats >"$out"; end=$(now_ns) ;;
    ctas) "$BASELINE" exec "$DB" "$WORK/ctas.sql" >"$out"; end=$(now_ns) ;;
  esac
  TIMES[$name]="${TIMES[$name]:-} $(( (end - start) / 1000000 ))"
  # Correctness: the table each case built must equal the baseline's (rows, sums, row checksum).
  local stats
  stats=$("$BASELINE" stats "$DB" marts.fct_daily_events)
  STATS[$name]=$stats
  if [[ -z $EXPECTED_STATS ]]; then EXPECTED_STATS=$stats; fi
  if [[ $stats != "$EXPECTED_STATS" ]]; then
    echo "MISMATCH: $name built [$stats], expected [$EXPECTED_STATS]" >&2
    exit 1
  fi
  printf '   %-15s %7d ms\n' "$name" $(( (end - start) / 1000000 ))
}

CASES=(baseline strata_p1 strata_p2 strata_p4 baseline_stats ctas)
for (( round = 0; round < ROUNDS; ++round )); do
  echo "== round $((round + 1))/$ROUNDS"
  n=${#CASES[@]}
  for (( i = 0; i < n; ++i )); do
    run_case "${CASES[$(( (i + round) % n ))]}"
  done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A MED
for name in "${CASES[@]}"; do MED[$name]=$(median "${TIMES[$name]}"); done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
per_partition() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a - b) / 365 }'; }

echo
echo "== results: $ROWS rows, 365 daily partitions, $(nproc) cores, median of $ROUNDS (all runs in ms)"
for name in "${CASES[@]}"; do printf '   %-15s median %7s ms   runs:%s\n' "$name" "${MED[$name]}" "${TIMES[$name]}"; done
echo "   correctness: every case built the same table: $EXPECTED_STATS"
B=${MED[baseline]}
echo
printf 'ratio strata --parallel 1 / baseline   %s   (target <= 1.10)\n' "$(ratio "${MED[strata_p1]}" "$B")"
printf 'ratio strata --parallel 2 / baseline   %s\n' "$(ratio "${MED[strata_p2]}" "$B")"
printf 'ratio strata --parallel 4 / baseline   %s\n' "$(ratio "${MED[strata_p4]}" "$B")"
printf 'speedup --parallel 1 -> 2              %s\n' "$(ratio "${MED[strata_p1]}" "${MED[strata_p2]}")"
printf 'speedup --parallel 1 -> 4              %s\n' "$(ratio "${MED[strata_p1]}" "${MED[strata_p4]}")"
printf 'overhead per partition (serial)        %s ms   ((strata_p1 - baseline) / 365)\n' "$(per_partition "${MED[strata_p1]}" "$B")"
printf 'ratio baseline+stats / baseline        %s   (+%s ms per partition: the per-key stats query alone)\n' \
  "$(ratio "${MED[baseline_stats]}" "$B")" "$(per_partition "${MED[baseline_stats]}" "$B")"
printf 'ratio strata --parallel 1 / baseline+stats  %s   (%s ms per partition left for planning + state)\n' \
  "$(ratio "${MED[strata_p1]}" "${MED[baseline_stats]}")" "$(per_partition "${MED[strata_p1]}" "${MED[baseline_stats]}")"
printf 'ratio one CTAS / baseline              %s   (context: the whole year in one statement)\n' "$(ratio "${MED[ctas]}" "$B")"
echo
echo "baseline phases (last run, ms): $(grep -o '"phase_ms":{[^}]*}' "$WORK/out.baseline")"
echo "baseline+stats phases (last run, ms): $(grep -o '"phase_ms":{[^}]*}' "$WORK/out.baseline_stats")"
