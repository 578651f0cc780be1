// Renders syntax trees (ast.h) back to SQL text for a chosen dialect.
//
// Output is one line with canonical spacing and upper-case keywords; names keep their case.
// Identifiers are written bare when the source had them bare and either the target is the parse
// dialect or they are plain in the target (IsPlainIdentifier); otherwise they are quoted with
// QuoteIdentifier for the target dialect.
// String literals are copied as written when the target is the parse dialect; otherwise plain
// '...' and "..." strings are decoded with the source dialect's rules and re-rendered with
// QuoteString for the target (other string forms are copied). A few spellings follow the target:
// x::T becomes CAST(x AS T) for bigquery and trino; * EXCLUDE becomes * EXCEPT for bigquery and
// databricks; a bare UNION / INTERSECT / EXCEPT gets DISTINCT for bigquery; MINUS is kept only
// for snowflake, redshift and databricks (EXCEPT elsewhere).
//
// Round trip: for any tree produced by ParseStatement(x, d),
// Print(*ParseStatement(Print(tree, d), d), d) == Print(tree, d).
//
// All functions are pure and thread-safe.
#pragma once

#include <string>

#include "sql/ast.h"
#include "sql/dialect.h"

namespace strata::sql {

std::string Print(const Statement& statement, Dialect dialect);

// One expression or one query, e.g. for diagnostics. `source` is the dialect it was parsed as
// (it decides how string literals are read).
std::string PrintExpr(const Expr& expr, Dialect source, Dialect dialect);
std::string PrintQuery(const Query& query, Dialect source, Dialect dialect);

}  // namespace strata::sql
