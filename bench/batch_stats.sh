#!/usr/bin/env bash
# Batch statistics benchmark: `strata run` of the 365 days of 2025 with batch_size = BATCH, by two
# strata binaries alternated (e.g. before and after a change of the per-batch statistics), each
# run on a fresh copy of the same warehouse. Prints the medians and the ratio NEW / OLD, and checks
# that both wrote the same per-partition row counts and checksums.
#
#   bench/batch_stats.sh OLD_STRATA NEW_STRATA [BUILD_DIR]   (BUILD_DIR: for backfill_baseline)
#   env: ROWS=10000000  ROUNDS=5  BATCH=7  WORK=/path (use this folder)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$1
NEW=$2
BUILD=$(cd "${3:-$HERE/../build}" && pwd)
BASELINE=$BUILD/bench/backfill_baseline
ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-5}
BATCH=${BATCH:-7}
WORK=${WORK:-$(mktemp -d /tmp/strata-batch-stats.XXXXXX)}
mkdir -p "$WORK"
PROJ=$WORK/project
DB=$PROJ/warehouse.duckdb
rm -rf "$PROJ"
mkdir -p "$PROJ/models"
printf '[project]\nname = "batch_stats"\n\n[warehouse]\ntype = "duckdb"\npath = "warehouse.duckdb"\n' \
  >"$PROJ/strata.toml"
cat >"$PROJ/models/fct_daily_events.toml" <<EOF
name = "fct_daily_events"

[[sources]]
schema = "raw"
table = "events"

[strategy]
type = "time_interval"
time_column = "event_day"
granularity = "day"
batch_size = $BATCH
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
if [[ ! -f $WORK/base.duckdb ]]; then "$BASELINE" generate "$WORK/base.duckdb" "$ROWS"; fi

TIMEFORMAT='%3R'
declare -A TIMES SUMS
for round in $(seq 1 "$ROUNDS"); do
  for name in old new; do
    binary=$OLD
    [[ $name == new ]] && binary=$NEW
    rm -f "$DB" "$DB.wal" "$PROJ"/.strata* "$PROJ"/models/.strata-state.db*
    rm -rf "$PROJ/.strata"
    cp "$WORK/base.duckdb" "$DB"
    wall=$({ time "$binary" run --project "$PROJ" --output json --from 2025-01-01 \
      --to 2025-12-31 --parallel 1 >"$WORK/out.$name" 2>/dev/null; } 2>&1)
    TIMES[$name]+="$(awk -v s="$wall" 'BEGIN { printf "%d", s * 1000 }') "
    SUMS[$name]=$(grep -oE '"(key|row_count|checksum)": ?[^,}]*' "$WORK/out.$name" | md5sum)
  done
done
[[ ${SUMS[old]} == "${SUMS[new]}" ]] || { echo "the binaries wrote different statistics" >&2; exit 1; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
old=$(median "${TIMES[old]}")
new=$(median "${TIMES[new]}")
echo "batch_size = $BATCH, $ROWS rows, 365 partitions, --parallel 1, $ROUNDS rounds (alternated)"
echo "old: median $old ms  runs ${TIMES[old]}"
echo "new: median $new ms  runs ${TIMES[new]}"
awk -v a="$new" -v b="$old" 'BEGIN { printf "ratio new / old: %.3f (same per-partition counts and checksums)\n", a / b }'
