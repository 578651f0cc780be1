#include "cli/example_project.h"

#include <fmt/format.h>

#include <fstream>

#include "base/partition.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::cli {
namespace {

struct File {
  const char* path;
  const char* text;
};

// The example's semantic model: the entities, rollup and data roles `strata query` and
// `strata meta` serve over the generated raw tables.
constexpr char kSemanticModel[] =
    R"yaml(# The semantic layer of the example shop: three entities over the raw tables
# that `strata init --example` generated, one rollup and three data roles.
#
# Ask it questions with `strata query` (JSON in, rows out), for example paid revenue per
# month and customer region:
#
#   strata query '{"measures": ["Order.paid_revenue"], "dimensions": ["Customer.region"],
#                  "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}]}'
#
# and list every entity, member and rollup with `strata meta`.
#
# Vocabulary:
#   dimension     a column you group or filter by; `sql` is an expression over the entity's
#                 columns (default: the column of the same name). Time dimensions take a grain
#                 in queries: hour day week month quarter year fiscal_quarter fiscal_year.
#   measure       an aggregate: sum count min max avg count_distinct count_distinct_approx
#                 median p90 p95 p99. `filter` restricts the rows one measure aggregates.
#   metric        arithmetic over measures, computed after aggregation (x / 0 is NULL).
#   relationship  how entities join. many_to_one / one_to_one paths can be followed by
#                 dimensions (Order.customer.region); one_to_many ones never are, because the
#                 rows would multiply: measures of several entities are aggregated per entity
#                 first and then joined on the shared dimensions.

entities:
  # One row per order: 1.2 M orders over 19 months, 3% of them loaded late.
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }                    # paid, shipped, refunded, cancelled
      - { name: amount, type: number }                    # a dimension that also feeds measures
      - { name: order_date, type: time, sql: order_at }   # member order_date, column order_at
      - { name: loaded_at, type: time }                   # when the row reached the warehouse
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }                 # count(*): no sql needed
      - { name: paid_revenue, agg: sum, sql: amount, filter: "status = 'paid'" }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: min_amount, agg: min, sql: amount }
      - { name: max_amount, agg: max, sql: amount }
      - { name: customers, agg: count_distinct, sql: customer_id }              # exact
      # HyperLogLog: about 1.6% error, but cheap and mergeable across rollup periods.
      - { name: customer_id_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: median_amount, agg: median, sql: amount }
      - { name: p90_amount, agg: p90, sql: amount }
    relationships:
      # Many orders belong to one customer: Order.customer.region (or just Customer.region in a
      # query about orders) joins raw.customers on orders.customer_id = customers.customer_id.
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
    metrics:
      - { name: average_order_value, expr: revenue / order_count }
      - { name: paid_share, expr: paid_revenue / revenue }
      # Another entity's measure is written Entity.measure. Tickets and orders are counted
      # separately per group and then divided, so neither side is double counted.
      - { name: tickets_per_order, expr: Ticket.ticket_count / order_count }

  # One row per customer id 1..40000. Customers 38001..40000 have no orders, customers
  # 1..2000 no tickets; every 97th customer has no signup date.
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: name, type: string }
      - { name: region, type: string }                    # north, south, east, west, central
      - { name: segment, type: string }                   # consumer, smb, enterprise
      - { name: signup_date, type: time, sql: signup_at }
    measures:
      - { name: customer_count, agg: count }
    relationships:
      # one_to_many: a customer has many orders and many tickets. The join is
      # customers.<foreign_key> = orders.<references>; `references` defaults to the other
      # entity's primary key, which is not the column here, so it is spelled out.
      - { name: orders, entity: Order, type: one_to_many,
          foreign_key: customer_id, references: customer_id }
      - { name: tickets, entity: Ticket, type: one_to_many,
          foreign_key: customer_id, references: customer_id }

  # One row per support ticket: ~150 k tickets over the same 19 months.
  - name: Ticket
    table: raw.tickets
    primary_key: ticket_id
    dimensions:
      - { name: ticket_id, type: number }
      - { name: priority, type: string }                  # low, normal, high, urgent
      - { name: channel, type: string }                   # email, chat, phone
      - { name: status, type: string }                    # open, solved, closed
      - { name: opened_date, type: time, sql: opened_at }
    measures:
      - { name: ticket_count, agg: count }
      - { name: avg_resolution_hours, agg: avg, sql: resolution_hours }  # skips NULLs (open)
      - { name: p95_resolution_hours, agg: p95, sql: resolution_hours }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }

# A rollup stores an aggregate as Parquet files; queries it can answer read those instead of the
# warehouse (`meta.rollup` in every response says which rollup answered, or why none did).
# Until it is built, every query runs live and reports it missed with reason `not_built`.
rollups:
  - name: monthly_order_summary
    entity: Order
    dimensions:
      - status
      - { name: order_date, grain: day }
      - customer.region                    # Joined dimension through relationship
    measures:
      - revenue
      - order_count
      - customer_id_approx                 # count_distinct_approx
    sketches:
      - customer_id_approx                 # Enables re-aggregation at coarser grains
    refresh:
      every: 1h
      # The rollup guide uses `updated_at`; the example's orders have no such column, and
      # loaded_at (when a row reached the warehouse) moves whenever new or late orders arrive.
      when_changed: loaded_at              # Only rebuilds if newest timestamp moved
    build_range:
      dimension: order_date
      days: 365                            # Stores the last 365 days of data
    partition:
      by: month
      refresh_last: 2                      # Only re-scans the newest 2 months
      compact: quarter                     # Merge ended periods into a coarser file
    live_tail: true                        # Reads newest period from the warehouse
    sort_by:
      - order_date
      - customer.region

# Data roles: which entities a caller (`strata query --role NAME`, or the JWT claim `role` in
# `strata serve`) may read, and which rows. An entity a role does not list is refused
# (AccessDenied), also when it is only reached through a path or a metric. A row filter is one
# more filter on every query of that entity; its member path is relative to the entity.
data_roles:
  - name: admin
    access: all

  # Sees only the north region, through whichever entity the rows come from.
  - name: north_analyst
    access:
      - { entity: Order, row_filter: { member: customer.region, op: equals, values: [north] } }
      - { entity: Customer, row_filter: { member: region, op: equals, values: [north] } }
      - { entity: Ticket, row_filter: { member: customer.region, op: equals, values: [north] } }

  # Paid orders only; customers and tickets are not readable at all.
  - name: paid_orders_only
    access:
      - { entity: Order, row_filter: { member: status, op: equals, values: [paid] } }
)yaml";

constexpr File kExampleFiles[] = {
    {"strata.toml", R"(# The Strata example: orders, customers and tickets on embedded DuckDB.
[project]
name = "shop"

[warehouse]
type = "duckdb"
path = "warehouse.duckdb"

# The semantic layer (semantic/*.yml): fiscal_year and fiscal_quarter grains count from April.
[semantic]
fiscal_year_start_month = 4
)"},
    {"semantic/model.yml", kSemanticModel},
    {"models/stg_orders.toml",
     R"(# Staging: the raw orders without cancelled ones, rebuilt in full on every run.
name = "stg_orders"

[[sources]]
schema = "raw"
table = "orders"

[strategy]
type = "full_refresh"

[target]
catalog = "warehouse"
schema = "raw"
table = "stg_orders"
)"},
    {"models/stg_orders.sql", R"(SELECT
    order_id,
    customer_id,
    region,
    status,
    amount,
    order_at,
    loaded_at
FROM orders
WHERE status <> 'cancelled'
)"},
    {"models/fct_daily_orders.toml", R"(name = "fct_daily_orders"
depends_on = ["stg_orders"]

[[sources]]
catalog = "warehouse"
schema = "raw"
table = "stg_orders"

[strategy]
type = "time_interval"
time_column = "order_date"        # column on the model output
granularity = "day"               # hour | day | month | year
lookback = 0                      # optional: recompute the previous N partitions
batch_size = 1                    # optional: combine N partitions per SQL statement
first_partition = "@FIRST_DAY@"    # required if you use --missing

[target]
catalog = "warehouse"
schema = "marts"
table = "fct_daily_orders"
)"},
    {"models/fct_daily_orders.sql", R"(SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at <  @end_date
GROUP BY 1, 2
)"},
    {"models/fct_hourly_orders.toml",
     R"(# Hourly order volume per region; 24 hours per statement when backfilling.
name = "fct_hourly_orders"
depends_on = ["stg_orders"]

[strategy]
type = "time_interval"
time_column = "order_hour"
granularity = "hour"
batch_size = 24
first_partition = "@FIRST_DAY@T00"

[target]
schema = "marts"
table = "fct_hourly_orders"
)"},
    {"models/fct_hourly_orders.sql", R"(SELECT
    DATE_TRUNC('hour', order_at) AS order_hour,
    region,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at < @end_date
GROUP BY 1, 2
)"},
    {"models/fct_monthly_revenue.toml",
     R"(# Monthly revenue rolled up from the daily model; re-runs the previous month for late data.
name = "fct_monthly_revenue"
depends_on = ["fct_daily_orders"]
labels = { team = "finance" }

[strategy]
type = "time_interval"
time_column = "order_month"
granularity = "month"
lookback = 1
first_partition = "@FIRST_MONTH@"

[target]
schema = "marts"
table = "fct_monthly_revenue"
)"},
    {"models/fct_monthly_revenue.sql", R"(SELECT
    DATE_TRUNC('month', order_date) AS order_month,
    SUM(order_count) AS order_count,
    SUM(revenue) AS revenue,
    COUNT(DISTINCT customer_id) AS active_customers
FROM fct_daily_orders
WHERE order_date >= @start_date
  AND order_date < @end_date
GROUP BY 1
)"},
};

constexpr char kEmptyConfig[] = R"([project]
name = "{}"

[warehouse]
type = "duckdb"
path = "warehouse.duckdb"
)";

Status WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return MakeError(ErrorCode::kIo, "cannot write " + path.string());
  return OkStatus();
}

Status RefuseExisting(const std::filesystem::path& dir) {
  if (std::filesystem::exists(dir / "strata.toml")) {
    return MakeError(ErrorCode::kUsage, dir.string() + " already holds a strata.toml",
                     "choose an empty folder; init never overwrites a project");
  }
  return OkStatus();
}

// The generators: deterministic pseudo-random columns from hash(key, salt), so the same range
// always yields the same rows. A customer's region is hash(customer_id, 'region') wherever it is
// computed (customer_id is an INTEGER in both places: hash() depends on the type), so an order's
// region is its customer's region. Orders go to customers 1..38000 and tickets to customers
// 2001..40000: some customers have orders and no tickets, some tickets and no orders, most have
// several of each (the shapes that make fan-out joins double count).
constexpr char kOrdersSql[] = R"(
CREATE OR REPLACE TABLE raw.orders AS
WITH generated AS (
  SELECT
    i + 1 AS order_id,
    CAST(1 + hash(i, 'customer') % 38000 AS INTEGER) AS customer_id,
    CASE
      WHEN hash(i, 'status') % 100 < 78 THEN 'paid'
      WHEN hash(i, 'status') % 100 < 90 THEN 'shipped'
      WHEN hash(i, 'status') % 100 < 96 THEN 'refunded'
      ELSE 'cancelled'
    END AS status,
    CAST(round(4.99 + (hash(i, 'amount') % 25000) / 100.0, 2) AS DECIMAL(12, 2)) AS amount,
    TIMESTAMP '{start}'
      + to_seconds(CAST(floor(i * {step}) AS BIGINT) + CAST(hash(i, 'jitter') % {jitter} AS BIGINT))
      AS order_at,
    CASE WHEN hash(i, 'late') % 100 < 3
         THEN to_seconds(3600 + CAST(hash(i, 'delay') % 255600 AS BIGINT))
         ELSE to_seconds(CAST(hash(i, 'delay') % 300 AS BIGINT))
    END AS delay
  FROM range({rows}) AS t(i)
)
SELECT
  order_id,
  customer_id,
  ['north', 'south', 'east', 'west', 'central']
    [CAST(1 + hash(customer_id, 'region') % 5 AS INTEGER)] AS region,
  status,
  amount,
  order_at,
  order_at + delay AS loaded_at
FROM generated
ORDER BY loaded_at
)";

// One row per customer id 1..40000. Customers with orders signed up up to 90 days before their
// first order; the others during the example's range. Every 97th customer is a legacy account
// migrated without a signup date (NULL), so set / not_set and NULL groups have something to find.
// Two surnames carry an apostrophe, so quoting in filters is exercised by real data.
constexpr char kCustomersSql[] = R"(
CREATE OR REPLACE TABLE raw.customers AS
WITH ids AS (
  SELECT CAST(i AS INTEGER) AS customer_id FROM range(1, 40001) AS t(i)
),
first_orders AS (
  SELECT customer_id, min(order_at) AS first_order_at FROM raw.orders GROUP BY customer_id
)
SELECT
  ids.customer_id,
  ['Ada', 'Ben', 'Chloe', 'Dmitri', 'Emma', 'Farah', 'Goran', 'Hana', 'Ivan', 'Julia', 'Kenji',
   'Lena', 'Mateo', 'Nora', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq']
    [CAST(1 + hash(ids.customer_id, 'first_name') % 20 AS INTEGER)]
  || ' ' ||
  ['Andersen', 'Baker', 'Costa', 'D''Souza', 'Eriksen', 'Fischer', 'Garcia', 'Huang', 'Ibrahim',
   'Jensen', 'Kowalski', 'Larsen', 'Moreau', 'Novak', 'O''Brien', 'Petrov', 'Rossi', 'Silva',
   'Tanaka', 'Weber']
    [CAST(1 + hash(ids.customer_id, 'last_name') % 20 AS INTEGER)] AS name,
  ['north', 'south', 'east', 'west', 'central']
    [CAST(1 + hash(ids.customer_id, 'region') % 5 AS INTEGER)] AS region,
  CASE
    WHEN hash(ids.customer_id, 'segment') % 100 < 70 THEN 'consumer'
    WHEN hash(ids.customer_id, 'segment') % 100 < 92 THEN 'smb'
    ELSE 'enterprise'
  END AS segment,
  CASE
    WHEN ids.customer_id % 97 = 0 THEN NULL
    WHEN first_orders.first_order_at IS NULL
      THEN TIMESTAMP '{start}'
        + to_seconds(CAST(hash(ids.customer_id, 'signup') % {span} AS BIGINT))
    ELSE first_orders.first_order_at
      - to_seconds(CAST(hash(ids.customer_id, 'signup') % 7776000 AS BIGINT))
  END AS signup_at
FROM ids LEFT JOIN first_orders USING (customer_id)
ORDER BY ids.customer_id
)";

// Support tickets spread evenly over the example's range like the orders. Open tickets have no
// resolution time; urgent and high tickets are resolved faster.
constexpr char kTicketsSql[] = R"(
CREATE OR REPLACE TABLE raw.tickets AS
WITH generated AS (
  SELECT
    i + 1 AS ticket_id,
    CAST(2001 + hash(i, 'customer') % 38000 AS INTEGER) AS customer_id,
    CASE
      WHEN hash(i, 'priority') % 100 < 35 THEN 'low'
      WHEN hash(i, 'priority') % 100 < 80 THEN 'normal'
      WHEN hash(i, 'priority') % 100 < 95 THEN 'high'
      ELSE 'urgent'
    END AS priority,
    CASE
      WHEN hash(i, 'channel') % 10 < 5 THEN 'email'
      WHEN hash(i, 'channel') % 10 < 8 THEN 'chat'
      ELSE 'phone'
    END AS channel,
    CASE
      WHEN hash(i, 'status') % 100 < 12 THEN 'open'
      WHEN hash(i, 'status') % 100 < 70 THEN 'solved'
      ELSE 'closed'
    END AS status,
    TIMESTAMP '{start}'
      + to_seconds(CAST(floor(i * {step}) AS BIGINT) + CAST(hash(i, 'jitter') % {jitter} AS BIGINT))
      AS opened_at,
    (1 + hash(i, 'hours') % 7200) / 60.0 AS base_hours
  FROM range({rows}) AS t(i)
)
SELECT
  ticket_id,
  customer_id,
  priority,
  channel,
  status,
  opened_at,
  CASE
    WHEN status = 'open' THEN NULL
    ELSE CAST(round(base_hours
                    * CASE priority WHEN 'urgent' THEN 0.25 WHEN 'high' THEN 0.5 ELSE 1 END,
                    2) AS DOUBLE)
  END AS resolution_hours
FROM generated
ORDER BY ticket_id
)";

}  // namespace

ExampleRange ExampleRangeFor(UnixSeconds now) {
  const PartitionKey this_month = PartitionKey::Containing(Grain::kMonth, now);
  PartitionKey first = this_month;
  for (int i = 0; i < 19; ++i) first = first.Prev();
  return ExampleRange{first.start(), PartitionKey::Containing(Grain::kDay, now).start()};
}

Status WriteExampleFiles(const std::filesystem::path& dir, const ExampleRange& range) {
  STRATA_TRY(RefuseExisting(dir));
  const std::string first_day = PartitionKey::Containing(Grain::kDay, range.start).ToString();
  const std::string first_month = PartitionKey::Containing(Grain::kMonth, range.start).ToString();
  for (const File& file : kExampleFiles) {
    std::string text = file.text;
    for (auto [token, value] :
         {std::pair<std::string_view, const std::string&>{"@FIRST_DAY@", first_day},
          {"@FIRST_MONTH@", first_month}}) {
      for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at)) {
        text.replace(at, token.size(), value);
      }
    }
    STRATA_TRY(WriteFile(dir / file.path, text));
  }
  return OkStatus();
}

Status WriteEmptyProject(const std::filesystem::path& dir) {
  STRATA_TRY(RefuseExisting(dir));
  std::filesystem::create_directories(dir / "models");
  return WriteFile(dir / "strata.toml",
                   fmt::format(kEmptyConfig, std::filesystem::absolute(dir).filename().string()));
}

Status GenerateExampleData(const std::filesystem::path& duckdb_path, const ExampleRange& range) {
  constexpr std::int64_t kOrderRows = 1'200'000;
  constexpr std::int64_t kTicketRows = 150'000;
  const std::int64_t span = range.end - range.start;
  const double order_step = static_cast<double>(span) / kOrderRows;
  const double ticket_step = static_cast<double>(span) / kTicketRows;
  const std::string start = FormatSqlTimestamp(range.start);
  STRATA_ASSIGN_OR_RETURN(auto warehouse, warehouse::OpenDuckDb(duckdb_path.string()));
  STRATA_ASSIGN_OR_RETURN(auto connection, warehouse->Connect());
  STRATA_TRY(connection->Execute("CREATE SCHEMA IF NOT EXISTS raw"));
  STRATA_TRY(connection->Execute(
      fmt::format(kOrdersSql, fmt::arg("start", start), fmt::arg("step", order_step),
                  fmt::arg("jitter", static_cast<int>(order_step)), fmt::arg("rows", kOrderRows))));
  // After raw.orders: signup dates are derived from each customer's first order.
  STRATA_TRY(connection->Execute(
      fmt::format(kCustomersSql, fmt::arg("start", start), fmt::arg("span", span))));
  STRATA_TRY(connection->Execute(fmt::format(
      kTicketsSql, fmt::arg("start", start), fmt::arg("step", ticket_step),
      fmt::arg("jitter", static_cast<int>(ticket_step)), fmt::arg("rows", kTicketRows))));
  return OkStatus();
}

}  // namespace strata::cli
