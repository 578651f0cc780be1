#!/usr/bin/env bash
# Backfill benchmark: `strata run` over the 365 daily partitions of 2025 against the same SQL
# replayed back to back through the DuckDB C API (bench/backfill_baseline.cc), in one script.
# strata_* cases run with [run] batching = "auto" (the default: several partitions per
# transaction, docs/batching.md); strata_off_p1 with batching = "off" (one per transaction).
# baseline_stats adds the per-key statistics query to each replayed transaction, and
# baseline_returning sends each insert with RETURNING as strata off does on DuckDB: the floor of
# a per-partition run that takes each partition's row count and checksum.
#
#   bench/backfill.sh [BUILD_DIR]        (default: build-bench next to this folder)
#   env: ROWS=10000000  ROUNDS=5  KEEP=1 (keep the temp folder)  WORK=/path (use this folder)
#        TIMEZONE=America/New_York  the model in that zone, its naive `ts` read as the zone's wall
#                                   clock (naive_time = "local"): the same rows and windows, so
#                                   the ratios show what a zoned model costs (docs/timezones.md)
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
ROUNDS=${ROUNDS:-5}
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

# set_batching auto|off: the project's [run] batching.
set_batching() {
  cat >"$PROJ/strata.toml" <<EOF
[project]
name = "backfill_bench"

[warehouse]
type = "duckdb"
path = "warehouse.duckdb"

[run]
batching = "$1"
EOF
}
set_batching auto
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
if [[ -n ${TIMEZONE:-} ]]; then
  awk -v tz="$TIMEZONE" '{ print } /^batch_size = 1$/ { print "timezone = \"" tz "\""
    print "naive_time = \"local\"" }' "$PROJ/models/fct_daily_events.toml" >"$WORK/zoned.toml"
  mv "$WORK/zoned.toml" "$PROJ/models/fct_daily_events.toml"
fi
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

declare -A TIMES CPU STATS
EXPECTED_STATS=""
TIMEFORMAT='%3R %3U %3S'  # bash's `time`: wall, user and system seconds of the child process

# run_case NAME: one measurement from a fresh warehouse; appends wall and CPU (user+sys) ms.
run_case() {
  local name=$1 out=$WORK/out.$1 status=0
  fresh
  case $name in
    strata_p1|strata_p2|strata_p4|strata_off_p1)
      if [[ $name == strata_off_p1 ]]; then set_batching off; else set_batching auto; fi
      { time "$STRATA" run --project "$PROJ" --output json --from 2025-01-01 --to 2025-12-31 \
          --parallel "${name##*_p}" >"$out" 2>"$out.err" || status=$?; } 2>"$WORK/time"
      set_batching auto
      if [[ $status -ne 0 ]] || ! grep -q '"status": *"success"' "$out"; then
        echo "strata run failed ($status):" >&2; tail -c 2000 "$out" "$out.err" >&2; exit 1
      fi
      ;;
    baseline) { time "$BASELINE" replay "$DB" "$WORK/plan.json" >"$out"; } 2>"$WORK/time" ;;
    baseline_stats) { time "$BASELINE" replay "$DB" "$WORK/plan.json" --stats >"$out"; } 2>"$WORK/time" ;;
    baseline_returning) { time "$BASELINE" replay "$DB" "$WORK/plan.json" --returning >"$out"; } 2>"$WORK/time" ;;
    ctas) { time "$BASELINE" exec "$DB" "$WORK/ctas.sql" >"$out"; } 2>"$WORK/time" ;;
  esac
  local wall cpu
  read -r wall cpu < <(awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$WORK/time")
  TIMES[$name]="${TIMES[$name]:-} $wall"
  CPU[$name]="${CPU[$name]:-} $cpu"
  # Correctness: the table each case built must equal the baseline's (rows, sums, row checksum).
  local stats
  stats=$("$BASELINE" stats "$DB" marts.fct_daily_events)
  STATS[$name]=$stats
  if [[ -z $EXPECTED_STATS ]]; then EXPECTED_STATS=$stats; fi
  if [[ $stats != "$EXPECTED_STATS" ]]; then
    echo "MISMATCH: $name built [$stats], expected [$EXPECTED_STATS]" >&2
    exit 1
  fi
  printf '   %-15s wall %6d ms   cpu %6d ms\n' "$name" "$wall" "$cpu"
}

CASES=(baseline strata_p1 strata_off_p1 strata_p2 strata_p4 baseline_stats baseline_returning ctas)
for (( round = 0; round < ROUNDS; ++round )); do
  echo "== round $((round + 1))/$ROUNDS"
  n=${#CASES[@]}
  for (( i = 0; i < n; ++i )); do
    run_case "${CASES[$(( (i + round) % n ))]}"
  done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A MED MEDCPU
for name in "${CASES[@]}"; do
  MED[$name]=$(median "${TIMES[$name]}")
  MEDCPU[$name]=$(median "${CPU[$name]}")
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
per_partition() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a - b) / 365 }'; }

echo
echo "== results: $ROWS rows, 365 daily partitions, $(nproc) cores, median of $ROUNDS (all runs in ms)"
for name in "${CASES[@]}"; do
  printf '   %-15s wall median %6s  runs:%-40s cpu median %6s  runs:%s\n' "$name" "${MED[$name]}" \
    "${TIMES[$name]}" "${MEDCPU[$name]}" "${CPU[$name]}"
done
echo "   correctness: every case built the same table: $EXPECTED_STATS"
C=${MEDCPU[baseline]}
echo
printf 'cpu ratio strata --parallel 1 / baseline   %s   (%s ms CPU per partition)\n' \
  "$(ratio "${MEDCPU[strata_p1]}" "$C")" "$(per_partition "${MEDCPU[strata_p1]}" "$C")"
printf 'cpu ratio baseline+stats / baseline        %s   (%s ms CPU per partition)\n' \
  "$(ratio "${MEDCPU[baseline_stats]}" "$C")" "$(per_partition "${MEDCPU[baseline_stats]}" "$C")"
# Paired ratios: strata and the baseline of the same round, median over rounds (robust to drift).
paired() { awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ");
  for (i = 1; i <= n; ++i) { v = x[i] / y[i]; for (j = i - 1; j >= 1 && r[j] > v; --j) r[j + 1] = r[j]; r[j + 1] = v }
  printf "%.3f", (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2 }'; }
printf 'paired wall ratio strata --parallel 1 / baseline (median of per-round ratios)  %s   (batching auto, target <= 0.60)\n' \
  "$(paired "${TIMES[strata_p1]}" "${TIMES[baseline]}")"
printf 'paired wall ratio strata off --parallel 1 / baseline                          %s   (batching off, target <= 1.10)\n' \
  "$(paired "${TIMES[strata_off_p1]}" "${TIMES[baseline]}")"
printf 'paired wall ratio baseline+stats / baseline                                 %s\n' \
  "$(paired "${TIMES[baseline_stats]}" "${TIMES[baseline]}")"
printf 'paired wall ratio baseline+returning / baseline                             %s   (the statistics as strata off takes them)\n' \
  "$(paired "${TIMES[baseline_returning]}" "${TIMES[baseline]}")"
printf 'paired wall ratio strata off / baseline+returning                           %s   (strata'"'"'s own cost: planning, state, scheduling)\n' \
  "$(paired "${TIMES[strata_off_p1]}" "${TIMES[baseline_returning]}")"
echo "wall-clock (ratios of medians):"
B=${MED[baseline]}
echo
printf 'ratio strata --parallel 1 / baseline   %s   (batching auto; target <= 0.60)\n' "$(ratio "${MED[strata_p1]}" "$B")"
printf 'ratio strata off --parallel 1 / baseline   %s   (batching off; target <= 1.10)\n' "$(ratio "${MED[strata_off_p1]}" "$B")"
printf 'ratio strata --parallel 2 / baseline   %s\n' "$(ratio "${MED[strata_p2]}" "$B")"
printf 'ratio strata --parallel 4 / baseline   %s\n' "$(ratio "${MED[strata_p4]}" "$B")"
printf 'speedup --parallel 1 -> 2              %s\n' "$(ratio "${MED[strata_p1]}" "${MED[strata_p2]}")"
printf 'speedup --parallel 1 -> 4              %s\n' "$(ratio "${MED[strata_p1]}" "${MED[strata_p4]}")"
printf 'overhead per partition (serial, off)   %s ms   ((strata_off_p1 - baseline) / 365)\n' "$(per_partition "${MED[strata_off_p1]}" "$B")"
printf 'ratio baseline+stats / baseline        %s   (+%s ms per partition: the per-key stats query alone)\n' \
  "$(ratio "${MED[baseline_stats]}" "$B")" "$(per_partition "${MED[baseline_stats]}" "$B")"
printf 'ratio strata off --parallel 1 / baseline+stats  %s   (%s ms per partition left for planning + state)\n' \
  "$(ratio "${MED[strata_off_p1]}" "${MED[baseline_stats]}")" "$(per_partition "${MED[strata_off_p1]}" "${MED[baseline_stats]}")"
printf 'ratio strata auto --parallel 1 / one CTAS  %s\n' "$(ratio "${MED[strata_p1]}" "${MED[ctas]}")"
printf 'ratio one CTAS / baseline              %s   (context: the whole year in one statement)\n' "$(ratio "${MED[ctas]}" "$B")"
echo
echo "baseline phases (last run, ms): $(grep -o '"phase_ms":{[^}]*}' "$WORK/out.baseline")"
echo "baseline+stats phases (last run, ms): $(grep -o '"phase_ms":{[^}]*}' "$WORK/out.baseline_stats")"

# Where strata's serial time goes: the same run in-process with every statement timed by kind.
PHASES_BIN=$BUILD/bench/backfill_phases
if [[ -x $PHASES_BIN && -z ${NO_PHASES:-} ]]; then
  echo
  "$PHASES_BIN" "$PROJ" "$WORK/base.duckdb" 3
fi
