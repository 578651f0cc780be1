// The write step of a rollup build (builder.h): every planned period that is not kept, in
// batches that each read the warehouse once (period_writer.h), `parallel` batches at a time,
// each worker with its own warehouse and engine connection.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "rollup/builder.h"
#include "rollup/internal/period_plan.h"
#include "rollup/manifest.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "warehouse/cancellation.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// kInterrupted: the build was cancelled; nothing is published for the rollup.
Error BuildInterrupted();

// What one rollup's build works with (builder.cc). All of it outlives the build.
struct RollupBuildContext {
  const semantic::SemanticModel& model;
  const semantic::Rollup& rollup;
  warehouse::Warehouse& warehouse;
  warehouse::Warehouse& engine;
  const RollupStore& store;
  const BuildOptions& options;
  UnixSeconds now;
  warehouse::CancellationWatcher& watcher;
};

class BatchWriter {
 public:
  // `append_to`: a partition.append rollup's files are read through this marker. `build`
  // must outlive the writer.
  BatchWriter(const RollupBuildContext& build, std::optional<std::string> append_to)
      : build_(build), append_to_(std::move(append_to)) {}

  // Writes every period of `plan` that is not kept; each period's outcome gets its status,
  // rows, bytes and duration (options.progress is called after each). Batches still to start
  // when the build is cancelled fail with BuildInterrupted.
  void WriteAll(RollupPlan& plan);

  // After WriteAll: the file written for each period that was, the files' columns (empty when
  // none was written) and the first failure.
  const std::map<const PlannedPeriod*, ManifestFile>& written() const { return written_; }
  const std::vector<ManifestColumn>& columns() const { return columns_; }
  const std::optional<Error>& error() const { return error_; }

 private:
  std::vector<std::vector<PlannedPeriod*>> Batches(RollupPlan& plan) const;
  void WriteBatch(const std::vector<PlannedPeriod*>& batch, warehouse::Connection& source,
                  warehouse::Connection& engine);
  void Finish(PlannedPeriod& period, std::optional<Error> error, std::optional<ManifestFile> file,
              double duration_ms);

  const RollupBuildContext& build_;
  const std::optional<std::string> append_to_;
  std::mutex mutex_;  // guards written_, columns_, error_ and done_
  std::map<const PlannedPeriod*, ManifestFile> written_;
  std::vector<ManifestColumn> columns_;
  std::optional<Error> error_;
  std::size_t done_ = 0, total_ = 0;
};

}  // namespace strata::rollup
