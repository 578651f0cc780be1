// The state check: before a run, the Computed partitions of its time_interval models are compared
// with the rows their target tables hold, so state that the warehouse does not back (a table
// dropped or restored from an old backup, rows deleted by hand, a warehouse that lost writes) is
// reported, and --missing rebuilds it instead of trusting the state store.
//
// What it compares: each Computed partition's row_count with the number of rows in its window.
// Cost: one TableExists and one aggregate query per model (a scan of the time column over the
// Computed range, grouped by partition); no checksums are computed (that would hash every row).
// A partition whose count agrees but whose contents differ is not detected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "project/project.h"
#include "state/state_store.h"
#include "warehouse/emitter.h"
#include "warehouse/warehouse.h"

namespace strata::materialize {

// One Computed partition the warehouse does not back.
struct StateDisagreement {
  std::string partition_key;
  std::int64_t state_rows = 0;      // what the state store recorded
  std::int64_t warehouse_rows = 0;  // what the target holds in the window (0 without a table)
  bool table_missing = false;
};

// Compares `computed` (Computed records of `model`, a time_interval model) with the model's
// target through `connection`. Errors: whatever the warehouse returns (the caller decides
// whether a run may go on without the check); kWarehouseUnsupported for dialects without the
// count statement.
Result<std::vector<StateDisagreement>> CheckComputedPartitions(
    warehouse::Connection& connection, const warehouse::Emitter& emitter,
    const project::Model& model, const std::vector<state::PartitionRecord>& computed);

// "partition 2026-04-07 of fct is Computed with 120 rows in the state store, but ...".
std::string DescribeDisagreement(const project::Model& model, const StateDisagreement& entry);

}  // namespace strata::materialize
