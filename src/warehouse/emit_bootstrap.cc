// Emitter: the statements that create a time_interval target (Bootstrap), partitioned where the
// target says how, and what the runner reads back out of them (see emitter.h).
#include <fmt/format.h>

#include <optional>
#include <utility>

#include "base/ascii.h"
#include "warehouse/emitter.h"

namespace strata::warehouse {

namespace {

// A bootstrap statement's first line (CREATE TABLE t [WITH (...)] AS) and its query; nullopt
// when it is not of that shape for `table`.
std::optional<std::pair<std::string_view, std::string_view>> SplitBootstrap(
    std::string_view statement, std::string_view table) {
  const std::size_t newline = statement.find('\n');
  if (newline == std::string_view::npos) return std::nullopt;
  const std::string_view head = statement.substr(0, newline);
  const std::string prefix = fmt::format("CREATE TABLE {}", table);
  if (!head.starts_with(prefix) || !head.ends_with(" AS")) return std::nullopt;
  const std::string_view rest = head.substr(prefix.size());
  if (rest != " AS" && !rest.starts_with(" WITH (")) return std::nullopt;
  return std::pair{head, statement.substr(newline + 1)};
}

Error StaleBootstrap(const TableName& target) {
  return MakeError(ErrorCode::kPlanStale,
                   "the plan's bootstrap statement for " + target.ToString() +
                       " does not have this version's shape",
                   "plan again with this version of strata");
}

}  // namespace

Result<std::string> Emitter::BootstrapProbe(const TableName& target,
                                            std::string_view bootstrap_statement) const {
  STRATA_TRY(CheckTarget(target));
  const auto split = SplitBootstrap(bootstrap_statement, QualifiedName(target));
  if (!split) return StaleBootstrap(target);
  return std::string(split->second);
}

Result<std::string> Emitter::BindBootstrap(const TableName& target,
                                           std::string_view bootstrap_statement,
                                           std::string_view time_column,
                                           const std::vector<std::string>& columns) const {
  STRATA_TRY(CheckTarget(target));
  const auto split = SplitBootstrap(bootstrap_statement, QualifiedName(target));
  if (!split) return StaleBootstrap(target);
  std::string list;
  bool found = false;
  for (const std::string& column : columns) {
    STRATA_TRY(CheckIdentifiers({column}));
    if (AsciiLowered(column) == AsciiLowered(time_column)) {
      found = true;
      continue;
    }
    list += QuoteIdentifier(column) + ", ";
  }
  if (!found) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("the model for {} returns no column {} (its time_column)",
                                 target.ToString(), time_column),
                     "return the time_column from the model's SELECT");
  }
  list += QuoteIdentifier(time_column);
  return fmt::format("{}\nSELECT {} FROM (\n{}\n) AS strata_columns", split->first, list,
                     split->second);
}

Result<std::string> Emitter::PartitionColumnsProbe(const TableName& target) const {
  if (!BootstrapNeedsColumns()) {
    return MakeError(
        ErrorCode::kWarehouseUnsupported,
        fmt::format("{} has no partition columns to read", capabilities_.display_name));
  }
  STRATA_TRY(CheckTarget(target));
  TableName partitions = target;
  partitions.table += "$partitions";
  return fmt::format("SELECT * FROM {} LIMIT 0", QualifiedName(partitions));
}

Result<std::vector<std::string>> Emitter::Bootstrap(const TableName& target,
                                                    std::string_view empty_window_select_sql,
                                                    const TablePartitioning* partitioning) const {
  STRATA_TRY(CheckTarget(target));
  std::vector<std::string> statements;
  if (!target.schema.empty()) {
    statements.push_back("CREATE SCHEMA IF NOT EXISTS " + SchemaName(target));
  }
  std::string with;
  if (partitioning != nullptr) {
    STRATA_TRY(CheckIdentifiers({partitioning->time_column}));
    // Trino stores column names lower-cased; the partitioning names them as stored.
    const std::string column = AsciiLowered(partitioning->time_column);
    switch (capabilities_.create_partitioning) {
      case CreatePartitioning::kTransform:
        with = fmt::format(" WITH (partitioning = ARRAY[{}])",
                           sql::QuoteString(fmt::format("{}({})", GrainName(partitioning->grain),
                                                        QuoteIdentifier(column)),
                                            dialect()));
        break;
      case CreatePartitioning::kColumnsLast:
        with =
            fmt::format(" WITH (partitioned_by = ARRAY[{}])", sql::QuoteString(column, dialect()));
        break;
      case CreatePartitioning::kNone:
        break;
    }
  }
  // LIMIT 0: an ungrouped aggregate over the empty window would otherwise leave one row with a
  // NULL time column behind, outside every partition. Every dialect: plain CREATE TABLE AS, which
  // fails if the table exists.
  statements.push_back(
      fmt::format("CREATE TABLE {}{} AS\nSELECT * FROM (\n{}\n) AS strata_bootstrap LIMIT 0",
                  QualifiedName(target), with, empty_window_select_sql));
  return statements;
}

}  // namespace strata::warehouse
