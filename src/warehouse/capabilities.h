// What one warehouse target can do, as the Emitter and the runner need to know it: one value per
// target, never a dialect name. Each adapter's registration (warehouse/registry.h) gives the
// capabilities every target of its type has, and learns at run time the ones that vary between
// targets (PostgreSQL's server version decides its row hash; later a Trino catalog's connector
// decides MERGE, DELETE and transactions). Parsing, printing, quoting and reserved words are
// not capabilities: they stay with the sql::Dialect the capabilities name (sql/dialect.h).
//
// Plain data; thread-safe to share and copy.
#pragma once

#include <cstddef>
#include <string_view>

#include "sql/dialect.h"

namespace strata::warehouse {

// How statements of a script are made atomic.
enum class Transactions {
  kNone,     // every statement commits on its own (Databricks, Trino's lakehouse connectors)
  kSession,  // BEGIN ... COMMIT as statements on one session; a failed script ends with ROLLBACK
  kScript,   // only inside one multi-statement script sent at once (BigQuery)
};

// Which rows a DELETE may remove.
enum class Deletes {
  kNone,             // no DELETE at all (Trino's memory connector): a window cannot be overwritten
  kWholePartitions,  // only whole partitions of the table's own partitioning (Trino's Hive)
  kAnyRows,          // DELETE ... WHERE of any rows
};

// How a partition's window is overwritten (Emitter::Overwrite).
enum class OverwriteForm {
  kDeleteInsert,  // DELETE the window, INSERT the rows (inside a transaction when there is one)
  kReplaceWhere,  // one INSERT INTO t REPLACE WHERE <window> (Delta)
  kMergeWindow,   // one MERGE that deletes the window's rows and inserts the new ones (Trino's
                  // Iceberg and Delta: MERGE where there are no multi-statement transactions)
};

// How an INSERT matches the SELECT's columns to the table's.
enum class InsertColumns {
  kByName,      // INSERT ... BY NAME
  kNamed,       // INSERT INTO t (columns): the runner binds the model's output columns
  kByPosition,  // INSERT INTO t SELECT: the table was made from the same SELECT
};

// How a table is replaced whole (Emitter::FullRefresh).
enum class ReplaceTable {
  kCreateOrReplace,        // CREATE OR REPLACE TABLE
  kDropCreateTransaction,  // BEGIN; DROP TABLE IF EXISTS; CREATE TABLE AS; COMMIT
  kNone,  // no atomic replacement (Trino's Hive and memory connectors): full_refresh is refused
          // rather than a DROP a reader could see before the CREATE; a missing table can still be
          // created (Emitter::InitialBuild)
};

// How an incremental load writes its new rows (Emitter::Incremental).
enum class IncrementalForm {
  kNone,    // no incremental loads (targets without a connector)
  kStaged,  // staged in a temporary table; DELETE of the staged keys and INSERT, one transaction
            // (DuckDB, PostgreSQL)
  kOneStatement,  // no temporary table: one INSERT of the new rows, or with unique_key one MERGE
                  // (needs `merge`) that deletes the keys' old rows and inserts the new (Trino)
};

// The row hash a window checksum sums (Emitter::WindowStats).
enum class RowHashFunction {
  kColumns,  // the engine hashes a row's columns itself (DuckDB's hash(*COLUMNS(*)))
  kText,     // the row's text (PostgreSQL's hashtextextended), or, per target, each column by its
             // type's hash (hash_record_extended) where row_hash_by_columns (RowHash::kColumns)
  kChecksumOfColumns,  // Trino's checksum(ROW(<the model's columns>)): needs the column names
                       // (Emitter::WithRowColumns)
};

// A window literal's form.
enum class WindowLiterals {
  kString,         // '2026-04-07 00:00:00', compared with any time type
  kTyped,          // TIMESTAMP '...' (DATE '...' for a DATE column)
  kTypedDatetime,  // as kTyped, and DATETIME '...' for a DATETIME column (BigQuery)
};

// How a time column is bucketed into partition keys (Emitter::PartitionRowCounts).
enum class BucketFormat { kStrftime, kToChar, kDateFormat };

// How a missing time_interval target is created partitioned by its time column (Emitter::
// Bootstrap).
enum class CreatePartitioning {
  kNone,         // plain CREATE TABLE AS
  kTransform,    // WITH (partitioning = ARRAY['day(<column>)']) at the model's grain (Iceberg)
  kColumnsLast,  // WITH (partitioned_by = ARRAY['<column>']), the column moved last (Hive)
};

struct Capabilities {
  sql::Dialect dialect = sql::Dialect::kDuckDb;  // parsing, printing, quoting, reserved words
  // Display name for messages ("Redshift").
  std::string_view display_name;
  // Strata can open the warehouse and run statements on it (strata run, strata query). Only
  // these targets get the statements whose results Strata reads back — window statistics,
  // partition row counts (the state check) and incremental loads — because only they are
  // verified against a running warehouse; elsewhere those are kWarehouseUnsupported.
  bool connector = false;
  Transactions transactions = Transactions::kNone;
  std::string_view begin_statement = "BEGIN";  // with Transactions::kSession
  bool merge = false;                          // MERGE INTO
  Deletes deletes = Deletes::kAnyRows;
  IncrementalForm incremental = IncrementalForm::kNone;
  bool returning = false;       // INSERT ... RETURNING: the insert returns each row's stats
  bool grouped_writes = false;  // several batches in one statement (Emitter::Grouped)
  OverwriteForm overwrite = OverwriteForm::kDeleteInsert;
  InsertColumns insert_columns = InsertColumns::kByPosition;
  ReplaceTable replace_table = ReplaceTable::kCreateOrReplace;
  RowHashFunction row_hash = RowHashFunction::kColumns;
  // Learned per target: hash_record_extended exists (PostgreSQL 14 and later).
  bool row_hash_by_columns = false;
  WindowLiterals window_literals = WindowLiterals::kString;
  // A bare @start_date / @end_date in model SQL becomes a typed literal (TIMESTAMP '...'), the
  // quoted form '@start_date' stays a string: Trino compares no time column with a string.
  bool typed_window_placeholders = false;
  BucketFormat bucket_format = BucketFormat::kStrftime;
  CreatePartitioning create_partitioning = CreatePartitioning::kNone;
  // CREATE SCHEMA and table names carry the catalog (catalog.schema); DuckDB's attached database
  // is the catalog, so its names drop it.
  bool schema_takes_catalog = false;
  bool names_take_catalog = true;
  // Strata's own calls of built-ins are qualified by this prefix ("system.main.") so a user's
  // macro of the same name cannot answer them.
  std::string_view builtin_prefix;
  // Intervals are written INTERVAL '<n>' SECOND (the standard's form, Trino) rather than
  // INTERVAL '<n> seconds' (DuckDB, PostgreSQL).
  bool standard_intervals = false;
  // A row-at-a-time engine: a CASE over many windows is a bisection, not a flat list.
  bool row_at_a_time = false;
  // DESCRIBE <select> lists a query's output columns and types.
  bool describes_queries = false;
  // Identifiers longer than this many bytes are refused (0: no limit).
  std::size_t max_identifier_bytes = 0;
  // Tables are stored in row groups of this many rows (0: not row-grouped); the runner sizes
  // transactions around them (materialize/transaction_groups.h).
  double row_group_rows = 0;

  bool session_transactions() const { return transactions == Transactions::kSession; }
  bool typed_window_literals() const { return window_literals != WindowLiterals::kString; }
  bool incremental_loads() const { return incremental != IncrementalForm::kNone; }
};

}  // namespace strata::warehouse
