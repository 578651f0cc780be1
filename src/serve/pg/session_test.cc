// The session's refusals that need no backend and cannot be produced on 127.0.0.1 alone: a token
// over plain TCP from a remote peer, a protocol version other than 3.0, and a startup packet over
// its limit. The end-to-end tests (tests/sqlport) drive everything else through real clients.
#include "serve/pg/session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "serve/pg/wire.h"

namespace strata::serve::pg {
namespace {

// Bytes in, bytes out.
class ScriptedStream : public ByteStream {
 public:
  explicit ScriptedStream(std::string input) : input_(std::move(input)) {}
  Result<std::size_t> Read(char* data, std::size_t size) override {
    const std::size_t count = std::min(size, input_.size() - position_);
    std::memcpy(data, input_.data() + position_, count);
    position_ += count;
    return count;
  }
  Status Write(std::string_view data) override {
    output.append(data);
    return OkStatus();
  }
  void SetReadTimeout(std::uint32_t /*milliseconds*/) override {}
  std::string output;

 private:
  std::string input_;
  std::size_t position_ = 0;
};

// A backend no test here may reach: every call fails the test.
class UnreachableBackend : public SqlBackend {
 public:
  Result<std::string> RoleOfToken(std::string_view /*token*/) override {
    ADD_FAILURE() << "the token was read";
    return MakeError(ErrorCode::kUnauthenticated, "unreachable");
  }
  Result<std::shared_ptr<const RoleView>> View(const std::string& /*role*/) override {
    ADD_FAILURE() << "a view was built";
    return MakeError(ErrorCode::kInternal, "unreachable");
  }
  Result<SemanticAnswer> Answer(const std::string& /*role*/, std::string_view /*query*/,
                                std::int64_t /*received*/, QueryCancel* /*cancel*/,
                                bool /*cached*/) override {
    ADD_FAILURE() << "a query ran";
    return MakeError(ErrorCode::kInternal, "unreachable");
  }
};

std::string Startup(std::int32_t protocol) {
  std::string body;
  for (int shift = 24; shift >= 0; shift -= 8) body.push_back(static_cast<char>(protocol >> shift));
  body += std::string("user\0analyst\0database\0strata\0\0", 30);
  std::string packet;
  const auto length = static_cast<std::uint32_t>(body.size() + 4);
  for (int shift = 24; shift >= 0; shift -= 8) packet.push_back(static_cast<char>(length >> shift));
  return packet + body;
}

std::string SqlStateOf(const std::string& output) {
  const std::size_t at = output.find(std::string("\0C", 2));
  if (output.empty() || output[0] != 'E' || at == std::string::npos) return "";
  return output.substr(at + 2, 5);
}

TEST(SessionTest, RemotePlainConnectionsAreRefusedBeforeTheToken) {
  ScriptedStream stream(Startup(kProtocolV3));
  UnreachableBackend backend;
  SessionOptions options;
  options.peer_is_loopback = false;
  RunSession(stream, backend, options);
  EXPECT_EQ(SqlStateOf(stream.output), "28000");
  EXPECT_NE(stream.output.find("TLS"), std::string::npos);
}

TEST(SessionTest, OtherProtocolVersionsAreRefused) {
  ScriptedStream stream(Startup(2 << 16));
  UnreachableBackend backend;
  SessionOptions options;
  options.peer_is_loopback = true;
  RunSession(stream, backend, options);
  EXPECT_EQ(SqlStateOf(stream.output), "0A000");
}

TEST(SessionTest, ANewerMinorVersionIsNegotiatedDownTo30) {
  // Protocol 3.2 (libpq 18's max_protocol_version): NegotiateProtocolVersion to 3.0, then the
  // password request; the client hangs up before sending one.
  ScriptedStream stream(Startup((3 << 16) | 2));
  UnreachableBackend backend;
  SessionOptions options;
  options.peer_is_loopback = true;
  RunSession(stream, backend, options);
  ASSERT_GE(stream.output.size(), 13U);
  EXPECT_EQ(stream.output[0], 'v');
  EXPECT_EQ(stream.output.substr(1, 12), std::string("\0\0\0\x0c\0\0\0\0\0\0\0\0", 12));
  EXPECT_EQ(stream.output[13], 'R');
}

TEST(SessionTest, SslRequestWithoutTlsIsAnsweredN) {
  std::string request = {0, 0, 0, 8, 0x04, static_cast<char>(0xd2), 0x16, 0x2f};
  ScriptedStream stream(request);  // then the client hangs up
  UnreachableBackend backend;
  SessionOptions options;
  options.peer_is_loopback = true;
  RunSession(stream, backend, options);
  EXPECT_EQ(stream.output, "N");
}

TEST(SessionTest, AnOversizedStartupPacketIsAProtocolViolation) {
  ScriptedStream stream(std::string("\x7f\xff\xff\xff", 4));
  UnreachableBackend backend;
  SessionOptions options;
  options.peer_is_loopback = true;
  RunSession(stream, backend, options);
  EXPECT_EQ(SqlStateOf(stream.output), "08P01");
}

}  // namespace
}  // namespace strata::serve::pg
