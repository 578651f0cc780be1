// The Trino client REST protocol's documents (POST /v1/statement, then GET nextUri until there
// is none): one response page read into typed columns and rows, Trino's errors mapped to strata's
// warehouse error codes. Pure: no I/O, thread-safe. The HTTP exchange is trino_client.h's.
//
// Values come back as strata's warehouse::Value, in the forms the other adapters give them:
//   boolean                                  bool
//   tinyint, smallint, integer, bigint       int64 (exact: bigint is read as an integer, never
//                                            through a double)
//   real, double                             double ("NaN", "Infinity", "-Infinity" included)
//   decimal(p, s)                            the text Trino sends, exact ("123.4500")
//   varchar, char                            text
//   date                                     "YYYY-MM-DD"
//   timestamp(p)                             "YYYY-MM-DD HH:MM:SS[.f]", the fraction without
//                                            trailing zeros (DuckDB's text of a TIMESTAMP)
//   timestamp(p) with time zone              the same, then the zone: "+00" for UTC (the session
//                                            zone strata sends), as DuckDB prints a TIMESTAMPTZ;
//                                            another zone's name is kept after a space
//   anything else (array, map, row, json,    kOther: the JSON text of the cell
//   varbinary, uuid, ...)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse::trino {

// A query's error as Trino reports it in a page's "error" member.
struct TrinoError {
  std::string message;
  std::string error_name;  // "SYNTAX_ERROR", "TABLE_NOT_FOUND", ...
  std::string error_type;  // "USER_ERROR", "INTERNAL_ERROR", "INSUFFICIENT_RESOURCES", "EXTERNAL"
  std::int64_t error_code = 0;
  int line = 0;  // errorLocation, 1-based; 0 when Trino gave none
  int column = 0;
};

// One response page of a statement.
struct Page {
  std::string query_id;
  std::optional<std::string> next_uri;  // absent on the last page
  std::string state;                    // stats.state: QUEUED, RUNNING, FINISHED, FAILED, ...
  // The result's columns, once Trino knows them (often not on the first pages); empty before.
  std::vector<Column> columns;
  // This page's rows, decoded by `columns` (each row has columns.size() cells).
  std::vector<std::vector<Value>> rows;
  std::optional<std::int64_t> update_count;  // rows written by INSERT/DELETE/MERGE/...
  std::string update_type;                   // "INSERT", "CREATE TABLE", ...
  std::optional<TrinoError> error;
};

// Reads one page. kWarehouse when `body` is not a statement response (not JSON, no "id", a
// "data" row of the wrong width, a cell that does not fit its column's type); the message quotes
// what was wrong, never the whole body.
Result<Page> ParsePage(std::string_view body);

// The strata type of a Trino type's raw name ("bigint", "decimal", "timestamp with time zone").
ColumnType ColumnTypeOf(std::string_view raw_type);

// The strata error of a failed query: SYNTAX_ERROR -> kWarehouseSyntax (with line:column);
// TABLE_NOT_FOUND, SCHEMA_NOT_FOUND, CATALOG_NOT_FOUND, COLUMN_NOT_FOUND, MISSING_TABLE ->
// kWarehouseCatalog; USER_CANCELED, ADMINISTRATIVELY_KILLED -> kWarehouseInterrupted;
// NOT_SUPPORTED, AUTOCOMMIT_WRITE_CONFLICT (a catalog that writes only in autocommit, as Iceberg),
// MULTI_CATALOG_WRITE_CONFLICT, READ_ONLY_VIOLATION -> kWarehouseUnsupported; TRANSACTION_CONFLICT
// and Iceberg's commit conflicts -> kWarehouseConflict (retryable); NO_NODES_AVAILABLE,
// SERVER_STARTING_UP, REMOTE_TASK_ERROR, TOO_MANY_REQUESTS_FAILED, PAGE_TRANSPORT_* ->
// kWarehouseConnection (retryable); anything else kWarehouse (INSUFFICIENT_RESOURCES with a hint
// about Trino's memory limits). The message is "trino: ERROR_NAME (ERROR_TYPE): message".
Error ToError(const TrinoError& error);

// True for the errors Trino raises before a query has run anything (NO_NODES_AVAILABLE: the
// scheduler found no worker; SERVER_STARTING_UP): sending the same statement again is safe.
bool NeverStarted(const TrinoError& error);

// Normalizes a Trino timestamp text as described above ("2024-03-01 10:11:12.120000 UTC" ->
// "2024-03-01 10:11:12.12+00"); texts of another shape are returned unchanged.
std::string NormalizeTimestamp(std::string_view text);

}  // namespace strata::warehouse::trino
