// Answers one semantic query (DESIGN.md `query`): parse the JSON, resolve it against the model
// with the caller's data role, route it (rollup/router.h: a rollup that answers exactly is read
// through the in-process DuckDB engine and the warehouse is never opened; otherwise the query
// runs live: the live SQL on the warehouse, count_distinct_approx sketches estimated
// client-side; a live_tail rollup's hit reads the rows after its watermark from the warehouse
// first, rollup/live_tail.h), and return typed columns, rows and `meta`. `strata query` and
// POST /v1/query both call this.
//
// Routing never fails a query: a rollup whose files cannot be read (deleted, truncated,
// corrupted) is routed around with the miss reason `store_error`: the next rollup that answers
// is read, else the query runs live (meta.rollup lists `store_error` for it, on a hit as on a
// live answer). An interrupted rollup read is the query's error.
//
// Thread safety: Answer uses the context's connections only; callers give each thread its own.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "rollup/router.h"
#include "rollup/store.h"
#include "semantic/live_sql.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::query {

struct RollupMiss {
  std::string rollup;
  std::string reason;  // a stable reason string of spec/semantic.md ("not_built")
  std::string detail;  // for humans (not in the JSON contract)
};

struct QueryResponse {
  std::vector<semantic::OutputColumn> columns;
  // One JSON value per column: null, a number, a string, a boolean; times as ISO 8601 with the
  // offset of the query's zone ("2026-01-01T00:00:00Z" in UTC, "2026-01-01T00:00:00+01:00" in
  // Europe/Berlin; the same instant either way), decimals as numbers. A number member's value
  // beyond a double (the text "1e999" of a VARCHAR or NUMERIC column) comes back as that text; an
  // infinite or NaN double as null.
  std::vector<std::vector<nlohmann::ordered_json>> rows;
  std::vector<std::string> used;  // the rollups that answered (one per entity); empty: live
  bool live_tail = false;         // the answer read a rollup's live tail from the warehouse
  // One per rollup of the queried entities not read, live or hit (`costlier` for one that
  // answers but reads more rows than the one used).
  std::vector<RollupMiss> missed;
  std::string sql;  // names the physical tables and holds the role's row filter values
  double duration_ms = 0;

  // {"columns":[{"name","type"}],"rows":[[...]],"meta":{"rollup":{...},"sql":...,
  //  "duration_ms":...}}, keys in this order. meta.rollup is {"used": name, ...,
  //  "missed": [{rollup, reason}]} on a hit (with "live_tail": true when it read a live tail,
  //  "joined": [names] when several rollups were joined), else {"missed": [...]}. Without
  //  `with_sql`, meta has no "sql" (the query port's [serve] expose_sql = false).
  nlohmann::ordered_json ToJson(bool with_sql = true) const;
};

struct QueryOptions {
  std::optional<std::string> role;  // nullopt: a trusted caller (see semantic/live_sql.h)
  // The most rows the answer may hold: a query whose `limit` is absent or larger runs with a
  // limit of one more, and an answer over it is kQueryInvalid (never a truncated answer). The
  // limit counts after the query's `offset` (the rows it skips are not in the answer), so a
  // page of at most max_rows rows at any offset answers, and one past it never comes back cut.
  // nullopt: no cap.
  std::optional<std::int64_t> max_rows;
};

// Where answers may come from.
struct QueryContext {
  sql::Dialect dialect = sql::Dialect::kDuckDb;  // the warehouse's
  // The warehouse connection, opened on first use: called only when the query runs live.
  std::function<Result<warehouse::Connection*>()> live;
  const rollup::RollupStore* store = nullptr;  // null: no routing (every rollup not_built)
  // A connection of the rollup engine (warehouse/duckdb/duckdb_engine.h); kept warm by the
  // caller across queries. Required when `store` is set.
  warehouse::Connection* engine = nullptr;
  // Routing state kept across queries (a server keeps one per loaded model); made for the one
  // query when null. REQUIRES: made for the same model and `store`.
  const rollup::RouterCache* router = nullptr;
};

// Errors: kQueryInvalid, kAmbiguousPath, kFanOut, kAccessDenied from parsing and planning;
// warehouse error codes from live execution (with a note naming the query). Never an error
// from a rollup.
Result<QueryResponse> Answer(const semantic::SemanticModel& model, const QueryContext& context,
                             std::string_view query_json, const QueryOptions& options);

// Answer without rollups, live on `connection`.
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
