#include "serve/server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "base/ascii.h"
#include "base/time.h"
#include "serve/thread_pool.h"

namespace strata::serve {
namespace {

using nlohmann::json;

constexpr time_t kReadTimeoutSeconds = 5;
constexpr time_t kWriteTimeoutSeconds = 5;
constexpr time_t kKeepAliveSeconds = 2;
// Requests per connection before it is closed (cpp-httplib's default is 5): a dashboard reuses
// its connection; reconnecting per five queries costs a TCP handshake each time.
constexpr std::size_t kKeepAliveRequests = 1000;
constexpr std::size_t kExtraHttpThreads = 4;
constexpr std::size_t kConnectionThreads = 256;
// cpp-httplib listens with a backlog of 5: a burst of connections waits for SYN retries (1 s,
// 3 s, ...). listen(2) again on the bound socket raises it.
constexpr int kListenBacklog = 1024;

// cpp-httplib's task queue over LifoThreadPool (thread_pool.h: why not its own ThreadPool).
class HttpTaskQueue final : public httplib::TaskQueue {
 public:
  explicit HttpTaskQueue(std::size_t threads) : pool_(threads) {}
  void enqueue(std::function<void()> task) override { pool_.Submit(std::move(task)); }
  void shutdown() override { pool_.Shutdown(); }

 private:
  LifoThreadPool pool_;
};

std::mutex g_log_mutex;

// One whole line on stderr per call, never interleaved with another thread's.
// `raw`, when given, is a JSON text appended to the object as one more member: `key`.
void WriteLogLine(const json& line, const std::string* raw = nullptr,
                  std::string_view key = "query") {
  std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace);
  if (raw != nullptr && !text.empty() && text.back() == '}') {
    text.pop_back();
    text += fmt::format(",\"{}\":{}}}", key, *raw);
  }
  text += "\n";
  std::lock_guard<std::mutex> lock(g_log_mutex);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

json OrNull(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

void LogRequest(const std::string& api, const httplib::Request& request,
                const ApiResponse& response, std::int64_t started_millis) {
  json line = {{"event", "request"},
               {"ts", FormatIso8601(SystemClock().Now())},
               {"api", api},
               {"method", request.method},
               {"route", request.path},
               {"role", OrNull(response.role)},
               {"status", response.status},
               {"duration_ms", MonotonicMillis() - started_millis},
               {"rollup", OrNull(response.rollup)}};
  if (response.error_code) line["error"] = *response.error_code;
  if (response.cache) line["cache"] = *response.cache;
  if (response.reference) line["reference"] = *response.reference;
  if (response.detail) line["detail"] = *response.detail;
  WriteLogLine(line, response.shape.get());
}

void Write(const ApiResponse& response, httplib::Response& out) {
  out.status = response.status;
  if (!response.allow.empty()) out.set_header("Allow", response.allow);
  if (response.cache) out.set_header("X-Strata-Cache", *response.cache);
  for (const auto& [name, value] : response.headers) out.set_header(name, value);
  out.set_content(response.body, response.content_type);
}

// The error of a status cpp-httplib set itself (before any route ran).
Error TransportError(const std::string& api, const httplib::Request& request, int status,
                     const project::ServeConfig& limits) {
  switch (status) {
    case 413:
      if (request.get_header_value("Content-Type") == "application/x-www-form-urlencoded") {
        return MakeError(ErrorCode::kRequestTooLarge,
                         "a form-encoded body is larger than 8192 bytes (cpp-httplib's limit for "
                         "application/x-www-form-urlencoded, curl -d's default)",
                         "send the query with Content-Type: application/json");
      }
      return MakeError(
          ErrorCode::kRequestTooLarge,
          fmt::format("the request body is larger than {} bytes", limits.max_body_bytes),
          "send a smaller query, or raise [serve] max_body_bytes");
    case 404:
      return MakeError(ErrorCode::kRouteNotFound, "no such route on the " + api + " port");
    case 414:
      return MakeError(ErrorCode::kHeadersTooLarge, "the request line is longer than 8 KiB");
    default:
      break;
  }
  Error error = MakeError(ErrorCode::kUsage, fmt::format("malformed HTTP request ({})", status),
                          "send HTTP/1.1 with a Content-Length or chunked body");
  return error;
}

// Framing a request body may not have (RFC 9112 section 6.3): Content-Length given twice with
// different values, or together with Transfer-Encoding, or a transfer coding other than chunked.
// Two parsers (a proxy and this server) could disagree about where such a request ends. Empty
// when the framing is sound.
std::string FramingProblem(const httplib::Request& request) {
  const std::size_t lengths = request.get_header_value_count("Content-Length");
  for (std::size_t i = 1; i < lengths; ++i) {
    if (request.get_header_value("Content-Length", i) !=
        request.get_header_value("Content-Length", 0)) {
      return "Content-Length is given twice with different values";
    }
  }
  if (!request.has_header("Transfer-Encoding")) return "";
  if (lengths > 0) return "Content-Length and Transfer-Encoding are both given";
  if (request.get_header_value_count("Transfer-Encoding") > 1 ||
      !EqualsIgnoreAsciiCase(request.get_header_value("Transfer-Encoding"), "chunked")) {
    return "the only transfer coding accepted is chunked";
  }
  return "";
}

Error FramingError(std::string problem) {
  return MakeError(ErrorCode::kUsage, "malformed HTTP request: " + std::move(problem),
                   "send the body with one Content-Length, or with Transfer-Encoding: chunked");
}

}  // namespace

struct HttpServer::Http {
  httplib::Server server;
  socket_t listener = INVALID_SOCKET;  // set by the socket-options callback, before bind
};

HttpServer::HttpServer(PortHandler handler, const project::ServeConfig& limits,
                       ServerOptions options)
    : handler_(std::move(handler)), limits_(limits), options_(std::move(options)) {
  http_ = std::make_unique<Http>();
  httplib::Server& server = http_->server;
  const std::string api = handler_.api;
  // cpp-httplib holds a thread per connection for its whole keep-alive life, reading headers
  // included: threads for idle and slow clients beyond the queries' own, so a few hundred of them
  // (slowloris) do not starve the others. A front proxy is still the defence against more.
  const std::size_t threads = limits.max_concurrent_queries + limits.max_queued_queries +
                              kExtraHttpThreads + kConnectionThreads;
  server.new_task_queue = [threads] { return new HttpTaskQueue(threads); };
  server.set_payload_max_length(limits.max_body_bytes);
  server.set_read_timeout(kReadTimeoutSeconds, 0);
  server.set_write_timeout(kWriteTimeoutSeconds, 0);
  server.set_keep_alive_timeout(kKeepAliveSeconds);
  server.set_keep_alive_max_count(kKeepAliveRequests);
  // cpp-httplib writes the status line and headers, then the body: with Nagle's algorithm on,
  // the body waits for the client's delayed ACK (40 ms per request on Linux).
  server.set_tcp_nodelay(true);
  // SO_REUSEADDR only (a restart binds while old connections are in TIME_WAIT). cpp-httplib's
  // default also sets SO_REUSEPORT, with which a second `strata serve` on the same port binds
  // too and the kernel splits the connections between the two processes.
  server.set_socket_options([http = http_.get()](socket_t listener) {
    const int yes = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    http->listener = listener;
  });

  server.set_pre_routing_handler(
      [limits, api](const httplib::Request& request, httplib::Response& response) {
        std::size_t header_bytes = 0;
        for (const auto& [name, value] : request.headers)
          header_bytes += name.size() + value.size() + 4;
        if (header_bytes <= limits.max_header_bytes)
          return httplib::Server::HandlerResponse::Unhandled;
        const std::int64_t started = MonotonicMillis();
        ApiResponse refused = ErrorResponse(MakeError(
            ErrorCode::kHeadersTooLarge,
            fmt::format("the request headers are larger than {} bytes", limits.max_header_bytes),
            "send fewer or shorter headers, or raise [serve] max_header_bytes"));
        Write(refused, response);
        // The body, if any, is not read: the connection cannot carry another request.
        response.set_header("Connection", "close");
        LogRequest(api, request, refused, started);
        return httplib::Server::HandlerResponse::Handled;
      });

  // The request with `body` (read by cpp-httplib, or by the content reader below).
  auto answer_with = [this](const httplib::Request& request, httplib::Response& response,
                            std::string body) {
    ApiRequest api_request;
    api_request.received_millis = MonotonicMillis();
    api_request.method = request.method;
    api_request.path = request.path;
    api_request.authorization = request.get_header_value("Authorization");
    api_request.body = std::move(body);
    const ApiResponse answer = handler_.handle(api_request);
    Write(answer, response);
    LogRequest(handler_.api, request, answer, api_request.received_millis);
  };
  auto dispatch = [answer_with](const httplib::Request& request, httplib::Response& response) {
    answer_with(request, response, request.body);
  };
  // Bodies are read through a content reader, which stops at max_body_bytes whatever the
  // framing: cpp-httplib applies its own limit to a Content-Length only, and would read a
  // chunked body of any size into memory.
  auto with_body = [limits, api, answer_with](const httplib::Request& request,
                                              httplib::Response& response,
                                              const httplib::ContentReader& content) {
    std::string body;
    const auto refuse = [&](int status, const Error& error) {
      const std::int64_t started = MonotonicMillis();
      const ApiResponse refused = ErrorResponse(error);
      Write(refused, response);
      response.status = status;
      response.set_header("Connection", "close");  // where the next request starts is unknown
      LogRequest(api, request, refused, started);
    };
    if (std::string problem = FramingProblem(request); !problem.empty()) {
      return refuse(400, FramingError(std::move(problem)));
    }
    // Neither Content-Length nor Transfer-Encoding: the body is empty (RFC 9112 section 6.3),
    // not "whatever comes until the connection closes", which would take the next request.
    const bool framed =
        request.has_header("Content-Length") || request.has_header("Transfer-Encoding");
    // With a content reader cpp-httplib passes a Content-Length body over its limit cut short,
    // without a 413: the declared length is checked here first.
    bool too_large =
        request.get_header_value<std::uint64_t>("Content-Length") > limits.max_body_bytes;
    bool complete = true;
    if (framed && !too_large) {
      complete = content([&](const char* data, std::size_t size) {
        if (body.size() + size > limits.max_body_bytes) {
          too_large = true;
          return false;
        }
        body.append(data, size);
        return true;
      });
    }
    if (!too_large && !complete) {
      return refuse(400, FramingError("the body ended before its framing did (a broken chunk, "
                                      "or the connection closed early)"));
    }
    if (too_large) {
      const std::int64_t started = MonotonicMillis();
      ApiResponse refused = ErrorResponse(TransportError(api, request, 413, limits));
      Write(refused, response);
      response.set_header("Connection", "close");  // the rest of the body is not read
      LogRequest(api, request, refused, started);
      return;
    }
    answer_with(request, response, std::move(body));
  };
  server.Get(".*", dispatch);
  server.Post(".*", with_body);
  server.Put(".*", with_body);
  server.Patch(".*", with_body);
  server.Delete(".*", with_body);
  server.Options(".*", dispatch);

  // A broken invariant (STRATA_CHECK) or any other exception: 500, the detail on stderr only.
  server.set_exception_handler([api](const httplib::Request& request, httplib::Response& response,
                                     std::exception_ptr exception) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(std::move(exception));
    } catch (const std::exception& error) {
      what = error.what();
    } catch (...) {
    }
    WriteLogLine(
        {{"event", "internal_error"}, {"api", api}, {"route", request.path}, {"detail", what}});
    ApiResponse failed = ErrorResponse(
        MakeError(ErrorCode::kInternal, "internal error (a bug in strata, please report it)"));
    Write(failed, response);
    LogRequest(api, request, failed, MonotonicMillis());
  });

  // Statuses cpp-httplib sets itself (413 for a body over the limit, 400 for a request it
  // cannot parse) get the API's error shape; answers of the API keep theirs.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [limits, api](const httplib::Request& request, httplib::Response& response) {
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        ApiResponse refused = ErrorResponse(TransportError(api, request, response.status, limits));
        refused.status = response.status;
        Write(refused, response);
        LogRequest(api, request, refused, MonotonicMillis());
        return httplib::Server::HandlerResponse::Handled;
      }));
}

HttpServer::~HttpServer() = default;

Status HttpServer::Bind() {
  httplib::Server& server = http_->server;
  if (options_.port == 0) {
    port_ = server.bind_to_any_port(options_.host);
  } else {
    port_ = server.bind_to_port(options_.host, options_.port) ? options_.port : -1;
  }
  if (port_ > 0 && http_->listener != INVALID_SOCKET) {
    ::listen(http_->listener, kListenBacklog);  // best effort: the old backlog otherwise
  }
  if (port_ <= 0) {
    return MakeError(ErrorCode::kIo,
                     fmt::format("cannot listen on {}:{}", options_.host, options_.port),
                     "another process may listen there: choose another --port, or a --host "
                     "address of this machine");
  }
  return OkStatus();
}

// After shutdown_drain_ms, cancelled requests get this long to end before the process exits.
constexpr std::uint32_t kCancelGraceMs = 1000;

Status HttpServer::Run(const std::atomic<bool>& stop) {
  httplib::Server& server = http_->server;
  std::mutex mutex;
  std::condition_variable finished_signal;
  bool finished = false;
  const std::uint32_t drain_ms = limits_.shutdown_drain_ms;
  std::thread stopper([&] {
    std::unique_lock<std::mutex> lock(mutex);
    // A signal handler only sets the flag, so poll it.
    while (!finished && !stop.load()) {
      finished_signal.wait_for(lock, std::chrono::milliseconds(20));
    }
    if (finished) return;
    server.stop();  // no new connections; in-flight requests go on
    if (finished_signal.wait_for(lock, std::chrono::milliseconds(drain_ms),
                                 [&] { return finished; })) {
      return;
    }
    if (handler_.cancel_all) handler_.cancel_all();
    if (finished_signal.wait_for(lock, std::chrono::milliseconds(kCancelGraceMs),
                                 [&] { return finished; })) {
      return;
    }
    // Still not done: a client trickling its request, or an answer being rendered or written,
    // which no cancellation reaches. The drain bound holds: the process exits 0 now (a rollup
    // build in flight is crash-safe: its manifest is replaced atomically or not at all).
    WriteLogLine(
        {{"event", "forced_exit"}, {"api", handler_.api}, {"after_ms", drain_ms + kCancelGraceMs}});
    std::fflush(nullptr);
    std::_Exit(0);
  });
  WriteLogLine(
      {{"event", "listening"}, {"api", handler_.api}, {"host", options_.host}, {"port", port_}});
  const bool listened = server.listen_after_bind();
  {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
  }
  finished_signal.notify_all();
  stopper.join();
  WriteLogLine({{"event", "stopped"}, {"api", handler_.api}});
  if (!listened && !stop.load()) {
    return MakeError(ErrorCode::kIo, "the " + handler_.api + " port stopped accepting connections");
  }
  return OkStatus();
}

}  // namespace strata::serve
