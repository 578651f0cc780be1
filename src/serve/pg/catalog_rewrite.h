// The token-level rewrite that turns a PostgreSQL catalog statement into DuckDB SQL over the
// catalog's own schemas (catalog.h): pgcat stands for pg_catalog, pginfo for information_schema
// (catalog_schema.h, catalog_functions.h). Only what DuckDB cannot take as it is changes; every
// other token is copied:
//   - $1..$n become the bound values as quoted literals ('it''s') or NULL, never raw text;
//   - pg_catalog.<relation> and pg_catalog.<one of our functions>( become pgcat.<name>;
//     pg_catalog.<other function>( and ::pg_catalog.<type> lose the qualifier (DuckDB's own);
//     information_schema.<name> becomes pginfo.<name>;
//   - OPERATOR(pg_catalog.~) becomes ~; COLLATE pg_catalog.default / "default" / "C" goes;
//   - x ~ 'p', !~, ~*, !~* become [NOT] regexp_matches(x, 'p'[, 'i']) (PostgreSQL's ~ finds the
//     pattern anywhere; DuckDB's matches the whole string);
//   - unaliased calls in the top-level select list get PostgreSQL's name (AS "version"), and a
//     bare output name in its ORDER BY becomes the column's position (PostgreSQL resolves it to
//     the output column first, DuckDB finds it ambiguous);
//   - FROM generate_series(...) s / unnest(...) s name the column s as well (s(s));
//     json_build_object becomes DuckDB's json_object;
//   - x::regclass, CAST(x AS regclass) (and regtype, regnamespace, regproc) become
//     pgcat.strata_regclass(x) (...): the lookups PostgreSQL's input functions do;
//   - current_user, session_user, current_role, current_catalog and current_schema without
//     parentheses become the session's (pgcat macros).
// Pure and thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata::serve::pg {

// `catalog_functions`: the lower-case names of the functions schema pgcat defines.
// Errors: kSqlLex when `sql` does not lex; kSqlUnsupported for more than one statement;
// kUsage for a $n without a bound value.
Result<std::string> RewriteCatalogSql(std::string_view sql,
                                      const std::vector<std::optional<std::string>>& parameters,
                                      const std::set<std::string>& catalog_functions);

// 'text' with quotes doubled (standard_conforming_strings: backslashes are plain characters).
std::string QuoteLiteral(std::string_view text);
// "name" with quotes doubled.
std::string QuoteIdentifier(std::string_view name);

}  // namespace strata::serve::pg
