#!/usr/bin/env bash
# The main job: build strata, create the example project (1.2 M generated orders, customers and
# support tickets in embedded DuckDB), backfill every missing partition of every model, show
# partition state and result rows, then ask the semantic layer a question.
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
echo
echo "== strata query: revenue and average order value by customer region, per fiscal year (April start)"
"$strata" query --project "$project" --output table \
  '{"measures": ["Order.revenue", "Order.average_order_value"],
    "dimensions": ["Customer.region"],
    "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_year"}],
    "order": [{"member": "Customer.region"}, {"member": "Order.order_date.fiscal_year"}], "limit": 10}'
echo
echo "== orders and support tickets by region: each entity aggregated on its own, then joined"
"$strata" query --project "$project" --output table \
  '{"measures": ["Order.revenue", "Ticket.ticket_count", "Order.tickets_per_order"],
    "dimensions": ["Customer.region"]}'
echo
echo "== the same question as the north_analyst data role (sees only region north)"
"$strata" query --project "$project" --output table --role north_analyst \
  '{"measures": ["Order.revenue", "Ticket.ticket_count", "Order.tickets_per_order"],
    "dimensions": ["Customer.region"]}'
echo
echo "== strata rollups build: the example's rollup as Parquet files (a file per month of the last year)"
"$strata" rollups build --project "$project" --output human
echo
month=$(date -u +%Y-%m-01)
from=$(date -u -d "$month -10 months" +%Y-%m-01)
echo "== revenue and distinct customers by month and region, $from to $month: answered from the rollup"
"$strata" query --project "$project" --output table \
  "{\"measures\": [\"Order.revenue\", \"Order.customer_id_approx\"],
    \"dimensions\": [\"Customer.region\"],
    \"time_dimensions\": [{\"dimension\": \"Order.order_date\", \"grain\": \"quarter\",
                           \"range\": [\"$from\", \"$month\"]}],
    \"order\": [{\"member\": \"Order.order_date.quarter\"}, {\"member\": \"Customer.region\"}],
    \"limit\": 8}"
