// Test fixture: the example project's semantic model (Order, Customer, Ticket, the seed's
// monthly_order_summary rollup, three data roles) and small DuckDB tables for it. Test-only;
// header-only.
#pragma once

#include <string>

namespace strata::semantic::testing {

inline const char* kExampleModelYaml = R"(entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
      - { name: amount, type: number }
      - { name: order_date, type: time, sql: order_at }
      - { name: loaded_at, type: time }
    measures:
      - { name: revenue, agg: sum, sql: amount }
      - { name: order_count, agg: count }
      - { name: paid_revenue, agg: sum, sql: amount, filter: "status = 'paid'" }
      - { name: avg_amount, agg: avg, sql: amount }
      - { name: min_amount, agg: min, sql: amount }
      - { name: max_amount, agg: max, sql: amount }
      - { name: customers, agg: count_distinct, sql: customer_id }
      - { name: customer_id_approx, agg: count_distinct_approx, sql: customer_id }
      - { name: median_amount, agg: median, sql: amount }
      - { name: p90_amount, agg: p90, sql: amount }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }
    metrics:
      - { name: average_order_value, expr: revenue / order_count }
      - { name: paid_share, expr: paid_revenue / revenue }
      - { name: tickets_per_order, expr: Ticket.ticket_count / order_count }
  - name: Customer
    table: raw.customers
    primary_key: customer_id
    dimensions:
      - { name: customer_id, type: number }
      - { name: name, type: string }
      - { name: region, type: string }
      - { name: segment, type: string }
      - { name: signup_date, type: time, sql: signup_at }
    measures:
      - { name: customer_count, agg: count }
    relationships:
      - { name: orders, entity: Order, type: one_to_many, foreign_key: customer_id }
      - { name: tickets, entity: Ticket, type: one_to_many, foreign_key: customer_id }
  - name: Ticket
    table: raw.tickets
    primary_key: ticket_id
    dimensions:
      - { name: ticket_id, type: number }
      - { name: priority, type: string }
      - { name: channel, type: string }
      - { name: status, type: string }
      - { name: opened_date, type: time, sql: opened_at }
    measures:
      - { name: ticket_count, agg: count }
      - { name: avg_resolution_hours, agg: avg, sql: resolution_hours }
      - { name: p95_resolution_hours, agg: p95, sql: resolution_hours }
    relationships:
      - { name: customer, entity: Customer, type: many_to_one, foreign_key: customer_id }

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
      when_changed: updated_at             # Only rebuilds if newest timestamp moved
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

data_roles:
  - name: admin
    access: all
  - name: north_analyst
    access:
      - { entity: Order, row_filter: { member: customer.region, op: equals, values: [north] } }
      - { entity: Customer, row_filter: { member: region, op: equals, values: [north] } }
      - { entity: Ticket, row_filter: { member: customer.region, op: equals, values: [north] } }
  - name: paid_orders_only
    access:
      - { entity: Order, row_filter: { member: status, op: equals, values: [paid] } }
)";

// Three customers (north, north, south) and one with a NULL region; orders and tickets chosen so
// that joining raw orders to raw tickets would multiply the numbers (customer 1 has 3 orders and
// 2 tickets). Order amounts per customer: 1: 10 + 20 + 30 (paid, paid, shipped); 2: 5 (paid);
// 3: 100 (paid); 4: 7 (paid).
inline const char* kExampleTablesSql = R"(
CREATE SCHEMA IF NOT EXISTS raw;
CREATE TABLE raw.customers (customer_id INTEGER, name VARCHAR, region VARCHAR, segment VARCHAR, signup_at TIMESTAMP);
INSERT INTO raw.customers VALUES
  (1, 'Ann', 'north', 'smb', TIMESTAMP '2025-01-05 00:00:00'),
  (2, 'Bob', 'north', 'ent', TIMESTAMP '2025-02-05 00:00:00'),
  (3, 'Cid', 'south', 'smb', TIMESTAMP '2025-03-05 00:00:00'),
  (4, 'Dee', NULL, 'smb', TIMESTAMP '2025-04-05 00:00:00');
CREATE TABLE raw.orders (order_id BIGINT, customer_id INTEGER, region VARCHAR, status VARCHAR, amount DECIMAL(12,2), order_at TIMESTAMP, loaded_at TIMESTAMP);
INSERT INTO raw.orders VALUES
  (1, 1, 'north', 'paid', 10.00, TIMESTAMP '2026-01-10 08:00:00', TIMESTAMP '2026-01-10 09:00:00'),
  (2, 1, 'north', 'paid', 20.00, TIMESTAMP '2026-02-10 08:00:00', TIMESTAMP '2026-02-10 09:00:00'),
  (3, 1, 'north', 'shipped', 30.00, TIMESTAMP '2026-04-02 08:00:00', TIMESTAMP '2026-04-02 09:00:00'),
  (4, 2, 'north', 'paid', 5.00, TIMESTAMP '2026-03-31 23:59:59', TIMESTAMP '2026-04-01 09:00:00'),
  (5, 3, 'south', 'paid', 100.00, TIMESTAMP '2026-01-20 08:00:00', TIMESTAMP '2026-01-20 09:00:00'),
  (6, 4, NULL, 'paid', 7.00, TIMESTAMP '2026-05-01 00:00:00', TIMESTAMP '2026-05-01 09:00:00');
CREATE TABLE raw.tickets (ticket_id BIGINT, customer_id INTEGER, priority VARCHAR, channel VARCHAR, status VARCHAR, opened_at TIMESTAMP, resolution_hours DOUBLE);
INSERT INTO raw.tickets VALUES
  (1, 1, 'high', 'email', 'open', TIMESTAMP '2026-01-11 00:00:00', 4.0),
  (2, 1, 'low', 'chat', 'closed', TIMESTAMP '2026-02-11 00:00:00', 2.0),
  (3, 3, 'high', 'chat', 'closed', TIMESTAMP '2026-01-21 00:00:00', 10.0),
  (4, 5, 'low', 'email', 'open', TIMESTAMP '2026-01-22 00:00:00', 1.0);
)";

}  // namespace strata::semantic::testing
