#include "serve/query_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <variant>

#include "query/meta.h"
#include "query/query_engine.h"
#include "rollup/advisor.h"
#include "rollup/query_log.h"
#include "rollup/status.h"
#include "serve/disclosure.h"
#include "serve/jwt.h"
#include "serve/log_line.h"
#include "serve/playground.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/from_config.h"

namespace strata::serve {
namespace {

using nlohmann::json;

constexpr std::string_view kRoutesHint =
    "the query port serves POST /v1/query, GET /v1/meta, POST /v1/rollups/advise, GET /healthz, "
    "GET /readyz and the playground at GET /";

// The JSON text of a document the API answers with. Strings a warehouse returned need not be
// UTF-8: invalid bytes become U+FFFD rather than an exception.
template <typename Json>
std::string Dump(const Json& document) {
  return document.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ApiResponse JsonOk(std::string body) {
  ApiResponse response;
  response.body = std::move(body);
  return response;
}

// The method of a known path (HEAD is answered as GET); empty for an unknown path.
std::string_view MethodOf(std::string_view path) {
  if (path == "/v1/query" || path == "/v1/rollups/advise") return "POST";
  if (path == "/v1/meta" || path == "/healthz" || path == "/readyz") return "GET";
  return "";
}

// A reference for a log line no answer quotes in full: unique within the process, and across
// restarts by its time part.
std::string NextReference() {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{:x}-{}", SystemClock().Now(), counter.fetch_add(1) + 1);
}

bool IsWarehouseFailure(ErrorCode code) {
  return code == ErrorCode::kWarehouse || code == ErrorCode::kWarehouseSyntax ||
         code == ErrorCode::kWarehouseCatalog || code == ErrorCode::kWarehouseStorage ||
         code == ErrorCode::kWarehouseInterrupted || code == ErrorCode::kWarehouseConflict ||
         code == ErrorCode::kWarehouseUnsupported;
}

}  // namespace

int HttpStatusOf(const Error& error) {
  if (IsWarehouseFailure(error.code)) return 502;
  return Describe(error.code).http_status;
}

int EngineThreadsFor(unsigned cores, std::size_t max_concurrent_queries) {
  STRATA_CHECK(max_concurrent_queries >= 1);
  const std::size_t available = std::max<std::size_t>(cores, 1);
  if (available <= max_concurrent_queries) return 1;
  return static_cast<int>(available - max_concurrent_queries + 1);
}

namespace {

// Sets the engine's threads to EngineThreadsFor(DuckDB's default thread count); returns them.
Result<int> ShareTheCores(warehouse::Warehouse& engine, std::size_t max_concurrent_queries) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, engine.Connect());
  STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult current,
                          connection->Execute("SELECT CAST(current_setting('threads') AS BIGINT)"));
  if (current.row_count() != 1 ||
      !std::holds_alternative<std::int64_t>(current.columns[0].values[0])) {
    return MakeError(ErrorCode::kInternal, "DuckDB did not report its threads");
  }
  const auto cores = std::get<std::int64_t>(current.columns[0].values[0]);
  const int threads = EngineThreadsFor(static_cast<unsigned>(std::max<std::int64_t>(cores, 0)),
                                       max_concurrent_queries);
  STRATA_TRY(connection->Execute(fmt::format("SET GLOBAL threads = {}", threads)));
  return threads;
}

}  // namespace

ApiResponse ErrorResponse(const Error& error) {
  ApiResponse response;
  response.status = HttpStatusOf(error);
  response.error_code = std::string(error.reported_code());
  json detail = {{"code", error.reported_code()},
                 {"message", error.message},
                 {"hint", error.hint.empty() ? json(nullptr) : json(error.hint)}};
  // What the CLI's error carries too: the member or filter it concerns, the YAML position.
  if (!error.notes.empty()) detail["notes"] = error.notes;
  if (error.span && !error.span->file.empty()) {
    detail["file"] = error.span->file;
    detail["line"] = error.span->line > 0 ? json(error.span->line) : json(nullptr);
  }
  json body = {{"error", std::move(detail)}};
  response.body = Dump(body);
  return response;
}

QueryApi::QueryApi(ApiConfig config)
    : config_(std::move(config)),
      store_(rollup::ResolveStoreDir(*config_.project)),
      router_(*config_.model, store_),
      cache_(config_.limits.result_cache_bytes) {
  STRATA_CHECK(!config_.jwt_secret.empty());
  // Rollup files are immutable (a build writes new ones): their footers are parsed once.
  warehouse::EngineOptions engine_options;
  engine_options.parquet_metadata_cache = true;
  if (auto engine = warehouse::OpenDuckDbEngine(engine_options); engine.ok()) {
    engine_ = std::move(*engine);
    // DuckDB's default is every core it may use; when that cannot be read or set, it stays.
    if (Result<int> threads = ShareTheCores(*engine_, config_.limits.max_concurrent_queries);
        threads.ok()) {
      engine_threads_ = *threads;
    }
  }
  workers_ = std::make_unique<WorkerPool>(
      config_.limits.max_concurrent_queries, config_.limits.max_queued_queries,
      [this]() -> Result<std::unique_ptr<warehouse::Connection>> {
        if (!engine_) {
          return MakeError(ErrorCode::kWarehouseConnection, "the rollup engine did not open");
        }
        return engine_->Connect();
      });
}

QueryApi::~QueryApi() = default;

void QueryApi::CancelAll() {
  cancelled_.store(true);
  deadlines_.FireAll();
}

ApiResponse QueryApi::Handle(const ApiRequest& request) {
  const std::string method = request.method == "HEAD" ? "GET" : request.method;
  const bool page = config_.limits.playground && IsPlaygroundPath(request.path);
  const std::string_view expected = page ? "GET" : MethodOf(request.path);
  if (expected.empty()) {
    return ErrorResponse(
        MakeError(ErrorCode::kRouteNotFound,
                  fmt::format("no route {} {} on the query port", request.method, request.path),
                  std::string(kRoutesHint)));
  }
  if (method != expected) {
    const std::string allowed = expected == "GET" ? "GET, HEAD" : std::string(expected);
    ApiResponse response =
        ErrorResponse(MakeError(ErrorCode::kMethodNotAllowed,
                                fmt::format("{} does not accept {}", request.path, request.method),
                                fmt::format("use {} {}", expected, request.path)));
    response.allow = allowed;
    return response;
  }
  if (page) return PlaygroundResponse(request.path, EmbeddedPlaygroundFiles());
  if (request.path == "/v1/query") return Query(request);
  if (request.path == "/v1/meta") return Meta(request);
  if (request.path == "/v1/rollups/advise") return Advise(request);
  if (request.path == "/readyz") return Ready();
  return JsonOk(R"({"status":"ok"})");
}

Result<std::string> QueryApi::Authenticate(const ApiRequest& request) const {
  STRATA_ASSIGN_OR_RETURN(std::string_view token, BearerToken(request.authorization));
  STRATA_ASSIGN_OR_RETURN(JwtClaims claims,
                          VerifyHs256(token, config_.jwt_secret, config_.clock->Now()));
  if (config_.model->FindRole(claims.role) == nullptr) {
    return MakeError(
        ErrorCode::kAccessDenied,
        fmt::format("the token's role \"{}\" is not a data role of the model", claims.role),
        "issue the token for one of the model's data_roles (GET /v1/meta with a "
        "valid token lists its own)");
  }
  return claims.role;
}

ApiResponse QueryApi::Meta(const ApiRequest& request) {
  Result<std::string> role = Authenticate(request);
  if (!role.ok()) return ErrorResponse(role.error());
  Result<json> meta = query::MetaJson(*config_.model, rollup::StatusOf(*config_.model, store_),
                                      *role, config_.limits.expose_sql);
  ApiResponse response = meta.ok() ? JsonOk(Dump(*meta)) : ErrorResponse(meta.error());
  response.role = *role;
  return response;
}

ApiResponse QueryApi::Advise(const ApiRequest& request) {
  Result<std::string> role = Authenticate(request);
  if (!role.ok()) return ErrorResponse(role.error());
  Result<semantic::SemanticQuery> query = semantic::ParseQueryJson(request.body);
  rollup::AdviseOptions options;
  options.plan.role = *role;
  options.now = config_.clock->Now();
  Result<rollup::Advice> advice = query.ok()
                                      ? rollup::AdviseRollups(*config_.model, *query, options)
                                      : Result<rollup::Advice>(query.error());
  ApiResponse response =
      advice.ok() ? JsonOk(Dump(rollup::AdviceJson(*advice))) : ErrorResponse(advice.error());
  response.role = *role;
  return response;
}

namespace {

// The shape of the query in `body` for the access log (JSON text); null when it does not parse.
std::shared_ptr<const std::string> ShapeOf(const semantic::SemanticModel& model,
                                           std::string_view body) {
  Result<semantic::SemanticQuery> query = semantic::ParseQueryJson(body);
  if (!query.ok()) return nullptr;
  return std::make_shared<const std::string>(Dump(rollup::QueryShapeJson(model, *query)));
}

}  // namespace

Result<warehouse::Warehouse*> QueryApi::SharedWarehouse() {
  if (config_.open_warehouse) return config_.open_warehouse();
  std::lock_guard<std::mutex> lock(warehouse_mutex_);
  if (!warehouse_) {
    // Read-only, as `strata query`: the API never writes, and a DuckDB file opened read-only can
    // be shared with other readers.
    STRATA_ASSIGN_OR_RETURN(warehouse_,
                            warehouse::OpenWarehouse(*config_.project, *config_.warehouse,
                                                     warehouse::AccessMode::kReadOnly));
  }
  return warehouse_.get();
}

ApiResponse QueryApi::Ready() {
  Result<warehouse::Warehouse*> shared = SharedWarehouse();
  Result<std::unique_ptr<warehouse::Connection>> connection =
      shared.ok() ? (*shared)->Connect()
                  : Result<std::unique_ptr<warehouse::Connection>>(std::move(shared).error());
  Status reachable = OkStatus();
  if (connection.ok()) {
    if (auto probe = (*connection)->Execute("SELECT 1"); !probe.ok()) reachable = probe.error();
  } else {
    reachable = connection.error();
  }
  if (!reachable.ok()) {
    // The warehouse's text may name its file, host or database: the log keeps it unless exposed.
    const std::string& reason = reachable.error().message;
    Error error =
        MakeError(ErrorCode::kWarehouseConnection,
                  config_.limits.expose_sql ? "the warehouse is not reachable: " + reason
                                            : std::string("the warehouse is not reachable"),
                  "GET /readyz answers 200 once the warehouse answers SELECT 1");
    ApiResponse response = ErrorResponse(error);
    if (!config_.limits.expose_sql)
      response.detail = ForTheLog(reason, RowFilterValues(*config_.model));
    return response;
  }
  return JsonOk(R"({"status":"ready","model":"loaded","warehouse":"reachable"})");
}

std::optional<StoreStamps> QueryApi::CurrentStamps() const {
  StoreStamps stamps;
  stamps.reserve(config_.model->rollups.size());
  for (const semantic::Rollup& rollup : config_.model->rollups) {
    Result<std::optional<rollup::ManifestStamp>> stamp = store_.Stamp(rollup.name);
    if (!stamp.ok()) return std::nullopt;
    stamps.push_back(*stamp);
  }
  return stamps;
}

ApiResponse QueryApi::Query(const ApiRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  Result<std::string> role = Authenticate(request);
  if (!role.ok()) return ErrorResponse(role.error());
  std::optional<std::string> key;
  std::optional<StoreStamps> stamps;
  if (cache_.enabled()) {
    key = ResultCacheKey(*role, request.body);
    // Taken before the query runs: a publish during it makes the stored entry stale.
    if (key) stamps = CurrentStamps();
    if (key && stamps) {
      if (std::optional<ResultCache::Entry> hit = cache_.Find(*key, *stamps)) {
        const std::chrono::duration<double, std::milli> elapsed =
            std::chrono::steady_clock::now() - started;
        ApiResponse response = JsonOk(WithDuration(hit->body_prefix, elapsed.count()));
        response.rollup = std::move(hit->rollup);
        response.role = *role;
        response.cache = "hit";
        response.shape = std::move(hit->shape);
        return response;
      }
    }
  }
  bool storable = false;
  ApiResponse response = Run(request, *role, &storable);
  response.cache = cache_.enabled() ? "bypass" : "off";
  response.shape = ShapeOf(*config_.model, request.body);
  if (storable && key && stamps && response.rollup) {
    if (std::optional<std::string> prefix = WithoutDuration(response.body)) {
      cache_.Insert(*key, std::move(*stamps),
                    {std::move(*prefix), *response.rollup, response.shape});
      response.cache = "miss";
    }
  }
  return response;
}

void QueryCancel::Cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  requested_ = true;
  if (watcher_ != nullptr) watcher_->FireNow(watch_);
}

void QueryCancel::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  requested_ = false;
}

Result<query::QueryResponse> QueryApi::Execute(std::string_view body, const std::string& role,
                                               std::int64_t received_millis, QueryCancel* cancel) {
  const std::int64_t deadline = received_millis + config_.limits.request_timeout_ms;
  STRATA_ASSIGN_OR_RETURN(WorkerPool::Lease lease, workers_->Acquire(deadline));
  Worker& worker = lease.worker();
  const std::uint64_t watch = deadlines_.Start(deadline);
  bool cancel_requested = false;
  if (cancel != nullptr) {
    std::lock_guard<std::mutex> lock(cancel->mutex_);
    cancel->watcher_ = &deadlines_;
    cancel->watch_ = watch;
    if (cancel->requested_) deadlines_.FireNow(watch);
  }
  if (worker.engine) deadlines_.Add(watch, worker.engine.get());
  if (worker.warehouse) deadlines_.Add(watch, worker.warehouse.get());
  const auto cancelled_error = [] {
    return MakeError(ErrorCode::kWarehouseInterrupted, "the query was cancelled before it ran");
  };

  query::QueryContext context;
  context.dialect = config_.dialect;
  context.store = worker.engine ? &store_ : nullptr;
  context.engine = worker.engine.get();
  context.router = worker.engine ? &router_ : nullptr;
  context.live = [&]() -> Result<warehouse::Connection*> {
    if (!worker.warehouse) {
      STRATA_ASSIGN_OR_RETURN(warehouse::Warehouse * shared, SharedWarehouse());
      STRATA_ASSIGN_OR_RETURN(worker.warehouse, shared->Connect());
      if (!deadlines_.Add(watch, worker.warehouse.get())) return cancelled_error();
    }
    return worker.warehouse.get();
  };
  Result<query::QueryResponse> answer =
      query::Answer(*config_.model, context, body,
                    {role, static_cast<std::int64_t>(config_.limits.max_result_rows)});
  if (cancel != nullptr) {
    std::lock_guard<std::mutex> lock(cancel->mutex_);
    cancel->watcher_ = nullptr;
    cancel_requested = cancel->requested_;
  }
  if (deadlines_.Finish(watch)) worker.interrupted = true;
  if (answer.ok() || !worker.interrupted) return answer;
  if (cancelled_.load()) {
    return MakeError(ErrorCode::kOverloaded, "the server is shutting down; the query was cancelled",
                     "retry on another instance or after the restart");
  }
  if (cancel_requested) {
    return MakeError(ErrorCode::kWarehouseInterrupted, "canceling statement due to user request");
  }
  return MakeError(ErrorCode::kQueryTimeout,
                   fmt::format("the query ran longer than {} ms and was cancelled",
                               config_.limits.request_timeout_ms),
                   "narrow the query (a shorter date range, fewer dimensions), build a rollup "
                   "that answers it, or raise [serve] request_timeout_ms");
}

ApiResponse QueryApi::Run(const ApiRequest& request, const std::string& role, bool* storable) {
  Result<query::QueryResponse> answer =
      Execute(request.body, role, request.received_millis, nullptr);
  ApiResponse response;
  if (answer.ok()) {
    response = JsonOk(Dump(answer->ToJson(config_.limits.expose_sql)));
    std::string used;
    for (const std::string& name : answer->used) used += (used.empty() ? "" : "+") + name;
    response.rollup = used.empty() ? "live" : used;
    *storable = !used.empty() && !answer->live_tail;
  } else if (answer.error().code == ErrorCode::kOverloaded ||
             answer.error().code == ErrorCode::kQueryTimeout) {
    response = ErrorResponse(answer.error());
  } else {
    response = QueryError(answer.error(), request.body);
  }
  response.role = role;
  return response;
}

Result<std::string> QueryApi::RoleOfToken(std::string_view token) const {
  ApiRequest request;
  request.authorization = "Bearer " + std::string(token);
  return Authenticate(request);
}

namespace {

// A cached answer's body (ResultCache: ToJson without meta.duration_ms) as the answer it was.
std::optional<query::QueryResponse> FromCachedBody(const std::string& prefix) {
  const nlohmann::ordered_json body =
      nlohmann::ordered_json::parse(WithDuration(prefix, 0), nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("columns") || !body.contains("rows")) {
    return std::nullopt;
  }
  query::QueryResponse response;
  for (const auto& column : body["columns"]) {
    const std::optional<semantic::DimensionType> type =
        semantic::ParseDimensionType(column.value("type", ""));
    if (!type) return std::nullopt;
    response.columns.push_back({column.value("name", ""), *type});
  }
  for (const auto& row : body["rows"]) {
    response.rows.emplace_back(row.begin(), row.end());
  }
  const nlohmann::ordered_json& rollup = body["meta"]["rollup"];
  if (rollup.contains("joined")) {
    for (const auto& name : rollup["joined"]) response.used.push_back(name.get<std::string>());
  } else if (rollup.contains("used")) {
    response.used.push_back(rollup["used"].get<std::string>());
  }
  return response;
}

}  // namespace

Result<SemanticAnswer> QueryApi::AnswerSemantic(const std::string& role,
                                                std::string_view query_json,
                                                std::int64_t received_millis, QueryCancel* cancel,
                                                bool cached) {
  std::optional<std::string> key;
  std::optional<StoreStamps> stamps;
  if (cached && cache_.enabled()) {
    key = ResultCacheKey(role, query_json);
    if (key) stamps = CurrentStamps();
    if (key && stamps) {
      if (std::optional<ResultCache::Entry> hit = cache_.Find(*key, *stamps)) {
        if (std::optional<query::QueryResponse> response = FromCachedBody(hit->body_prefix)) {
          return SemanticAnswer{std::move(*response), std::move(hit->rollup), "hit"};
        }
      }
    }
  }
  Result<query::QueryResponse> answer = Execute(query_json, role, received_millis, cancel);
  if (!answer.ok()) {
    const Error& error = answer.error();
    if (error.code == ErrorCode::kOverloaded || error.code == ErrorCode::kQueryTimeout ||
        error.code == ErrorCode::kWarehouseInterrupted) {
      return error;
    }
    ApiResponse concealed = QueryError(error, query_json);
    if (!concealed.reference) return error;
    WriteJsonLine({{"event", "warehouse_failure"},
                   {"api", "sql"},
                   {"role", role},
                   {"reference", *concealed.reference},
                   {"detail", concealed.detail.value_or("")}});
    return Concealed(error, query_json, *concealed.reference);
  }
  SemanticAnswer out;
  for (const std::string& name : answer->used) out.rollup += (out.rollup.empty() ? "" : "+") + name;
  out.cache = cache_.enabled() && cached ? "bypass" : "off";
  if (!out.rollup.empty() && !answer->live_tail && key && stamps) {
    if (std::optional<std::string> prefix =
            WithoutDuration(Dump(answer->ToJson(config_.limits.expose_sql)))) {
      cache_.Insert(*key, std::move(*stamps),
                    {std::move(*prefix), out.rollup, ShapeOf(*config_.model, query_json)});
      out.cache = "miss";
    }
  }
  if (out.rollup.empty()) out.rollup = "live";
  out.response = std::move(*answer);
  return out;
}

ApiResponse QueryApi::QueryError(const Error& error, std::string_view body) const {
  if (config_.limits.expose_sql || !IsWarehouseError(error)) return ErrorResponse(error);
  const std::string reference = NextReference();
  ApiResponse response = ErrorResponse(Concealed(error, body, reference));
  const std::vector<std::string> values = RowFilterValues(*config_.model);
  std::string detail = ForTheLog(error.message, values);
  for (const std::string& note : error.notes) detail += "; " + ForTheLog(note, values);
  response.reference = reference;
  response.detail = std::move(detail);
  return response;
}

}  // namespace strata::serve
