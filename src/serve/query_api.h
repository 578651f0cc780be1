// The query port's routes, independent of the HTTP library (server.h translates to and from
// cpp-httplib): spec/semantic.md, "Serving".
//
//   POST /v1/query   the semantic query JSON in the body → query::Answer with the token's role →
//                    QueryResponse::ToJson() (the same call and JSON as `strata query`)
//   GET  /v1/meta    query::MetaJson for the token's role
//   POST /v1/rollups/advise  the semantic query JSON in the body → the rollups that would answer
//                    it for the token's role (rollup/advisor.h AdviceJson); any valid token
//   GET  /, GET /playground/<file>  the playground's page (playground.h); no token; 404 with
//                    [serve] playground = false
//   GET  /healthz    liveness, no token: {"status": "ok"}
//   GET  /readyz     no token: 200 {"status": "ready"} when the model is loaded (always, once
//                    the API exists) and the warehouse answers `SELECT 1`; 503 otherwise
//
// Every other path is 404 (RouteNotFound) — the control plane's routes included: they belong to
// the control port —, a known path with another method 405 (MethodNotAllowed, `allow` set).
// Errors are {"error": {"code", "message", "hint"}} with the status of the code's catalogue row
// (base/error_code.h: QueryInvalid 400, Unauthenticated 401, AccessDenied 403, Overloaded 503,
// QueryTimeout 504, …), except that a warehouse failure during a live query is 502 (the
// upstream failed, not the caller) and a broken invariant is 500 with a generic message.
//
// [serve] expose_sql (disclosure.h): when false (the default), answers have no meta.sql,
// GET /v1/meta no physical table, column, SQL or measure filter, and a warehouse failure
// (/readyz's included) is answered with its code, the query's members and a reference; its text
// goes to the access log line (ApiResponse::detail). When true, all of it is answered as
// `strata query` and `strata meta` show it.
//
// Authentication: jwt.h; a role the model does not define is AccessDenied (403), never a
// default role. Limits: a query waits for a worker (worker_pool.h) at most until its deadline
// (request_timeout_ms after it arrived); a query still running at the deadline is interrupted on
// the warehouse and the engine (deadline_watcher.h) and answered QueryTimeout.
//
// Result cache (result_cache.h, [serve] result_cache_bytes): a query whose answer came wholly
// from rollup files is stored under its role and canonical body with the stamps of the model's
// rollup manifests; the same query with the same stamps is answered from it, before a worker is
// taken. ApiResponse::cache says which it was.
//
// Thread safety: Handle is thread-safe; the API is shared by every HTTP thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "project/project.h"
#include "query/query_engine.h"
#include "rollup/router.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "serve/deadline_watcher.h"
#include "serve/result_cache.h"
#include "serve/worker_pool.h"
#include "warehouse/warehouse.h"

namespace strata::serve {

struct ApiRequest {
  std::string method;         // "GET", "POST", ... ("HEAD" is answered as GET)
  std::string path;           // without the query string
  std::string authorization;  // the Authorization header's value; empty when absent
  std::string body;
  std::int64_t received_millis = 0;  // MonotonicMillis when the request arrived
};

struct ApiResponse {
  int status = 200;
  std::string body;  // JSON, unless content_type says otherwise
  std::string content_type = "application/json";
  std::string allow;  // for 405: the methods the path accepts
  // More response headers (the playground's Content-Security-Policy and caching).
  std::vector<std::pair<std::string, std::string>> headers;
  // For the access log (never the token): the role of a verified token, the rollups that
  // answered a query ("live" when none did), the error code of a refusal.
  std::optional<std::string> role;
  std::optional<std::string> rollup;
  std::optional<std::string> error_code;
  // POST /v1/query and the result cache (result_cache.h): "hit", "miss" (answered and
  // stored), "bypass" (answered, not storable: live, a live tail, or an error) or "off".
  std::optional<std::string> cache;
  // A warehouse failure kept from the caller (disclosure.h): the reference its error names and
  // the warehouse's text for the log, the role's row filter values cut out.
  std::optional<std::string> reference;
  std::optional<std::string> detail;
  // POST /v1/query: the query's shape for the access log (rollup/query_log.h: members, grains,
  // filter members and operators, never a value), as JSON text, serialized once per query (a
  // result-cache hit logs the stored entry's).
  std::shared_ptr<const std::string> shape;
};

// What the API serves: the loaded project and model, the warehouse to open, the secret, the
// limits. REQUIRES: everything referenced outlives the API.
struct ApiConfig {
  const project::ProjectConfig* project = nullptr;
  const project::WarehouseConfig* warehouse = nullptr;
  const semantic::SemanticModel* model = nullptr;
  sql::Dialect dialect = sql::Dialect::kDuckDb;
  std::string jwt_secret;  // REQUIRES: not empty
  project::ServeConfig limits;
  const Clock* clock = &SystemClock();  // the JWT's exp and nbf are checked against it
  // When set, the warehouse the API reads (kept by the caller across model reloads) instead of
  // one the API opens itself.
  std::function<Result<warehouse::Warehouse*>()> open_warehouse;
};

// The DuckDB threads of the rollup engine: max(1, cores - max_concurrent_queries + 1). DuckDB's
// `threads` is one pool for the whole database: `threads - 1` background workers shared by
// every connection, plus each connection's calling thread. The workers' calling threads are
// max_concurrent_queries of them, so with this many threads a busy server runs at most `cores`
// threads, and with more queries than cores (2 cores, 4 workers) each query runs on its own
// thread alone, without DuckDB's task hand-offs between threads. `cores` is DuckDB's own
// default thread count (which honours a container's CPU limit); 0 counts as 1.
// REQUIRES: max_concurrent_queries >= 1.
int EngineThreadsFor(unsigned cores, std::size_t max_concurrent_queries);

// An error as the API answers it: status and the JSON body.
ApiResponse ErrorResponse(const Error& error);
// The HTTP status of `error` (see the header comment).
int HttpStatusOf(const Error& error);

// Cancels the semantic query another front end runs through QueryApi::AnswerSemantic (the SQL
// port's CancelRequest): the running query is interrupted on the warehouse and the engine; a
// cancel that arrives before the query starts cancels it as it starts, and Reset() forgets it
// (the next statement). Thread-safe.
class QueryCancel {
 public:
  void Cancel();
  void Reset();

 private:
  friend class QueryApi;
  std::mutex mutex_;
  DeadlineWatcher* watcher_ = nullptr;  // set while a query runs
  std::uint64_t watch_ = 0;
  bool requested_ = false;
};

// A semantic answer for another front end, with what its access log line names.
struct SemanticAnswer {
  query::QueryResponse response;
  std::string rollup;  // the rollup(s) that answered ("a+b"), or "live"
  std::string cache;   // as ApiResponse::cache: "hit", "miss", "bypass" or "off"
};

class QueryApi {
 public:
  // Opens the rollup engine and the workers' engine connections; the warehouse opens on first
  // use (a live query or /readyz) and is opened again after a failure.
  explicit QueryApi(ApiConfig config);
  QueryApi(const QueryApi&) = delete;
  QueryApi& operator=(const QueryApi&) = delete;
  ~QueryApi();

  ApiResponse Handle(const ApiRequest& request);

  // The rollup engine's DuckDB threads (EngineThreadsFor); 0 when DuckDB's default was kept.
  int engine_threads() const { return engine_threads_; }

  // From now on every query in flight and every new one is interrupted; for the end of a
  // shutdown's drain. Queries interrupted so are answered Overloaded (503, retryable).
  void CancelAll();

  // The warehouse the live queries read (read-only), opened on first use and kept for the
  // API's life: the rollup builds of `strata serve` read it too.
  Result<warehouse::Warehouse*> SharedWarehouse();

  ResultCache::Stats CacheStats() const { return cache_.stats(); }

  // For the SQL port (serve/pg): the role of a bearer token (its signature, exp and nbf
  // checked now, and the role defined by the model), as POST /v1/query checks it.
  // Errors: kUnauthenticated, kAccessDenied.
  Result<std::string> RoleOfToken(std::string_view token) const;

  // For the SQL port: one semantic query JSON answered as POST /v1/query answers it for `role`
  // (the same workers and queue, deadline from `received_millis`, routing, row cap, shutdown
  // cancel, result cache — shared with HTTP: the key is the role and the canonical query —, and
  // concealment of warehouse failures without expose_sql, whose text goes to the log with its
  // reference), but as a value rather than JSON. `cancel` may be null. A cancelled query is
  // kWarehouseInterrupted (57014) "canceling statement due to user request". Without `cached`
  // the cache is neither read nor filled (EXPLAIN: its answer shows the routing of a real run;
  // a cached answer keeps only the rollups used).
  Result<SemanticAnswer> AnswerSemantic(const std::string& role, std::string_view query_json,
                                        std::int64_t received_millis, QueryCancel* cancel,
                                        bool cached = true);

 private:
  ApiResponse Query(const ApiRequest& request);
  // The query on a worker; `storable` when the answer came wholly from rollup files.
  ApiResponse Run(const ApiRequest& request, const std::string& role, bool* storable);
  // The answer of `body` on a worker, or the error to answer with (the caller conceals a
  // warehouse failure). `cancel` may be null.
  Result<query::QueryResponse> Execute(std::string_view body, const std::string& role,
                                       std::int64_t received_millis, QueryCancel* cancel);
  ApiResponse Meta(const ApiRequest& request);
  ApiResponse Advise(const ApiRequest& request);
  // The answer to a query that failed with `error`: ErrorResponse, or for a warehouse failure
  // without expose_sql, its concealed form with the text for the log.
  ApiResponse QueryError(const Error& error, std::string_view body) const;
  ApiResponse Ready();
  Result<std::string> Authenticate(const ApiRequest& request) const;
  // The stamps of every rollup of the model now; nullopt when one cannot be read.
  std::optional<StoreStamps> CurrentStamps() const;

  ApiConfig config_;
  rollup::RollupStore store_;
  rollup::RouterCache router_;
  std::unique_ptr<warehouse::Warehouse> engine_;
  int engine_threads_ = 0;  // 0: DuckDB's default (ShareTheCores failed)
  std::mutex warehouse_mutex_;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
  DeadlineWatcher deadlines_;
  std::atomic<bool> cancelled_{false};
  std::unique_ptr<WorkerPool> workers_;
  ResultCache cache_;
};

}  // namespace strata::serve
