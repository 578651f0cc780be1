// Emitter: the statements of incremental models (see emitter.h).
#include <fmt/format.h>

#include <algorithm>

#include "base/ascii.h"
#include "warehouse/emitter.h"

namespace strata::warehouse {
namespace {

constexpr std::string_view kStage = "strata_incremental";
// IncrementalForm::kOneStatement's unbound statements end so; see Incremental.
constexpr std::string_view kUnboundSuffix = "\n) AS strata_insert";
// The upsert MERGE's aliases and columns; a model column of one of these names would be shadowed.
constexpr std::string_view kTargetAlias = "strata_target";
constexpr std::string_view kSourceAlias = "strata_source";
constexpr std::string_view kCopy = "strata_copy";

}  // namespace

Result<std::string> Emitter::IncrementalFilter(const TableName& target, std::string_view watermark,
                                               std::int64_t lookback_seconds) const {
  STRATA_TRY(RequireSupported("incremental", /*incremental=*/true));
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({watermark}));
  const std::string column = QuoteIdentifier(watermark);
  const std::string table = QualifiedName(target);
  const std::string lookback = lookback_seconds <= 0 ? ""
                               : capabilities_.standard_intervals
                                   ? fmt::format(" - INTERVAL '{}' SECOND", lookback_seconds)
                                   : fmt::format(" - INTERVAL '{} seconds'", lookback_seconds);
  return fmt::format(
      "({0} > (SELECT {3}({0}) FROM {1}){2} OR NOT EXISTS (SELECT 1 FROM {1} WHERE {0} IS NOT "
      "NULL))",
      column, table, lookback, BuiltIn("max"));
}

Result<Emitter::IncrementalLoad> Emitter::Incremental(
    const TableName& target, std::string_view select_sql, std::string_view watermark,
    const std::vector<std::string>& unique_key) const {
  STRATA_TRY(RequireSupported("incremental", /*incremental=*/true));
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({watermark}));
  for (const std::string& column : unique_key) STRATA_TRY(CheckIdentifiers({column}));
  const std::string table = QualifiedName(target);
  IncrementalLoad load;
  if (capabilities_.incremental == IncrementalForm::kOneStatement) {
    if (!unique_key.empty() && !capabilities_.merge) {
      return MakeError(
          ErrorCode::kWarehouseUnsupported,
          fmt::format("{} cannot upsert into {} by unique_key: its catalog has no MERGE",
                      capabilities_.display_name, target.ToString()),
          "write the model to a catalog with MERGE (Iceberg or Delta Lake; docs/trino.md), or drop "
          "unique_key (and lookback) to append the new rows; `strata plan` must reach the catalog "
          "to learn its connector");
    }
    // One statement, bound to the model's columns by the runner (BindIncremental).
    load.insert = fmt::format("{}{}{}", IncrementalUnboundPrefix(target, !unique_key.empty()),
                              select_sql, kUnboundSuffix);
    return load;
  }
  load.begin = "BEGIN";
  load.commit = "COMMIT";
  load.rollback = "ROLLBACK";
  if (unique_key.empty()) {
    load.stage = fmt::format("CREATE TEMP TABLE {} AS\n{}", kStage, select_sql);
  } else {
    // Several versions of one key in one load: the newest (by watermark) wins, as it would have
    // had the rows arrived one run at a time.
    std::string keys, match;
    for (const std::string& column : unique_key) {
      const std::string quoted = QuoteIdentifier(column);
      keys += (keys.empty() ? "" : ", ") + quoted;
      match += fmt::format("{}strata_stage.{} IS NOT DISTINCT FROM strata_target.{}",
                           match.empty() ? "" : " AND ", quoted, quoted);
    }
    load.stage = fmt::format(
        "CREATE TEMP TABLE {} AS\nSELECT DISTINCT ON ({}) * FROM (\n{}\n) AS strata_new\n"
        "ORDER BY {}, {} DESC NULLS LAST",
        kStage, keys, select_sql, keys, QuoteIdentifier(watermark));
    load.delete_matching = fmt::format(
        "DELETE FROM {} AS strata_target\nWHERE EXISTS (SELECT 1 FROM {} AS strata_stage WHERE {})",
        table, kStage, match);
  }
  load.insert = InsertNeedsColumns()
                    ? fmt::format("INSERT INTO {} SELECT * FROM {}", table, kStage)
                    : fmt::format("INSERT INTO {} BY NAME SELECT * FROM {}", table, kStage);
  load.drop_stage = fmt::format("DROP TABLE {}", kStage);
  return load;
}

Result<std::string> Emitter::BindStagedInsert(const TableName& target,
                                              const std::vector<std::string>& columns) const {
  STRATA_TRY(CheckTarget(target));
  if (columns.empty()) {
    return MakeError(ErrorCode::kWarehouse,
                     "the model for " + target.ToString() + " returns no columns to insert");
  }
  std::string list;
  for (const std::string& column : columns) {
    STRATA_TRY(CheckIdentifiers({column}));
    list += (list.empty() ? "" : ", ") + QuoteIdentifier(column);
  }
  return fmt::format("INSERT INTO {} ({}) SELECT {} FROM {}", QualifiedName(target), list, list,
                     kStage);
}

Result<std::string> Emitter::WatermarkQuery(const TableName& target,
                                            std::string_view watermark) const {
  STRATA_TRY(RequireSupported("incremental", /*incremental=*/true));
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({watermark}));
  return fmt::format("SELECT CAST({2}({0}) AS VARCHAR) AS watermark FROM {1}",
                     QuoteIdentifier(watermark), QualifiedName(target), BuiltIn("max"));
}

std::string Emitter::IncrementalUnboundPrefix(const TableName& target, bool upsert) const {
  return upsert ? fmt::format("MERGE INTO {} AS {}\nUSING (\n", QualifiedName(target), kTargetAlias)
                : fmt::format("INSERT INTO {}\nSELECT * FROM (\n", QualifiedName(target));
}

Result<std::string_view> Emitter::IncrementalUnboundSelect(const TableName& target,
                                                           std::string_view unbound,
                                                           bool upsert) const {
  const std::string prefix = IncrementalUnboundPrefix(target, upsert);
  if (!IncrementalNeedsColumns() || !unbound.starts_with(prefix) ||
      !unbound.ends_with(kUnboundSuffix) ||
      unbound.size() < prefix.size() + kUnboundSuffix.size()) {
    return StaleInsert(target);
  }
  return unbound.substr(prefix.size(), unbound.size() - prefix.size() - kUnboundSuffix.size());
}

Result<std::string> Emitter::IncrementalColumnsProbe(const TableName& target,
                                                     std::string_view unbound_load,
                                                     bool upsert) const {
  STRATA_TRY(CheckTarget(target));
  STRATA_ASSIGN_OR_RETURN(std::string_view select,
                          IncrementalUnboundSelect(target, unbound_load, upsert));
  return fmt::format("SELECT * FROM (\n{}\n) AS strata_insert LIMIT 0", select);
}

Result<std::string> Emitter::BindIncremental(const TableName& target, std::string_view unbound_load,
                                             std::string_view watermark,
                                             const std::vector<std::string>& unique_key,
                                             const std::vector<std::string>& columns) const {
  STRATA_TRY(CheckTarget(target));
  STRATA_ASSIGN_OR_RETURN(std::string_view select,
                          IncrementalUnboundSelect(target, unbound_load, !unique_key.empty()));
  if (columns.empty()) {
    return MakeError(ErrorCode::kWarehouse,
                     "the model for " + target.ToString() + " returns no columns to insert");
  }
  for (const std::string& column : columns) STRATA_TRY(CheckIdentifiers({column}));
  if (unique_key.empty()) return NamedInsert(target, select, columns);
  STRATA_TRY(CheckIdentifiers({watermark}));
  const auto returned = [&](std::string_view name) {
    return std::any_of(columns.begin(), columns.end(), [&](const std::string& column) {
      return AsciiLowered(column) == AsciiLowered(name);
    });
  };
  if (!returned(watermark)) return MissingColumn(target, "watermark", watermark);
  std::string keys, not_null, match;
  for (const std::string& column : unique_key) {
    STRATA_TRY(CheckIdentifiers({column}));
    if (!returned(column)) return MissingColumn(target, "unique_key", column);
    const std::string quoted = QuoteIdentifier(column);
    const bool first = keys.empty();
    keys += (first ? "" : ", ") + quoted;
    not_null += fmt::format("{}{} IS NOT NULL", first ? "" : " AND ", quoted);
    match += fmt::format(" AND {}.{} = {}.{}", kTargetAlias, quoted, kSourceAlias, quoted);
  }
  return UpsertMerge(target, select, watermark, keys, not_null, match, columns);
}

Error Emitter::MissingColumn(const TableName& target, std::string_view role,
                             std::string_view name) const {
  return MakeError(
      ErrorCode::kConfig,
      fmt::format("the model for {} returns no column {} (its {})", target.ToString(), name, role),
      fmt::format("return the {} column from the model's SELECT", role));
}

std::string Emitter::UpsertMerge(const TableName& target, std::string_view select_sql,
                                 std::string_view watermark, std::string_view keys,
                                 std::string_view not_null, std::string_view match,
                                 const std::vector<std::string>& columns) const {
  std::string list, values;
  for (const std::string& column : columns) {
    const std::string quoted = QuoteIdentifier(column);
    const bool first = list.empty();
    list += (first ? "" : ", ") + quoted;
    values += fmt::format("{}{}.{}", first ? "" : ", ", kSourceAlias, quoted);
  }
  // The newest row per key (as the staged form's DISTINCT ON), twice: the copy that is not
  // strata_copy matches the target's rows of its key, which WHEN MATCHED deletes (all of them, as
  // the staged form's DELETE); the strata_copy never matches and is inserted. Keys match by `=`,
  // which Trino plans as a hash join (IS NOT DISTINCT FROM would be a nested loop over the whole
  // target): a NULL key would never match its old row, so it fails the statement instead, before
  // anything commits. One statement, one snapshot.
  return fmt::format(
      "MERGE INTO {table} AS {target}\n"
      "USING (\n"
      "SELECT {list}, {copy} FROM (\n"
      "SELECT *, row_number() OVER (PARTITION BY {keys} ORDER BY {watermark} DESC NULLS LAST) "
      "AS strata_rank FROM (\n{select}\n) AS strata_insert\n"
      ") AS strata_newest\n"
      "CROSS JOIN (SELECT false AS {copy} UNION ALL SELECT true) AS strata_copies\n"
      "WHERE strata_rank = 1 AND IF({not_null}, true, CAST({fail}('{guard}') AS boolean))\n"
      ") AS {source}\n"
      "ON (NOT {source}.{copy}{match})\n"
      "WHEN MATCHED THEN DELETE\n"
      "WHEN NOT MATCHED AND {source}.{copy} THEN INSERT ({list}) VALUES ({values})",
      fmt::arg("table", QualifiedName(target)), fmt::arg("target", kTargetAlias),
      fmt::arg("list", list), fmt::arg("copy", kCopy), fmt::arg("keys", keys),
      fmt::arg("watermark", QuoteIdentifier(watermark)), fmt::arg("select", select_sql),
      fmt::arg("not_null", not_null), fmt::arg("fail", BuiltIn("fail")),
      fmt::arg("guard", kNullKeyMessage), fmt::arg("source", kSourceAlias),
      fmt::arg("match", match), fmt::arg("values", values));
}

}  // namespace strata::warehouse
