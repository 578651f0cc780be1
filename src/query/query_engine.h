// Answers one semantic query (DESIGN.md `query`): parse the JSON, resolve it against the model
// with the caller's data role, route it (no rollup is built yet, so every rollup of the queried
// entities is reported as missed with reason `not_built` and the query runs live), execute the
// live SQL on the warehouse, estimate count_distinct_approx sketches client-side, and return
// typed columns, rows and `meta`. `strata query` and (later) POST /v1/query both call this.
//
// Thread safety: AnswerQuery uses `connection` only; callers give each thread its own.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::query {

struct RollupMiss {
  std::string rollup;
  std::string reason;  // a stable reason string of spec/semantic.md ("not_built")
};

struct QueryResponse {
  std::vector<semantic::OutputColumn> columns;
  // One JSON value per column: null, a number, a string, a boolean; times as ISO 8601 UTC
  // ("2026-01-01T00:00:00Z"), decimals as numbers. A number member's value beyond a double (the
  // text "1e999" of a VARCHAR or NUMERIC column) comes back as that text; an infinite or NaN
  // double as null.
  std::vector<std::vector<nlohmann::ordered_json>> rows;
  std::vector<RollupMiss> missed;
  std::string sql;
  double duration_ms = 0;

  // {"columns":[{"name","type"}],"rows":[[...]],"meta":{"rollup":{"missed":[...]},"sql":...,
  //  "duration_ms":...}}, keys in this order.
  nlohmann::ordered_json ToJson() const;
};

struct QueryOptions {
  std::optional<std::string> role;  // nullopt: a trusted caller (see semantic/live_sql.h)
};

// Errors: kQueryInvalid, kAmbiguousPath, kFanOut, kAccessDenied from parsing and planning;
// warehouse error codes from execution (with a note naming the query).
Result<QueryResponse> AnswerQuery(const semantic::SemanticModel& model,
                                  warehouse::Connection& connection, sql::Dialect dialect,
                                  std::string_view query_json, const QueryOptions& options);

// The plan only (no warehouse): what AnswerQuery would run. For `--dry-run`-style inspection,
// benchmarks and golden tests.
Result<semantic::LivePlan> PlanQuery(const semantic::SemanticModel& model, sql::Dialect dialect,
                                     std::string_view query_json, const QueryOptions& options);

// The rollups of `entities` as not_built misses, in declaration order.
std::vector<RollupMiss> RollupMisses(const semantic::SemanticModel& model,
                                     const std::vector<std::string>& entities);

}  // namespace strata::query
