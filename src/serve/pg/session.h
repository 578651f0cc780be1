// One connection of the SQL port (docs/sql-port.md): PostgreSQL's frontend/backend protocol v3
// over a byte stream, from the startup packet to Terminate.
//
//   startup   SSLRequest (answered 'S' and upgraded when the port has TLS, else 'N'),
//             GSSENCRequest ('N'), CancelRequest (handed to the port, then closed), the v3
//             startup packet (user, database, TimeZone, application_name, options ...)
//   auth      AuthenticationCleartextPassword: the password is the HS256 JWT of the HTTP API
//             (its `role` claim is the data role); refused (FATAL 28000) without TLS unless the
//             peer is loopback. Then AuthenticationOk, the ParameterStatus values clients expect,
//             BackendKeyData, ReadyForQuery.
//   queries   simple Query (several statements; EmptyQueryResponse for none) and the extended
//             protocol (Parse, Bind, Describe, Execute with a row limit and PortalSuspended,
//             Close, Sync, Flush), text and binary formats (values.h); after an error the
//             extended messages are skipped until Sync.
//   each statement re-checks the token (an expired one ends the session, FATAL 28000), then goes
//             to the semantic layer when it reads an entity table (translate.h, answered by the
//             same path as POST /v1/query), to the session's cursors (DECLARE/FETCH/MOVE/CLOSE),
//             or to the catalog (catalog.h) for everything else. BEGIN/COMMIT/ROLLBACK are
//             answered (no-ops: the port is read-only) but the transaction status is kept as
//             PostgreSQL keeps it (an error inside a block fails the rest with 25P02 until
//             ROLLBACK).
//
// A malformed, oversized (wire.h kMaxMessageBytes) or unexpected message is answered with a
// FATAL 08P01 ErrorResponse and ends this connection only. One access-log line per statement
// (no SQL text, no values, no token).
//
// Thread safety: a Session runs on one thread; its QueryCancel (options) is cancelled from
// others.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "serve/pg/backend.h"

namespace strata::serve::pg {

// A connection's bytes: plain TCP or TLS.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Reads at least one and up to `size` bytes; 0 at the end of the stream. Errors: kIo (a reset,
  // the idle timeout, a TLS failure).
  virtual Result<std::size_t> Read(char* data, std::size_t size) = 0;
  // Writes all of `data`. Errors: kIo.
  virtual Status Write(std::string_view data) = 0;
  // How long a read waits for its first byte before kQueryTimeout (0: forever).
  virtual void SetReadTimeout(std::uint32_t milliseconds) = 0;
};

// How long a connection may take from its first byte to AuthenticationOk (PostgreSQL's
// authentication_timeout default): a client silent before it is closed, not left holding a slot.
inline constexpr std::uint32_t kAuthenticationTimeoutMs = 60'000;
// The longest PasswordMessage read (a JWT is far shorter): a longer one is a protocol violation.
inline constexpr std::uint32_t kMaxPasswordBytes = 64 << 10;

struct SessionOptions {
  bool peer_is_loopback = false;
  // Upgrades the stream to TLS after 'S' was sent; null when the port has no TLS (the
  // SSLRequest is answered 'N'). Returns the TLS stream (owned by the caller).
  std::function<Result<ByteStream*>()> start_tls;
  // A CancelRequest's process id and key, for the port to look up.
  std::function<void(std::int32_t process_id, std::int32_t secret_key)> cancel;
  std::int32_t process_id = 0;  // BackendKeyData
  std::int32_t secret_key = 0;
  QueryCancel* query_cancel = nullptr;          // cancelled by a CancelRequest naming this session
  std::uint32_t idle_timeout_ms = 0;            // [serve] sql_idle_timeout_ms, once authenticated
  const std::atomic<bool>* stopping = nullptr;  // set when the server drains
};

// Serves one connection until Terminate, the end of the stream, a FATAL error or the server's
// drain (FATAL 57P01). Never throws for anything a client sends.
void RunSession(ByteStream& stream, SqlBackend& backend, const SessionOptions& options);

}  // namespace strata::serve::pg
