// Table references in model SQL: finding the models a query reads and rewriting them to their
// fully-qualified, quoted warehouse names.
//
// A token is a reference when all of these hold:
// (a) it is an identifier whose name is a key of `targets`. Keys are lower case. An unquoted
//     identifier matches ignoring ASCII case (Stg_Orders -> "stg_orders"); a quoted identifier
//     matches only when its unquoted text equals the key exactly ("stg_orders" matches,
//     "Stg_Orders" does not). Dialect case-folding of quoted names is deliberately not modelled.
// (b) it is a whole name: not preceded by '.', not followed by '.' or '(' (comments and
//     whitespace ignored), so schema.stg_orders, stg_orders.id and stg_orders(...) are untouched;
// (c) it stands in table position:
//     - right after FROM, after JOIN (so every join kind: LEFT JOIN, ASOF JOIN, ...), or after
//       USING when no '(' follows (DELETE ... USING t, MERGE ... USING t);
//     - right after ONLY or '(' that itself stands in table position (FROM ONLY t,
//       FROM (a JOIN b));
//     - after ',' in a FROM list at the same parenthesis depth. A FROM list runs from FROM/JOIN
//       to WHERE, GROUP, HAVING, QUALIFY, WINDOW, ORDER, LIMIT, OFFSET, FETCH, UNION, INTERSECT,
//       EXCEPT, MINUS, SELECT, SET, WHEN, RETURNING, VALUES, the ')' closing its depth, or ';'.
//       ON and USING do not end it: a join condition has no top-level comma, so in
//       "FROM a JOIN b ON a.id = b.id, c" the c is a reference.
//     FROM counts only where a query can have one: at statement level, in a parenthesis group
//     that has a SELECT/DELETE/UPDATE, or as the first word of a group that is not a function
//     call (DuckDB's "(FROM t)"). So EXTRACT(YEAR FROM x), SUBSTRING(s FROM 2), TRIM(...FROM x)
//     and "a IS [NOT] DISTINCT FROM b" have no references.
// (d) it is not the name of a CTE defined anywhere in the same statement ("WITH name AS (",
//     "WITH RECURSIVE name(cols) AS [NOT] [MATERIALIZED] (", further CTEs after ','): a CTE
//     shadows a model of the same name. Statements are split at ';'.
// Everything else (comments, strings, columns, aliases) is kept byte for byte.
//
// All functions are pure and thread-safe.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/dialect.h"
#include "sql/lexer.h"

namespace strata::sql {

// Replaces each reference by targets[name] (text the caller has already quoted, e.g.
// "\"raw\".\"stg_orders\""), keeping everything else exactly.
// Errors: kSqlLex when `sql` does not lex.
Result<std::string> RewriteReferences(
    std::string_view sql, Dialect dialect,
    const std::map<std::string, std::string, std::less<>>& targets);

// The keys of `targets` that `sql` references, each once, in order of first appearance.
// Errors: kSqlLex when `sql` does not lex.
Result<std::vector<std::string>> FindReferences(
    std::string_view sql, Dialect dialect,
    const std::map<std::string, std::string, std::less<>>& targets);
// The same over `tokens`, the whole output of Lex(sql, dialect) (trivia included), for callers
// that lexed already.
std::vector<std::string> FindReferencesInTokens(
    const std::vector<Token>& tokens, Dialect dialect,
    const std::map<std::string, std::string, std::less<>>& targets);

// Every name that would be a reference under (b) to (d) whatever the targets, as a target key
// would be spelled (unquoted names lower-cased), each once, in order of first appearance: for
// callers that look names up themselves. `tokens` is the whole output of Lex.
std::vector<std::string> FindTableNames(const std::vector<Token>& tokens, Dialect dialect);

}  // namespace strata::sql
