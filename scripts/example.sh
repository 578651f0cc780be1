#!/usr/bin/env bash
# The main job: build strata, create the example project (1.2 M generated orders in embedded DuckDB),
# backfill every missing partition of every model, then show partition state and result rows.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
strata=$(STRATA_BUILD_TARGETS=strata bash "$root/scripts/build.sh")
project="$root/example"
rm -rf "$project"
"$strata" init "$project" --example --output human
echo
echo "== strata run --missing (backfill every model from its first_partition to now)"
"$strata" run --project "$project" --missing --output human --quiet
echo
echo "== strata partitions fct_daily_orders (last 5)"
"$strata" partitions fct_daily_orders --project "$project" --output human | tail -n 6
echo
echo "== strata show fct_monthly_revenue"
"$strata" show fct_monthly_revenue --project "$project" --output human --limit 6
echo
echo "== a second run finds nothing missing"
"$strata" run --project "$project" --missing --output human --quiet
