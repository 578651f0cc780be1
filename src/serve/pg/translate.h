// SQL → semantic query (docs/sql-port.md, "Mapping"): a SELECT over the SQL port's tables
// (sql_tables.h) becomes exactly one semantic query (semantic/query.h; the JSON that
// POST /v1/query takes), plus how to lay its answer out as the SQL's result columns.
//
// Mapped: measures and metrics as MEASURE(col) or their own aggregate (SUM for sum, COUNT for
// count, MIN, MAX, AVG for avg, COUNT(DISTINCT col) for count_distinct); dimensions in SELECT
// and GROUP BY; DATE_TRUNC('grain', col) and the forms BI tools send (CAST(DATE_TRUNC(..) AS
// DATE), EXTRACT, date arithmetic with intervals, week starts) as a time dimension at a grain;
// WHERE (= <> < <= > >= IN BETWEEN LIKE IS [NOT] NULL AND OR NOT) as filters and filter groups,
// HAVING on measures as measure filters; ORDER BY (by name, alias or position); LIMIT/OFFSET;
// the subquery wrapper BI tools add (SELECT ... FROM (SELECT ...) AS t); SELECT * (every
// column). A query without GROUP BY is grouped by every selected dimension. `EXPLAIN <query>`
// is flagged. Anything else is kSqlUnsupported (SQLSTATE 0A000) naming the construct, with a
// hint giving the form that is answered; never a partial answer.
//
// Values from the SQL (literals and bound parameters) become filter values of the semantic
// query: they never reach SQL text.
//
// All functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "serve/pg/pg_types.h"
#include "serve/pg/sql_tables.h"
#include "sql/ast.h"

namespace strata::serve::pg {

// One result column of the SQL: its name (the alias, else PostgreSQL's default name: the
// column's name, the function's name — "date_trunc", "sum", "count" —, "?column?"), its type,
// and the semantic answer's column it reads (QueryResponse::columns[i].name, e.g.
// "Order.order_date.month", "Order.revenue").
struct SqlOutput {
  std::string name;
  PgType type = PgType::kText;
  std::string source;
};

struct Translation {
  nlohmann::ordered_json query;  // the semantic query JSON, with "timezone" set to the session's
  std::vector<SqlOutput> outputs;
  bool explain = false;  // EXPLAIN <query>: answer with the semantic query and meta.rollup
  // The type of each $n placeholder (index n-1), from the member it is compared with; text when
  // it is compared with nothing typed.
  std::vector<PgType> parameter_types;
};

struct TranslateOptions {
  TimeZone zone;  // the session's TimeZone: the query's `timezone`
  // The bound values of $1..$n in text format (nullopt: NULL). nullopt: not bound yet (Parse /
  // Describe of a prepared statement): placeholders are typed but not read, and `query` holds
  // null where their values go.
  std::optional<std::vector<std::optional<std::string>>> parameters;
};

// Whether `statement` reads a table of `tables` (schema `strata`, or an unqualified name that
// resolves to one and is not a pg_catalog/information_schema relation): such a statement goes to
// the semantic layer, every other one to the catalog (catalog.h).
bool ReadsEntityTable(const sql::Statement& statement, const std::vector<SqlTable>& tables);

// Errors: kUndefinedTable (42P01) for a table not in `tables`; kQueryInvalid (42703) for an
// unknown column, naming it and the table's columns as a hint; kSqlUnsupported (0A000) for a
// construct with no semantic meaning (another aggregate over a measure, a join of two entity
// tables, a window function, ...), naming it; kSqlLex for a statement that does not parse.
Result<Translation> Translate(const sql::Statement& statement, const std::vector<SqlTable>& tables,
                              const TranslateOptions& options);

}  // namespace strata::serve::pg
