// Private to output_columns.cc and infer_expression.cc: the tables visible to one SELECT and the
// typing of expressions against them (the rules are listed in analysis/output_columns.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/output_columns.h"
#include "sql/ast.h"

namespace strata::analysis::internal {

// A table in a SELECT's FROM clause.
struct Relation {
  std::string alias;                                // as written (the table name without alias)
  std::optional<std::vector<TypedColumn>> columns;  // nullopt: unknown
  std::vector<std::string> star_skipped;  // USING / NATURAL columns already shown by the left side
  bool visible = true;                    // false for the right side of SEMI / ANTI joins
};

// A column reference resolved in a scope.
struct Resolved {
  int relation = -1;                    // index in Scope::relations; -1 when not resolved
  std::string name;                     // the column name, lower case
  const TypedColumn* column = nullptr;  // null when the relation's columns are unknown
};

struct Scope {
  sql::Dialect dialect = sql::Dialect::kDuckDb;
  std::vector<Relation> relations;
  std::vector<std::pair<int, std::string>> null_rejected;  // (relation, lower-case column)
  bool grouped = false;                                    // GROUP BY present
};

struct Inferred {
  ValueType type = ValueType::kUnknown;
  Nullability nullability = Nullability::kUnknown;
};

std::string Lower(std::string_view text);

// The ValueType of a written data type (CAST target, typed literal).
ValueType TypeOf(const sql::DataType& type);

Resolved Resolve(const Scope& scope, const sql::ColumnRef& column);

Inferred InferExpression(const sql::Expr& expression, const Scope& scope);

// Records in scope.null_rejected the columns that `where` (may be null) rejects NULL for.
void CollectNullRejected(const sql::Expr* where, Scope& scope);

// Records in scope.null_rejected the columns that the ON of an inner (or semi) join in `from`
// rejects NULL for, when every row that join drops stays dropped: the join is not on the
// null-supplying side of an outer join (or the right side of a semi or anti join).
void CollectJoinNullRejected(const sql::TableRef& from, Scope& scope);

}  // namespace strata::analysis::internal
