#include "serve/rebuild_jobs.h"

#include <algorithm>
#include <chrono>

namespace strata::serve {
namespace {

nlohmann::ordered_json TextOrNull(const std::string& text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

nlohmann::ordered_json ErrorJson(const std::optional<Error>& error) {
  if (!error) return nullptr;
  return {{"code", std::string(ErrorCodeName(error->code))},
          {"message", error->message},
          {"hint", error->hint}};
}

}  // namespace

nlohmann::ordered_json RebuildJob::ToJson() const {
  nlohmann::ordered_json outcomes = nlohmann::ordered_json::array();
  if (report) {
    for (const rollup::RollupOutcome& outcome : report->rollups) {
      outcomes.push_back({{"rollup", outcome.rollup},
                          {"status", outcome.status},
                          {"version", outcome.version},
                          {"reason", outcome.reason},
                          {"error", ErrorJson(outcome.error)}});
    }
  }
  return {{"id", id},
          {"source", source},
          {"state", state},
          {"rollups",
           rollups.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(rollups)},
          {"requests", requests},
          {"submitted_at", TextOrNull(submitted_at)},
          {"started_at", TextOrNull(started_at)},
          {"finished_at", TextOrNull(finished_at)},
          {"rollup_outcomes", std::move(outcomes)},
          {"error", ErrorJson(error)}};
}

RebuildJobs::RebuildJobs(Build build, std::int64_t schedule_every_ms, const Clock* clock)
    : build_(std::move(build)),
      schedule_every_ms_(schedule_every_ms),
      clock_(clock != nullptr ? *clock : SystemClock()) {
  worker_ = std::thread([this] { Work(); });
  if (schedule_every_ms_ > 0) scheduler_ = std::thread([this] { Schedule(); });
}

RebuildJobs::~RebuildJobs() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cancel_ = true;
  wake_.notify_all();
  schedule_wake_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  if (worker_.joinable()) worker_.join();
}

RebuildJob* RebuildJobs::WaitingLocked(const std::string& source) {
  for (RebuildJob& job : jobs_) {
    if (job.state == "queued" && job.source == source) return &job;
  }
  return nullptr;
}

std::string RebuildJobs::Submit(std::vector<std::string> rollups, const std::string& source) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (RebuildJob* waiting = WaitingLocked(source)) {
    ++waiting->requests;
    if (waiting->rollups.empty() || rollups.empty()) {
      waiting->rollups.clear();  // every rollup
    } else {
      for (std::string& name : rollups) {
        if (std::find(waiting->rollups.begin(), waiting->rollups.end(), name) ==
            waiting->rollups.end()) {
          waiting->rollups.push_back(std::move(name));
        }
      }
    }
    return waiting->id;
  }
  RebuildJob job;
  job.id = "job-" + std::to_string(next_id_++);
  job.source = source;
  job.rollups = std::move(rollups);
  job.state = "queued";
  job.submitted_at = FormatIso8601(clock_.Now());
  jobs_.push_back(std::move(job));
  // Forget the oldest finished jobs beyond the kept number.
  while (jobs_.size() > kKeptJobs &&
         (jobs_.front().state == "succeeded" || jobs_.front().state == "failed")) {
    jobs_.pop_front();
  }
  wake_.notify_all();
  return jobs_.back().id;
}

std::optional<RebuildJob> RebuildJobs::Find(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const RebuildJob& job : jobs_) {
    if (job.id == id) return job;
  }
  return std::nullopt;
}

std::vector<RebuildJob> RebuildJobs::Active() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<RebuildJob> active;
  for (const RebuildJob& job : jobs_) {
    if (job.state == "queued" || job.state == "running") active.push_back(job);
  }
  return active;
}

void RebuildJobs::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] {
      return stopping_ || std::any_of(jobs_.begin(), jobs_.end(),
                                      [](const RebuildJob& job) { return job.state == "queued"; });
    });
    if (stopping_) return;
    auto next = std::find_if(jobs_.begin(), jobs_.end(),
                             [](const RebuildJob& job) { return job.state == "queued"; });
    next->state = "running";
    next->started_at = FormatIso8601(clock_.Now());
    const std::string id = next->id;
    rollup::BuildOptions options;
    options.rollups = next->rollups;
    options.due_only = next->source == "schedule";
    options.clock = &clock_;
    options.cancel = &cancel_;
    lock.unlock();
    Result<rollup::BuildReport> report = build_(options);
    lock.lock();
    // The job may not have been forgotten: only finished jobs are.
    for (RebuildJob& job : jobs_) {
      if (job.id != id) continue;
      job.finished_at = FormatIso8601(clock_.Now());
      if (report.ok()) {
        job.state = report->ok() ? "succeeded" : "failed";
        job.report = std::move(*report);
      } else {
        job.state = "failed";
        job.error = std::move(report).error();
      }
      break;
    }
  }
}

void RebuildJobs::Schedule() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    schedule_wake_.wait_for(lock, std::chrono::milliseconds(schedule_every_ms_),
                            [this] { return stopping_; });
    if (stopping_) return;
    lock.unlock();
    Submit({}, "schedule");  // joins a waiting scheduled job: never two in the queue
    lock.lock();
  }
}

}  // namespace strata::serve
