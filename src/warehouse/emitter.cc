#include "warehouse/emitter.h"

#include <fmt/format.h>

namespace strata::warehouse {

Status Emitter::RequireSupported(std::string_view what) const {
  switch (dialect_) {
    case sql::Dialect::kDuckDb:
      return OkStatus();
    case sql::Dialect::kPostgres:
    case sql::Dialect::kSnowflake:
    case sql::Dialect::kDatabricks:
    case sql::Dialect::kBigQuery:
    case sql::Dialect::kRedshift:
    case sql::Dialect::kTrino:
      break;
  }
  return MakeError(ErrorCode::kWarehouseUnsupported,
                   fmt::format("{} statements for the {} dialect are not available yet", what,
                               sql::DialectName(dialect_)),
                   "use a duckdb warehouse");
}

std::string Emitter::QuoteIdentifier(std::string_view name) const {
  return sql::QuoteIdentifier(name, dialect_);
}

std::string Emitter::QualifiedName(const TableName& name) const {
  std::string out;
  if (!name.catalog.empty() && dialect_ != sql::Dialect::kDuckDb) {
    out += QuoteIdentifier(name.catalog) + ".";
  }
  if (!name.schema.empty()) out += QuoteIdentifier(name.schema) + ".";
  return out + QuoteIdentifier(name.table);
}

std::string Emitter::TimestampLiteral(UnixSeconds seconds) const {
  return sql::QuoteString(FormatSqlTimestamp(seconds), dialect_);
}

std::string Emitter::WindowPredicate(std::string_view time_column, const Window& window) const {
  const std::string column = QuoteIdentifier(time_column);
  return fmt::format("{} >= {} AND {} < {}", column, TimestampLiteral(window.start), column,
                     TimestampLiteral(window.end));
}

Result<PartitionOverwrite> Emitter::Overwrite(const TableName& target,
                                              std::string_view time_column, const Window& window,
                                              std::string_view select_sql) const {
  STRATA_TRY(RequireSupported("partition overwrite"));
  const std::string table = QualifiedName(target);
  PartitionOverwrite statements;
  statements.begin = "BEGIN TRANSACTION";
  statements.delete_window =
      fmt::format("DELETE FROM {}\nWHERE {}", table, WindowPredicate(time_column, window));
  // BY NAME: a model whose SELECT reorders its columns still lands in the right ones, and a
  // column the table lacks is an error instead of a silent shift.
  statements.insert = fmt::format("INSERT INTO {} BY NAME\n{}", table, select_sql);
  statements.commit = "COMMIT";
  statements.rollback = "ROLLBACK";
  return statements;
}

Result<std::vector<std::string>> Emitter::Bootstrap(const TableName& target,
                                                    std::string_view empty_window_select_sql) const {
  STRATA_TRY(RequireSupported("bootstrap"));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + QuoteIdentifier(target.schema));
  }
  // LIMIT 0: an ungrouped aggregate over the empty window would otherwise leave one row with a
  // NULL time column behind, outside every partition.
  statements.push_back(fmt::format("CREATE TABLE {} AS\nSELECT * FROM (\n{}\n) AS strata_bootstrap LIMIT 0",
                                   QualifiedName(target), empty_window_select_sql));
  return statements;
}

Result<std::vector<std::string>> Emitter::FullRefresh(const TableName& target,
                                                      std::string_view select_sql) const {
  STRATA_TRY(RequireSupported("full refresh"));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + QuoteIdentifier(target.schema));
  }
  statements.push_back(
      fmt::format("CREATE OR REPLACE TABLE {} AS\n{}", QualifiedName(target), select_sql));
  return statements;
}

Result<std::vector<std::string>> Emitter::View(const TableName& target,
                                               std::string_view select_sql) const {
  STRATA_TRY(RequireSupported("view"));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + QuoteIdentifier(target.schema));
  }
  statements.push_back(
      fmt::format("CREATE OR REPLACE VIEW {} AS\n{}", QualifiedName(target), select_sql));
  return statements;
}

Result<std::string> Emitter::WindowStats(const TableName& target, std::string_view time_column,
                                         const Window& window) const {
  STRATA_TRY(RequireSupported("window statistics"));
  // hash(strata_row) hashes the whole row as a struct; the sum wraps modulo 2^64.
  return fmt::format(
      "SELECT count(*) AS row_count, "
      "CAST(COALESCE(SUM(hash(strata_row)), 0) % 18446744073709551616 AS UBIGINT) AS checksum\n"
      "FROM {} AS strata_row\nWHERE {}",
      QualifiedName(target), WindowPredicate(time_column, window));
}

}  // namespace strata::warehouse
