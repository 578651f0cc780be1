// Writes one or more planned batches in one transaction and checks them before committing. Private
// to the runner; separate so the transaction logic reads on its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "base/result.h"
#include "materialize/plan.h"
#include "materialize/run_report.h"
#include "warehouse/emitter.h"
#include "warehouse/warehouse.h"

namespace strata::materialize {

struct KeyStats {
  std::int64_t row_count = 0;
  std::uint64_t checksum = 0;
};

enum class BatchStatus { kCommitted, kFailed, kInterrupted };

struct BatchOutcome {
  BatchStatus status = BatchStatus::kFailed;
  // One per key when committed: every key of every batch written, in order.
  std::vector<KeyStats> stats;
  std::int64_t duration_ms = 0;
  std::optional<Error> error;
  // Failed: the index (into the batches written) of the batch whose statement, statistics or
  // output guard failed; nullopt when the failure is not one batch's (BEGIN, COMMIT, a lost
  // connection before the first statement, a grouped statement other than by a guard).
  std::optional<std::size_t> failed_batch;
  int attempts = 1;
  std::vector<RetriedAttempt> retries;  // filled by the runner's retry loop
  // The error is `before_commit`'s (WriteTransaction): the caller's, which reports it.
  bool before_commit_failed = false;
};

// One transaction over one or more batches of a model (consecutive and ascending). Where the
// dialect has Emitter::Grouped (DuckDB), there are several batches whose keys are consecutive
// and the model's SELECT does not mention its target table (it must see earlier batches' rows):
// BEGIN; one DELETE of the whole range; one INSERT of every batch's own SELECT, each row checked
// against its own batch's window inside the statement, returning every written row's key and
// hash, folded into each key's count and checksum; COMMIT. Otherwise BEGIN; for each batch,
// DELETE its window, INSERT, take its keys' counts and checksums (returned by the insert where
// the dialect can, Emitter::InsertReturningStats; else one query per batch) and refuse (roll
// back) if its insert wrote rows outside its own window (the window must hold exactly the rows
// the insert wrote); COMMIT. Either way: roll back if `cancel` became true; the same rows,
// counts and checksums.
//
// Statistics are returned by the insert only while its rows are known to be few: DuckDB keeps
// every row an INSERT ... RETURNING wrote in memory until the statement ends and never runs it
// as a parallel insert. So they are returned when `rows_per_key` (the model's measured mean
// rows per partition; nullopt before anything is measured) times the keys written stays within
// kReturnedStatsMaxRows, and read back by a scan otherwise; a grouped write needs them
// returned, so the transaction is written per batch then.
// The limit is five DuckDB row groups: above the four of DuckDB's transaction row budget
// (transaction_groups.h), so every group that sizing forms by its mean is written grouped.
//
// `fused`, when given (the model is proven window-separable, check::WindowSeparable), makes
// that one grouped INSERT read one SELECT compiled for the whole range [front.start, back.end)
// instead of the UNION ALL of every batch's own SELECT: the same rows, counts and checksums
// (docs/batching.md, "Fused statements"), guarded against the range. A failure of a fused
// statement, its guard's included, is not one batch's (failed_batch stays unset: the caller
// splits the transaction in halves, and a batch alone runs its own statements).
//
// `before_commit`, when given, runs right before COMMIT; an error from it rolls the transaction
// back and is the outcome's error (the runner waits there for the batch's InProgress rows). The
// time it takes is not part of the outcome's duration.
// REQUIRES: `batches` is not empty.
inline constexpr double kReturnedStatsMaxRows = 5 * 122'880;
// The Overwrite insert of a model's SELECT compiled for `range` (see `fused` above).
using FusedInsert = std::function<Result<std::string>(const Window& range)>;
BatchOutcome WriteTransaction(warehouse::Connection& connection, const warehouse::Emitter& emitter,
                              const std::vector<const PlannedBatch*>& batches,
                              const warehouse::TableName& target, const std::string& time_column,
                              std::optional<double> rows_per_key, const std::atomic<bool>& cancel,
                              const std::function<Status()>& before_commit = {},
                              const FusedInsert& fused = {});

}  // namespace strata::materialize
