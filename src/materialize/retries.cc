// Retry backoff, scripts, and which errors stop a run (internal/retries.h, run_context.h).
#include "materialize/internal/retries.h"

#include <algorithm>
#include <random>

namespace strata::materialize {

std::int64_t BackoffMillis(const project::RunConfig& config, int attempt) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const std::int64_t ceiling = std::min<std::int64_t>(
      static_cast<std::int64_t>(config.retry_base_ms) << std::clamp(attempt - 1, 0, 16),
      kMaxBackoffMillis);
  if (ceiling <= 1) return ceiling;
  return std::uniform_int_distribution<std::int64_t>(ceiling / 2, ceiling)(random);
}

std::optional<Error> ExecuteAll(RunContext& run, warehouse::Connection& connection,
                                const std::vector<std::string>& statements) {
  const auto fail = [&](Error error) -> std::optional<Error> {
    if (const std::string rollback = run.emitter.Rollback(); !rollback.empty()) {
      (void)connection.Execute(rollback);
    }
    return error;
  };
  for (const std::string& statement : statements) {
    if (statement.empty()) continue;
    if (run.watcher.cancelled()) return fail(MakeError(ErrorCode::kInterrupted, "interrupted"));
    Result<warehouse::QueryResult> result = connection.Execute(statement);
    if (!result.ok()) return fail(std::move(result).error());
  }
  return std::nullopt;
}

bool StopsRun(const Error& error) {
  return error.code == ErrorCode::kWarehouseStorage || error.code == ErrorCode::kIo ||
         error.code == ErrorCode::kStateStore;
}

}  // namespace strata::materialize
