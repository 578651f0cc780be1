// The words each dialect reserves: written bare (unquoted), a reserved word is never a column
// name, a table name or an alias without AS; quoted ("at") any of them is. The parser reads names
// through these sets, so a model or a semantic member that uses one bare fails to parse (at load)
// instead of failing in the warehouse.
//
// DuckDB and PostgreSQL reserve what the engines themselves reserve (tested against the engines'
// lists in semantic/reserved_words_test.cc):
//   duckdb:   every duckdb_keywords() word of category 'reserved', and every 'type_function'
//             word DuckDB refuses as a column name (AT, JOIN, LEFT, OVERLAPS, ...; not COLUMNS,
//             GENERATED, MAP, STRUCT, TRY_CAST, which DuckDB 1.4 reads as names);
//   postgres: every pg_get_keywords() word of catcode 'R' or 'T'.
// Every dialect also reserves the words Strata's parser needs to end a name or an expression
// (FROM, JOIN, QUALIFY, ANTI, OVER, ...), even where the engine does not.
//
// Pure and thread-safe. Words are compared ignoring ASCII case.
#pragma once

#include <string_view>

#include "sql/dialect.h"

namespace strata::sql {

// True when `word`, written bare, cannot be a name in `dialect`.
bool IsReservedWord(std::string_view word, Dialect dialect);

// True for a reserved word the dialect still reads as a function name when '(' follows:
// DuckDB's and PostgreSQL's type/function words (left(s, 2), overlaps(...)), and LEFT and RIGHT
// in every dialect.
bool IsReservedFunctionName(std::string_view word, Dialect dialect);

// True for a reserved word the dialect reads on its own as a value (an SQL value function):
// PostgreSQL's CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME, LOCALTIMESTAMP,
// CURRENT_USER, CURRENT_ROLE, CURRENT_CATALOG, CURRENT_SCHEMA, SESSION_USER and USER. TRUE, FALSE
// and NULL are literals and not listed here.
bool IsReservedValueWord(std::string_view word, Dialect dialect);

}  // namespace strata::sql
