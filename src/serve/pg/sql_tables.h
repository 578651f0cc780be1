// The SQL port's tables (docs/sql-port.md, "Tables"): schema `strata`, one table per entity a
// data role may read, named exactly as the entity. Its columns, in this order:
//   1. the entity's dimensions, in declaration order (time dimensions are timestamptz);
//   2. the dimensions reachable through many_to_one and one_to_one relationships, depth first in
//      declaration order, as `<path>__<member>` (`customer__region`, `customer__address__city`);
//      a path never visits an entity twice, and never reaches an entity the role may not read;
//   3. the entity's measures, then its metrics, in declaration order.
// Both the catalog (what psql's \d shows) and the translation (what a SELECT may name) read the
// same SqlTable, so the two never disagree.
//
// Types: string → text, number dimension → numeric, boolean → bool, time → timestamptz;
// count and count_distinct(_approx) → int8; every other measure and every metric → numeric (the
// model does not know whether a warehouse column is a decimal or a double; numeric carries both
// exactly).
//
// All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "semantic/model.h"
#include "serve/pg/pg_types.h"

namespace strata::serve::pg {

enum class SqlColumnKind { kDimension, kTimeDimension, kMeasure, kMetric };

struct SqlColumn {
  std::string name;    // "status", "customer__region", "revenue"
  std::string member;  // the semantic member: "Order.status", "Order.customer.region"
  SqlColumnKind kind = SqlColumnKind::kDimension;
  semantic::Aggregation agg = semantic::Aggregation::kCount;  // kMeasure only
  PgType type = PgType::kText;
  // Whether SELECT * selects it: false for a metric that reads another entity's measures
  // (Ticket.ticket_count / order_count), which answers only by dimensions both entities reach
  // and would make every `SELECT *` fail.
  bool in_star = true;
};

struct SqlTable {
  std::string name;  // the entity's name, exactly
  std::vector<SqlColumn> columns;
  // The column COUNT(*) reads: the entity's one measure of agg `count` without a `filter`;
  // empty when it has none or several (COUNT(*) is then refused, naming the count measures).
  std::string count_star;

  // The column named `name`: an exact match first, else the one column whose name matches
  // case-insensitively (PostgreSQL folds an unquoted name to lower case; entity members may be
  // camelCase). nullptr when none or when two match case-insensitively and none exactly.
  // A quoted name resolves the same way (BI tools quote the names the catalog gave them).
  const SqlColumn* Find(std::string_view name) const;
};

// The tables `role` may read (nullopt: every entity, for a trusted caller), in the model's
// entity order: the rule of GET /v1/meta (query/meta.h) — a role with `access: all` reads every
// entity, another one the entities it lists; an unknown role reads none. As there, a metric that
// reads a measure of an entity the role may not read is left out.
std::vector<SqlTable> TablesFor(const semantic::SemanticModel& model,
                                const std::optional<std::string>& role);

// The table named `name` in `tables`: exact first, else the one case-insensitive match.
const SqlTable* FindTable(const std::vector<SqlTable>& tables, std::string_view name);

}  // namespace strata::serve::pg
