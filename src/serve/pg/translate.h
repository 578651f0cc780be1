// SQL → semantic query (docs/sql-port.md, "Mapping"): a SELECT over the SQL port's tables
// (sql_tables.h) becomes exactly one semantic query (semantic/query.h; the JSON that
// POST /v1/query takes), plus how to lay its answer out as the SQL's result columns.
//
// Mapped:
//  - columns: a dimension (a time dimension unbucketed); a measure or metric column alone, or as
//    MEASURE(col), is that measure; SUM/COUNT/MIN/MAX/AVG(col) and COUNT(DISTINCT col) over a
//    measure whose agg is that one (sum, count, min, max, avg, count_distinct); COUNT(*) is the
//    entity's one unfiltered count measure (sql_tables.h, SqlTable::count_star);
//  - time: DATE_TRUNC('hour'|'day'|'week'|'month'|'quarter'|'year', col) (week = ISO, from
//    Monday), also over CAST(col AS TIMESTAMP|TIMESTAMPTZ|DATE); CAST(... AS DATE) / ::date of
//    a column (the day) or of a DATE_TRUNC; CAST(... AS TIMESTAMP) (local wall-clock output);
//    EXTRACT(YEAR FROM col) and date_part('year', col) (the year bucket, as a number), with
//    QUARTER and MONTH beside YEAR of the same column; CAST(EXTRACT(...) AS INTEGER);
//  - SELECT *: every column with in_star (sql_tables.h); SELECT DISTINCT when every group key
//    is selected; GROUP BY columns, expressions, output names and positions; no GROUP BY (or
//    GROUP BY ALL): grouped by every selected dimension;
//  - WHERE and HAVING: = <> != < <= > >= (either side), IN, NOT IN, BETWEEN, NOT BETWEEN,
//    LIKE 'x%' (starts_with), LIKE '%x%' (contains), LIKE 'x' (equals), NOT LIKE,
//    IS [NOT] NULL (set / not_set), IS [NOT] TRUE|FALSE and a bare boolean column, AND, OR, NOT
//    (pushed down to the comparisons; groups {"and"}/{"or"}, and {"not"} only around LIKE);
//    a measure in HAVING is a measure filter; values are literals, DATE/TIMESTAMP/TIMESTAMPTZ
//    literals, casts of literals, $n, and to_timestamp/to_date with ISO formats (Superset);
//    a comparison of a time bucket with a bucket start (or EXTRACT(YEAR ...) with a year) is a
//    range of the column; one `col >= a` and one `col < b` of a time dimension in WHERE's
//    top-level AND become its `range` [a, b) (what rollups are routed on);
//  - ORDER BY output names, positions, columns and expressions (a measure not selected is added
//    to the query); LIMIT, OFFSET, FETCH FIRST n ROWS ONLY, as literals or $n;
//  - FROM strata."Entity" (schema optional, a leading catalog ignored, names matched exactly then
//    case-insensitively, quoted or not), with an alias; FROM (SELECT cols FROM strata."E"
//    [WHERE ...]) AS t, a projection: the same table renamed; FROM (SELECT ... grouped ...) AS t
//    with an outer select of its columns, WHERE over them (dimension or measure filters),
//    ORDER BY and LIMIT/OFFSET (composed with the inner ones), nested freely.
// Refused with kSqlUnsupported (0A000) naming the construct, with a hint giving the form that is
// answered: another aggregate over a measure (AVG(revenue) of a sum), an aggregate over a
// dimension, a metric or an expression; COUNT(*) without one unfiltered count measure; date
// arithmetic with INTERVALs (Sunday weeks: date_trunc('week', col + INTERVAL '1 day') -
// INTERVAL '1 day'), DATE_TRUNC to other grains or with a zone argument, EXTRACT of other
// fields or of MONTH/QUARTER without YEAR, a bucket compared with a value that starts no bucket;
// LIKE '%x', ILIKE, regular expressions, ESCAPE; a measure in WHERE; a comparison with NULL or
// of two columns; fractions of a second; joins, CTEs, UNION/INTERSECT/EXCEPT, VALUES, window
// functions, FILTER, CASE, constants in the select list, DISTINCT ON, ROLLUP/CUBE, NULLS
// FIRST/LAST, GROUP BY/HAVING/aggregates over a grouped subquery, WHERE or ORDER BY over a
// subquery with LIMIT; any other function. Never a partial answer.
//
// Values from the SQL (literals and bound parameters) become filter values of the semantic
// query in their JSON form (strings, numbers, booleans): they never reach SQL text. A time value
// without an offset is the session zone's wall-clock time (the query's `timezone`); with one,
// the UTC instant ("2026-01-01T00:00:00Z").
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

// Whether `statement` reads a table of `tables`: a relation qualified with schema `strata` (any
// name: Translate answers an unknown one 42P01), or an unqualified name that resolves to one
// and does not start with "pg_" (pg_class, pg_type, ... are the catalog's), in FROM, joins,
// subqueries in FROM and CTEs. Such a statement goes to the semantic layer, every other one to
// the catalog (catalog.h).
bool ReadsEntityTable(const sql::Statement& statement, const std::vector<SqlTable>& tables);

// Errors: kUndefinedTable (42P01) for a table not in `tables` (another schema than strata
// included), listing the role's tables; kQueryInvalid (42703) for an unknown column, naming it
// and listing the table's columns, for a selected or ordered dimension that is not a group key,
// for a value that does not read as the member's type ('ten' compared with a number), and for
// a $n beyond the bound parameters; kSqlUnsupported (0A000) for a construct with no semantic
// meaning (see the top of this file), naming it, with a hint.
Result<Translation> Translate(const sql::Statement& statement, const std::vector<SqlTable>& tables,
                              const TranslateOptions& options);

}  // namespace strata::serve::pg
