// Writing the batches one transaction took, and splitting (bisecting) a transaction that failed
// for good until each failing batch is alone (docs/batching.md). Private to the runner.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "materialize/internal/run_records.h"

namespace strata::materialize {

// The partitions of batches[first, end).
int PartitionsOf(const std::vector<const PlannedBatch*>& batches, std::size_t first,
                 std::size_t end);

// Writes `batches` (consecutive batches of `model_run`'s model) in one transaction with retries
// on the worker's connection; a transaction that fails with an error that neither is retried nor
// stops the run is split around the batch that failed (else in halves) and the parts written
// again, each split added to the report's `bisection`. After an error that stops the run, or an
// interrupt, no further part starts (its batches end Interrupted). Returns every batch's result,
// in order; reports each failed partition's error, but records nothing (RecordBatches does).
// `before_commit`: see WriteTransaction (the runner waits there for the InProgress rows).
std::vector<BatchResult> WriteBatches(RunContext& run, std::size_t worker, ModelRun& model_run,
                                      const std::vector<const PlannedBatch*>& batches,
                                      std::function<Status()> before_commit);

}  // namespace strata::materialize
