// The example project's entities as the SQL port shows them (sql_tables.h), written out by hand
// for the catalog's tests: the shapes of the tables the corpus capture created in a real
// PostgreSQL (tests/sqlport/README.md).
#pragma once

#include <vector>

#include "serve/pg/sql_tables.h"

namespace strata::serve::pg::testing {

inline SqlColumn Column(const char* name, PgType type) {
  SqlColumn column;
  column.name = name;
  column.type = type;
  return column;
}

inline std::vector<SqlColumn> CustomerPath() {
  return {Column("customer__customer_id", PgType::kNumeric),
          Column("customer__name", PgType::kText), Column("customer__region", PgType::kText),
          Column("customer__segment", PgType::kText),
          Column("customer__signup_date", PgType::kTimestamptz)};
}

inline std::vector<SqlTable> ExampleTables() {
  SqlTable order{"Order",
                 {Column("order_id", PgType::kNumeric), Column("status", PgType::kText),
                  Column("amount", PgType::kNumeric), Column("order_date", PgType::kTimestamptz),
                  Column("loaded_at", PgType::kTimestamptz)},
                 "order_count"};
  for (SqlColumn& column : CustomerPath()) order.columns.push_back(column);
  for (const char* measure :
       {"revenue", "order_count", "paid_revenue", "avg_amount", "min_amount", "max_amount",
        "customers", "customer_id_approx", "median_amount", "p90_amount", "average_order_value",
        "paid_share", "tickets_per_order"}) {
    const std::string name = measure;
    const bool count = name == "order_count" || name == "customers" || name == "customer_id_approx";
    order.columns.push_back(Column(measure, count ? PgType::kInt8 : PgType::kNumeric));
  }
  SqlTable customer{
      "Customer",
      {Column("customer_id", PgType::kNumeric), Column("name", PgType::kText),
       Column("region", PgType::kText), Column("segment", PgType::kText),
       Column("signup_date", PgType::kTimestamptz), Column("customer_count", PgType::kInt8)},
      "customer_count"};
  SqlTable ticket{"Ticket",
                  {Column("ticket_id", PgType::kNumeric), Column("priority", PgType::kText),
                   Column("channel", PgType::kText), Column("status", PgType::kText),
                   Column("opened_date", PgType::kTimestamptz)},
                  "ticket_count"};
  for (SqlColumn& column : CustomerPath()) ticket.columns.push_back(column);
  ticket.columns.push_back(Column("ticket_count", PgType::kInt8));
  ticket.columns.push_back(Column("avg_resolution_hours", PgType::kNumeric));
  ticket.columns.push_back(Column("p95_resolution_hours", PgType::kNumeric));
  return {order, customer, ticket};
}

}  // namespace strata::serve::pg::testing
