#include "serve/pg/wire.h"

#include <fmt/format.h>

namespace strata::serve::pg {

MessageBuilder& MessageBuilder::Begin(char type) {
  buffer_.push_back(type);
  start_ = buffer_.size();
  buffer_.append(4, '\0');
  return *this;
}

MessageBuilder& MessageBuilder::Int8(std::uint8_t value) {
  buffer_.push_back(static_cast<char>(value));
  return *this;
}

MessageBuilder& MessageBuilder::Int16(std::int16_t value) {
  const auto bits = static_cast<std::uint16_t>(value);
  buffer_.push_back(static_cast<char>(bits >> 8));
  buffer_.push_back(static_cast<char>(bits & 0xff));
  return *this;
}

MessageBuilder& MessageBuilder::Int32(std::int32_t value) {
  const auto bits = static_cast<std::uint32_t>(value);
  for (int shift = 24; shift >= 0; shift -= 8) buffer_.push_back(static_cast<char>(bits >> shift));
  return *this;
}

MessageBuilder& MessageBuilder::CString(std::string_view text) {
  buffer_.append(text);
  buffer_.push_back('\0');
  return *this;
}

MessageBuilder& MessageBuilder::Bytes(std::string_view bytes) {
  buffer_.append(bytes);
  return *this;
}

MessageBuilder& MessageBuilder::End() {
  const auto length = static_cast<std::uint32_t>(buffer_.size() - start_);
  for (int index = 0; index < 4; ++index) {
    buffer_[start_ + static_cast<std::size_t>(index)] =
        static_cast<char>(length >> (24 - 8 * index));
  }
  return *this;
}

std::string MessageBuilder::Take() {
  std::string out = std::move(buffer_);
  buffer_.clear();
  return out;
}

Error FieldReader::Truncated() const {
  return MakeError(ErrorCode::kProtocolViolation,
                   fmt::format("the {} message is truncated or malformed", name_),
                   "the client sent a message its own length word does not hold");
}

Result<std::int16_t> FieldReader::Int16() {
  if (body_.size() - position_ < 2) return Truncated();
  const auto high = static_cast<unsigned char>(body_[position_]);
  const auto low = static_cast<unsigned char>(body_[position_ + 1]);
  position_ += 2;
  return static_cast<std::int16_t>(static_cast<std::uint16_t>((high << 8) | low));
}

Result<std::int32_t> FieldReader::Int32() {
  if (body_.size() - position_ < 4) return Truncated();
  std::uint32_t value = 0;
  for (int index = 0; index < 4; ++index) {
    value = (value << 8) |
            static_cast<unsigned char>(body_[position_ + static_cast<std::size_t>(index)]);
  }
  position_ += 4;
  return static_cast<std::int32_t>(value);
}

Result<std::string_view> FieldReader::CString() {
  const std::size_t end = body_.find('\0', position_);
  if (end == std::string_view::npos) return Truncated();
  std::string_view text = body_.substr(position_, end - position_);
  position_ = end + 1;
  return text;
}

Result<std::string_view> FieldReader::Bytes(std::size_t count) {
  if (body_.size() - position_ < count) return Truncated();
  std::string_view bytes = body_.substr(position_, count);
  position_ += count;
  return bytes;
}

Status FieldReader::ExpectEnd() const {
  if (done()) return OkStatus();
  return Truncated();
}

std::string_view FrontendMessageName(char type) {
  switch (type) {
    case 'Q':
      return "Query";
    case 'P':
      return "Parse";
    case 'B':
      return "Bind";
    case 'D':
      return "Describe";
    case 'E':
      return "Execute";
    case 'S':
      return "Sync";
    case 'H':
      return "Flush";
    case 'C':
      return "Close";
    case 'X':
      return "Terminate";
    case 'p':
      return "PasswordMessage";
    case 'd':
      return "CopyData";
    case 'c':
      return "CopyDone";
    case 'f':
      return "CopyFail";
    case 'F':
      return "FunctionCall";
    default:
      return "unknown";
  }
}

}  // namespace strata::serve::pg
