// The structural summary the DuckDB oracle compares: set operations, CTE names and joins found
// anywhere in a query (subqueries, CTE bodies, derived tables and expressions included), taken
// either from our syntax tree or from DuckDB's json_serialize_sql() output.
//
// Normalisation, so both sides speak DuckDB's terms:
// - set operations count UNION (incl. UNION BY NAME), EXCEPT (incl. MINUS) and INTERSECT nodes;
//   DuckDB's RECURSIVE_CTE_NODE is the UNION of a recursive CTE and counts as one;
// - CTE names are lower-cased and kept as a set (DuckDB repeats materialized CTEs);
// - a join is "<join type>/<reference type>" with DuckDB's names: INNER, LEFT, RIGHT, FULL, SEMI,
//   ANTI / REGULAR, CROSS (also a comma), NATURAL, ASOF, POSITIONAL.
//
// Test-only. Pure functions, thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "sql/ast.h"

namespace strata::oracle {

struct QueryShape {
  std::map<std::string, int> set_operations;  // "UNION" / "EXCEPT" / "INTERSECT" -> count
  std::set<std::string> cte_names;
  std::multiset<std::string> joins;

  bool operator==(const QueryShape&) const = default;
  std::string ToString() const;  // "setops {UNION: 2} ctes {a, b} joins {INNER/REGULAR}"
};

// The shape of one parsed statement.
QueryShape ShapeOfStatement(const sql::Statement& statement);

// The shape of a json_serialize_sql() result's "statements" array (all statements merged).
QueryShape ShapeOfDuckDbJson(const nlohmann::json& statements);

}  // namespace strata::oracle
