#include "serve/pg/sql_port.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/rand.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "base/time.h"
#include "serve/log_line.h"
#include "serve/pg/socket_streams.h"
#include "serve/pg/wire.h"

namespace strata::serve::pg {
namespace {

// The backend over the generation in force: each role's tables and catalog are built once per
// generation (a reload builds them again on first use).
class GenerationBackend : public SqlBackend {
 public:
  explicit GenerationBackend(std::function<std::shared_ptr<Generation>()> current)
      : current_(std::move(current)) {}

  Result<std::string> RoleOfToken(std::string_view token) override {
    return current_()->query->RoleOfToken(token);
  }

  Result<std::shared_ptr<const RoleView>> View(const std::string& role) override {
    const std::shared_ptr<Generation> generation = current_();
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation != generation_) {
      generation_ = generation;
      views_.clear();
    }
    if (auto found = views_.find(role); found != views_.end()) return found->second;
    auto view = std::make_shared<RoleView>();
    view->tables = TablesFor(generation->model, role);
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<SqlCatalog> catalog, SqlCatalog::Open(view->tables));
    view->catalog = std::move(catalog);
    views_[role] = view;
    return std::shared_ptr<const RoleView>(view);
  }

  Result<SemanticAnswer> Answer(const std::string& role, std::string_view query_json,
                                std::int64_t received_millis, QueryCancel* cancel,
                                bool cached) override {
    return current_()->query->AnswerSemantic(role, query_json, received_millis, cancel, cached);
  }

 private:
  std::function<std::shared_ptr<Generation>()> current_;
  std::mutex mutex_;
  std::shared_ptr<Generation> generation_;
  std::map<std::string, std::shared_ptr<const RoleView>> views_;
};

// After the drain and the cancel, how long session threads get to end before the process exits.
constexpr std::int64_t kForcedExitGraceMs = 2000;

bool IsLoopback(const sockaddr_storage& peer) {
  if (peer.ss_family == AF_INET) {
    const auto* address = reinterpret_cast<const sockaddr_in*>(&peer);
    return (ntohl(address->sin_addr.s_addr) >> 24) == 127;
  }
  if (peer.ss_family == AF_INET6) {
    const auto* address = reinterpret_cast<const sockaddr_in6*>(&peer);
    if (IN6_IS_ADDR_LOOPBACK(&address->sin6_addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&address->sin6_addr)) return address->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

// A FATAL ErrorResponse written straight to a socket (refusals before a session exists).
void RefuseConnection(int fd, std::string_view sqlstate, std::string_view message) {
  MessageBuilder error;
  error.Begin('E').Int8('S').CString("FATAL").Int8('V').CString("FATAL");
  error.Int8('C').CString(sqlstate).Int8('M').CString(message).Int8(0).End();
  (void)::send(fd, error.data().data(), error.size(), MSG_NOSIGNAL);
}

}  // namespace

struct SqlPort::State {
  State(std::function<std::shared_ptr<Generation>()> current_generation,
        const project::ServeConfig& serve_limits, SqlPortOptions port_options)
      : current(current_generation),
        limits(serve_limits),
        options(std::move(port_options)),
        backend(std::move(current_generation)) {}

  std::function<std::shared_ptr<Generation>()> current;
  project::ServeConfig limits;
  SqlPortOptions options;
  std::unique_ptr<TlsContext> tls;
  GenerationBackend backend;
  int listener = -1;
  std::atomic<bool> stopping{false};

  struct Connection {
    int fd = -1;
    std::int32_t process_id = 0;
    std::int32_t secret_key = 0;
    // Shared so that a CancelRequest fires it after letting go of `mutex` (a warehouse's
    // interrupt may block on the network).
    std::shared_ptr<QueryCancel> cancel = std::make_shared<QueryCancel>();
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::mutex mutex;
  std::list<Connection> connections;  // stable addresses
  std::int32_t next_process_id = 0;

  // A cancel key from OpenSSL's generator: another client cannot predict it.
  static std::int32_t SecretKey() {
    std::int32_t key = 0;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&key), sizeof key) != 1) {
      std::random_device device;
      key = static_cast<std::int32_t>(device());
    }
    return key;
  }

  void Cancel(std::int32_t process_id, std::int32_t key) {
    std::shared_ptr<QueryCancel> target;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (Connection& connection : connections) {
        if (connection.process_id == process_id && connection.secret_key == key &&
            !connection.done.load()) {
          target = connection.cancel;
        }
      }
    }
    if (target) target->Cancel();
  }

  // Joins the threads of ended connections. REQUIRES: `mutex` held.
  void Reap() {
    for (auto it = connections.begin(); it != connections.end();) {
      if (it->done.load()) {
        it->thread.join();
        ::close(it->fd);
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
  }

  void Serve(Connection& connection, bool loopback) {
    PlainStream plain(connection.fd, kAuthenticationTimeoutMs);
    std::unique_ptr<ByteStream> secure;
    SessionOptions session;
    session.peer_is_loopback = loopback;
    if (tls) {
      session.start_tls = [&]() -> Result<ByteStream*> {
        STRATA_ASSIGN_OR_RETURN(secure, tls->Accept(connection.fd, kAuthenticationTimeoutMs));
        return secure.get();
      };
    }
    session.cancel = [this](std::int32_t process_id, std::int32_t key) { Cancel(process_id, key); };
    session.process_id = connection.process_id;
    session.secret_key = connection.secret_key;
    session.query_cancel = connection.cancel.get();
    session.idle_timeout_ms = limits.sql_idle_timeout_ms;
    session.stopping = &stopping;
    RunSession(plain, backend, session);
    secure.reset();
    ::shutdown(connection.fd, SHUT_RDWR);
    connection.done.store(true);
  }

  void Accept() {
    while (true) {
      sockaddr_storage peer{};
      socklen_t peer_size = sizeof peer;
      const int fd =
          ::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &peer_size, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping.load()) return;
        const int error = errno;
        if (error != EINTR && error != ECONNABORTED) {
          // Out of descriptors or buffers: say so, wait a little and accept again.
          WriteJsonLine(
              {{"event", "accept_failed"}, {"api", "sql"}, {"error", std::strerror(error)}});
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        continue;
      }
      const int yes = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
      // A TLS handshake or a message body that stalls mid-way fails after 30 s.
      const timeval stall{30, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &stall, sizeof stall);
      std::lock_guard<std::mutex> lock(mutex);
      Reap();
      if (connections.size() >= limits.sql_max_connections) {
        RefuseConnection(fd, "53300", "sorry, too many clients already");
        ::close(fd);
        continue;
      }
      Connection& connection = connections.emplace_back();
      connection.fd = fd;
      connection.process_id = ++next_process_id;
      connection.secret_key = SecretKey();
      const bool loopback = IsLoopback(peer);
      connection.thread =
          std::thread([this, &connection, loopback] { Serve(connection, loopback); });
    }
  }
};

SqlPort::SqlPort(std::function<std::shared_ptr<Generation>()> current,
                 const project::ServeConfig& limits, SqlPortOptions options)
    : state_(std::make_unique<State>(std::move(current), limits, std::move(options))) {}

SqlPort::~SqlPort() {
  if (state_->listener >= 0) ::close(state_->listener);
}

Status SqlPort::Bind() {
  if (!state_->options.tls_cert.empty()) {
    STRATA_ASSIGN_OR_RETURN(state_->tls,
                            TlsContext::Load(state_->options.tls_cert, state_->options.tls_key));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(state_->options.port);
  const std::string where = fmt::format("{}:{}", state_->options.host, state_->options.port);
  if (const int code = ::getaddrinfo(state_->options.host.c_str(), service.c_str(), &hints, &found);
      code != 0) {
    return MakeError(ErrorCode::kIo,
                     fmt::format("the SQL port cannot bind {}: {}", where, gai_strerror(code)),
                     "check --host");
  }
  std::string reason = "no address";
  for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
    const int fd = ::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, address->ai_addr, address->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      state_->listener = fd;
      break;
    }
    reason = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (state_->listener < 0) {
    return MakeError(ErrorCode::kIo, fmt::format("the SQL port cannot bind {}: {}", where, reason),
                     "choose another [serve] sql_port, or stop what listens there");
  }
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  ::getsockname(state_->listener, reinterpret_cast<sockaddr*>(&bound), &size);
  port_ = bound.ss_family == AF_INET6
              ? ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port)
              : ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
  return OkStatus();
}

Status SqlPort::Run(const std::atomic<bool>& stop) {
  WriteJsonLine({{"event", "listening"},
                 {"api", "sql"},
                 {"host", state_->options.host},
                 {"port", port_},
                 {"tls", state_->tls != nullptr}});
  std::thread acceptor([this] { state_->Accept(); });
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  state_->stopping.store(true);
  ::shutdown(state_->listener, SHUT_RDWR);
  acceptor.join();
  // Idle sessions wake up (their reads end) and say goodbye; busy ones finish their statement.
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (State::Connection& connection : state_->connections) ::shutdown(connection.fd, SHUT_RD);
  }
  const std::int64_t deadline = MonotonicMillis() + state_->limits.shutdown_drain_ms;
  bool cancelled = false;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->Reap();
      if (state_->connections.empty()) break;
      if (MonotonicMillis() >= deadline && !cancelled) {
        state_->current()->query->CancelAll();
        for (State::Connection& connection : state_->connections) {
          connection.cancel->Cancel();
          ::shutdown(connection.fd, SHUT_RDWR);
        }
        cancelled = true;
      }
      if (cancelled && MonotonicMillis() >= deadline + kForcedExitGraceMs) {
        // A session thread that does not end (a query that ignores its interrupt) must not keep
        // the process from stopping: the drain bound holds, as on the HTTP port.
        WriteJsonLine({{"event", "forced_exit"}, {"api", "sql"}});
        std::fflush(stderr);
        std::_Exit(0);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  WriteJsonLine({{"event", "stopped"}, {"api", "sql"}});
  return OkStatus();
}

}  // namespace strata::serve::pg
