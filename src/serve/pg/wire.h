// The framing of PostgreSQL's frontend/backend protocol v3 (PostgreSQL docs, "Message
// Formats"): building backend messages and reading the fields of frontend ones. Integers are
// big-endian; strings are NUL-terminated. Nothing here touches a socket.
//
// All functions are pure; a MessageBuilder or FieldReader is used by one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace strata::serve::pg {

// The largest frontend message the port reads (a query text, a Bind with its parameters): 16 MiB.
// A longer length word closes the connection (kProtocolViolation), before anything is read.
inline constexpr std::uint32_t kMaxMessageBytes = 16u << 20;
// The startup packet's limit, as PostgreSQL's (10,000 bytes).
inline constexpr std::uint32_t kMaxStartupBytes = 10000;

// Protocol codes of the untyped first messages.
inline constexpr std::int32_t kProtocolV3 = 196608;  // 3.0
inline constexpr std::int32_t kSslRequestCode = 80877103;
inline constexpr std::int32_t kGssEncRequestCode = 80877104;
inline constexpr std::int32_t kCancelRequestCode = 80877102;

// Appends backend messages to one buffer: Begin(type), the fields, End() (which writes the
// length word). REQUIRES: Begin and End alternate.
class MessageBuilder {
 public:
  MessageBuilder& Begin(char type);
  MessageBuilder& Int8(std::uint8_t value);
  MessageBuilder& Int16(std::int16_t value);
  MessageBuilder& Int32(std::int32_t value);
  MessageBuilder& CString(std::string_view text);  // the text and a NUL (REQUIRES: no NUL in it)
  MessageBuilder& Bytes(std::string_view bytes);
  MessageBuilder& End();

  const std::string& data() const { return buffer_; }
  std::string Take();
  std::size_t size() const { return buffer_.size(); }

 private:
  std::string buffer_;
  std::size_t start_ = 0;
};

// Reads a frontend message's body field by field. Every read past the end, and a string without
// its NUL, is kProtocolViolation naming the message.
class FieldReader {
 public:
  FieldReader(std::string_view body, std::string_view message_name)
      : body_(body), name_(message_name) {}
  Result<std::int16_t> Int16();
  Result<std::int32_t> Int32();
  Result<std::string_view> CString();
  Result<std::string_view> Bytes(std::size_t count);
  bool done() const { return position_ == body_.size(); }
  // kProtocolViolation unless the body was read whole.
  Status ExpectEnd() const;

 private:
  Error Truncated() const;
  std::string_view body_;
  std::string_view name_;
  std::size_t position_ = 0;
};

// The name of a frontend message type for errors ("Bind", "Parse"); "unknown" for others.
std::string_view FrontendMessageName(char type);

}  // namespace strata::serve::pg
