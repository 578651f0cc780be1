// One HTTP/1.1 client session over libcurl: the transport of the Trino adapter. One curl handle
// per session, reused from request to request, so its connection to the coordinator is kept alive.
//
// Thread safety: Send is called by one thread at a time; the `abort` flag it is given may be set
// by any thread, and stops the transfer within about 50 ms.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace strata::warehouse::trino {

struct HttpRequest {
  std::string method;  // "GET", "POST", "DELETE"
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent for POST
  long timeout_seconds = 0;          // 0: no limit on the whole exchange
};

struct HttpResponse {
  long status = 0;
  // Header names in lower case; a repeated header's values joined by "\n" in arrival order.
  std::map<std::string, std::string> headers;
  std::string body;
};

class HttpSession {
 public:
  HttpSession();
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // Sends `request` and reads the whole response. Any HTTP status is a response, not an error.
  // Errors: kWarehouseConnection (retryable) when the exchange fails (refused, reset, timed out,
  // TLS verification failed: the message says which); kWarehouseInterrupted when `abort` (may be
  // null) became true during the exchange.
  Result<HttpResponse> Send(const HttpRequest& request, const std::atomic<bool>* abort);

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
};

// The process-wide libcurl initialization; HttpSession calls it, others need not.
void EnsureCurlInitialized();

}  // namespace strata::warehouse::trino
