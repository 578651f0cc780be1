// Writes one planned batch in one transaction and checks it before committing. Private to the
// runner; separate so the transaction logic reads on its own.
#pragma once

#include <atomic>
#include <cstdint>
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
  std::vector<KeyStats> stats;  // one per key when committed
  std::int64_t duration_ms = 0;
  std::optional<Error> error;
  int attempts = 1;
  std::vector<RetriedAttempt> retries;  // filled by the runner's retry loop
};

// BEGIN; DELETE the window; INSERT; read per-key counts and checksums; refuse (roll back) if the
// insert wrote rows outside the window; roll back if `cancel` became true; else COMMIT.
BatchOutcome WriteBatch(warehouse::Connection& connection, const warehouse::Emitter& emitter,
                        const PlannedBatch& batch, const warehouse::TableName& target,
                        const std::string& time_column, const std::atomic<bool>& cancel);

}  // namespace strata::materialize
