#include "serve/pg/socket_streams.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace strata::serve::pg {
namespace {

std::string OpenSslReason() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "no reason given";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

// Waits until `fd` is readable. Errors: kQueryTimeout after `idle_timeout_ms` (0: never), kIo.
Status WaitReadable(int fd, std::uint32_t idle_timeout_ms) {
  pollfd entry{fd, POLLIN, 0};
  while (true) {
    const int ready =
        ::poll(&entry, 1, idle_timeout_ms == 0 ? -1 : static_cast<int>(idle_timeout_ms));
    if (ready > 0) return OkStatus();
    if (ready == 0) {
      return MakeError(ErrorCode::kQueryTimeout,
                       "terminating connection due to idle-session timeout",
                       "raise [serve] sql_idle_timeout_ms, or reconnect");
    }
    if (errno != EINTR) {
      return MakeError(ErrorCode::kIo, fmt::format("poll failed: {}", std::strerror(errno)));
    }
  }
}

class TlsStream : public ByteStream {
 public:
  TlsStream(SSL* ssl, int fd, std::uint32_t idle_timeout_ms)
      : ssl_(ssl), fd_(fd), idle_timeout_ms_(idle_timeout_ms) {}
  ~TlsStream() override {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  Result<std::size_t> Read(char* data, std::size_t size) override {
    if (SSL_pending(ssl_) == 0) STRATA_TRY(WaitReadable(fd_, idle_timeout_ms_));
    const int read = SSL_read(ssl_, data, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
    if (read > 0) return static_cast<std::size_t>(read);
    const int error = SSL_get_error(ssl_, read);
    if (error == SSL_ERROR_ZERO_RETURN) return std::size_t{0};
    if (error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return std::size_t{0};
    return MakeError(ErrorCode::kIo, "TLS read failed: " + OpenSslReason());
  }

  void SetReadTimeout(std::uint32_t milliseconds) override { idle_timeout_ms_ = milliseconds; }

  Status Write(std::string_view data) override {
    while (!data.empty()) {
      const int written = SSL_write(ssl_, data.data(),
                                    static_cast<int>(std::min<std::size_t>(data.size(), 1 << 30)));
      if (written <= 0) return MakeError(ErrorCode::kIo, "TLS write failed: " + OpenSslReason());
      data.remove_prefix(static_cast<std::size_t>(written));
    }
    return OkStatus();
  }

 private:
  SSL* ssl_;
  int fd_;
  std::uint32_t idle_timeout_ms_;
};

}  // namespace

Result<std::size_t> PlainStream::Read(char* data, std::size_t size) {
  STRATA_TRY(WaitReadable(fd_, idle_timeout_ms_));
  while (true) {
    const ssize_t read = ::recv(fd_, data, size, 0);
    if (read >= 0) return static_cast<std::size_t>(read);
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return std::size_t{0};
    return MakeError(ErrorCode::kIo, fmt::format("read failed: {}", std::strerror(errno)));
  }
}

Status PlainStream::Write(std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EINTR) continue;
      return MakeError(ErrorCode::kIo, fmt::format("write failed: {}", std::strerror(errno)));
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
  return OkStatus();
}

Result<std::unique_ptr<TlsContext>> TlsContext::Load(const std::filesystem::path& cert,
                                                     const std::filesystem::path& key) {
  SSL_CTX* context = SSL_CTX_new(TLS_server_method());
  if (context == nullptr) {
    return MakeError(ErrorCode::kConfig,
                     "OpenSSL could not make a TLS context: " + OpenSslReason());
  }
  std::unique_ptr<TlsContext> loaded(new TlsContext(context));
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(context, cert.c_str()) != 1) {
    return MakeError(
        ErrorCode::kConfig,
        fmt::format("[serve] tls_cert_file {} does not load: {}", cert.string(), OpenSslReason()),
        "give a PEM certificate (chain) file");
  }
  if (SSL_CTX_use_PrivateKey_file(context, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return MakeError(
        ErrorCode::kConfig,
        fmt::format("[serve] tls_key_file {} does not load: {}", key.string(), OpenSslReason()),
        "give the PEM private key of the certificate, unencrypted");
  }
  if (SSL_CTX_check_private_key(context) != 1) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("[serve] tls_key_file {} is not the key of tls_cert_file {}",
                                 key.string(), cert.string()),
                     "give the certificate and its own key");
  }
  return loaded;
}

TlsContext::~TlsContext() { SSL_CTX_free(static_cast<SSL_CTX*>(context_)); }

Result<std::unique_ptr<ByteStream>> TlsContext::Accept(int fd,
                                                       std::uint32_t idle_timeout_ms) const {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(context_));
  if (ssl == nullptr) return MakeError(ErrorCode::kIo, "TLS setup failed: " + OpenSslReason());
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) != 1) {
    const std::string reason = OpenSslReason();
    SSL_free(ssl);
    return MakeError(ErrorCode::kIo, "TLS handshake failed: " + reason);
  }
  return std::unique_ptr<ByteStream>(new TlsStream(ssl, fd, idle_timeout_ms));
}

}  // namespace strata::serve::pg
