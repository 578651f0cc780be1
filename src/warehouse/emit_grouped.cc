// Emitter: several batches of one time_interval model in one statement (see emitter.h).
#include <fmt/format.h>

#include <charconv>

#include "warehouse/emitter.h"

namespace strata::warehouse {
std::string Emitter::ReturningStats(std::string_view key) const {
  return fmt::format("\nRETURNING {} AS key_index, {}(*COLUMNS(*)) AS row_hash", key,
                     BuiltIn("hash"));
}

Result<Emitter::GroupedWrite> Emitter::Grouped(const TableName& target,
                                               std::string_view time_column, Grain grain,
                                               const std::vector<BatchInsert>& batches,
                                               const std::vector<Window>* key_windows) const {
  if (!SupportsGrouped()) {
    return MakeError(ErrorCode::kWarehouseUnsupported,
                     fmt::format("grouped batch statements are not available for {}",
                                 sql::DialectName(dialect())));
  }
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({time_column}));
  if (batches.empty()) return MakeError(ErrorCode::kInternal, "a grouped write of no batch");
  const std::string table = QualifiedName(target);
  const std::string prefix = fmt::format("INSERT INTO {} BY NAME\n", table);
  const std::string column = QuoteIdentifier(time_column);
  std::string selects;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const BatchInsert& batch = batches[i];
    if (!batch.insert.starts_with(prefix)) {
      return StaleInsert(target);
    }
    if (i > 0 && batches[i - 1].window.end != batch.window.start) {
      return MakeError(ErrorCode::kInternal, "a grouped write of batches that do not touch");
    }
    // The SELECT on lines of its own: a trailing `--` comment in the model ends at its newline.
    // CASE ... ELSE error(): the guard fails the statement on the first row outside the window
    // (a NULL time column compares as unknown, so it fails too).
    selects += fmt::format(
        "{}SELECT * FROM (\n{}\n) AS strata_batch_{}\nWHERE CASE WHEN {} THEN true ELSE "
        "{}('{}{}') END",
        i == 0 ? "" : "\nUNION ALL BY NAME\n", batch.insert.substr(prefix.size()), i,
        WindowPredicate(time_column, batch.window), BuiltIn("error"), kGuardMessage, i);
  }
  const Window whole{batches.front().window.start, batches.back().window.end};
  const std::string predicate = WindowPredicate(time_column, whole);
  GroupedWrite write;
  write.delete_window = fmt::format("DELETE FROM {}\nWHERE {}", table, predicate);
  // date_diff counts the grain's boundaries between the range's start and the row's time: the
  // partition's offset. Both sides as TIMESTAMP, as the window predicate reads its literals.
  // Before 1970 the cast rounds a TIMESTAMP_NS toward zero, up by less than a microsecond; a row
  // it lifts onto a boundary belongs to the partition before (the predicate compares in ns).
  const std::string unit = sql::QuoteString(GrainName(grain), dialect());
  const std::string at = fmt::format("CAST({} AS TIMESTAMP)", column);
  if (key_windows != nullptr && !key_windows->empty()) {
    write.insert =
        prefix + selects +
        ReturningStats(KeyIndexCase(time_column, *key_windows, TimeColumnType::kTimestamp));
    return write;
  }
  write.insert =
      prefix + selects +
      ReturningStats(fmt::format("{4}({0}, TIMESTAMP {1}, {2}) - CASE WHEN {2} > {3} AND "
                                 "{5}({0}, {2}) = {2} THEN 1 ELSE 0 END",
                                 unit, TimestampLiteral(whole.start), at, column,
                                 BuiltIn("date_diff"), BuiltIn("date_trunc")));
  return write;
}

Result<std::string> Emitter::InsertReturningStats(const TableName& target,
                                                  std::string_view time_column,
                                                  std::string_view insert,
                                                  const std::vector<Window>& windows) const {
  if (!SupportsReturningStats()) {
    return MakeError(ErrorCode::kWarehouseUnsupported,
                     fmt::format("statistics returned by the insert are not available for {}",
                                 sql::DialectName(dialect())));
  }
  STRATA_TRY(CheckTarget(target));
  STRATA_TRY(CheckIdentifiers({time_column}));
  if (windows.empty()) return MakeError(ErrorCode::kInternal, "an insert of no window");
  const std::string prefix = fmt::format("INSERT INTO {} BY NAME\n", QualifiedName(target));
  if (!insert.starts_with(prefix)) return StaleInsert(target);
  // The SELECT on lines of its own and in parentheses: RETURNING must not become part of a
  // trailing `--` comment or of the model's own last clause.
  return fmt::format("{}SELECT * FROM (\n{}\n) AS strata_insert{}", prefix,
                     insert.substr(prefix.size()),
                     ReturningStats(KeyIndexCase(time_column, windows)));
}

std::optional<std::size_t> Emitter::GuardFailedBatch(std::string_view message) {
  const std::size_t at = message.find(kGuardMessage);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view digits = message.substr(at + kGuardMessage.size());
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error != std::errc() || end == digits.data()) return std::nullopt;
  return index;
}

}  // namespace strata::warehouse
