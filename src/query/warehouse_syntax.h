// Naming the semantic members behind a warehouse syntax error. Every member's SQL is parsed at
// load, but our parser may still accept SQL the warehouse refuses; the warehouse's message then
// points into the generated SQL, which the user never wrote.
#pragma once

#include <string_view>

#include "base/result.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::query {

// For a kWarehouseSyntax `error` of the statement `failed_sql`: asks `connection` to parse, alone,
// the SQL of each member that `failed_sql` holds (entity sql, dimension and measure sql, measure
// filter; at most 64 of them), and appends to the message those the warehouse also refuses as
// syntax, each with its file:line and the warehouse's first line about it; the hint then says to
// fix that SQL. Any other error, or one that no member's SQL explains (the generated SQL
// itself), is returned unchanged. Each probe is one statement that reads no rows (LIMIT 0).
Error NameSyntaxErrorMembers(Error error, const semantic::SemanticModel& model,
                             std::string_view failed_sql, warehouse::Connection& connection);

}  // namespace strata::query
