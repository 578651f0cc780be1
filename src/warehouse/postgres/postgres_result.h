// Converts libpq results and errors into QueryResult and coded Errors. Private to the adapter.
#pragma once

#include <libpq-fe.h>

#include <string_view>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// REQUIRES: PQresultStatus(result) is PGRES_TUPLES_OK or PGRES_COMMAND_OK. Does not free it.
// bool → bool; int2/int4/int8/oid → int64; float4/float8 → double; everything else (numeric as
// exact decimal text, dates, timestamps in the session's ISO style, text) → its text.
// rows_changed comes from PQcmdTuples (0 for statements that report no count).
QueryResult ReadPostgresResult(const PGresult* result);
// Appends `result`'s rows to `out`, typed as ReadPostgresResult types them. When `out` has no
// columns yet they are taken from `result`; otherwise `result` must have the same columns (a
// single-row mode result's next row). rows_changed is left alone.
void AppendPostgresRows(const PGresult* result, QueryResult& out);

// The ColumnType of a type OID, and of an information_schema.columns udt_name ("int4").
ColumnType ColumnTypeFromPostgresOid(Oid type);
ColumnType ColumnTypeFromPostgresName(std::string_view udt_name);

// The Strata code of a SQLSTATE: 40001/40P01 → kWarehouseConflict; class 08, 57P01-57P03 and
// 53300 → kWarehouseConnection; 42601 → kWarehouseSyntax; 42P01/42703/42883/3F000 →
// kWarehouseCatalog; 57014 → kWarehouseInterrupted; anything else → kWarehouse.
ErrorCode ErrorCodeForSqlState(std::string_view sqlstate);

// The error of a failed statement: the server's primary message with its SQLSTATE and detail,
// the server's hint as the hint. `result` may be null (libpq could not even build one: the
// connection's message is used, coded kWarehouseConnection when the connection is gone).
Error ErrorFromPostgres(const PGresult* result, const PGconn* connection);

}  // namespace strata::warehouse
