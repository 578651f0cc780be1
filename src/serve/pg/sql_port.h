// The SQL port of `strata serve` ([serve] sql_port; docs/sql-port.md): a TCP listener on the
// query port's host speaking PostgreSQL's protocol v3, one thread per connection (session.h),
// over the generation in force (serve/generation.h) so that the SQL port and POST /v1/query share
// the workers, the queue, the limits and every model reload.
//
// TLS (OpenSSL) when [serve] tls_cert_file and tls_key_file are set, for this port only: an
// SSLRequest is answered 'S' and the connection upgraded; else 'N'. A CancelRequest whose process
// id and key match a session cancels that session's running query (on the warehouse too).
// Connections beyond [serve] sql_max_connections are refused (FATAL 53300); a connection idle
// for sql_idle_timeout_ms is closed (FATAL 57P05).
//
// Shutdown: when `stop` is set the listener closes, idle sessions end with FATAL 57P01 at once,
// a session running a statement ends after it (answered first); after shutdown_drain_ms the
// statements still running are cancelled (QueryApi::CancelAll) and every connection is closed;
// when a session thread has still not ended 2 s later, {"event":"forced_exit"} is logged and the
// process exits 0. A connection has 60 s (kAuthenticationTimeoutMs) to authenticate.
//
// Thread safety: Run blocks the calling thread; everything else is internal.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "project/project.h"
#include "serve/generation.h"

namespace strata::serve::pg {

struct SqlPortOptions {
  std::string host = "127.0.0.1";
  int port = 5433;                 // 0: any free port (the listening line says which)
  std::filesystem::path tls_cert;  // both or neither (absolute or relative to the cwd)
  std::filesystem::path tls_key;
};

class SqlPort {
 public:
  // REQUIRES: `current` returns the generation in force (never null) and outlives the port.
  SqlPort(std::function<std::shared_ptr<Generation>()> current, const project::ServeConfig& limits,
          SqlPortOptions options);
  ~SqlPort();
  SqlPort(const SqlPort&) = delete;
  SqlPort& operator=(const SqlPort&) = delete;

  // Loads the TLS certificate and key (kConfig naming the file when they do not load or do not
  // match) and binds host:port (kIo naming the address).
  Status Bind();
  int port() const { return port_; }

  // Serves until `stop`; prints {"event":"listening","api":"sql","host","port","tls"} first and
  // {"event":"stopped","api":"sql"} last. REQUIRES: Bind() succeeded.
  Status Run(const std::atomic<bool>& stop);

 private:
  struct State;
  std::unique_ptr<State> state_;
  int port_ = 0;
};

}  // namespace strata::serve::pg
