// What `strata serve` keeps across reloads of the semantic model: the generation in force (the
// model with the query and control APIs built on it), replaced whole by a reload while requests
// in flight finish on theirs; and the one read-only warehouse every generation and every rollup
// build reads.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "project/project.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "serve/control_api.h"
#include "serve/query_api.h"
#include "serve/rebuild_jobs.h"
#include "warehouse/warehouse.h"

namespace strata::serve {

// Everything built on one load of the semantic model. A request holds the generation it started
// on until it is answered.
struct Generation {
  semantic::SemanticModel model;
  std::unique_ptr<QueryApi> query;
  std::unique_ptr<ControlApi> control;  // null without a control port
};

// The generation in force. Thread-safe.
class CurrentGeneration {
 public:
  std::shared_ptr<Generation> Get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_;
  }
  void Replace(std::shared_ptr<Generation> next) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = std::move(next);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<Generation> current_;
};

// The warehouse every generation and every build reads, opened read-only on first use and kept
// for the server's life (a reload does not open the DuckDB file a second time). Thread-safe.
// REQUIRES: `project` and `warehouse` outlive it.
class SharedWarehouse {
 public:
  SharedWarehouse(const project::ProjectConfig& project, const project::WarehouseConfig& warehouse)
      : project_(project), warehouse_config_(warehouse) {}
  // The warehouse, or why it does not open (tried again on the next call).
  Result<warehouse::Warehouse*> Get();

 private:
  const project::ProjectConfig& project_;
  const project::WarehouseConfig& warehouse_config_;
  std::mutex mutex_;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
};

// What a generation's control API needs besides the model; null `jobs`: no control port.
struct ControlParts {
  const rollup::RollupStore* store = nullptr;
  RebuildJobs* jobs = nullptr;
  std::string hook_token;
  std::uint32_t max_body_bytes = 0;
};

// A generation over `model`: the query API with `base` (its model replaced by this one) and,
// when `control.jobs` is set, the control API. REQUIRES: what `base` and `control` point to
// outlives the generation.
std::shared_ptr<Generation> MakeGeneration(semantic::SemanticModel model, const ApiConfig& base,
                                           const ControlParts& control);

}  // namespace strata::serve
