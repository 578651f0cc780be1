// Emitter: the statements of incremental models (see emitter.h).
#include <fmt/format.h>

#include "warehouse/emitter.h"

namespace strata::warehouse {
namespace {

constexpr std::string_view kStage = "strata_incremental";

}  // namespace

Result<std::string> Emitter::IncrementalFilter(const TableName& target, std::string_view watermark,
                                               std::int64_t lookback_seconds) const {
  STRATA_TRY(RequireSupported("incremental", /*incremental=*/true));
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({watermark}));
  const std::string column = QuoteIdentifier(watermark);
  const std::string table = QualifiedName(target);
  const std::string lookback =
      lookback_seconds > 0 ? fmt::format(" - INTERVAL '{} seconds'", lookback_seconds) : "";
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

}  // namespace strata::warehouse
