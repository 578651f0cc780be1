// Checking the SQL and metric expressions a model author writes.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "semantic/model.h"
#include "sql/dialect.h"

namespace strata::semantic {

// Parses `text` as exactly one SQL expression (the only item of `SELECT <text>`, with no FROM,
// WHERE or other clause) in `dialect` and returns it printed by our printer, so only what the
// parser understood reaches generated SQL. kSemanticInvalid with the parser's message otherwise.
Result<std::string> CheckSqlExpression(std::string_view text, sql::Dialect dialect);
// Parses `text` as one query statement and returns it printed.
Result<std::string> CheckSqlQuery(std::string_view text, sql::Dialect dialect);

// Parses a metric expression: numbers, `measure`, `Entity.measure`, + - * /, unary -, ( ).
// Measure entities are left as written ("" when unqualified). kSemanticInvalid on bad syntax.
Result<std::unique_ptr<MetricExpr>> ParseMetricExpr(std::string_view text);

// Whether `name` is [A-Za-z_][A-Za-z0-9_]* (the names of entities and members).
bool IsMemberName(std::string_view name);

}  // namespace strata::semantic
