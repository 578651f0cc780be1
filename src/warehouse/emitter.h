// SQL statements for one warehouse target: names, literals, and the statement shapes of each
// materialization strategy. Pure text generation: nothing here talks to a warehouse. Every
// difference between targets comes from their Capabilities (warehouse/capabilities.h), never from
// a dialect's name; the sql::Dialect they name only quotes, lexes and parses.
//
// Every identifier is quoted by the dialect and every value rendered as a literal by it; the
// model SELECT passed in is already compiled (placeholders substituted, references rewritten).
//
// Partition overwrite per dialect (the seed's shapes; tests/golden/emit/<dialect>.txt has all):
//   duckdb      BEGIN TRANSACTION; DELETE; INSERT ... BY NAME; COMMIT
//   postgres    BEGIN; DELETE; INSERT (named columns, see Overwrite); COMMIT
//   redshift    as postgres (transactional, named columns); identifiers over 127 bytes are a
//               kConfig error instead of being silently truncated by the server
//   snowflake   BEGIN; DELETE; INSERT; COMMIT: four statements, one per REST call, one session
//   databricks  one statement: INSERT INTO t REPLACE WHERE <window> <select> (Delta, atomic);
//               begin/delete/commit/rollback are empty
//   bigquery    one script in `insert`: BEGIN TRANSACTION; DELETE; INSERT; COMMIT TRANSACTION
//               (its REST API is stateless: separate BEGIN/COMMIT calls are rejected);
//               begin/delete/commit/rollback are empty
//   trino       by the catalog's connector (discovered; docs/trino.md has the matrix):
//               iceberg, delta_lake: one MERGE (kMergeWindow, see MergeWindow below), atomic;
//               hive: START TRANSACTION; DELETE; INSERT (named columns); COMMIT;
//               memory, unknown, or not known (planned without a connection): refused
//               (kWarehouseUnsupported), never a DELETE and an INSERT a reader could see apart.
// An empty statement in PartitionOverwrite means "not sent" (the runner skips it).
// Snowflake, Databricks and BigQuery insert by position (no BY NAME): the table was made from
// the same model SELECT by Bootstrap, so the orders agree until the model's column order
// changes. Trino names the columns as PostgreSQL does (a Hive table has its partition column
// last).
//
// Window literals: the seed's '2026-04-07 00:00:00' string, except BigQuery and Trino, whose
// comparisons need a typed literal (BigQuery cannot coerce that string to DATE; Trino does not
// coerce varchar at all): TIMESTAMP '...', or DATE '...' / DATETIME '...' when the caller says the
// time column has that type (TimeColumnType). Planning has no connection and passes no type, so
// plans assume TIMESTAMP. Model placeholders (@start_date) use TimestampLiteral, or WindowLiteral
// where typed_window_placeholders (materialize/model_sql.h).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/partition.h"
#include "base/result.h"
#include "sql/dialect.h"
#include "warehouse/capabilities.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// The statements that overwrite one window, run in this order on one connection. The runner
// executes them one by one so it can read the insert's row count and check the result before
// committing. An empty string means the dialect sends no such statement.
struct PartitionOverwrite {
  std::string begin;
  std::string delete_window;
  std::string insert;
  std::string commit;
  std::string rollback;
};

// The SQL type of a time_interval model's time_column, when known. Only BigQuery and Trino
// render window literals by it (see the top of this file); other dialects ignore it.
enum class TimeColumnType { kTimestamp, kDate, kDatetime };

// How a time_interval target is partitioned when Bootstrap creates it (where the target's
// Capabilities::create_partitioning says how): by its time column at the model's grain.
struct TablePartitioning {
  std::string time_column;
  Grain grain = Grain::kDay;
};

// How PostgreSQL's row checksum (WindowStats) hashes a row. DuckDB always hashes the row's
// columns (hash(*COLUMNS(*))); other dialects ignore it.
//   kText:    hashtextextended of the row's text: any column type, but rendering each row as
//             text costs about as much as the rest of the statistics query;
//   kColumns: hash_record_extended, each column by its type's own hash function: about half the
//             cost, but only on PostgreSQL >= 14 and for column types that have one
//             (PostgresRowHash decides). Values that compare equal hash alike (1.0 and 1.00).
// The two give different checksums for the same rows: a model's checksums compare only between
// runs that hashed alike, which holds while neither the server version nor the target's column
// types change.
enum class RowHash { kText, kColumns };

// kColumns when a PostgreSQL server of `server_version_num` (SHOW server_version_num: 150018
// for 15.18) can hash every one of `columns` (a DescribeTable of the target) by its type's own
// hash function and every column's collation is deterministic; else kText. Conservative: a type
// outside a fixed list of built-in types whose hash functions are known (arrays, enums,
// composite, json, bit, money, geometric types) makes it kText. A nondeterministic collation
// (`deterministic = false`, e.g. case-insensitive ICU) hashes strings that differ only in case
// alike, so a case-only change would keep the checksum: the text hash sees it.
RowHash PostgresRowHash(int server_version_num, const std::vector<Column>& columns,
                        bool collations_deterministic = true);

// hash_record_extended, which RowHash::kColumns needs, arrived in PostgreSQL 14.
inline constexpr int kPostgresRecordHashVersion = 140000;

class Emitter {
 public:
  // The capabilities every target of `dialect` has (registry.h's CapabilitiesOf).
  explicit Emitter(sql::Dialect dialect);
  // One target's capabilities, e.g. as its registration discovered them.
  explicit Emitter(const Capabilities& capabilities) : capabilities_(capabilities) {}
  sql::Dialect dialect() const { return capabilities_.dialect; }
  const Capabilities& capabilities() const { return capabilities_; }
  // This emitter with WindowStats' checksums hashed by `row_hash` (kText by default).
  Emitter WithRowHash(RowHash row_hash) const {
    Emitter copy = *this;
    copy.row_hash_ = row_hash;
    return copy;
  }
  // This emitter with the columns a row checksum hashes where the warehouse cannot name a whole
  // row (RowHashFunction::kChecksumOfColumns, Trino): the model's output columns, in order.
  Emitter WithRowColumns(std::vector<std::string> columns) const {
    Emitter copy = *this;
    copy.row_columns_ = std::move(columns);
    return copy;
  }
  // True where the row hash can be chosen (PostgreSQL): the runner then picks one per target
  // (PostgresRowHash) and writes that model's batches with WithRowHash.
  bool ChoosesRowHash() const {
    return capabilities_.connector && capabilities_.row_hash == RowHashFunction::kText;
  }
  // PostgreSQL 12+: one row, one BIGINT, the number of `target`'s columns whose collation is
  // not deterministic (PostgresRowHash's `collations_deterministic` is that it is 0).
  // kWarehouseUnsupported where !ChoosesRowHash().
  Result<std::string> NondeterministicCollations(const TableName& target) const;

  // The quoted name a statement uses for `name`. DuckDB drops the catalog (the attached database
  // is the catalog, as in the seed's DuckDB example); a missing schema stays missing.
  std::string QualifiedName(const TableName& name) const;
  std::string QuoteIdentifier(std::string_view name) const;
  // The name strata's own statements call the built-in function `name` (lower case) by. DuckDB
  // resolves a user's macro or function in the current schema before its built-ins, so an
  // unqualified call could be redirected (`CREATE MACRO error(x) AS NULL` would switch the
  // output guard off, a `hash` or `count_star` macro would change checksums and row counts):
  // there it is system.main.<name>, which only the built-in answers. Other dialects: `name`
  // (PostgreSQL searches pg_catalog first unless the search_path names it later).
  std::string BuiltIn(std::string_view name) const;
  // SELECT count(*) FROM <target>: one row, one BIGINT.
  std::string RowCountQuery(const TableName& target) const;
  // '2026-04-07 00:00:00' — the seed's placeholder form.
  std::string TimestampLiteral(UnixSeconds seconds) const;
  // A window bound compared with a column of `type`: TimestampLiteral, or the typed literal where
  // the capabilities ask for one (see above).
  std::string WindowLiteral(UnixSeconds seconds, TimeColumnType type) const;
  // "<column>" >= '<start>' AND "<column>" < '<end>' (BigQuery, Trino: typed literals, see above;
  // a DATE literal is the bound's date).
  std::string WindowPredicate(std::string_view time_column, const Window& window,
                              TimeColumnType type = TimeColumnType::kTimestamp) const;

  // DuckDB inserts BY NAME. PostgreSQL has no BY NAME: with `columns` (the names of the model
  // SELECT's output columns) its insert is
  //   INSERT INTO t ("a", "b")\nSELECT "a", "b" FROM (\n<select>\n) AS strata_insert
  // which, like BY NAME, fails on a column the table lacks and leaves the table's other columns
  // NULL. Without `columns` (planning has no connection) it is the *unbound* form
  //   INSERT INTO t\nSELECT * FROM (\n<select>\n) AS strata_insert
  // which the runner must bind (InsertColumnsProbe, BindInsertColumns) before running it.
  // `columns` is ignored by dialects that need no column list. Redshift uses PostgreSQL's forms.
  // Errors: kConfig for a Redshift identifier over 127 bytes, or for a DATE `type` with a window
  // bound that is not midnight (BigQuery, Trino); kWarehouseUnsupported for a target that can
  // neither DELETE nor REPLACE WHERE (Capabilities::deletes is kNone).
  Result<PartitionOverwrite> Overwrite(const TableName& target, std::string_view time_column,
                                       const Window& window, std::string_view select_sql,
                                       const std::vector<std::string>* columns = nullptr,
                                       TimeColumnType type = TimeColumnType::kTimestamp) const;
  // True when Overwrite's insert must name its columns (PostgreSQL, Redshift): the runner then
  // reads the model's output columns with InsertColumnsProbe once per model and binds every
  // batch's insert.
  bool InsertNeedsColumns() const;
  // For the last statement of Bootstrap(target, ...): the same SELECT without the CREATE TABLE,
  // returning no rows, whose result columns are the model's output columns (and types).
  // kPlanStale when `bootstrap_statement` does not have Bootstrap's shape.
  Result<std::string> BootstrapProbe(const TableName& target,
                                     std::string_view bootstrap_statement) const;
  // For an unbound insert emitted by Overwrite for `target`: a statement returning no rows whose
  // result columns are the model SELECT's output columns. kPlanStale when `unbound_insert` does
  // not have the unbound shape (e.g. a plan saved by another version).
  Result<std::string> InsertColumnsProbe(const TableName& target,
                                         std::string_view unbound_insert) const;
  // The unbound insert rewritten to name `columns`, i.e. what Overwrite(..., &columns) emits.
  // kPlanStale as above; kWarehouse when `columns` is empty.
  Result<std::string> BindInsertColumns(const TableName& target, std::string_view unbound_insert,
                                        const std::vector<std::string>& columns) const;
  // An unbound insert of Overwrite(target, time_column, window, ...) bound to `columns`: what
  // Overwrite(..., &columns, type) emits. BindInsertColumns, except for kMergeWindow, whose
  // unbound form is
  //   MERGE INTO t AS strata_target\nUSING (\n<select>\n) AS strata_insert
  // and whose bound form is MergeWindow's. Errors as BindInsertColumns.
  Result<std::string> BindOverwrite(const TableName& target, std::string_view time_column,
                                    const Window& window, std::string_view unbound_insert,
                                    const std::vector<std::string>& columns,
                                    TimeColumnType type = TimeColumnType::kTimestamp) const;
  // A statement whose rows describe `select`'s output columns, one row each: (name, type name,
  // ...) in column order, without running it. DuckDB: DESCRIBE <select>. kWarehouseUnsupported
  // where the warehouse cannot describe a query.
  Result<std::string> DescribeQuery(std::string_view select) const;
  // Creates the schema if needed and the table from the model SQL compiled over an empty window;
  // never replaces an existing table (a plain CREATE TABLE fails if one appeared meanwhile; no
  // dialect uses IF NOT EXISTS). Snowflake, Databricks, BigQuery and Trino qualify the schema
  // with the catalog when there is one. With `partitioning`, the table is partitioned as the
  // target's create_partitioning says: Iceberg
  //   CREATE TABLE t WITH (partitioning = ARRAY['day("col")']) AS ...
  // (hour/day/month/year by the grain), Hive
  //   CREATE TABLE t WITH (partitioned_by = ARRAY['col']) AS ...
  // which Hive accepts only with the partition column last: BindBootstrap moves it there once
  // the model's columns are known. Trino lower-cases column names, and so do both.
  Result<std::vector<std::string>> Bootstrap(const TableName& target,
                                             std::string_view empty_window_select_sql,
                                             const TablePartitioning* partitioning = nullptr) const;
  // True when Bootstrap's last statement must be bound to the model's columns (BindBootstrap)
  // before it runs (CreatePartitioning::kColumnsLast).
  bool BootstrapNeedsColumns() const {
    return capabilities_.create_partitioning == CreatePartitioning::kColumnsLast;
  }
  // Bootstrap's last statement selecting `columns` with `time_column` moved last:
  //   CREATE TABLE t WITH (...) AS\nSELECT "a", "b", "col" FROM (\n<probe>\n) AS strata_columns
  // kPlanStale when the statement is not Bootstrap's shape; kConfig when `time_column` is not
  // one of `columns`.
  Result<std::string> BindBootstrap(const TableName& target, std::string_view bootstrap_statement,
                                    std::string_view time_column,
                                    const std::vector<std::string>& columns) const;
  // A statement returning no rows whose columns are `target`'s partition columns (Trino's Hive:
  // the "<table>$partitions" table). kWarehouseUnsupported unless create_partitioning is
  // kColumnsLast.
  Result<std::string> PartitionColumnsProbe(const TableName& target) const;
  // Replaces the table with the model's rows. DuckDB: CREATE OR REPLACE TABLE. PostgreSQL (no
  // OR REPLACE for tables): BEGIN, DROP TABLE IF EXISTS, CREATE TABLE AS, COMMIT as separate
  // statements, to run in order on one connection (a failure leaves the old table in place once
  // the session's transaction is rolled back or the session closed). Redshift: as PostgreSQL.
  // Snowflake, Databricks, BigQuery: CREATE OR REPLACE TABLE. Trino, by the catalog's connector:
  // Iceberg and Delta CREATE OR REPLACE TABLE (one snapshot: a reader sees the old table or the
  // new, and a failing model leaves the old); elsewhere (Hive, memory, not known) there is no
  // atomic replacement and it is kWarehouseUnsupported with a hint (ReplaceTable::kNone).
  // Every statement is preceded by CREATE SCHEMA IF NOT EXISTS when the target names a schema.
  Result<std::vector<std::string>> FullRefresh(const TableName& target,
                                               std::string_view select_sql) const;
  // An incremental model's first build, which the runner runs only while the target is missing:
  // FullRefresh where the target can replace a table; else (ReplaceTable::kNone) CREATE TABLE
  // AS, which fails instead of replacing a table that appeared meanwhile.
  Result<std::vector<std::string>> InitialBuild(const TableName& target,
                                                std::string_view select_sql) const;
  Result<std::vector<std::string>> View(const TableName& target, std::string_view select_sql) const;
  // The statement that ends a failed session transaction: "ROLLBACK" where statements run in
  // session transactions (DuckDB, PostgreSQL, Redshift, Snowflake), "" where there are none to
  // end (Databricks, BigQuery, Trino). Sent after any failed statement of a FullRefresh/View
  // script: outside a transaction it is a harmless no-op (an ignored error or warning).
  std::string Rollback() const;
  // ---- incremental models (DuckDB, PostgreSQL, Trino; kWarehouseUnsupported elsewhere) ----
  //
  // What @incremental_filter expands to in an incremental load:
  //   (<watermark> > (SELECT max(<watermark>) FROM <target>) [- INTERVAL '<lookback> seconds']
  //    OR NOT EXISTS (SELECT 1 FROM <target> WHERE <watermark> IS NOT NULL))
  // (Trino: INTERVAL '<lookback>' SECOND.)
  // i.e. the rows newer than the target's watermark (minus the lookback), read by the same
  // statement that stages them, so inside the load's transaction; every row while the target has
  // no watermark yet. `watermark` is unqualified: it names the column where the placeholder
  // stands (the model's source), and the target's column of the same name.
  Result<std::string> IncrementalFilter(const TableName& target, std::string_view watermark,
                                        std::int64_t lookback_seconds) const;
  // What @incremental_filter expands to in a full build (first run, --full-refresh): "(1 = 1)".
  static std::string FullLoadFilter() { return "(1 = 1)"; }
  // One incremental load, each statement run in order on one connection, in one transaction:
  //   stage:  CREATE TEMP TABLE strata_incremental AS the model's rows (with unique_key, the
  //           newest row per key by watermark: DISTINCT ON ... ORDER BY watermark DESC);
  //   delete: (unique_key only) the target's rows whose key is staged (IS NOT DISTINCT FROM, so
  //           NULL keys match too);
  //   insert: the staged rows. DuckDB: INSERT ... BY NAME. PostgreSQL: the unbound
  //           `INSERT INTO t SELECT * FROM strata_incremental`, which the runner binds with
  //           BindStagedInsert(target, the stage's columns from StageColumnsProbe()).
  //   drop:   the stage (a failure before COMMIT rolls it back with everything else).
  // Trino (IncrementalForm::kOneStatement: no temporary tables) has one statement, `insert`,
  // every other one empty, unbound until the runner binds it to the model's output columns
  // (IncrementalColumnsProbe, BindIncremental):
  //   without unique_key: INSERT INTO t\nSELECT * FROM (\n<select>\n) AS strata_insert,
  //     bound: INSERT INTO t (<columns>) SELECT <columns> FROM (<select>) AS strata_insert;
  //   with unique_key:    MERGE INTO t AS strata_target\nUSING (\n<select>\n) AS strata_insert,
  //     bound: one MERGE that deletes every old row of each loaded key and inserts the key's
  //     newest row (by watermark), as the staged form does; keys match by `=`, and a NULL key
  //     fails the statement with kNullKeyMessage (the runner reports kWarehouseUnsupported).
  //     Its row count is the rows it deleted plus those it inserted. Needs `merge`: where there
  //     is none (Hive) unique_key is kWarehouseUnsupported with a hint.
  // kConfig for an invalid identifier in `unique_key` or `watermark`.
  struct IncrementalLoad {
    std::string begin, stage, delete_matching, insert, drop_stage, commit, rollback;
  };
  Result<IncrementalLoad> Incremental(const TableName& target, std::string_view select_sql,
                                      std::string_view watermark,
                                      const std::vector<std::string>& unique_key) const;
  // A statement returning no rows whose columns are the stage's.
  static std::string StageColumnsProbe() { return "SELECT * FROM strata_incremental LIMIT 0"; }
  // INSERT INTO target (columns) SELECT columns FROM strata_incremental.
  Result<std::string> BindStagedInsert(const TableName& target,
                                       const std::vector<std::string>& columns) const;
  // True where the load's one statement must be bound to the model's columns before it runs
  // (IncrementalForm::kOneStatement).
  bool IncrementalNeedsColumns() const {
    return capabilities_.incremental == IncrementalForm::kOneStatement;
  }
  // For Incremental's unbound statement (`upsert`: the model has a unique_key): a statement
  // returning no rows whose columns are the model's output columns. kPlanStale when
  // `unbound_load` does not have Incremental's shape.
  Result<std::string> IncrementalColumnsProbe(const TableName& target,
                                              std::string_view unbound_load, bool upsert) const;
  // Incremental's unbound statement bound to `columns` (see Incremental). kPlanStale as above;
  // kConfig when the watermark or a unique_key column is not one of `columns`; kWarehouse when
  // `columns` is empty.
  Result<std::string> BindIncremental(const TableName& target, std::string_view unbound_load,
                                      std::string_view watermark,
                                      const std::vector<std::string>& unique_key,
                                      const std::vector<std::string>& columns) const;
  // The error text of the upsert MERGE's NULL-key guard.
  static constexpr std::string_view kNullKeyMessage =
      "strata unique_key guard: a row of the incremental load has a NULL unique_key column";
  // One row, one text column: the target's max(watermark), NULL when it has none.
  Result<std::string> WatermarkQuery(const TableName& target, std::string_view watermark) const;

  // (partition_key TEXT, row_count BIGINT), one row per partition of `grain` that has rows in
  // `range`; partition_key is spelled as PartitionKey::ToString() spells it ("2026-04-07",
  // "2026-04-07T13", "2026-04", "2026"), computed in UTC. The state check reads it (one scan of
  // the time column). kWarehouseUnsupported for the cloud dialects, as WindowStats.
  // "DROP TABLE IF EXISTS <target>": a time_interval model rebuilt from nothing (--full-refresh).
  Result<std::string> DropTable(const TableName& target) const;
  // (key_index INTEGER, row_count BIGINT): PartitionRowCounts by windows rather than by UTC
  // grain, for a zoned model's partitions (local days are not UTC days): one row per window of
  // `windows` with rows, key_index its position (KeyIndexCase). REQUIRES: `windows` not empty.
  Result<std::string> WindowRowCounts(const TableName& target, std::string_view time_column,
                                      const std::vector<Window>& windows) const;
  Result<std::string> PartitionRowCounts(const TableName& target, std::string_view time_column,
                                         Grain grain, const Window& range) const;
  // One row: (row_count BIGINT, checksum). The checksum is an order-independent hash of the
  // window's rows: the wrapping sum (mod 2^64) of a 64-bit hash of each whole row, so duplicates
  // count. DuckDB returns it as UBIGINT; PostgreSQL (no unsigned type) as a NUMERIC in
  // [0, 2^64), read as decimal text; Trino as the BIGINT of checksum(ROW(<columns>)) (the wrapping
  // sum of each row's xxhash64 times a prime, a NULL row by a constant), whose bits are the
  // unsigned value: it needs the columns (WithRowColumns; kInternal without them). Checksums
  // compare only within one dialect.
  // kWarehouseUnsupported for the cloud dialects (no verified row-checksum expression yet; their
  // connectors do not exist either, so nothing runs it).
  Result<std::string> WindowStats(const TableName& target, std::string_view time_column,
                                  const Window& window,
                                  TimeColumnType type = TimeColumnType::kTimestamp) const;
  // WindowStats of several partition windows in one scan: one row (key_index INTEGER,
  // row_count BIGINT, checksum) per window with rows, key_index its position in `windows`; a
  // window without rows has no row (its count and checksum are 0). Each window's count and
  // checksum equal WindowStats' for it, bit for bit (the same predicate, the same row hash).
  // REQUIRES: `windows` is not empty, ascending and disjoint. kWarehouseUnsupported as above.
  Result<std::string> WindowStatsByKey(const TableName& target, std::string_view time_column,
                                       const std::vector<Window>& windows,
                                       TimeColumnType type = TimeColumnType::kTimestamp) const;

  // ---- several batches of one time_interval model in one statement (emit_grouped.cc) ----
  //
  // True where Grouped is available: DuckDB, whose per-statement cost dominates a transaction
  // of small partitions (docs/batching.md).
  bool SupportsGrouped() const { return capabilities_.grouped_writes; }
  // The output guard's error text, followed by the failing batch's index (GuardFailedBatch).
  static constexpr std::string_view kGuardMessage = "strata output guard failed in batch ";
  // One batch as Overwrite planned it: its window and its insert.
  struct BatchInsert {
    Window window;
    std::string_view insert;
  };
  // The statements that write consecutive batches inside one transaction (BEGIN and COMMIT are
  // Overwrite's):
  //   delete_window: one DELETE of the whole range [front.start, back.end);
  //   insert: one INSERT ... BY NAME of the UNION ALL of every batch's own SELECT (read back out
  //     of its Overwrite insert, so each still reads exactly its own window), each filtered by
  //     its output guard: a row whose time column is outside its batch's window, or NULL, fails
  //     the statement with an error whose message GuardFailedBatch reads the batch's index from.
  //     It returns (key_index BIGINT, row_hash UBIGINT) per written row, as
  //     InsertReturningStats does: key_index is the row's partition of `grain` as its offset from
  //     the range's first partition, row_hash the hash WindowStats sums; folded per key
  //     (Connection::ExecuteFolded) they are each partition's WindowStats.
  // REQUIRES: `batches` not empty, ascending, each window touching the next, aligned to `grain`.
  // kWarehouseUnsupported where !SupportsGrouped(); kPlanStale for an insert that is not
  // Overwrite's shape.
  struct GroupedWrite {
    std::string delete_window, insert;
  };
  // With `key_windows` (every key's window in order, for a zoned model whose keys are local
  // periods that no UTC grain arithmetic counts), key_index is the row's window among them
  // (KeyIndexCase) instead.
  Result<GroupedWrite> Grouped(const TableName& target, std::string_view time_column, Grain grain,
                               const std::vector<BatchInsert>& batches,
                               const std::vector<Window>* key_windows = nullptr) const;
  // The index of the batch whose output guard failed a Grouped insert, read from the warehouse's
  // error message; nullopt when the message is not a guard's.
  static std::optional<std::size_t> GuardFailedBatch(std::string_view message);

  // ---- statistics returned by the insert itself (emit_grouped.cc) ----
  //
  // True where an insert can return what the statistics scan would read (DuckDB: INSERT ...
  // RETURNING): the runner folds its rows (Connection::ExecuteFolded) instead of reading the
  // window back after the insert.
  bool SupportsReturningStats() const {
    return capabilities_.returning && capabilities_.row_hash == RowHashFunction::kColumns;
  }
  // A batch's insert as Overwrite planned it, made to return one row per written row:
  //   INSERT INTO t BY NAME\nSELECT * FROM (\n<select>\n) AS strata_insert
  //   RETURNING CASE WHEN <windows[0]> THEN 0 WHEN ... END AS key_index,
  //             hash(*COLUMNS(*)) AS row_hash
  // key_index is the row's position in `windows`, NULL outside all of them (the output guard
  // counts those), by WindowStatsByKey's predicates; row_hash hashes the row as stored (after
  // the table's casts, every column of the table in its order), which is the hash WindowStats
  // sums: the folds equal WindowStats' counts and checksums bit for bit.
  // REQUIRES: `windows` not empty, ascending, disjoint. kWarehouseUnsupported where
  // !SupportsReturningStats(); kPlanStale for an insert that is not Overwrite's shape.
  Result<std::string> InsertReturningStats(const TableName& target, std::string_view time_column,
                                           std::string_view insert,
                                           const std::vector<Window>& windows) const;

 private:
  // kWarehouseUnsupported unless the target has a connector (and, with `incremental`,
  // incremental loads).
  Status RequireSupported(std::string_view what, bool incremental = false) const;
  // kInternal where row checksums need the model's columns and WithRowColumns gave none.
  Status RequireRowColumns() const;
  // A row's position in `windows`, NULL outside them (WindowStatsByKey's key, and
  // InsertReturningStats'). PostgreSQL, ascending disjoint windows: a bisection on their starts
  // ending in the window's own predicate (CASE WHEN <column> < <start of windows[2]> THEN CASE
  // WHEN <column> < <start of windows[1]> THEN CASE WHEN <windows[0]> THEN 0 END ...), about
  // log2(n) + 2 comparisons a row where a flat CASE makes up to 2n, each evaluated row by row
  // (64 windows: 2.6x faster). Otherwise (DuckDB evaluates a flat CASE a vector at a time, faster
  // than nested ones): CASE WHEN <windows[0]> THEN 0 WHEN ... END.
  std::string KeyIndexCase(std::string_view time_column, const std::vector<Window>& windows,
                           TimeColumnType type = TimeColumnType::kTimestamp) const;
  // The order-independent checksum of the rows aliased strata_row (WindowStats' contract).
  std::string RowChecksum() const;
  // What an insert returns per written row: its `key`, then the hash of the whole stored row. The
  // hash of several arguments equals the hash of the row as one struct (RowChecksum's hash):
  // DuckDB combines the columns' hashes in the same order either way.
  std::string ReturningStats(std::string_view key) const;
  // kPlanStale: a planned insert into `target` is not of the shape this version emits.
  Error StaleInsert(const TableName& target) const;
  // Redshift: kConfig when a name is longer than its 127-byte limit.
  Status CheckIdentifiers(std::initializer_list<std::string_view> names) const;
  Status CheckTarget(const TableName& target) const;
  Status CheckWindowType(const Window& window, TimeColumnType type) const;
  // Overwrite's INSERT of `select_sql`, by the target's InsertColumns (unbound without columns).
  Result<std::string> Insert(const TableName& target, std::string_view select_sql,
                             const std::vector<std::string>* columns) const;
  std::string SchemaName(const TableName& target) const;
  std::string UnboundInsertPrefix(const TableName& target) const;
  Result<std::string_view> UnboundInsertSelect(const TableName& target,
                                               std::string_view unbound_insert) const;
  std::string NamedInsert(const TableName& target, std::string_view select_sql,
                          const std::vector<std::string>& columns) const;
  // Incremental's kOneStatement forms (emit_incremental.cc).
  std::string IncrementalUnboundPrefix(const TableName& target, bool upsert) const;
  Result<std::string_view> IncrementalUnboundSelect(const TableName& target,
                                                    std::string_view unbound, bool upsert) const;
  Error MissingColumn(const TableName& target, std::string_view role, std::string_view name) const;
  std::string UpsertMerge(const TableName& target, std::string_view select_sql,
                          std::string_view watermark, std::string_view keys,
                          std::string_view not_null, std::string_view match,
                          const std::vector<std::string>& columns) const;
  // The one MERGE of kMergeWindow (emit_merge_window.cc).
  std::string MergeWindow(const TableName& target, std::string_view time_column,
                          const Window& window, std::string_view select_sql,
                          const std::vector<std::string>& columns, TimeColumnType type) const;
  Capabilities capabilities_;
  RowHash row_hash_ = RowHash::kText;
  std::vector<std::string> row_columns_;
};

}  // namespace strata::warehouse
