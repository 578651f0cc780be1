// A test-only Warehouse wrapper that fails the Nth call (SQLite's fault-loop technique): every
// Connect, Execute, TableExists and DescribeTable through it counts as one call; call number
// `fail_at` (and, when sticky, every later one) returns an injected error instead of (kBeforeCall)
// or after (kAfterCall: the inner call ran, e.g. a COMMIT took effect, but the client sees a
// failure) the real call.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "warehouse/warehouse.h"

namespace strata::testing {

enum class FaultTiming { kBeforeCall, kAfterCall };

struct FaultPlan {
  std::int64_t fail_at = 0;  // 1-based call number; 0 never fails
  ErrorCode code = ErrorCode::kWarehouse;
  FaultTiming timing = FaultTiming::kBeforeCall;
  // A full disk does not empty itself: every call from fail_at on fails (the real adapter, once
  // DuckDB failed to write, refuses every later call the same way).
  bool sticky = false;
  std::atomic<std::int64_t> calls{0};
  std::atomic<bool> fired{false};

  // Counts one call; true when this call must fail.
  bool Hit();
  Error Injected() const;
};

// Wraps `inner`; `plan` must outlive the wrapper and every connection it opens.
std::unique_ptr<warehouse::Warehouse> WrapWithFaults(std::unique_ptr<warehouse::Warehouse> inner,
                                                     FaultPlan& plan);

}  // namespace strata::testing
