// Output columns of a query: the names a SELECT produces and, where they can be known, their
// types and nullability. Used by the compiler's time column checks (E020-E022, E025).
//
// Nothing is executed. Types of the tables a query reads come from the caller (`TableLookup`,
// usually the warehouse catalog); from there they are propagated through the query:
// - column references (bare, `t.col`, `schema.t.col`), resolved against the FROM clause's
//   tables, CTEs (innermost WITH first, names case-insensitive) and derived tables, with
//   `AS t(a, b)` column renames; `*` and `t.*` expand (with EXCLUDE / REPLACE) when the columns
//   they cover are known, and USING / NATURAL join columns appear once;
// - CAST / `::` (the target type; nullability of the value), TRY_CAST / SAFE_CAST (the target
//   type, nullable);
// - DATE_TRUNC / DATETRUNC: in DuckDB (checked against DuckDB 1.4.4) a constant part of a day or
//   coarser ('day', 'week', 'month', 'quarter', 'year', ...) gives DATE, a finer part ('hour',
//   'minute', ...) or a non-constant part gives TIMESTAMP, and TIMESTAMP WITH TIME ZONE input
//   stays TIMESTAMP WITH TIME ZONE; in PostgreSQL, Redshift and Databricks the result is a
//   timestamp; in the other dialects it has the input's type (BigQuery's DATE_TRUNC(value, part)
//   argument order is read as such). DATE(x) is DATE; TIME_BUCKET keeps the input type;
//   AT TIME ZONE swaps TIMESTAMP and TIMESTAMP WITH TIME ZONE;
// - aggregates: COUNT is a non-null integer; SUM, MIN, MAX, ANY_VALUE, FIRST, LAST keep their
//   argument's type, and its nullability under GROUP BY (a global aggregate can see no rows and
//   is then NULL: nullable); AVG is DOUBLE; window functions keep the type only;
// - literals, typed literals (DATE '...'), COALESCE (not null when any argument is), arithmetic
//   and comparisons (nullable when an operand is; not null when all operands are not null);
// - LEFT / RIGHT / FULL joins make the outer side's columns nullable;
// - set operations take the left branch's names; a type or nullability is known only when every
//   branch agrees (any nullable branch makes the column nullable).
// Anything else has an unknown type and unknown nullability: callers skip the checks then.
//
// Null rejection: a column reference that the same SELECT's WHERE rejects NULL for (a top-level
// AND conjunct comparing it with =, <>, <, <=, >, >=, BETWEEN, IN, LIKE, or `IS NOT NULL`, also
// through CAST, DATE_TRUNC, DATE and arithmetic on it) is not null in that SELECT's output. The
// same holds for its HAVING and QUALIFY, and for the ON of an inner or semi join that is not on
// the null-supplying side of an outer join (the rows such an ON fails for are gone).
//
// Names: an alias, else a column reference's last part. Other expressions without an alias are
// named by the warehouse from their text (DuckDB: "date_trunc('day', ts)"), never a plain
// identifier, so their name is left empty; in PostgreSQL and Redshift a function call is named
// after the function and a cast after its value, and those names are used.
//
// All functions are pure (apart from calling `lookup`) and thread-safe when `lookup` is.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/ast.h"
#include "sql/dialect.h"

namespace strata::analysis {

enum class ValueType {
  kUnknown,
  kBoolean,
  kInteger,
  kDecimal,
  kDouble,
  kString,
  kDate,
  kTimestamp,
  kTimestampTz,
  kOther,
};

// "unknown", "BOOLEAN", "INTEGER", "DECIMAL", "DOUBLE", "VARCHAR", "DATE", "TIMESTAMP",
// "TIMESTAMP WITH TIME ZONE", "other".
std::string_view ValueTypeName(ValueType type);

// The type a SQL type spelling denotes, in any of Strata's dialects, ignoring case and parameters:
// "TIMESTAMP", "timestamp_ns", "DATETIME" -> kTimestamp; "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE",
// "TIMESTAMP_LTZ" -> kTimestampTz; "DECIMAL(12,2)", "NUMERIC" -> kDecimal; "VARCHAR" -> kString;
// "BIGINT", "HUGEINT", "INT64" -> kInteger; ...; any other non-empty spelling -> kOther;
// "" -> kUnknown.
ValueType ValueTypeFromName(std::string_view type_name);

// True for kDate, kTimestamp and kTimestampTz.
bool IsTemporal(ValueType type);

enum class Nullability { kUnknown, kNullable, kNotNull };

// A column of a table the query reads.
struct TypedColumn {
  std::string name;
  ValueType type = ValueType::kUnknown;
  Nullability nullability = Nullability::kUnknown;
};

struct OutputColumn {
  std::string name;  // alias or column name as written; "" when the warehouse names it
  ValueType type = ValueType::kUnknown;
  Nullability nullability = Nullability::kUnknown;
  sql::Span span;  // the SELECT item's expression (the `*` for expanded columns)
};

struct OutputColumns {
  std::vector<OutputColumn> columns;
  // False when a `*` covered a table whose columns are unknown: the output has more columns
  // than `columns` lists (their names are unknown).
  bool complete = true;
  sql::Span select_span;  // the first SELECT of the output (its SELECT keyword)
};

// The columns of a table the query reads, given the name parts as written (`raw.orders` ->
// {"raw", "orders"}); nullopt when unknown. Never called for CTE names.
using TableLookup =
    std::function<std::optional<std::vector<TypedColumn>>(const std::vector<std::string>& parts)>;

// The output columns of `statement`'s query. `lookup` may be empty (every table unknown).
OutputColumns AnalyzeOutputColumns(const sql::Statement& statement, const TableLookup& lookup);

// Case-insensitive (ASCII) name equality, the rule used to match column and table names.
bool SameName(std::string_view a, std::string_view b);

}  // namespace strata::analysis
