#!/usr/bin/env bash
# Instructions executed (valgrind's callgrind, no cache simulation) by two builds of strata on the
# same workloads: for comparing two commits on a machine too noisy for wall clock (issue 40's
# re-cut promised equal counts). Prints, per workload, each build's count and NEW / OLD.
#
#   bench/instructions.sh OLD_BUILD_DIR NEW_BUILD_DIR
#   env: ONLY="backfill rerun ..."   run only these workloads (names below)
#
# Workloads, each on a fresh copy of the example project (`strata init --example`, 1.2 M orders,
# stg_orders already built), single-threaded where strata has a knob (--parallel 1):
#   backfill   strata run --model fct_daily_orders, 100 days (2025-05-01 .. 2025-08-08)
#   rerun      the same 100 days again (every partition overwritten)
#   off        the rerun with [run] batching = "off" (one transaction per partition)
#   missing    strata run --missing (every model: hourly, daily, monthly; minus the above)
#   compile    strata compile (the example project, with its semantic layer)
#   query      strata query: revenue by customer region (live, DuckDB)
#   rollups    strata rollups build (the example's rollup: a Parquet file per month)
# DuckDB's threads run under valgrind one at a time; their counts vary by a few tenths of a
# percent between identical runs, so only differences beyond ~1% mean anything.
set -euo pipefail

OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
WORK=$(mktemp -d /tmp/strata-instructions.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

prepare() {  # build_dir dest
  local strata=$1/src/cli/strata
  "$strata" init "$2" --example --output json >/dev/null
  "$strata" run --project "$2" --model stg_orders --output json >/dev/null
}

# Prints the instructions callgrind counted for one command (every thread of the process).
count() {
  local log=$WORK/callgrind.log
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" "$@" >/dev/null
  grep -oE 'Collected : [0-9]+' "$log" | awk '{print $3}'
}

QUERY='{"measures": ["Order.revenue"], "dimensions": ["Customer.region"]}'

workload() {  # name build_dir project
  local strata=$2/src/cli/strata project=$3
  case $1 in
    off)
      printf '\n[run]\nbatching = "off"\n' >>"$project/strata.toml"
      count "$strata" run --project "$project" --model fct_daily_orders --from 2025-05-01 \
        --to 2025-08-08 --parallel 1 --output json
      sed -i '/^\[run\]$/,$d' "$project/strata.toml" ;;
    backfill | rerun)
      count "$strata" run --project "$project" --model fct_daily_orders --from 2025-05-01 \
        --to 2025-08-08 --parallel 1 --output json ;;
    missing) count "$strata" run --project "$project" --missing --parallel 1 --output json ;;
    compile) count "$strata" compile --project "$project" --output json ;;
    query) count "$strata" query --project "$project" --output json "$QUERY" ;;
    rollups) count "$strata" rollups build --project "$project" --output json ;;
  esac
}

prepare "$OLD" "$WORK/old"
prepare "$NEW" "$WORK/new"
printf '%-10s %16s %16s %10s\n' workload old new 'new/old'
for name in ${ONLY:-backfill rerun off missing compile query rollups}; do
  old=$(workload "$name" "$OLD" "$WORK/old")
  new=$(workload "$name" "$NEW" "$WORK/new")
  printf '%-10s %16s %16s %10.4f\n' "$name" "$old" "$new" "$(echo "$new / $old" | bc -l)"
done
