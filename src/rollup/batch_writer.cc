#include "rollup/internal/batch_writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "rollup/internal/period_writer.h"
#include "semantic/rollup_sql.h"

namespace strata::rollup {
namespace {

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

Error BuildInterrupted() {
  return MakeError(ErrorCode::kInterrupted, "the build was interrupted (SIGINT/SIGTERM)",
                   "nothing was published for this rollup; the previous version stays in force");
}

// The periods to write, as batches that each read the warehouse once: runs of adjacent
// periods, split so that `parallel` batches can run at once and none spans more than
// kMaxBatchPeriods. The whole-rollup and NULL-time files are batches of their own.
std::vector<std::vector<PlannedPeriod*>> BatchWriter::Batches(RollupPlan& plan) const {
  constexpr std::size_t kMaxBatchPeriods = 32;
  std::vector<std::vector<PlannedPeriod*>> runs(1);
  std::vector<std::vector<PlannedPeriod*>> singles;
  for (PlannedPeriod& period : plan.periods) {
    if (period.kept) {
      runs.emplace_back();
    } else if (!period.outcome.start || !build_.rollup.partition) {
      singles.push_back({&period});
    } else {
      runs.back().push_back(&period);
    }
  }
  std::size_t todo = 0;
  for (const auto& run : runs) todo += run.size();
  const std::size_t parallel = static_cast<std::size_t>(std::max(1, build_.options.parallel));
  const std::size_t size =
      std::clamp<std::size_t>((todo + parallel - 1) / parallel, 1, kMaxBatchPeriods);
  std::vector<std::vector<PlannedPeriod*>> batches;
  for (const auto& run : runs) {
    for (std::size_t i = 0; i < run.size(); i += size) {
      batches.emplace_back(
          run.begin() + static_cast<std::ptrdiff_t>(i),
          run.begin() + static_cast<std::ptrdiff_t>(std::min(run.size(), i + size)));
    }
  }
  for (auto& single : singles) batches.push_back(std::move(single));
  return batches;
}

void BatchWriter::WriteAll(RollupPlan& plan) {
  const std::vector<std::vector<PlannedPeriod*>> batches = Batches(plan);
  total_ = 0;
  for (const auto& batch : batches) total_ += batch.size();
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    Result<std::unique_ptr<warehouse::Connection>> source = build_.warehouse.Connect();
    Result<std::unique_ptr<warehouse::Connection>> engine = build_.engine.Connect();
    if (source.ok()) build_.watcher.Register(source->get());
    if (engine.ok()) build_.watcher.Register(engine->get());
    for (std::size_t i = next++; i < batches.size(); i = next++) {
      if (build_.watcher.cancelled()) {
        for (PlannedPeriod* period : batches[i])
          Finish(*period, BuildInterrupted(), std::nullopt, 0);
        continue;
      }
      if (!source.ok() || !engine.ok()) {
        for (PlannedPeriod* period : batches[i]) {
          Finish(*period, source.ok() ? engine.error() : source.error(), std::nullopt, 0);
        }
        continue;
      }
      WriteBatch(batches[i], **source, **engine);
    }
    if (source.ok()) build_.watcher.Unregister(source->get());
    if (engine.ok()) build_.watcher.Unregister(engine->get());
  };
  const std::size_t threads =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::max(1, build_.options.parallel)), 1,
                              std::max<std::size_t>(1, batches.size()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
}

void BatchWriter::WriteBatch(const std::vector<PlannedPeriod*>& batch,
                             warehouse::Connection& source, warehouse::Connection& engine) {
  const auto started = std::chrono::steady_clock::now();
  const auto fail = [&](const Error& error) {
    for (PlannedPeriod* period : batch) {
      Finish(*period, error, std::nullopt, MillisSince(started) / batch.size());
    }
  };
  const PeriodOutcome& first = batch.front()->outcome;
  PeriodRequest request;
  request.null_time = first.null_time;
  if (append_to_) {
    request.append = semantic::AppendBounds{};
    request.append->through = append_to_;
    request.append->with_nulls = true;
  }
  if (first.start) request.window = {*first.start, *batch.back()->outcome.end};
  for (PlannedPeriod* period : batch) {
    PeriodFile file;
    file.label = period->outcome.label;
    if (batch.size() > 1) {  // one period's batch is exactly its rows
      file.period = {*period->outcome.start, *period->outcome.end};
    }
    if (build_.rollup.partition) {  // an unpartitioned rollup's one file is the whole rollup
      file.entry.start = period->outcome.start;
      file.entry.end = period->outcome.end;
    }
    file.entry.null_time = period->outcome.null_time;
    request.files.push_back(std::move(file));
  }
  Result<WrittenPeriods> written =
      WritePeriods(build_.model, build_.rollup, build_.warehouse.dialect(), source, engine,
                   build_.store, request, build_.now);
  if (!written.ok()) return fail(written.error());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (columns_.empty()) columns_ = written->columns;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    Finish(*batch[i], std::nullopt, written->files[i], written->files[i].build_ms);
  }
}

void BatchWriter::Finish(PlannedPeriod& period, std::optional<Error> error,
                         std::optional<ManifestFile> file, double duration_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  period.outcome.duration_ms = duration_ms;
  if (error) {
    period.outcome.status = "failed";
    period.outcome.error = *error;
    if (!error_) error_ = *error;
  } else {
    period.outcome.rows = file->rows;
    period.outcome.bytes = file->bytes;
    written_[&period] = *file;
  }
  ++done_;
  if (build_.options.progress)
    build_.options.progress(build_.rollup.name, period.outcome, done_, total_);
}

}  // namespace strata::rollup
