#include "materialize/run_report.h"

#include <algorithm>

#include "base/hash.h"

namespace strata::materialize {

using nlohmann::json;

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kSuccess:
      return "success";
    case RunStatus::kPartialFailure:
      return "partial_failure";
    case RunStatus::kFailure:
      return "failure";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "failure";
}

int ExitCodeFor(RunStatus status) {
  switch (status) {
    case RunStatus::kSuccess:
      return 0;
    case RunStatus::kPartialFailure:
    case RunStatus::kFailure:
      return 2;
    case RunStatus::kInterrupted:
      return 130;
  }
  return 2;
}

int ExitCodeFor(const RunReport& report) {
  if (report.status == RunStatus::kFailure &&
      std::all_of(report.materializations.begin(), report.materializations.end(),
                  [](const Materialization& m) { return m.attempts == 0; })) {
    return 1;
  }
  return ExitCodeFor(report.status);
}

namespace {

json MaterializationJson(const Materialization& m) {
  json entry = {
      {"model", m.model},
      {"asset_key", m.asset_key},
      {"duration_ms", m.duration_ms},
      {"metadata",
       {{"strategy", m.strategy}, {"watermark", m.watermark ? json(*m.watermark) : json(nullptr)}}},
      {"status", m.status},
      {"row_count", m.row_count ? json(*m.row_count) : json(nullptr)},
      // Hex text: a u64 does not survive JSON parsers that read numbers as doubles.
      {"checksum", m.checksum ? json(HexHash64(*m.checksum)) : json(nullptr)},
  };
  if (m.partition_key) {
    entry["partition"] = {{"key", *m.partition_key},
                          {"start", FormatIso8601(m.start)},
                          {"end", FormatIso8601(m.end)},
                          {"batched_with", m.batched_with}};
    entry["transaction_partitions"] = m.transaction_partitions;
  } else {
    entry["partition"] = nullptr;
  }
  if (!m.load.empty()) entry["metadata"]["load"] = m.load;
  entry["attempts"] = m.attempts;
  json retries = json::array();
  for (const RetriedAttempt& r : m.retries) {
    retries.push_back({{"attempt", r.attempt},
                       {"code", r.code},
                       {"message", r.message},
                       {"backoff_ms", r.backoff_ms}});
  }
  entry["retries"] = retries;
  if (!m.error.empty()) entry["error"] = m.error;
  return entry;
}

}  // namespace

json RunReportToJson(const RunReport& report) {
  json materializations = json::array();
  for (const Materialization& m : report.materializations) {
    materializations.push_back(MaterializationJson(m));
  }
  json summaries = json::array();
  for (const PartitionSummary& s : report.partition_summaries) {
    summaries.push_back({{"model", s.model},
                         {"partitions_planned", s.partitions_planned},
                         {"partitions_succeeded", s.partitions_succeeded},
                         {"partitions_failed", s.partitions_failed},
                         {"partitions_skipped", s.partitions_skipped}});
  }
  json errors = json::array();
  for (const RunErrorEntry& e : report.errors) {
    errors.push_back({{"model", e.model},
                      {"partition", e.partition ? json(*e.partition) : json(nullptr)},
                      {"code", e.code},
                      {"message", e.message}});
  }
  json warnings = json::array();
  for (const RunWarning& w : report.warnings) {
    warnings.push_back({{"code", w.code},
                        {"model", w.model},
                        {"partition", w.partition ? json(*w.partition) : json(nullptr)},
                        {"message", w.message}});
  }
  json bisection = json::array();
  for (const SplitTransaction& split : report.bisection) {
    bisection.push_back({{"model", split.model},
                         {"first", split.first},
                         {"last", split.last},
                         {"partitions", split.partitions},
                         {"code", split.code},
                         {"message", split.message}});
  }
  return json{{"run_id", report.run_id},
              {"plan_id", report.plan_id},
              {"status", RunStatusName(report.status)},
              {"duration_ms", report.duration_ms},
              {"materializations", materializations},
              {"partition_summaries", summaries},
              {"errors", errors},
              {"warnings", warnings},
              {"bisection", bisection}};
}

const json& RunOutputSchema() {
  static const json kSchema = json::parse(R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://strata.dev/schemas/run-output.json",
  "title": "RunOutput",
  "description": "The document printed by `strata run --output json` and `strata apply --output json`.",
  "type": "object",
  "required": ["run_id", "plan_id", "status", "duration_ms", "materializations", "partition_summaries", "errors", "warnings"],
  "additionalProperties": false,
  "properties": {
    "run_id": {"type": "string"},
    "plan_id": {"type": "string", "description": "Content hash of the executed plan."},
    "status": {"enum": ["success", "partial_failure", "failure", "interrupted"]},
    "duration_ms": {"type": "integer", "minimum": 0},
    "materializations": {"type": "array", "items": {"$ref": "#/$defs/Materialization"}},
    "partition_summaries": {"type": "array", "items": {"$ref": "#/$defs/PartitionSummary"}},
    "errors": {"type": "array", "items": {"$ref": "#/$defs/RunError"}},
    "warnings": {"type": "array", "items": {"$ref": "#/$defs/RunWarning"},
                 "description": "Found while planning; the run went on (W040: a Computed partition the warehouse does not back, rebuilt by --missing; W041: first_partition is in the future)."},
    "bisection": {"type": "array", "items": {"$ref": "#/$defs/SplitTransaction"},
                  "description": "Transactions of several partitions that failed and were split to isolate the failing partitions (batching = \"auto\"), in order."}
  },
  "$defs": {
    "Materialization": {
      "type": "object",
      "required": ["model", "asset_key", "duration_ms", "metadata", "partition", "status", "row_count", "checksum", "attempts", "retries"],
      "additionalProperties": false,
      "properties": {
        "model": {"type": "string"},
        "asset_key": {"type": "array", "items": {"type": "string"}},
        "duration_ms": {"type": "integer", "minimum": 0},
        "metadata": {
          "type": "object",
          "required": ["strategy", "watermark"],
          "properties": {
            "strategy": {"enum": ["time_interval", "full_refresh", "view", "incremental"]},
            "watermark": {"type": ["string", "null"],
                          "description": "incremental: the target's max(watermark) after the load."},
            "load": {"enum": ["full", "incremental"],
                     "description": "incremental: a full build (first run, --full-refresh) or a load of new rows."}
          }
        },
        "partition": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/PartitionInfo"}]},
        "status": {"enum": ["Computed", "Failed", "Interrupted", "Skipped"]},
        "row_count": {"type": ["integer", "null"]},
        "checksum": {"type": ["string", "null"], "pattern": "^[0-9a-f]{16}$",
                     "description": "Order-independent 64-bit hash of the partition's rows, as 16 hex digits."},
        "attempts": {"type": "integer", "minimum": 0,
                     "description": "Transactions tried for this partition (0 when skipped); see [run] max_retries."},
        "retries": {"type": "array", "items": {"$ref": "#/$defs/RetriedAttempt"},
                    "description": "Every attempt before the last, with the transient error that made it retry."},
        "transaction_partitions": {"type": "integer", "minimum": 0,
                                   "description": "time_interval: the partitions of the last transaction that wrote or tried this one (0 when never sent); more than the statement's batch under [run] batching = \"auto\"."},
        "error": {"type": "string", "description": "Why it failed, was interrupted, or was skipped."}
      }
    },
    "RetriedAttempt": {
      "type": "object",
      "required": ["attempt", "code", "message", "backoff_ms"],
      "additionalProperties": false,
      "properties": {
        "attempt": {"type": "integer", "minimum": 1},
        "code": {"type": "string"},
        "message": {"type": "string"},
        "backoff_ms": {"type": "integer", "minimum": 0}
      }
    },
    "PartitionInfo": {
      "type": "object",
      "required": ["key", "start", "end", "batched_with"],
      "additionalProperties": false,
      "properties": {
        "key": {"type": "string"},
        "start": {"type": "string", "format": "date-time"},
        "end": {"type": "string", "format": "date-time"},
        "batched_with": {"type": "array", "items": {"type": "string"},
                         "description": "The other keys written by the same SQL statement (batch_size)."}
      }
    },
    "SplitTransaction": {
      "type": "object",
      "required": ["model", "first", "last", "partitions", "code", "message"],
      "additionalProperties": false,
      "properties": {
        "model": {"type": "string"},
        "first": {"type": "string"},
        "last": {"type": "string"},
        "partitions": {"type": "integer", "minimum": 2},
        "code": {"type": "string"},
        "message": {"type": "string"}
      }
    },
    "PartitionSummary": {
      "type": "object",
      "required": ["model", "partitions_planned", "partitions_succeeded", "partitions_failed", "partitions_skipped"],
      "additionalProperties": false,
      "properties": {
        "model": {"type": "string"},
        "partitions_planned": {"type": "integer", "minimum": 0},
        "partitions_succeeded": {"type": "integer", "minimum": 0},
        "partitions_failed": {"type": "integer", "minimum": 0},
        "partitions_skipped": {"type": "integer", "minimum": 0}
      }
    },
    "RunWarning": {
      "type": "object",
      "required": ["code", "model", "partition", "message"],
      "additionalProperties": false,
      "properties": {
        "code": {"type": "string"},
        "model": {"type": "string"},
        "partition": {"type": ["string", "null"]},
        "message": {"type": "string"}
      }
    },
    "RunError": {
      "type": "object",
      "required": ["model", "partition", "code", "message"],
      "additionalProperties": false,
      "properties": {
        "model": {"type": "string"},
        "partition": {"type": ["string", "null"]},
        "code": {"type": "string"},
        "message": {"type": "string"}
      }
    }
  }
})json");
  return kSchema;
}

}  // namespace strata::materialize
