#!/usr/bin/env bash
# The rollup advisor's measured effect (issue 44): the semantic oracle's queries
# (tests/e2e/semantic_corpus.py, build_corpus: the cases expected to answer rows, each with its
# role's token) replayed through `strata serve` on the example project with no rollups; then
# `strata rollups advise --from-log` on that server's access log, the advice appended to the model
# and built, and the same queries replayed again through a fresh server. For each --top (5 and 10
# by default) it prints the share of queries answered from rollups before and after, the total
# replay time before and after (per round, client side; the server's meta.duration_ms sum in
# parentheses) and the ratio after/before, measured in the same run, and how many answers differ
# from the live ones (sketched measures — count_distinct_approx, percentiles — may).
#
#   bash bench/advisor_effect.sh [build/src/cli/strata]
#   ROUNDS=3 TOPS="5 10" KEEP=1 WORK=/tmp/advisor bash bench/advisor_effect.sh build/src/cli/strata
#
# One server per phase, [serve] result_cache_bytes = 0 (the replay measures routing, not the
# cache) and refresh_check_seconds = 0. Results: docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
strata=$(realpath "${1:-$root/build/src/cli/strata}")
rounds=${ROUNDS:-3}
tops=${TOPS:-"5 10"}
work=${WORK:-$(mktemp -d /tmp/strata-advisor-XXXX)}
mkdir -p "$work"
driver="$root/bench/advisor_effect.py"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
export STRATA_JWT_SECRET=advisor-effect-secret-that-is-long-enough-0123456789
shop="$work/shop"

start_serve() {  # $1: the log file; sets $server and $port
  "$strata" serve --project "$shop" --port 0 2>"$1" &
  server=$!
  port=""
  for _ in $(seq 1 600); do
    port=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try: e = json.loads(line)
    except ValueError: continue
    if e.get("event") == "listening" and e.get("api", "query") == "query": print(e["port"]); break
' "$1" 2>/dev/null || true)
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$1" >&2; echo "strata serve exited" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$1" >&2; echo "strata serve did not start" >&2; exit 1; }
}

stop_serve() {
  kill -TERM "$server"
  wait "$server" || true
  server=""
}

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }

echo "strata: $strata ($(git -C "$root" rev-parse --short HEAD)); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
t=$(now)
"$strata" init "$shop" --example --output json >"$work/init.json"
echo "init --example: $(elapsed "$t" "$(now)") s"
python3 "$driver" prepare "$shop" "$work/corpus.json"
# Nothing built from the example's rollup: the first replay is all live.
rm -rf "$shop/.strata/rollups"

echo "phase 1: no rollups, $rounds rounds"
start_serve "$work/phase1.log"
python3 "$driver" replay "$port" "$work/corpus.json" "$rounds" "$work/before.json"
stop_serve
echo "  access log: $(grep -c '"route":"/v1/query"' "$work/phase1.log") query lines; load: $(cut -d' ' -f1-3 /proc/loadavg)"

afters=()
for top in $tops; do
  # Advise against the model without rollups (so the names are not suffixed against the last
  # top's), from phase 1's log.
  cp "$shop/model.norollups.yml" "$shop/semantic/model.yml"
  t=$(now)
  "$strata" rollups advise --project "$shop" --from-log "$work/phase1.log" --top "$top" \
    --output json >"$work/advice$top.json"
  echo "advise --from-log --top $top: $(elapsed "$t" "$(now)") s"
  python3 "$driver" advice "$work/advice$top.json"
  python3 "$driver" append "$work/advice$top.json" "$shop"
  rm -rf "$shop/.strata/rollups"
  t=$(now)
  "$strata" rollups build --project "$shop" --output json >"$work/build$top.json"
  echo "  rollups build: $(elapsed "$t" "$(now)") s"
  echo "phase 2 (top $top): $rounds rounds"
  start_serve "$work/phase2_top$top.log"
  python3 "$driver" replay "$port" "$work/corpus.json" "$rounds" "$work/top$top.json"
  stop_serve
  afters+=("$work/top$top.json")
done

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 "$driver" report "$shop" "$work/before.json" "${afters[@]}"
