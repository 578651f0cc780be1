// Test fixture: the example project's semantic model — the very file `strata init --example`
// writes, data/example_project/project/semantic/model.yml, embedded at build time (Order,
// Customer, Ticket, the seed's monthly_order_summary rollup, three data roles) — and small
// DuckDB tables for it. Test-only; a test that includes it links strata_example_project.
#pragma once

#include <string>

#include "base/result.h"
#include "embedded/strata_example_project.h"

namespace strata::semantic::testing {

inline const char* ExampleModelYamlText() {
  const embedded::example_project::EmbeddedFile* file =
      embedded::example_project::Find("project/semantic/model.yml");
  STRATA_CHECK(file != nullptr);
  return file->text.data();  // NUL-terminated
}
inline const char* const kExampleModelYaml = ExampleModelYamlText();

// Three customers (north, north, south) and one with a NULL region; orders and tickets chosen so
// that joining raw orders to raw tickets would multiply the numbers (customer 1 has 3 orders and
// 2 tickets). Order amounts per customer: 1: 10 + 20 + 30 (paid, paid, shipped); 2: 5 (paid);
// 3: 100 (paid); 4: 7 (paid).
inline const char* const kExampleTablesSql = R"(
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
