// One port of `strata serve` over HTTP/1.1 (cpp-httplib): every request is translated into an
// ApiRequest for the port's handler — QueryApi::Handle on the query port (query_api.h),
// ControlApi::Handle on the control port (control_api.h) — and its answer written back; the
// transport adds only the limits it owns and the access log.
//
// Transport limits: a body larger than [serve] max_body_bytes is 413 (RequestTooLarge), header
// lines that together exceed max_header_bytes 431 (HeadersTooLarge; cpp-httplib refuses one
// line over 8 KiB itself), slow clients are dropped after 5 s without a byte. HTTP threads:
// max_concurrent_queries + max_queued_queries + 4, so health checks and refusals are answered
// while every query slot is busy, plus 256 for idle and slow connections (cpp-httplib holds a
// thread per connection for its whole keep-alive life), run by thread_pool.h's LifoThreadPool.
// The listen backlog is 1,024.
//
// Access log: one JSON line per request on stderr, written whole:
//   {"event":"request","api","method","route","role","status","duration_ms","rollup"}
// (api: "query" or "control"); POST /v1/query adds "query", the query's shape (members, grains,
// filter members and operators: rollup/query_log.h), which `strata rollups advise --from-log`
// reads.
// role is null without a verified token, rollup is the rollup(s) that answered a query, "live",
// or null for other routes and errors; "error" holds the code of a refusal; "reference" and
// "detail" the warehouse's text of a failure the answer did not quote (query_api.h). The
// Authorization header, the body and a row filter's values are never logged.
//
// Thread safety: Run blocks the calling thread; everything else is internal.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "serve/query_api.h"

namespace strata::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 4000;  // 0: any free port (the listening line says which)
};

// What a port serves. `handle` is called from the HTTP threads (it must be thread-safe);
// `cancel_all` at the end of a shutdown's drain (may be empty).
struct PortHandler {
  std::string api;  // "query" | "control": in the log lines and messages
  std::function<ApiResponse(const ApiRequest&)> handle;
  std::function<void()> cancel_all;
};

class HttpServer {
 public:
  // `limits`: the body, header, thread and drain limits of [serve].
  HttpServer(PortHandler handler, const project::ServeConfig& limits, ServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port (SO_REUSEADDR, never SO_REUSEPORT: a second server on a port in use is
  // refused rather than sharing it). kIo naming the address when it cannot (in use, not a local
  // address).
  Status Bind();
  // The bound port. REQUIRES: Bind() succeeded.
  int port() const { return port_; }

  // Serves until `stop` becomes true (SIGTERM/SIGINT), then stops accepting, lets in-flight
  // requests finish for up to [serve] shutdown_drain_ms, cancels the queries still running
  // (answered 503) and returns once every HTTP thread has ended. When a thread has not ended 1 s
  // after the cancel (a client still sending its request, an answer still being written), logs
  // {"event":"forced_exit"} and ends the process with status 0: the drain bound holds. Prints
  // {"event":"listening","api","host","port"} on stderr first and {"event":"stopped","api"}
  // last.
  // REQUIRES: Bind() succeeded.
  Status Run(const std::atomic<bool>& stop);

 private:
  struct Http;
  PortHandler handler_;
  project::ServeConfig limits_;
  ServerOptions options_;
  std::unique_ptr<Http> http_;
  int port_ = 0;
};

}  // namespace strata::serve
