// The SQL port's view of a statement's text before it is parsed: splitting a simple Query
// message into statements, the first keywords that route it (session.h), the cursor statements
// the session answers itself (DECLARE ... CURSOR FOR, FETCH, CLOSE: Tableau's), and the number of
// $n parameters a text uses. Lexed with the project's lexer (PostgreSQL dialect), so a ';' or a
// keyword inside a string or a comment is never taken for one.
//
// All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata::serve::pg {

// The statements of a simple query, split at top-level ';', without the ';' and trimmed; empty
// statements dropped. Errors: kSqlLex for an unterminated string, identifier or comment.
Result<std::vector<std::string>> SplitStatements(std::string_view sql);

// The statement's first keywords, upper case, comments skipped ("SELECT", "EXPLAIN", "SET",
// "BEGIN", "DECLARE", ...); "(" for a parenthesized query; "" for an empty text.
std::string FirstKeyword(std::string_view sql);

struct DeclareCursor {
  std::string name;   // folded to lower case unless quoted
  std::string query;  // the text after FOR
  bool binary = false;
  bool hold = false;  // WITH HOLD: outlives its transaction
};
// DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [{WITH | WITHOUT} HOLD]
// FOR query. Errors: kSqlLex when it is not of that form; kSqlUnsupported for SCROLL.
Result<DeclareCursor> ParseDeclareCursor(std::string_view sql);

struct FetchCursor {
  std::string name;
  std::optional<std::int64_t> count;  // nullopt: ALL
  bool move = false;                  // MOVE: position only, no rows
};
// FETCH|MOVE [NEXT | FORWARD [n | ALL] | n | ALL] [FROM | IN] name. Errors: kSqlLex when it is not
// of that form; kSqlUnsupported for a backward direction (PRIOR, BACKWARD, ABSOLUTE, ...).
Result<FetchCursor> ParseFetchCursor(std::string_view sql);

// CLOSE name | ALL: the name (folded), or nullopt for ALL. Errors: kSqlLex.
Result<std::optional<std::string>> ParseCloseCursor(std::string_view sql);

// DEALLOCATE [PREPARE] name | ALL: the statement's name as the extended protocol names it
// (quotes removed, case kept: pgjdbc's "S_1"), or nullopt for ALL (and for what does not read).
std::optional<std::string> DeallocatedName(std::string_view sql);

// What a COMMIT/END/ROLLBACK/ABORT statement does to the transaction block: ends it, ends it and
// opens the next one (AND CHAIN), or (ROLLBACK TO [SAVEPOINT] name) keeps it open.
enum class TransactionEnd { kEnd, kAndChain, kToSavepoint };
TransactionEnd TransactionEndOf(std::string_view sql);

// The highest n of the $n parameters in `sql` (0 when none). Errors: kSqlLex.
Result<int> ParameterCount(std::string_view sql);

}  // namespace strata::serve::pg
