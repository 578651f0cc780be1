#include "warehouse/emitter.h"

#include <fmt/format.h>

#include <algorithm>

#include "warehouse/registry.h"

namespace strata::warehouse {

Emitter::Emitter(sql::Dialect dialect) : capabilities_(CapabilitiesOf(dialect)) {}

Status Emitter::RequireSupported(std::string_view what, bool incremental) const {
  if (capabilities_.connector && (!incremental || capabilities_.incremental_loads())) {
    return OkStatus();
  }
  return MakeError(ErrorCode::kWarehouseUnsupported,
                   fmt::format("{} statements for the {} dialect are not available yet", what,
                               sql::DialectName(dialect())),
                   fmt::format("use a {} warehouse", ConnectorDialectNames(incremental)));
}

Status Emitter::RequireRowColumns() const {
  if (capabilities_.row_hash != RowHashFunction::kChecksumOfColumns || !row_columns_.empty()) {
    return OkStatus();
  }
  return MakeError(
      ErrorCode::kInternal,
      fmt::format("{} window statistics need the model's columns", capabilities_.display_name));
}

Status Emitter::CheckIdentifiers(std::initializer_list<std::string_view> names) const {
  const std::size_t limit = capabilities_.max_identifier_bytes;
  if (limit == 0) return OkStatus();
  for (std::string_view name : names) {
    if (name.size() > limit) {
      return MakeError(ErrorCode::kConfig,
                       fmt::format("the name \"{}\" is {} bytes long; {} allows at most {}", name,
                                   name.size(), capabilities_.display_name, limit),
                       fmt::format("shorten the name (model target, schema or time_column) to {} "
                                   "bytes or less",
                                   limit));
    }
  }
  return OkStatus();
}

Status Emitter::CheckTarget(const TableName& target) const {
  return CheckIdentifiers({target.catalog, target.schema, target.table});
}

Status Emitter::CheckWindowType(const Window& window, TimeColumnType type) const {
  if (!capabilities_.typed_window_literals() || type != TimeColumnType::kDate) return OkStatus();
  constexpr UnixSeconds kDay = 86400;
  if (window.start % kDay != 0 || window.end % kDay != 0) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("the window [{}, {}) does not start and end at midnight, but the "
                                 "time column is a DATE",
                                 FormatSqlTimestamp(window.start), FormatSqlTimestamp(window.end)),
                     "use granularity = \"day\" or coarser for a DATE time_column");
  }
  return OkStatus();
}

std::string Emitter::QuoteIdentifier(std::string_view name) const {
  return sql::QuoteIdentifier(name, dialect());
}

std::string Emitter::QualifiedName(const TableName& name) const {
  std::string out;
  if (!name.catalog.empty() && capabilities_.names_take_catalog) {
    out += QuoteIdentifier(name.catalog) + ".";
  }
  if (!name.schema.empty()) out += QuoteIdentifier(name.schema) + ".";
  return out + QuoteIdentifier(name.table);
}

std::string Emitter::BuiltIn(std::string_view name) const {
  return fmt::format("{}{}", capabilities_.builtin_prefix, name);
}

std::string Emitter::RowCountQuery(const TableName& target) const {
  return fmt::format("SELECT {}(*) FROM {}", BuiltIn("count"), QualifiedName(target));
}

std::string Emitter::TimestampLiteral(UnixSeconds seconds) const {
  return sql::QuoteString(FormatSqlTimestamp(seconds), dialect());
}

std::string Emitter::WindowLiteral(UnixSeconds seconds, TimeColumnType type) const {
  if (!capabilities_.typed_window_literals()) return TimestampLiteral(seconds);
  const std::string text = FormatSqlTimestamp(seconds);
  switch (type) {
    case TimeColumnType::kDate:
      return "DATE " + sql::QuoteString(text.substr(0, 10), dialect());
    case TimeColumnType::kDatetime:
      // Elsewhere (Trino) TIMESTAMP is already the zone-less type.
      if (capabilities_.window_literals == WindowLiterals::kTypedDatetime) {
        return "DATETIME " + sql::QuoteString(text, dialect());
      }
      break;
    case TimeColumnType::kTimestamp:
      break;
  }
  return "TIMESTAMP " + sql::QuoteString(text, dialect());
}

std::string Emitter::WindowPredicate(std::string_view time_column, const Window& window,
                                     TimeColumnType type) const {
  const std::string column = QuoteIdentifier(time_column);
  return fmt::format("{} >= {} AND {} < {}", column, WindowLiteral(window.start, type), column,
                     WindowLiteral(window.end, type));
}

std::string Emitter::SchemaName(const TableName& target) const {
  const bool with_catalog = !target.catalog.empty() && capabilities_.schema_takes_catalog;
  return with_catalog ? QuoteIdentifier(target.catalog) + "." + QuoteIdentifier(target.schema)
                      : QuoteIdentifier(target.schema);
}

namespace {
constexpr std::string_view kUnboundInsertSuffix = "\n) AS strata_insert";
}  // namespace

Result<PartitionOverwrite> Emitter::Overwrite(const TableName& target, std::string_view time_column,
                                              const Window& window, std::string_view select_sql,
                                              const std::vector<std::string>* columns,
                                              TimeColumnType type) const {
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({time_column}));
  STRATA_TRY(CheckWindowType(window, type));
  const std::string table = QualifiedName(target);
  const std::string predicate = WindowPredicate(time_column, window, type);
  PartitionOverwrite statements;
  switch (capabilities_.overwrite) {
    case OverwriteForm::kReplaceWhere:
      // One atomic statement: Delta's REPLACE WHERE (no physical partitioning needed).
      statements.insert =
          fmt::format("INSERT INTO {}\nREPLACE WHERE {}\n{}", table, predicate, select_sql);
      return statements;
    case OverwriteForm::kMergeWindow:
      // One atomic statement; unbound (planned without the model's columns) until the runner
      // binds it (BindOverwrite).
      if (columns != nullptr && !columns->empty()) {
        for (const std::string& column : *columns) STRATA_TRY(CheckIdentifiers({column}));
        statements.insert = MergeWindow(target, time_column, window, select_sql, *columns, type);
      } else {
        statements.insert =
            fmt::format("{}{}{}", UnboundInsertPrefix(target), select_sql, kUnboundInsertSuffix);
      }
      return statements;
    case OverwriteForm::kDeleteInsert:
      break;
  }
  if (capabilities_.deletes == Deletes::kNone) {
    return MakeError(ErrorCode::kWarehouseUnsupported,
                     fmt::format("{} cannot delete rows, so partition {} of {} cannot be "
                                 "overwritten",
                                 capabilities_.display_name, FormatSqlTimestamp(window.start),
                                 target.ToString()),
                     "write the model to a catalog whose tables support DELETE, or make it a "
                     "full_refresh model");
  }
  const std::string delete_window = fmt::format("DELETE FROM {}\nWHERE {}", table, predicate);
  STRATA_ASSIGN_OR_RETURN(std::string insert, Insert(target, select_sql, columns));
  switch (capabilities_.transactions) {
    case Transactions::kScript:
      // One script, one job. The ';' after the SELECT goes on its own line so a trailing '--' or
      // '#' comment in the model cannot swallow it.
      statements.insert =
          fmt::format("BEGIN TRANSACTION;\n{};\n{}\n;\nCOMMIT TRANSACTION", delete_window, insert);
      return statements;
    case Transactions::kNone:
      if (capabilities_.connector) {
        // Strata runs what it emits here: never a window replacement a reader can see half of.
        return MakeError(ErrorCode::kWarehouseUnsupported,
                         fmt::format("{} cannot replace partition {} of {} atomically: the "
                                     "target has no multi-statement transactions",
                                     capabilities_.display_name, FormatSqlTimestamp(window.start),
                                     target.ToString()),
                         "write the model to a catalog whose connector has them or MERGE "
                         "(docs/trino.md lists Trino's; `strata plan` must reach the catalog to "
                         "learn its connector), or make it a full_refresh model");
      }
      // No transaction: see the header comment for the atomicity caveat.
      statements.delete_window = delete_window;
      statements.insert = std::move(insert);
      return statements;
    case Transactions::kSession:
      break;
  }
  statements.begin = std::string(capabilities_.begin_statement);
  statements.delete_window = delete_window;
  statements.insert = std::move(insert);
  statements.commit = "COMMIT";
  statements.rollback = "ROLLBACK";
  return statements;
}

Result<std::string> Emitter::Insert(const TableName& target, std::string_view select_sql,
                                    const std::vector<std::string>* columns) const {
  switch (capabilities_.insert_columns) {
    case InsertColumns::kNamed:
      if (columns != nullptr && !columns->empty()) {
        for (const std::string& column : *columns) STRATA_TRY(CheckIdentifiers({column}));
        return NamedInsert(target, select_sql, *columns);
      }
      return fmt::format("{}{}{}", UnboundInsertPrefix(target), select_sql, kUnboundInsertSuffix);
    case InsertColumns::kByName:
      // BY NAME: a model whose SELECT reorders its columns still lands in the right ones, and a
      // column the table lacks is an error instead of a silent shift.
      return fmt::format("INSERT INTO {} BY NAME\n{}", QualifiedName(target), select_sql);
    case InsertColumns::kByPosition:
      break;
  }
  return fmt::format("INSERT INTO {}\n{}", QualifiedName(target), select_sql);
}

bool Emitter::InsertNeedsColumns() const {
  return capabilities_.insert_columns == InsertColumns::kNamed;
}

std::string Emitter::UnboundInsertPrefix(const TableName& target) const {
  if (capabilities_.overwrite == OverwriteForm::kMergeWindow) {
    return fmt::format("MERGE INTO {} AS strata_target\nUSING (\n", QualifiedName(target));
  }
  return fmt::format("INSERT INTO {}\nSELECT * FROM (\n", QualifiedName(target));
}

Result<std::string_view> Emitter::UnboundInsertSelect(const TableName& target,
                                                      std::string_view unbound_insert) const {
  const std::string prefix = UnboundInsertPrefix(target);
  if (!InsertNeedsColumns() || !unbound_insert.starts_with(prefix) ||
      !unbound_insert.ends_with(kUnboundInsertSuffix) ||
      unbound_insert.size() < prefix.size() + kUnboundInsertSuffix.size()) {
    return StaleInsert(target);
  }
  return unbound_insert.substr(prefix.size(),
                               unbound_insert.size() - prefix.size() - kUnboundInsertSuffix.size());
}

std::string Emitter::NamedInsert(const TableName& target, std::string_view select_sql,
                                 const std::vector<std::string>& columns) const {
  std::string list;
  for (const std::string& column : columns) {
    if (!list.empty()) list += ", ";
    list += QuoteIdentifier(column);
  }
  return fmt::format("INSERT INTO {} ({})\nSELECT {} FROM (\n{}{}", QualifiedName(target), list,
                     list, select_sql, kUnboundInsertSuffix);
}

Result<std::string> Emitter::InsertColumnsProbe(const TableName& target,
                                                std::string_view unbound_insert) const {
  STRATA_ASSIGN_OR_RETURN(std::string_view select, UnboundInsertSelect(target, unbound_insert));
  return fmt::format("SELECT * FROM (\n{}\n) AS strata_insert LIMIT 0", select);
}

Result<std::string> Emitter::BindInsertColumns(const TableName& target,
                                               std::string_view unbound_insert,
                                               const std::vector<std::string>& columns) const {
  STRATA_ASSIGN_OR_RETURN(std::string_view select, UnboundInsertSelect(target, unbound_insert));
  if (columns.empty()) {
    return MakeError(ErrorCode::kWarehouse,
                     "the model for " + target.ToString() + " returns no columns to insert");
  }
  for (const std::string& column : columns) STRATA_TRY(CheckIdentifiers({column}));
  return NamedInsert(target, select, columns);
}

Result<std::vector<std::string>> Emitter::FullRefresh(const TableName& target,
                                                      std::string_view select_sql) const {
  STRATA_TRY(CheckTarget(target));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + SchemaName(target));
  }
  const std::string table = QualifiedName(target);
  switch (capabilities_.replace_table) {
    case ReplaceTable::kDropCreateTransaction:
      // No CREATE OR REPLACE TABLE: drop and create in one transaction, so readers see the old
      // table until COMMIT and a failing model leaves it untouched. No CASCADE: a dependent view
      // makes the DROP fail rather than silently disappear.
      statements.push_back("BEGIN");
      statements.push_back("DROP TABLE IF EXISTS " + table);
      statements.push_back(fmt::format("CREATE TABLE {} AS\n{}", table, select_sql));
      statements.push_back("COMMIT");
      return statements;
    case ReplaceTable::kNone:
      // A DROP and a CREATE a reader could see apart are never run in its place.
      return MakeError(ErrorCode::kWarehouseUnsupported,
                       fmt::format("{} cannot replace {} atomically: the target has no CREATE OR "
                                   "REPLACE TABLE, nor a transaction holding DROP and CREATE",
                                   capabilities_.display_name, target.ToString()),
                       "write the model to a catalog that replaces tables atomically (Iceberg or "
                       "Delta Lake; docs/trino.md lists Trino's), or make it a view, an "
                       "incremental or a time_interval model; `strata plan` must reach the "
                       "catalog to learn its connector");
    case ReplaceTable::kCreateOrReplace:
      break;
  }
  statements.push_back(fmt::format("CREATE OR REPLACE TABLE {} AS\n{}", table, select_sql));
  return statements;
}

Result<std::vector<std::string>> Emitter::InitialBuild(const TableName& target,
                                                       std::string_view select_sql) const {
  if (capabilities_.replace_table != ReplaceTable::kNone) return FullRefresh(target, select_sql);
  STRATA_TRY(CheckTarget(target));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + SchemaName(target));
  }
  // Fails rather than replaces when the table appeared since the runner looked.
  statements.push_back(fmt::format("CREATE TABLE {} AS\n{}", QualifiedName(target), select_sql));
  return statements;
}

Result<std::vector<std::string>> Emitter::View(const TableName& target,
                                               std::string_view select_sql) const {
  STRATA_TRY(CheckTarget(target));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + SchemaName(target));
  }
  statements.push_back(
      fmt::format("CREATE OR REPLACE VIEW {} AS\n{}", QualifiedName(target), select_sql));
  return statements;
}

std::string Emitter::RowChecksum() const {
  if (capabilities_.row_hash == RowHashFunction::kChecksumOfColumns) {
    // Trino cannot name a whole row: the model's columns. checksum() is NULL without rows.
    std::string list;
    for (const std::string& column : row_columns_) {
      list += (list.empty() ? "" : ", ") + QuoteIdentifier(column);
    }
    return fmt::format("COALESCE(from_big_endian_64(checksum(ROW({}))), 0)", list);
  }
  // Both name the row through the table alias without a bare `strata_row`: a table column of that
  // name would win over the alias and only that column would be hashed.
  const bool text_hash = capabilities_.row_hash == RowHashFunction::kText;
  if (text_hash && row_hash_ == RowHash::kColumns) {
    // Each column by its type's extended hash, combined by PostgreSQL in column order; the sum
    // reduced as below.
    return "(COALESCE(sum(hash_record_extended(ROW(strata_row.*), 0)), 0) % "
           "18446744073709551616 + 18446744073709551616) % 18446744073709551616";
  }
  if (text_hash) {
    // The row's text (ISO dates, UTC: fixed by the session) hashed to a signed 64-bit value; the
    // NUMERIC sum reduced into [0, 2^64) (% keeps the dividend's sign, hence the second %).
    // ROW(strata_row.*) has the text of the whole-row reference.
    return "(COALESCE(sum(hashtextextended(CAST(ROW(strata_row.*) AS text), 0)), 0) % "
           "18446744073709551616 + 18446744073709551616) % 18446744073709551616";
  }
  // hash(*COLUMNS(*)) hashes the row's columns as hash(row struct) does (and as the insert's
  // RETURNING does); the sum wraps modulo 2^64.
  return fmt::format("CAST(COALESCE({}({}(*COLUMNS(*))), 0) % 18446744073709551616 AS UBIGINT)",
                     BuiltIn("sum"), BuiltIn("hash"));
}

Error Emitter::StaleInsert(const TableName& target) const {
  return MakeError(ErrorCode::kPlanStale,
                   fmt::format("the planned insert into {} does not have the shape this version "
                               "of strata emits for {}",
                               target.ToString(), sql::DialectName(dialect())),
                   "make a new plan with `strata plan`");
}

Result<std::string> Emitter::WindowStats(const TableName& target, std::string_view time_column,
                                         const Window& window, TimeColumnType type) const {
  STRATA_TRY(RequireSupported("window statistics"));
  STRATA_TRY(RequireRowColumns());
  (void)type;  // DuckDB and PostgreSQL compare the seed's string literal with any time type
  return fmt::format("SELECT {}(*) AS row_count, {} AS checksum\nFROM {} AS strata_row\nWHERE {}",
                     BuiltIn("count"), RowChecksum(), QualifiedName(target),
                     WindowPredicate(time_column, window));
}

std::string Emitter::KeyIndexCase(std::string_view time_column, const std::vector<Window>& windows,
                                  TimeColumnType type) const {
  const auto leaf = [&](std::size_t i) {
    return fmt::format("CASE WHEN {} THEN {} END", WindowPredicate(time_column, windows[i], type),
                       i);
  };
  const bool ascending_disjoint =
      std::adjacent_find(windows.begin(), windows.end(), [](const Window& a, const Window& b) {
        return b.start < a.end;
      }) == windows.end();
  if (!capabilities_.row_at_a_time || windows.empty() || !ascending_disjoint) {
    // A vectorized engine (DuckDB) evaluates a flat CASE a vector at a time, faster than a nested
    // one; windows outside the contract: the first that holds the row, tried in order.
    std::string key = "CASE";
    for (std::size_t i = 0; i < windows.size(); ++i) {
      key += fmt::format(" WHEN {} THEN {}", WindowPredicate(time_column, windows[i], type), i);
    }
    return key + " END";
  }
  // Windows [lo, hi]: below the middle window's start the row can only be in [lo, mid - 1].
  const std::string column = QuoteIdentifier(time_column);
  const auto range = [&](const auto& self, std::size_t lo, std::size_t hi) -> std::string {
    if (lo == hi) return leaf(lo);
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    return fmt::format("CASE WHEN {} < {} THEN {} ELSE {} END", column,
                       WindowLiteral(windows[mid].start, type), self(self, lo, mid - 1),
                       self(self, mid, hi));
  };
  return range(range, 0, windows.size() - 1);
}

Result<std::string> Emitter::WindowStatsByKey(const TableName& target, std::string_view time_column,
                                              const std::vector<Window>& windows,
                                              TimeColumnType type) const {
  STRATA_TRY(RequireSupported("window statistics"));
  STRATA_TRY(RequireRowColumns());
  if (windows.empty()) {
    return MakeError(ErrorCode::kInternal, "window statistics of no partition");
  }
  const std::string key = KeyIndexCase(time_column, windows, type);
  const Window whole{windows.front().start, windows.back().end};
  // The outer WHERE bounds the scan; the CASE gives each row its window (NULL for a row in a
  // gap between windows, which no key counts).
  return fmt::format(
      "SELECT {} AS key_index, {}(*) AS row_count, {} AS checksum\n"
      "FROM {} AS strata_row\nWHERE {}\nGROUP BY 1",
      key, BuiltIn("count"), RowChecksum(), QualifiedName(target),
      WindowPredicate(time_column, whole, type));
}

Result<std::string> Emitter::DropTable(const TableName& target) const {
  STRATA_TRY(CheckTarget(target));
  return "DROP TABLE IF EXISTS " + QualifiedName(target);
}

Result<std::string> Emitter::WindowRowCounts(const TableName& target, std::string_view time_column,
                                             const std::vector<Window>& windows) const {
  STRATA_TRY(RequireSupported("partition row count"));
  if (windows.empty()) return MakeError(ErrorCode::kInternal, "row counts of no partition");
  const Window whole{windows.front().start, windows.back().end};
  return fmt::format(
      "SELECT key_index, row_count\nFROM (\n  SELECT {} AS key_index, {}(*) AS row_count\n"
      "  FROM {}\n  WHERE {}\n  GROUP BY 1\n) AS strata_counts\nWHERE key_index IS NOT NULL",
      KeyIndexCase(time_column, windows, TimeColumnType::kTimestamp), BuiltIn("count"),
      QualifiedName(target), WindowPredicate(time_column, whole));
}

Result<std::string> Emitter::PartitionRowCounts(const TableName& target,
                                                std::string_view time_column, Grain grain,
                                                const Window& range) const {
  STRATA_TRY(RequireSupported("partition row count"));
  const std::string column = QuoteIdentifier(time_column);
  // Truncate and count first, format only the groups: formatting every row is 10x slower.
  std::string key;
  if (capabilities_.bucket_format == BucketFormat::kToChar) {
    std::string_view format;
    switch (grain) {
      case Grain::kHour:
        format = "YYYY-MM-DD\"T\"HH24";
        break;
      case Grain::kDay:
        format = "YYYY-MM-DD";
        break;
      case Grain::kMonth:
        format = "YYYY-MM";
        break;
      case Grain::kYear:
        format = "YYYY";
        break;
    }
    key = fmt::format("to_char(strata_bucket, {})", sql::QuoteString(format, dialect()));
  } else if (capabilities_.bucket_format == BucketFormat::kDateFormat) {
    // MySQL-style specifiers: GrainFormat's %Y, %m, %d and %H mean the same there.
    key = fmt::format("date_format(strata_bucket, {})",
                      sql::QuoteString(GrainFormat(grain), dialect()));
  } else {
    key = fmt::format("{}(strata_bucket, {})", BuiltIn("strftime"),
                      sql::QuoteString(GrainFormat(grain), dialect()));
  }
  return fmt::format(
      "SELECT {} AS partition_key, row_count\nFROM (\n  SELECT {}({}, {}) AS strata_bucket, "
      "{}(*) AS row_count\n  FROM {}\n  WHERE {}\n  GROUP BY 1\n) AS strata_counts",
      key, BuiltIn("date_trunc"), sql::QuoteString(GrainName(grain), dialect()), column,
      BuiltIn("count"), QualifiedName(target), WindowPredicate(time_column, range));
}

Result<std::string> Emitter::DescribeQuery(std::string_view select) const {
  if (!capabilities_.describes_queries) {
    return MakeError(ErrorCode::kWarehouseUnsupported,
                     fmt::format("{} cannot describe a query", capabilities_.display_name));
  }
  return "DESCRIBE " + std::string(select);
}

std::string Emitter::Rollback() const {
  return capabilities_.session_transactions() ? "ROLLBACK" : "";
}

}  // namespace strata::warehouse
