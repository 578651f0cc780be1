// Running statements on a worker's connection: retries of transient failures with backoff, and
// a script's statements in order. Private to the runner.
//
// Every function runs on the calling worker's thread with the worker's own connection.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "materialize/internal/run_context.h"

namespace strata::materialize {

// Runs `attempt_once` (which returns the error of a failed attempt, or nullopt) until it
// succeeds, fails with a non-retryable error, runs out of retries or the run is cancelled.
// A lost connection is dropped so the next attempt reconnects. Returns the last error and fills
// `retries`/`attempts`.
template <typename Attempt>
std::optional<Error> WithRetries(RunContext& run, std::size_t worker, Attempt attempt_once,
                                 int& attempts, std::vector<RetriedAttempt>& retries) {
  const project::RunConfig& config = run.project.config.run;
  for (int attempt = 1;; ++attempt) {
    attempts = attempt;
    std::optional<Error> error;
    Result<warehouse::Connection*> connection = run.ConnectionFor(worker);
    if (!connection.ok()) {
      error = std::move(connection).error();
    } else {
      run.watcher.Register(*connection);
      error = attempt_once(**connection);
      run.watcher.Unregister(*connection);
    }
    if (!error) return std::nullopt;
    if (error->code == ErrorCode::kWarehouseConnection) run.DropConnection(worker);
    const bool retry = error->retryable() && attempt <= static_cast<int>(config.max_retries) &&
                       !run.watcher.cancelled();
    if (!retry) return error;
    const std::int64_t backoff = BackoffMillis(config, attempt);
    retries.push_back({attempt, std::string(error->reported_code()), error->ToString(), backoff});
    // Through the run's clock, so SIGINT cuts the wait short and tests need not sleep.
    if (!run.options.clock->Wait(backoff, run.watcher.flag())) return error;
  }
}

// Runs `statements` (an Emitter script) in order. After a failure the session's transaction, if
// the script opened one, is ended with the emitter's Rollback() (PostgreSQL refuses everything
// else until then); no statement text is inspected to know whether one is open, since a
// ROLLBACK with no transaction is harmless. Returns the first error, or nullopt.
std::optional<Error> ExecuteAll(RunContext& run, warehouse::Connection& connection,
                                const std::vector<std::string>& statements);

}  // namespace strata::materialize
