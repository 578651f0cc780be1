#include "query/query_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <map>

#include "base/hll.h"
#include "base/time.h"
#include "query/warehouse_syntax.h"
#include "rollup/router.h"
#include "semantic/literal.h"
#include "semantic/query.h"
#include "semantic/stored_sql.h"
#include "sql/dialect.h"

namespace strata::query {
namespace {

using OrderedJson = nlohmann::ordered_json;
using semantic::DimensionType;
using warehouse::Value;

// The SQL returns UTC instants; they are written with the offset of the query's zone.
OrderedJson TimeCell(const Value& value, const TimeZone& zone) {
  std::string text = warehouse::ValueToString(value);
  // Sub-second digits are dropped (ParseSqlTimeValue): results are whole seconds.
  if (const auto seconds = ParseSqlTimeValue(text)) return zone.FormatInstant(*seconds);
  return text;
}

// Whether all of `text` reads as a T (std::from_chars: no exception, no overflow).
template <typename T>
bool ParseWhole(std::string_view text, T& out) {
  const char* end = text.data() + text.size();
  const std::from_chars_result parsed = std::from_chars(text.data(), end, out);
  return parsed.ec == std::errc() && parsed.ptr == end;
}

OrderedJson NumberCell(const Value& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return *i;
  if (const auto* u = std::get_if<std::uint64_t>(&value)) return *u;
  if (const auto* d = std::get_if<double>(&value))
    return std::isfinite(*d) ? OrderedJson(*d) : OrderedJson(nullptr);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? 1 : 0;
  // Text from the warehouse (a VARCHAR member declared a number, a PostgreSQL NUMERIC): an exact
  // integer when it fits 64 bits, else a double; beyond a double (1e999) JSON has no number for
  // it, and the text is returned unchanged rather than turned into a null.
  const std::string text = warehouse::ValueToString(value);
  if (!semantic::IsNumberText(text)) return text;
  if (std::int64_t integer = 0; ParseWhole(text, integer)) return integer;
  if (std::uint64_t integer = 0; ParseWhole(text, integer)) return integer;
  if (double number = 0; ParseWhole(text, number) && std::isfinite(number)) return number;
  return text;
}

OrderedJson Cell(const Value& value, DimensionType type, const TimeZone& zone) {
  if (std::holds_alternative<std::monostate>(value)) return nullptr;
  switch (type) {
    case DimensionType::kTime:
      return TimeCell(value, zone);
    case DimensionType::kNumber:
      return NumberCell(value);
    case DimensionType::kBoolean:
      if (const auto* b = std::get_if<bool>(&value)) return *b;
      return warehouse::ValueToString(value);
    case DimensionType::kString:
      return warehouse::ValueToString(value);
  }
  return nullptr;
}

// The group key of row `row`: the first `count` cells as text, NULL marked apart from any text.
std::string RowKey(const warehouse::QueryResult& result, std::size_t row, std::size_t count) {
  std::string key;
  for (std::size_t c = 0; c < count; ++c) {
    const Value& value = result.columns[c].values[row];
    key += std::holds_alternative<std::monostate>(value) ? std::string("\x01")
                                                         : "\x02" + warehouse::ValueToString(value);
    key += '\x1f';
  }
  return key;
}

// Runs one sketch query and returns each group's estimate. Its rows (one per distinct value
// per group) are folded into the groups' sketches as they stream, so memory is bounded by the
// number of groups, and an interrupt (the request's deadline) stops it between batches.
Result<std::map<std::string, double>> Estimates(warehouse::Connection& connection,
                                                const semantic::SketchQuery& sketch) {
  std::map<std::string, HyperLogLog> sketches;
  STRATA_TRY(connection.ExecuteStreamed(sketch.sql, [&](const warehouse::QueryResult& batch) {
    for (std::size_t row = 0; row < batch.row_count(); ++row) {
      const Value& value = batch.columns[sketch.key_count].values[row];
      if (std::holds_alternative<std::monostate>(value)) continue;
      sketches[RowKey(batch, row, sketch.key_count)].Add(warehouse::ValueToString(value));
    }
    return OkStatus();
  }));
  std::map<std::string, double> estimates;
  for (const auto& [key, hll] : sketches) estimates[key] = hll.Estimate();
  return estimates;
}

Status FillSketches(warehouse::Connection& connection, const semantic::LivePlan& plan,
                    warehouse::QueryResult& result) {
  for (const semantic::SketchQuery& sketch : plan.sketches) {
    STRATA_ASSIGN_OR_RETURN(const auto estimates, Estimates(connection, sketch));
    std::vector<Value>& column = result.columns[sketch.column].values;
    for (std::size_t row = 0; row < result.row_count(); ++row) {
      const auto it = estimates.find(RowKey(result, row, sketch.key_count));
      column[row] = static_cast<std::int64_t>(it == estimates.end() ? 0 : std::llround(it->second));
    }
  }
  return OkStatus();
}

}  // namespace

nlohmann::ordered_json QueryResponse::ToJson(bool with_sql) const {
  OrderedJson column_list = OrderedJson::array();
  for (const semantic::OutputColumn& column : columns) {
    column_list.push_back(
        {{"name", column.name}, {"type", semantic::DimensionTypeName(column.type)}});
  }
  OrderedJson row_list = OrderedJson::array();
  for (const auto& row : rows) row_list.push_back(row);
  OrderedJson rollup = OrderedJson::object();
  if (!used.empty()) {
    rollup["used"] = used.front();
    if (live_tail) rollup["live_tail"] = true;
    if (used.size() > 1) rollup["joined"] = used;
  }
  OrderedJson missed_list = OrderedJson::array();
  for (const RollupMiss& miss : missed)
    missed_list.push_back({{"rollup", miss.rollup}, {"reason", miss.reason}});
  rollup["missed"] = missed_list;
  OrderedJson meta = {{"rollup", rollup}};
  if (with_sql) meta["sql"] = sql;
  meta["duration_ms"] = duration_ms;
  return OrderedJson{{"columns", column_list}, {"rows", row_list}, {"meta", meta}};
}

std::vector<RollupMiss> RollupMisses(const semantic::SemanticModel& model,
                                     const std::vector<std::string>& entities) {
  std::vector<RollupMiss> misses;
  for (const semantic::Rollup& rollup : model.rollups) {
    if (std::find(entities.begin(), entities.end(), rollup.entity) != entities.end()) {
      misses.push_back({rollup.name, "not_built", "no rollup store"});
    }
  }
  return misses;
}

Result<semantic::LivePlan> PlanQuery(const semantic::SemanticModel& model, sql::Dialect dialect,
                                     std::string_view query_json, const QueryOptions& options) {
  STRATA_ASSIGN_OR_RETURN(const semantic::SemanticQuery query,
                          semantic::ParseQueryJson(query_json));
  return semantic::PlanLiveQuery(model, query, {dialect, options.role});
}

namespace {

// The typed rows of `result` (whose columns are the plan's).
void FillRows(const semantic::LivePlan& plan, const warehouse::QueryResult& result,
              QueryResponse& response) {
  response.columns = plan.columns;
  response.sql = plan.sql;
  response.rows.resize(result.row_count());
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    for (std::size_t c = 0; c < plan.columns.size(); ++c) {
      response.rows[row].push_back(
          Cell(result.columns[c].values[row], plan.columns[c].type, plan.zone));
    }
  }
}

Status CheckShape(const semantic::LivePlan& plan, const warehouse::QueryResult& result,
                  const char* where) {
  if (result.columns.size() == plan.columns.size()) return OkStatus();
  return MakeError(ErrorCode::kInternal,
                   fmt::format("the {} returned {} columns, expected {}", where,
                               result.columns.size(), plan.columns.size()));
}

Status AnswerLive(warehouse::Connection& connection, const semantic::LivePlan& plan,
                  QueryResponse& response) {
  Result<warehouse::QueryResult> executed = connection.Execute(plan.sql);
  if (!executed.ok()) {
    return std::move(executed.error().Note("while running the live SQL of a semantic query"));
  }
  STRATA_TRY(CheckShape(plan, *executed, "live SQL"));
  STRATA_TRY(FillSketches(connection, plan, *executed));
  FillRows(plan, *executed, response);
  return OkStatus();
}

// Whether every file of the leased version reads whole, read alone (streamed and dropped).
Status ReadsWhole(warehouse::Connection& engine, const rollup::ReaderLease& lease) {
  std::string files;
  for (const rollup::ManifestFile& file : lease.manifest().files) {
    files += (files.empty() ? "" : ", ") +
             sql::QuoteString(lease.FilePath(file).string(), sql::Dialect::kDuckDb);
  }
  if (files.empty()) return OkStatus();
  return engine.ExecuteStreamed("SELECT * FROM read_parquet([" + files + "])",
                                [](const warehouse::QueryResult&) { return OkStatus(); });
}

// The rollups a failed read of the routed SQL is charged to: the one read, or, for a hit over
// several (a join), those whose files fail to read alone; every rollup read when all read
// whole (the failure was the engine's). An interrupted check is the query's error.
Result<std::vector<std::string>> FailedReads(warehouse::Connection& engine,
                                             const rollup::Route& route) {
  if (route.used.size() < 2) return route.used;
  std::vector<std::string> failed;
  for (std::size_t i = 0; i < route.used.size() && i < route.leases.size(); ++i) {
    Status read = ReadsWhole(engine, route.leases[i]);
    if (read.ok()) continue;
    if (read.error().code == ErrorCode::kWarehouseInterrupted) return std::move(read).error();
    failed.push_back(route.used[i]);
  }
  return failed.empty() ? route.used : failed;
}

// The routed SQL's rows: the live tails staged first (from the warehouse), then the SQL run on
// the engine. A failure also sets `charged` to the rollups it is charged to, decided where it
// happens: a tail's rollup when staging it fails, FailedReads when the SQL does.
Result<warehouse::QueryResult> RunRouted(const semantic::SemanticModel& model,
                                         const QueryContext& context, const rollup::Route& route,
                                         std::vector<std::string>& charged) {
  rollup::StagedTails staged;
  if (!route.tails.empty()) {
    charged.clear();
    for (const rollup::LiveTail& tail : route.tails) charged.push_back(tail.rollup);
    if (!context.live) return MakeError(ErrorCode::kInternal, "no warehouse connection");
    STRATA_ASSIGN_OR_RETURN(warehouse::Connection * connection, context.live());
    STRATA_ASSIGN_OR_RETURN(staged, rollup::StageLiveTails(model, route.tails, context.dialect,
                                                           *connection, *context.engine));
  }
  charged = route.used;
  Result<warehouse::QueryResult> executed = context.engine->Execute(route.plan->sql);
  if (!executed.ok()) {
    if (executed.error().code == ErrorCode::kWarehouseInterrupted) return executed;
    STRATA_ASSIGN_OR_RETURN(charged, FailedReads(*context.engine, route));
    return executed;
  }
  STRATA_TRY(CheckShape(*route.plan, *executed, "rollup SQL"));
  return executed;
}

// A routed read that failed: the error, and the rollups it is charged to (routed around as
// store_error).
struct RoutedFailure {
  Error error;
  std::vector<std::string> rollups;
};

// Answers from the routed rollups; on failure (their files or their live tails fail to read)
// the failure, and `response` is unchanged.
std::optional<RoutedFailure> AnswerFromRollups(const semantic::SemanticModel& model,
                                               const QueryContext& context, rollup::Route& route,
                                               QueryResponse& response) {
  std::vector<std::string> charged;
  Result<warehouse::QueryResult> executed = RunRouted(model, context, route, charged);
  if (!executed.ok()) return RoutedFailure{std::move(executed).error(), std::move(charged)};
  FillRows(*route.plan, *executed, response);
  response.used = route.used;
  response.missed.clear();
  for (const rollup::RollupMiss& miss : route.missed) {
    response.missed.push_back({miss.rollup, miss.reason, miss.detail});
  }
  response.live_tail = !route.tails.empty();
  return std::nullopt;
}

// Routes and answers from rollups; false when none answers (`response.missed` then has one
// entry per rollup of the queried entities). A hit whose files fail to read is routed again
// without the rollups that failed (store_error), so the next rollup that answers is tried before
// the live answer; each round excludes at least one more rollup, so this ends. An interrupted
// read (a deadline, a shutdown) is the query's error: nothing more is tried.
Result<bool> AnswerRouted(const semantic::SemanticModel& model, const QueryContext& context,
                          const semantic::SemanticQuery& query, const semantic::LivePlan& plan,
                          const QueryOptions& options, QueryResponse& response) {
  // The rollup SQL is DuckDB's; the live plan checked the query in the warehouse's dialect,
  // and the literals of both come from the same typed values.
  rollup::RouteOptions route_options{{sql::Dialect::kDuckDb, options.role}, context.dialect, {}};
  std::optional<rollup::RouterCache> one_off;
  if (context.router == nullptr) one_off.emplace(model, *context.store);
  const rollup::RouterCache& router = context.router != nullptr ? *context.router : *one_off;
  for (;;) {
    rollup::Route route = rollup::RouteQuery(query, route_options, plan, router);
    if (!route.hit()) {
      for (rollup::RollupMiss& miss : route.missed) {
        response.missed.push_back({miss.rollup, miss.reason, miss.detail});
      }
      return false;
    }
    std::optional<RoutedFailure> failure = AnswerFromRollups(model, context, route, response);
    if (!failure) return true;
    if (failure->error.code == ErrorCode::kWarehouseInterrupted) return failure->error;
    const std::size_t excluded = route_options.failed.size();
    for (const std::string& name : failure->rollups) {
      route_options.failed.push_back({name, semantic::miss::kStoreError, failure->error.message});
    }
    if (route_options.failed.size() == excluded) {  // never: a hit reads one rollup or more
      return MakeError(ErrorCode::kInternal, "a rollup hit read no rollup");
    }
  }
}

}  // namespace

Result<QueryResponse> Answer(const semantic::SemanticModel& model, const QueryContext& context,
                             std::string_view query_json, const QueryOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(semantic::SemanticQuery query, semantic::ParseQueryJson(query_json));
  const bool capped = options.max_rows && (!query.limit || *query.limit > *options.max_rows);
  if (capped) query.limit = *options.max_rows + 1;
  STRATA_ASSIGN_OR_RETURN(const semantic::LivePlan plan,
                          semantic::PlanLiveQuery(model, query, {context.dialect, options.role}));
  QueryResponse response;
  bool answered = false;
  if (context.store != nullptr && context.engine != nullptr) {
    STRATA_ASSIGN_OR_RETURN(answered, AnswerRouted(model, context, query, plan, options, response));
  } else {
    response.missed = RollupMisses(model, plan.entities);
  }
  if (!answered) {
    if (!context.live) return MakeError(ErrorCode::kInternal, "no warehouse connection");
    STRATA_ASSIGN_OR_RETURN(warehouse::Connection * connection, context.live());
    Status live = AnswerLive(*connection, plan, response);
    if (!live.ok()) {
      return NameSyntaxErrorMembers(std::move(live).error(), model, plan.sql, *connection);
    }
  }
  if (capped && static_cast<std::int64_t>(response.rows.size()) > *options.max_rows) {
    return MakeError(
        ErrorCode::kQueryInvalid,
        fmt::format("the answer has more than {} rows, the most one answer may hold",
                    *options.max_rows),
        fmt::format("add a \"limit\" of at most {} (with an \"order\" to choose the rows), "
                    "filters or coarser dimensions; or raise [serve] max_result_rows",
                    *options.max_rows));
  }
  response.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return response;
}

Result<QueryResponse> AnswerQuery(const semantic::SemanticModel& model,
                                  warehouse::Connection& connection, sql::Dialect dialect,
                                  std::string_view query_json, const QueryOptions& options) {
  QueryContext context;
  context.dialect = dialect;
  context.live = [&connection]() -> Result<warehouse::Connection*> { return &connection; };
  return Answer(model, context, query_json, options);
}

}  // namespace strata::query
