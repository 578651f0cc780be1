#!/usr/bin/env bash
# Every benchmark of docs/benchmarks.md but live_sketch_memory (peak memory, minutes per run:
# run it alone, as its row says), one after another, with the settings documented there;
# prints each one's ratio lines (each bench measures its own baseline in the same run) and keeps
# the full output.
#
#   bench/run_all.sh [BUILD_DIR]          (default: build next to this folder)
#   env: ONLY="backfill pg_backfill ..."  run only these (names below)
#        LOG_DIR=DIR                      where each bench's full output goes (default: a temp dir)
#
# Run it on a quiet machine: the benches time wall clock, and a second process compiling skews
# every ratio. A bench that fails is reported and the others still run; the exit status is then 1.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
LOG_DIR=${LOG_DIR:-$(mktemp -d /tmp/strata-bench.XXXXXX)}
mkdir -p "$LOG_DIR"
STRATA=$BUILD/src/cli/strata

ninja -C "$BUILD" strata backfill_baseline backfill_phases plan_to_psql missing_planning \
  dag_schedule compile_bench semantic_planning_bench semantic_query_latency state_check_bench \
  sketch_merge_bench rollup_bench rollup_lifecycle_bench serve_bench >&2 || exit 1

# name | command (run from the repository root)
BENCHES=(
  "backfill|ROUNDS=5 NO_PHASES=1 bash bench/backfill.sh $BUILD"
  "pg_backfill|ROUNDS=3 bash bench/pg_backfill.sh $BUILD"
  "missing_planning|$BUILD/bench/missing_planning"
  "compile|$BUILD/bench/compile/compile_bench --models 10000 --rounds 3 --strata $STRATA"
  "dag_schedule|$BUILD/bench/dag_schedule --rows 1000000 --rounds 3"
  "semantic_planning|$BUILD/bench/semantic/semantic_planning_bench"
  "semantic_latency|$BUILD/bench/semantic/semantic_query_latency --strata $STRATA --reps 7"
  "state_check|$BUILD/bench/state_check_bench"
  "sketch_merge|$BUILD/bench/sketch_merge_bench"
  "rollup|$BUILD/bench/rollup/rollup_bench --runs 5"
  "rollup_lifecycle|$BUILD/bench/rollup/rollup_lifecycle_bench --runs 5"
  "serve|$BUILD/bench/serve/serve_bench $STRATA --http 1000 --cli 20"
)

status=0
summary=$LOG_DIR/summary.txt
: >"$summary"
cd "$HERE/.."
for entry in "${BENCHES[@]}"; do
  name=${entry%%|*}
  command=${entry#*|}
  if [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]]; then continue; fi
  log=$LOG_DIR/$name.log
  echo "== $name: $command" | tee -a "$summary" >&2
  started=$(date +%s)
  if bash -c "$command" >"$log" 2>&1; then
    # The lines that carry a ratio, a speedup or a verdict.
    grep -iE 'ratio|speedup| x |×|vs |target' "$log" | tail -40 | sed 's/^/   /' >>"$summary"
    echo "   ($(($(date +%s) - started)) s; full output $log)" >>"$summary"
  else
    echo "   FAILED ($(($(date +%s) - started)) s); last lines of $log:" >>"$summary"
    tail -5 "$log" | sed 's/^/   /' >>"$summary"
    status=1
  fi
done
cat "$summary"
exit $status
