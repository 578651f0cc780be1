// Query shapes in serve's access log, and the rollups that would have answered the live ones
// (`strata rollups advise --from-log`).
//
// A shape is what routing depends on and nothing a user typed as a value:
//   {"measures": [...], "dimensions": [...],
//    "time_dimensions": [{"dimension", "grain"?, "range"?: ALIGNMENT}],
//    "filters": [{"member", "op", "aligned"?: ALIGNMENT} | {"and"|"or": [...]} | {"not": ...}],
//    "timezone"?: "Europe/Berlin"}
// ALIGNMENT is the coarsest of year, quarter, month, week, day, hour on whose boundaries (in the
// query's zone) both ends of a range, or every value of a time filter, fall; "none" when not
// even an hour's. Filter values, range bounds, order, limit and offset are never recorded.
//
// Pure except AdviseFromLog, which reads the stream it is given; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "rollup/advisor.h"
#include "semantic/model.h"
#include "semantic/query.h"

namespace strata::rollup {

// The shape of `query` (which need not be valid for the model: unknown members are written as
// given, and a member that is not a time dimension gets no alignment).
nlohmann::json QueryShapeJson(const semantic::SemanticModel& model,
                              const semantic::SemanticQuery& query);

// A query with `shape`'s members and alignments: placeholder values of each member's type
// (ranges and time filter values in 2001, aligned as recorded). Errors: kQueryInvalid when the
// shape is malformed.
Result<semantic::SemanticQuery> QueryFromShape(const semantic::SemanticModel& model,
                                               const nlohmann::json& shape);

// Reading a stored row of a rollup (Parquet, then re-aggregated) costs about this many times
// reading a row of the warehouse's table: measured on the example project (issue 44's
// benchmark), a rollup holding 0.41 of its entity's rows answered at 1.07-1.20x the live time.
inline constexpr double kStoredRowCost = 3.0;

struct LogAdviceOptions {
  std::size_t top = 3;  // the most rollups proposed
  UnixSeconds now = 0;
  // The rows a rollup would store over its entity's rows (the CLI counts both on the
  // warehouse); nullopt: unknown. A proposal is expected to answer in kStoredRowCost times that
  // share of the live time, and saves the rest: one that saves nothing is not proposed. Null:
  // every proposal counts as saving all the live time it answers.
  std::function<std::optional<double>(const semantic::Rollup&)> stored_share;
};

struct LoggedAdvice {
  semantic::Rollup rollup;
  std::int64_t queries = 0;            // live queries of the log it would have answered
  std::int64_t live_ms = 0;            // their total duration_ms
  std::int64_t saved_ms = 0;           // the part of it the rollup is expected to save
  std::optional<double> stored_share;  // LogAdviceOptions::stored_share (the set's largest)
  std::vector<std::string> roles;
};

struct LogAdvice {
  std::vector<LoggedAdvice> rollups;  // best first
  std::int64_t live_queries = 0;      // live answers with a shape in the log
  std::int64_t live_ms = 0;           // their total duration_ms
  std::int64_t skipped = 0;           // live answers no rollup can answer (or whose query is no
                                      // longer valid for the model)
  std::int64_t too_large = 0;         // live answers only rollups that save nothing answer
};

// Reads serve's access log (JSON lines; other lines are skipped): every 200 answer of
// POST /v1/query with rollup "live" and a shape. For each distinct shape and role, the advice
// of AdviseRollups (without a build_range: a log keeps no range bounds); then, greedily, the
// proposed rollup that would have saved the most live time among the queries not yet answered
// (ProposedRollups::Check; LogAdviceOptions::stored_share), until `top` are chosen or none
// saves more. A query over several
// entities counts for a rollup set only as a whole, so those sets are proposed as one entry per
// rollup, ranked by the set's time. Errors: kIo when the stream fails.
Result<LogAdvice> AdviseFromLog(const semantic::SemanticModel& model, std::istream& log,
                                const LogAdviceOptions& options);

// {"rollups": [{..AdviceJson's rollup.., "queries", "live_ms", "roles"}], "live_queries",
//  "live_ms", "skipped", "yaml"}; the YAML has a comment above each rollup with its numbers.
nlohmann::json LogAdviceJson(const LogAdvice& advice);

}  // namespace strata::rollup
