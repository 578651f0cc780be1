// The session's utility statements (catalog.h): SET, RESET, SHOW, set_config(), BEGIN, START
// TRANSACTION, COMMIT, END, ROLLBACK, ABORT, DISCARD ALL, DEALLOCATE; and the refusal of
// writes, DDL and COPY. Pure functions of the statement and the settings; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "serve/pg/catalog.h"

namespace strata::serve::pg {

// The answer when `sql` is a utility statement, nullopt when it is a query for the catalog
// database (SELECT, WITH, VALUES, TABLE, a parenthesized query). Errors: kSqlUnsupported for
// any other statement (INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, COPY, ...), naming it;
// kInvalidTimeZone for SET TimeZone to an unknown zone; kSqlLex when it does not lex.
Result<std::optional<ResultSet>> ExecuteUtility(std::string_view sql, SessionSettings& settings);

}  // namespace strata::serve::pg
