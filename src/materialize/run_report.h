// What a run did, in the shape of `strata run --output json` (spec/project.md; the seed's
// `materializations` and `partition_summaries` exactly, plus run_id, status, errors).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/partition.h"

namespace strata::materialize {

// A transient error that was retried: attempt `attempt` failed with it, and the runner waited
// `backoff_ms` before the next attempt.
struct RetriedAttempt {
  int attempt = 1;
  std::string code;  // ErrorCodeName, e.g. "WarehouseConflict"
  std::string message;
  std::int64_t backoff_ms = 0;
};

// One entry per partition written (or attempted), or per whole-model materialization.
struct Materialization {
  std::string model;
  std::vector<std::string> asset_key;  // [catalog?, schema, table] of the target
  std::string strategy;                // "time_interval" | "full_refresh" | "view" | "incremental"
  // incremental only: the target's max(watermark) after the load, and whether the load was
  // "full" (first run, --full-refresh) or "incremental"
  std::optional<std::string> watermark;
  std::string load;
  std::string status;  // "Computed" | "Failed" | "Interrupted" | "Skipped"
  std::int64_t duration_ms = 0;
  int attempts = 1;                     // 0 when skipped
  std::vector<RetriedAttempt> retries;  // the attempts before the last, with their errors
  std::optional<std::int64_t> row_count;
  std::optional<std::uint64_t> checksum;
  // time_interval only:
  std::optional<std::string> partition_key;
  UnixSeconds start = 0;
  UnixSeconds end = 0;
  std::vector<std::string> batched_with;  // the other keys written by the same statement
  // The partitions of the last transaction that wrote (or tried) this one: batched_with + 1
  // under batching = "off"; more when "auto" grouped statements (docs/batching.md).
  int transaction_partitions = 0;
  std::string error;
};

// A transaction of several batches that failed with an error that is not retried: it was split
// (around the failing batch when known, else in halves) and the parts retried, down to single
// batches, so only the failing partitions end Failed (docs/batching.md).
struct SplitTransaction {
  std::string model;
  std::string first;  // the first and last partition keys it covered
  std::string last;
  int partitions = 0;
  std::string code;  // the error that split it
  std::string message;
};

struct PartitionSummary {
  std::string model;
  int partitions_planned = 0;
  int partitions_succeeded = 0;
  int partitions_failed = 0;
  int partitions_skipped = 0;  // not attempted: interrupted before start, or upstream failed
};

struct RunErrorEntry {
  std::string model;
  std::optional<std::string> partition;
  std::string code;  // ErrorCodeName
  std::string message;
};

// A warning found while planning (PlanWarning): the run went on.
struct RunWarning {
  std::string code;  // "W040", ...
  std::string model;
  std::optional<std::string> partition;
  std::string message;
};

enum class RunStatus { kSuccess, kPartialFailure, kFailure, kInterrupted };
std::string_view RunStatusName(RunStatus status);  // "success" | "partial_failure" | ...

struct RunReport {
  std::string run_id;
  std::string plan_id;
  RunStatus status = RunStatus::kSuccess;
  std::int64_t duration_ms = 0;
  std::vector<Materialization> materializations;
  std::vector<PartitionSummary> partition_summaries;
  std::vector<RunErrorEntry> errors;
  std::vector<RunWarning> warnings;
  std::vector<SplitTransaction> bisection;  // in the order the splits happened, per model
};

// The process exit code for a finished run: 0, 2 (partial failure / failure) or 130.
int ExitCodeFor(RunStatus status);
// As ExitCodeFor(report.status), except 1 ("nothing ran") for a failed run in which nothing was
// sent to the warehouse: every selected model failed to compile (each materialization has 0
// attempts), so the state store and the warehouse are as they were.
int ExitCodeFor(const RunReport& report);

nlohmann::json RunReportToJson(const RunReport& report);
// The JSON Schema (draft 2020-12) of RunReportToJson's output.
const nlohmann::json& RunOutputSchema();

}  // namespace strata::materialize
