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

// How a result column is read from its semantic column (`SqlOutput::source`). A time value of
// the semantic answer is an ISO 8601 instant with the offset of the query's zone (the session's
// TimeZone): "2026-03-01T00:00:00+01:00"; its local fields are the wall-clock time PostgreSQL
// would show in that session.
enum class SqlOutputForm {
  kValue,      // the value itself (timestamptz for a time value)
  kDate,       // CAST(... AS DATE): the local date of a time value ("2026-03-01")
  kTimestamp,  // CAST(... AS TIMESTAMP): the local wall-clock time ("2026-03-01 00:00:00")
  kYear,       // EXTRACT(YEAR FROM ...): the local year of a year bucket (2026)
  kQuarter,    // EXTRACT(QUARTER FROM ...) beside EXTRACT(YEAR ...): 1..4 of a quarter bucket
  kMonth,      // EXTRACT(MONTH FROM ...) beside EXTRACT(YEAR ...): 1..12 of a month bucket
};

// One result column of the SQL: its name (the alias, else PostgreSQL's default name: the
// column's name, the function's name — "date_trunc", "sum", "count", "extract" —, "?column?"),
// its type, the semantic answer's column it reads (QueryResponse::columns[i].name, e.g.
// "Order.order_date.month", "Order.revenue"; several outputs may read one column) and how.
struct SqlOutput {
  std::string name;
  PgType type = PgType::kText;
  std::string source;
  SqlOutputForm form = SqlOutputForm::kValue;
};

// NOLINTNEXTLINE(bugprone-exception-escape): ordered_json's moves only throw on a broken invariant
struct Translation {
  nlohmann::ordered_json query;  // the semantic query JSON, with "timezone" set to the session's
  std::vector<SqlOutput> outputs;
  // TranslateOptions::explain: answer with the semantic query and meta.rollup.
  bool explain = false;
  // The type of each $n placeholder (index n-1), from the member it is compared with (int8 for
  // LIMIT/OFFSET); text when it is compared with nothing typed.
  std::vector<PgType> parameter_types;
};

struct TranslateOptions {
  TimeZone zone;  // the session's TimeZone: the query's `timezone`
  // The bound values of $1..$n in text format (nullopt: NULL). nullopt: not bound yet (Parse /
  // Describe of a prepared statement): placeholders are typed but not read, and `query` holds
  // null where their values go.
  std::optional<std::vector<std::optional<std::string>>> parameters;
  // The statement followed EXPLAIN (see ExplainedQuery); copied to Translation::explain.
  bool explain = false;
};

// The query of `EXPLAIN <query>`: the text after a leading EXPLAIN keyword (any case, after
// white space and comments), for the caller to parse and translate with `explain` set; nullopt
// when `sql` does not start with EXPLAIN. EXPLAIN's options (ANALYZE, VERBOSE, (...)) are not
// read: they stay in the returned text, which then does not parse (kSqlLex).
std::optional<std::string_view> ExplainedQuery(std::string_view sql);

// The PostgreSQL text output of one cell of the semantic answer for `output` (what psql prints;
// see ResultSet in pg_types.h): nullopt for null; "t"/"f" for booleans; numbers as JSON writes
// them (an integer type's integral double without a fraction); a time value in `output.form`,
// a timestamptz as "2026-03-01 00:00:00+01" (minutes only when not zero: "+05:30"); other
// strings as they are.
std::optional<std::string> OutputText(const SqlOutput& output, const nlohmann::ordered_json& value);

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
