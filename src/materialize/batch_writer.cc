#include "materialize/internal/batch_writer.h"

#include <fmt/format.h>

#include <charconv>

#include "base/ascii.h"

namespace strata::materialize {
namespace {

// DuckDB returns the checksum as UBIGINT; PostgreSQL, which has no unsigned type, as a NUMERIC in
// [0, 2^64), i.e. decimal text; Trino as a BIGINT whose bits are the checksum.
Result<std::uint64_t> ChecksumOf(const warehouse::Value& value) {
  if (const auto* unsigned_value = std::get_if<std::uint64_t>(&value)) return *unsigned_value;
  if (const auto* signed_value = std::get_if<std::int64_t>(&value)) {
    return static_cast<std::uint64_t>(*signed_value);
  }
  if (const auto* text = std::get_if<std::string>(&value)) {
    std::uint64_t parsed = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), parsed);
    if (error == std::errc() && end == text->data() + text->size()) return parsed;
  }
  return MakeError(ErrorCode::kWarehouse, "window statistics returned an unreadable checksum \"" +
                                              warehouse::ValueToString(value) + "\"");
}

Result<KeyStats> ReadStats(warehouse::Connection& connection, const warehouse::Emitter& emitter,
                           const warehouse::TableName& target, const std::string& time_column,
                           const Window& window) {
  STRATA_ASSIGN_OR_RETURN(std::string sql, emitter.WindowStats(target, time_column, window));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult result, connection.Execute(sql));
  if (result.row_count() != 1 || result.columns.size() != 2) {
    return MakeError(ErrorCode::kWarehouse, "window statistics returned an unexpected shape");
  }
  KeyStats stats;
  stats.row_count = std::get<std::int64_t>(result.columns[0].values[0]);
  STRATA_ASSIGN_OR_RETURN(stats.checksum, ChecksumOf(result.columns[1].values[0]));
  return stats;
}

// The statistics of every key of `batch`, in key order: one query for a one-key batch, one
// grouped scan for a larger one (the same counts and checksums, emitter.h). Read right after the
// batch's insert: measured cheaper on DuckDB than one grouped scan over every batch of the
// transaction at the end (docs/benchmarks-history.md, "Adaptive batching: several partitions per
// transaction"), and it tells which batch a guard failure is.
Result<std::vector<KeyStats>> ReadKeyStats(warehouse::Connection& connection,
                                           const warehouse::Emitter& emitter,
                                           const PlannedBatch& batch,
                                           const warehouse::TableName& target,
                                           const std::string& time_column) {
  const std::vector<Window> windows = batch.KeyColumnWindows();
  if (windows.size() == 1) {
    STRATA_ASSIGN_OR_RETURN(KeyStats stats,
                            ReadStats(connection, emitter, target, time_column, windows.front()));
    return std::vector<KeyStats>{stats};
  }
  STRATA_ASSIGN_OR_RETURN(std::string sql, emitter.WindowStatsByKey(target, time_column, windows));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult result, connection.Execute(sql));
  if (result.columns.size() != 3) {
    return MakeError(ErrorCode::kWarehouse, "window statistics returned an unexpected shape");
  }
  std::vector<KeyStats> stats(windows.size());
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    const warehouse::Value& index = result.columns[0].values[row];
    if (std::holds_alternative<std::monostate>(index)) continue;  // a row between windows
    const std::string text = warehouse::ValueToString(index);
    std::size_t key = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), key);
    if (error != std::errc() || end != text.data() + text.size() || key >= stats.size()) {
      return MakeError(ErrorCode::kWarehouse,
                       "window statistics returned an unknown key index \"" + text + "\"");
    }
    stats[key].row_count = std::get<std::int64_t>(result.columns[1].values[row]);
    STRATA_ASSIGN_OR_RETURN(stats[key].checksum, ChecksumOf(result.columns[2].values[row]));
  }
  return stats;
}

// Runs `sql`; an empty statement (a part the dialect does not send, e.g. Databricks' BEGIN) is
// skipped and reads as an empty result.
Result<warehouse::QueryResult> ExecuteUnlessEmpty(warehouse::Connection& connection,
                                                  const std::string& sql) {
  if (sql.empty()) return warehouse::QueryResult{};
  return connection.Execute(sql);
}

// The output guard of one batch: its window holds `inside` rows after its insert wrote `inserted`.
// The batch's DELETE emptied its window inside this transaction, and a batch written earlier in
// it cannot have left a row there (that DELETE removed it), so every row now in the window was
// inserted by this batch. Any other row it inserted has its time column outside the window (or
// NULL): it would escape the next run's DELETE and be duplicated. (A later batch that writes
// into this window fails its own check the same way.)
Status CheckInsideWindow(const PlannedBatch& batch, const std::string& time_column,
                         std::int64_t inside, std::int64_t inserted) {
  if (inside == inserted) return OkStatus();
  return MakeError(
      ErrorCode::kOutputOutsideWindow,
      fmt::format("{} of {} inserted rows have {} outside the window [{}, {}) or NULL",
                  inserted - inside, inserted, time_column,
                  FormatSqlTimestamp(batch.ColumnWindow().start),
                  FormatSqlTimestamp(batch.ColumnWindow().end)),
      fmt::format("filter the model's output so {} >= @start_date AND {} < @end_date holds for "
                  "every row; the batch was rolled back",
                  time_column, time_column));
}

// Whether an insert of `keys` keys returns its statistics (see WriteTransaction).
bool ReturnsStats(const warehouse::Emitter& emitter, std::optional<double> rows_per_key,
                  std::size_t keys) {
  return emitter.SupportsReturningStats() && rows_per_key.has_value() &&
         *rows_per_key * static_cast<double>(keys) <= kReturnedStatsMaxRows;
}

std::size_t KeysOf(const std::vector<const PlannedBatch*>& batches) {
  std::size_t keys = 0;
  for (const PlannedBatch* batch : batches) keys += batch->keys.size();
  return keys;
}

// True when `batches` can be written by one grouped statement (Emitter::Grouped): more than
// one, a dialect that has it, statistics the insert may return, and every key the Next() of
// the one before, across batches.
bool CanGroup(const warehouse::Emitter& emitter, const std::vector<const PlannedBatch*>& batches,
              const warehouse::TableName& target, std::optional<double> rows_per_key) {
  if (batches.size() < 2 || !emitter.SupportsGrouped()) return false;
  if (!ReturnsStats(emitter, rows_per_key, KeysOf(batches))) return false;
  // A model that reads its own table must see what the batches before it wrote, as it does one
  // statement per batch; one grouped statement would show it the range already emptied. Any
  // mention of the table's name in the SELECT (case-insensitive, even in a comment or a column
  // name) keeps the per-batch path: a false alarm costs only speed.
  const std::string table = AsciiLowered(target.table);
  for (const PlannedBatch* batch : batches) {
    if (AsciiLowered(batch->statements.insert).find(table, batch->statements.insert.find('\n')) !=
        std::string::npos) {
      return false;
    }
  }
  const PartitionKey* previous = nullptr;
  for (const PlannedBatch* batch : batches) {
    for (const PartitionKey& key : batch->keys) {
      if (previous != nullptr && !(previous->Next() == key)) return false;
      previous = &key;
    }
  }
  return previous != nullptr;
}

// The statements of one transaction, each refused once `cancel` is set: a statement started
// after the interrupt was delivered would not see it.
class Statements {
 public:
  Statements(warehouse::Connection& connection, const std::atomic<bool>& cancel)
      : connection_(connection), cancel_(cancel) {}
  warehouse::Connection& connection() { return connection_; }
  Status CheckCancel() const {
    if (cancel_.load()) return MakeError(ErrorCode::kInterrupted, "interrupted");
    return OkStatus();
  }
  Result<warehouse::QueryResult> Run(const std::string& sql) {
    STRATA_TRY(CheckCancel());
    return ExecuteUnlessEmpty(connection_, sql);
  }
  Result<warehouse::FoldedRows> Fold(const std::string& sql, std::size_t keys) {
    STRATA_TRY(CheckCancel());
    return connection_.ExecuteFolded(sql, keys);
  }

 private:
  warehouse::Connection& connection_;
  const std::atomic<bool>& cancel_;
};

std::vector<KeyStats> StatsOf(const warehouse::FoldedRows& folded) {
  std::vector<KeyStats> stats;
  stats.reserve(folded.keys.size());
  for (const warehouse::KeyFold& key : folded.keys) stats.push_back({key.rows, key.hash_sum});
  return stats;
}

// The guard error of a grouped insert whose guard failed for rows of `window` (a batch's, or a
// fused statement's range).
Error GuardError(const Window& window, const std::string& time_column) {
  return MakeError(
      ErrorCode::kOutputOutsideWindow,
      fmt::format("rows inserted with {} outside the window [{}, {}) or NULL", time_column,
                  FormatSqlTimestamp(window.start), FormatSqlTimestamp(window.end)),
      "the transaction is rolled back and its batches written apart");
}

// Grouped: between BEGIN and COMMIT, one DELETE of the whole range and one INSERT of every batch
// (each guarded against its own window inside the statement) that returns each written row's key
// and hash, folded into every key's count and checksum; with `fused`, one SELECT over the range
// stands for the batches' own. A guard failure of a batch's own SELECT sets `failed_batch` to
// that batch; any other failure is not one batch's.
Result<std::vector<KeyStats>> WriteGrouped(Statements& statements,
                                           const warehouse::Emitter& emitter,
                                           const std::vector<const PlannedBatch*>& batches,
                                           const warehouse::TableName& target,
                                           const std::string& time_column, const FusedInsert& fused,
                                           std::optional<std::size_t>& failed_batch) {
  std::vector<warehouse::Emitter::BatchInsert> inserts;
  std::string fused_insert;  // kept alive for `inserts`
  if (fused) {
    const Window range{batches.front()->ColumnWindow().start, batches.back()->ColumnWindow().end};
    STRATA_ASSIGN_OR_RETURN(fused_insert, fused(range));
    inserts.push_back({range, fused_insert});
  } else {
    inserts.reserve(batches.size());
    for (const PlannedBatch* batch : batches) {
      inserts.push_back({batch->ColumnWindow(), batch->statements.insert});
    }
  }
  const std::size_t keys = KeysOf(batches);
  failed_batch.reset();
  // A zoned model's keys are local periods: the insert numbers each row by its key's window, not
  // by UTC grain arithmetic.
  std::vector<Window> key_windows;
  if (!batches.front()->keys.front().zone().is_utc()) {
    for (const PlannedBatch* batch : batches) {
      for (const Window& window : batch->KeyColumnWindows()) key_windows.push_back(window);
    }
  }
  STRATA_ASSIGN_OR_RETURN(
      warehouse::Emitter::GroupedWrite write,
      emitter.Grouped(target, time_column, batches.front()->keys.front().grain(), inserts,
                      key_windows.empty() ? nullptr : &key_windows));
  STRATA_TRY(statements.Run(write.delete_window));
  Result<warehouse::FoldedRows> folded = statements.Fold(write.insert, keys);
  if (!folded.ok()) {
    Error error = std::move(folded).error();
    const std::optional<std::size_t> guard = warehouse::Emitter::GuardFailedBatch(error.message);
    if (guard && fused) return GuardError(inserts.front().window, time_column);
    if (guard && *guard < batches.size()) {
      failed_batch = *guard;
      return GuardError(batches[*guard]->ColumnWindow(), time_column);
    }
    return error;
  }
  // Every row passed its batch's guard, so every row has a key; one without would be a row the
  // statistics did not count.
  if (folded->unkeyed_rows != 0) {
    return MakeError(ErrorCode::kWarehouse,
                     fmt::format("{} of {} inserted rows fell outside every partition's key",
                                 folded->unkeyed_rows, folded->total_rows()));
  }
  return StatsOf(*folded);
}

// One batch's DELETE, INSERT, its keys' statistics and its output guard. Where the insert
// returns the statistics (ReturnsStats: Emitter::InsertReturningStats), its folded rows are the
// statistics; otherwise they are read back (ReadKeyStats).
Result<std::vector<KeyStats>> WriteBatch(Statements& statements, const warehouse::Emitter& emitter,
                                         const PlannedBatch& batch,
                                         const warehouse::TableName& target,
                                         const std::string& time_column,
                                         std::optional<double> rows_per_key) {
  STRATA_TRY(statements.Run(batch.statements.delete_window));
  std::vector<KeyStats> stats;
  std::int64_t inserted = 0;
  if (ReturnsStats(emitter, rows_per_key, batch.keys.size())) {
    const std::vector<Window> windows = batch.KeyColumnWindows();
    STRATA_ASSIGN_OR_RETURN(
        std::string insert,
        emitter.InsertReturningStats(target, time_column, batch.statements.insert, windows));
    STRATA_ASSIGN_OR_RETURN(warehouse::FoldedRows folded, statements.Fold(insert, windows.size()));
    STRATA_TRY(statements.CheckCancel());
    inserted = folded.total_rows();
    stats = StatsOf(folded);
  } else {
    Result<warehouse::QueryResult> result = statements.Run(batch.statements.insert);
    if (!result.ok()) {
      // A MERGE's own guard (Emitter::MergeWindow) failed it: nothing was written.
      if (warehouse::Emitter::GuardFailedBatch(result.error().message)) {
        return MakeError(
            ErrorCode::kOutputOutsideWindow,
            fmt::format("rows with {} outside the window [{}, {}) or NULL", time_column,
                        FormatSqlTimestamp(batch.ColumnWindow().start),
                        FormatSqlTimestamp(batch.ColumnWindow().end)),
            fmt::format("filter the model's output so {} >= @start_date AND {} < @end_date "
                        "holds for every row; the statement wrote nothing",
                        time_column, time_column));
      }
      return std::move(result).error();
    }
    STRATA_TRY(statements.CheckCancel());
    inserted = result->rows_changed;
    STRATA_ASSIGN_OR_RETURN(
        stats, ReadKeyStats(statements.connection(), emitter, batch, target, time_column));
  }
  // A MERGE counts the rows it deleted with those it inserted; its guard checked every new row
  // inside the statement.
  if (emitter.capabilities().overwrite == warehouse::OverwriteForm::kMergeWindow) return stats;
  std::int64_t inside = 0;
  for (const KeyStats& key_stats : stats) inside += key_stats.row_count;
  STRATA_TRY(CheckInsideWindow(batch, time_column, inside, inserted));
  return stats;
}

// Everything between BEGIN and COMMIT; an error leaves the transaction for the caller to roll
// back. Several batches Grouped where the dialect has it; otherwise WriteBatch for each; sets
// `failed_batch` to the batch whose statement or guard failed.
Result<std::vector<KeyStats>> WriteInsideTransaction(
    warehouse::Connection& connection, const warehouse::Emitter& emitter,
    const std::vector<const PlannedBatch*>& batches, const warehouse::TableName& target,
    const std::string& time_column, std::optional<double> rows_per_key,
    const std::atomic<bool>& cancel, const FusedInsert& fused,
    std::optional<std::size_t>& failed_batch) {
  Statements statements(connection, cancel);
  if (CanGroup(emitter, batches, target, rows_per_key)) {
    return WriteGrouped(statements, emitter, batches, target, time_column, fused, failed_batch);
  }
  std::vector<KeyStats> all;
  for (std::size_t b = 0; b < batches.size(); ++b) {
    failed_batch = b;
    STRATA_ASSIGN_OR_RETURN(
        std::vector<KeyStats> stats,
        WriteBatch(statements, emitter, *batches[b], target, time_column, rows_per_key));
    all.insert(all.end(), stats.begin(), stats.end());
  }
  failed_batch.reset();
  return all;
}

}  // namespace

BatchOutcome WriteTransaction(warehouse::Connection& connection, const warehouse::Emitter& emitter,
                              const std::vector<const PlannedBatch*>& batches,
                              const warehouse::TableName& target, const std::string& time_column,
                              std::optional<double> rows_per_key, const std::atomic<bool>& cancel,
                              const std::function<Status()>& before_commit,
                              const FusedInsert& fused) {
  STRATA_CHECK(!batches.empty());
  // BEGIN/COMMIT/ROLLBACK are the dialect's, the same text in every batch.
  const warehouse::PartitionOverwrite& statements = batches.front()->statements;
  BatchOutcome outcome;
  const std::int64_t started = MonotonicMillis();
  std::int64_t waited_ms = 0;  // in before_commit
  auto begun = ExecuteUnlessEmpty(connection, statements.begin);
  if (!begun.ok()) {
    outcome.error = std::move(begun).error();
  } else {
    auto stats = WriteInsideTransaction(connection, emitter, batches, target, time_column,
                                        rows_per_key, cancel, fused, outcome.failed_batch);
    Status ready = OkStatus();
    if (stats.ok() && before_commit) {
      const std::int64_t waited_from = MonotonicMillis();
      ready = before_commit();
      waited_ms = MonotonicMillis() - waited_from;
    }
    if (!ready.ok()) {
      outcome.error = std::move(ready).error();
      outcome.before_commit_failed = true;
    } else if (stats.ok() && !cancel.load()) {
      auto committed = ExecuteUnlessEmpty(connection, statements.commit);
      if (committed.ok()) {
        outcome.status = BatchStatus::kCommitted;
        outcome.stats = std::move(stats).value();
      } else {
        outcome.error = std::move(committed).error();
      }
    } else if (!stats.ok()) {
      outcome.error = std::move(stats).error();
    }
    if (outcome.status != BatchStatus::kCommitted) {
      // Nothing to do if already aborted.
      (void)ExecuteUnlessEmpty(connection, statements.rollback);
    }
  }
  if (outcome.status != BatchStatus::kCommitted && cancel.load()) {
    outcome.status = BatchStatus::kInterrupted;
    if (!outcome.error)
      outcome.error = MakeError(ErrorCode::kInterrupted, "interrupted before commit");
  }
  outcome.duration_ms = MonotonicMillis() - started - waited_ms;
  return outcome;
}

}  // namespace strata::materialize
