// The byte streams of the SQL port's connections (session.h ByteStream) over a connected
// socket: plain, or TLS through OpenSSL. A read waits at most `idle_timeout_ms` for the first
// byte (0: forever) and then fails with kQueryTimeout, which the session answers FATAL 57P05.
//
// Thread safety: a stream is used by its session's thread; Shutdown(fd) from any thread.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "base/result.h"
#include "serve/pg/session.h"

namespace strata::serve::pg {

class PlainStream : public ByteStream {
 public:
  PlainStream(int fd, std::uint32_t idle_timeout_ms) : fd_(fd), idle_timeout_ms_(idle_timeout_ms) {}
  Result<std::size_t> Read(char* data, std::size_t size) override;
  Status Write(std::string_view data) override;
  void SetReadTimeout(std::uint32_t milliseconds) override { idle_timeout_ms_ = milliseconds; }

 private:
  int fd_;
  std::uint32_t idle_timeout_ms_;
};

// A server-side TLS context: the certificate chain and key of [serve] tls_cert_file/tls_key_file.
class TlsContext {
 public:
  // Errors: kConfig naming the file that does not load, or the key that does not match.
  static Result<std::unique_ptr<TlsContext>> Load(const std::filesystem::path& cert,
                                                  const std::filesystem::path& key);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // Runs the server handshake on `fd` (after the 'S' answer to SSLRequest).
  // Errors: kIo with OpenSSL's reason.
  Result<std::unique_ptr<ByteStream>> Accept(int fd, std::uint32_t idle_timeout_ms) const;

 private:
  explicit TlsContext(void* context) : context_(context) {}
  void* context_;  // SSL_CTX*
};

}  // namespace strata::serve::pg
