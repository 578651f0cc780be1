#include "serve/pg/session.h"

#include <fmt/format.h>

#include <cctype>
#include <exception>

#include "serve/log_line.h"
#include "serve/pg/internal_session.h"

namespace strata::serve::pg {
namespace internal {
namespace {

// The parameters PostgreSQL reports with ParameterStatus (GUC_REPORT), by lower-case name.
constexpr std::pair<std::string_view, std::string_view> kReported[] = {
    {"server_version", "server_version"},
    {"server_encoding", "server_encoding"},
    {"client_encoding", "client_encoding"},
    {"application_name", "application_name"},
    {"datestyle", "DateStyle"},
    {"intervalstyle", "IntervalStyle"},
    {"timezone", "TimeZone"},
    {"integer_datetimes", "integer_datetimes"},
    {"standard_conforming_strings", "standard_conforming_strings"},
    {"is_superuser", "is_superuser"},
    {"session_authorization", "session_authorization"},
    {"default_transaction_read_only", "default_transaction_read_only"},
    {"in_hot_standby", "in_hot_standby"},
};

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Error Violation(std::string message) {
  return MakeError(ErrorCode::kProtocolViolation, std::move(message),
                   "the client does not speak PostgreSQL's protocol v3 as the server expects");
}

}  // namespace

Connection::Connection(ByteStream& stream, SqlBackend& backend, const SessionOptions& options)
    : stream_(&stream),
      backend_(backend),
      options_(options),
      settings_(SessionSettings::Defaults()) {}

Result<bool> Connection::ReadExact(char* data, std::size_t size) {
  STRATA_TRY(Flush());
  std::size_t done = 0;
  while (done < size) {
    STRATA_ASSIGN_OR_RETURN(std::size_t read, stream_->Read(data + done, size - done));
    if (read == 0) return false;
    done += read;
  }
  return true;
}

Result<std::optional<Connection::Message>> Connection::ReadMessage(std::uint32_t max_bytes) {
  char header[5];
  STRATA_ASSIGN_OR_RETURN(bool more, ReadExact(header, sizeof header));
  if (!more) return std::optional<Message>();
  std::uint32_t length = 0;
  for (int index = 1; index < 5; ++index) {
    length = (length << 8) | static_cast<unsigned char>(header[index]);
  }
  if (length < 4 || length > max_bytes) {
    return Violation(fmt::format("a {} message declares {} bytes (at most {} are read)",
                                 FrontendMessageName(header[0]), length, max_bytes));
  }
  Message message;
  message.type = header[0];
  message.body.resize(length - 4);
  STRATA_ASSIGN_OR_RETURN(more, ReadExact(message.body.data(), message.body.size()));
  if (!more) return Violation("the connection ended inside a message");
  return std::optional<Message>(std::move(message));
}

Status Connection::Flush() {
  if (out_.empty()) return OkStatus();
  Status written = stream_->Write(out_);
  out_.clear();
  return written;
}

void Connection::Queue(MessageBuilder& message) {
  out_ += message.Take();
  if (out_.size() > (1U << 20)) (void)Flush();
}

void Connection::SendError(const Error& error, bool fatal) {
  const std::string_view sqlstate = Describe(error.code).sqlstate;
  MessageBuilder message;
  message.Begin('E');
  message.Int8('S').CString(fatal ? "FATAL" : "ERROR");
  message.Int8('V').CString(fatal ? "FATAL" : "ERROR");
  message.Int8('C').CString(sqlstate);
  message.Int8('M').CString(error.message);
  std::string detail = fmt::format("strata {}", error.reported_code());
  for (const std::string& note : error.notes) detail += "; " + note;
  message.Int8('D').CString(detail);
  if (!error.hint.empty()) message.Int8('H').CString(error.hint);
  message.Int8(0).End();
  Queue(message);
}

void Connection::SendFatal(std::string_view sqlstate, std::string_view text,
                           std::string_view hint) {
  MessageBuilder message;
  message.Begin('E');
  message.Int8('S').CString("FATAL").Int8('V').CString("FATAL");
  message.Int8('C').CString(sqlstate).Int8('M').CString(text);
  if (!hint.empty()) message.Int8('H').CString(hint);
  message.Int8(0).End();
  Queue(message);
}

void Connection::SendReady() {
  MessageBuilder message;
  message.Begin('Z').Int8(static_cast<std::uint8_t>(transaction_)).End();
  Queue(message);
}

Result<bool> Connection::ReadStartupPacket(std::string* body) {
  char header[4];
  STRATA_ASSIGN_OR_RETURN(bool more, ReadExact(header, sizeof header));
  if (!more) return false;
  std::uint32_t length = 0;
  for (const char byte : header) length = (length << 8) | static_cast<unsigned char>(byte);
  if (length < 8 || length > kMaxStartupBytes) {
    return Violation(fmt::format("a startup packet of {} bytes", length));
  }
  body->resize(length - 4);
  STRATA_ASSIGN_OR_RETURN(more, ReadExact(body->data(), body->size()));
  if (!more) return Violation("the connection ended inside the startup packet");
  return true;
}

Status Connection::ApplyStartupParameters(FieldReader& reader) {
  while (true) {
    STRATA_ASSIGN_OR_RETURN(std::string_view key, reader.CString());
    if (key.empty()) break;
    STRATA_ASSIGN_OR_RETURN(std::string_view value, reader.CString());
    const std::string name = Lower(key);
    if (name == "user") {
      settings_.user = std::string(value);
    } else if (name == "database") {
      settings_.database = std::string(value);
    } else if (name == "options") {
      // "-c name=value" pairs (pgjdbc's `options`, libpq's PGOPTIONS).
      std::string_view rest = value;
      while (!rest.empty()) {
        const std::size_t c = rest.find("-c");
        if (c == std::string_view::npos) break;
        rest = rest.substr(c + 2);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        const std::size_t end = rest.find(' ');
        const std::string_view pair = rest.substr(0, end);
        if (const std::size_t equals = pair.find('='); equals != std::string_view::npos) {
          settings_.values[Lower(pair.substr(0, equals))] = std::string(pair.substr(equals + 1));
        }
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      }
    } else if (name == "client_encoding") {
      // The port speaks UTF-8 only; libpq's "auto" and the spellings of UTF-8 are accepted.
      const std::string encoding = Lower(value);
      if (encoding != "utf8" && encoding != "utf-8" && encoding != "unicode" &&
          encoding != "auto" && encoding != "sql_ascii") {
        return MakeError(ErrorCode::kSqlUnsupported,
                         fmt::format("client_encoding \"{}\" is not supported", value),
                         "the SQL port speaks UTF8; set client_encoding=UTF8");
      }
    } else if (name.starts_with("_pq_.")) {
      unknown_options_.emplace_back(key);
    } else if (name != "replication") {
      settings_.values[name] = std::string(value);
    }
  }
  if (settings_.database.empty()) settings_.database = settings_.user;
  if (std::optional<std::string> zone = settings_.Get("timezone")) {
    STRATA_ASSIGN_OR_RETURN(TimeZone found, TimeZone::Find(*zone, "the startup TimeZone"));
    settings_.values["timezone"] = std::string(found.name());
  }
  return OkStatus();
}

Result<bool> Connection::Startup() {
  while (true) {
    std::string body;
    STRATA_ASSIGN_OR_RETURN(bool more, ReadStartupPacket(&body));
    if (!more) return false;
    FieldReader reader(body, "startup");
    STRATA_ASSIGN_OR_RETURN(std::int32_t code, reader.Int32());
    if (code == kSslRequestCode) {
      if (options_.start_tls) {
        out_ = "S";
        STRATA_TRY(Flush());
        STRATA_ASSIGN_OR_RETURN(stream_, options_.start_tls());
        tls_active_ = true;
      } else {
        out_ = "N";
      }
      continue;
    }
    if (code == kGssEncRequestCode) {
      out_ = "N";
      continue;
    }
    if (code == kCancelRequestCode) {
      STRATA_ASSIGN_OR_RETURN(std::int32_t process_id, reader.Int32());
      STRATA_ASSIGN_OR_RETURN(std::int32_t key, reader.Int32());
      if (options_.cancel) options_.cancel(process_id, key);
      return false;
    }
    if ((code >> 16) != 3) {
      SendFatal("0A000",
                fmt::format("unsupported frontend protocol {}.{}", code >> 16, code & 0xffff),
                "the SQL port speaks protocol 3.0");
      return false;
    }
    if (Status applied = ApplyStartupParameters(reader); !applied.ok()) {
      SendError(applied.error(), /*fatal=*/true);
      return false;
    }
    // A newer minor version (libpq's max_protocol_version) or protocol options (`_pq_.*`):
    // NegotiateProtocolVersion down to 3.0, as PostgreSQL does, and go on.
    if ((code & 0xffff) != 0 || !unknown_options_.empty()) {
      MessageBuilder negotiate;
      negotiate.Begin('v').Int32(kProtocolV3 & 0xffff);
      negotiate.Int32(static_cast<std::int32_t>(unknown_options_.size()));
      for (const std::string& option : unknown_options_) negotiate.CString(option);
      negotiate.End();
      Queue(negotiate);
    }
    return true;
  }
}

Result<bool> Connection::Authenticate() {
  if (!options_.peer_is_loopback && !tls_active_) {
    SendFatal("28000", "the SQL port takes a token only over TLS from a remote client",
              "connect with sslmode=require ([serve] tls_cert_file and tls_key_file), or from "
              "the server's own host");
    return false;
  }
  MessageBuilder ask;
  ask.Begin('R').Int32(3).End();
  Queue(ask);
  STRATA_ASSIGN_OR_RETURN(std::optional<Message> reply, ReadMessage(kMaxPasswordBytes));
  if (!reply) return false;
  if (reply->type != 'p') {
    SendFatal("08P01",
              fmt::format("expected a password message, got {}", FrontendMessageName(reply->type)),
              "");
    return false;
  }
  FieldReader reader(reply->body, "PasswordMessage");
  STRATA_ASSIGN_OR_RETURN(std::string_view password, reader.CString());
  token_ = std::string(password);
  Result<std::string> role = backend_.RoleOfToken(token_);
  if (!role.ok()) {
    SendError(role.error(), /*fatal=*/true);
    return false;
  }
  role_ = *role;
  return true;
}

std::vector<std::pair<std::string, std::string>> Connection::ReportedSettings() const {
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [key, name] : kReported) {
    values.emplace_back(name, settings_.Get(key).value_or(""));
  }
  return values;
}

void Connection::ReportChangedSettings(
    const std::vector<std::pair<std::string, std::string>>& before) {
  const std::vector<std::pair<std::string, std::string>> after = ReportedSettings();
  MessageBuilder message;
  for (std::size_t index = 0; index < after.size() && index < before.size(); ++index) {
    if (after[index].second == before[index].second) continue;
    message.Begin('S').CString(after[index].first).CString(after[index].second).End();
  }
  if (message.size() > 0) Queue(message);
}

void Connection::SendStartupStatus() {
  MessageBuilder message;
  message.Begin('R').Int32(0).End();
  settings_.values["session_authorization"] = settings_.user;
  for (const auto& [name, value] : ReportedSettings()) {
    message.Begin('S').CString(name).CString(value).End();
  }
  message.Begin('K').Int32(options_.process_id).Int32(options_.secret_key).End();
  Queue(message);
  SendReady();
}

Status Connection::Loop() {
  while (true) {
    if (options_.stopping != nullptr && options_.stopping->load()) {
      SendFatal("57P01", "terminating connection due to administrator command",
                "the server is shutting down; reconnect to another instance or after the restart");
      return Flush();
    }
    Result<std::optional<Message>> message = ReadMessage();
    if (!message.ok()) {
      if (message.error().code == ErrorCode::kProtocolViolation) {
        SendError(message.error(), /*fatal=*/true);
        return Flush();
      }
      if (message.error().code == ErrorCode::kQueryTimeout) {  // the idle timeout
        SendFatal("57P05", message.error().message, message.error().hint);
        return Flush();
      }
      if (options_.stopping != nullptr && options_.stopping->load()) continue;
      return message.error();
    }
    if (!*message) {
      if (options_.stopping != nullptr && options_.stopping->load()) continue;
      return OkStatus();
    }
    const Message& current = **message;
    if (current.type == 'X') return OkStatus();
    if (skip_until_sync_ && current.type != 'S') continue;
    FieldReader reader(current.body, FrontendMessageName(current.type));
    Status handled = OkStatus();
    switch (current.type) {
      case 'Q': {
        Result<std::string_view> sql = reader.CString();
        if (!sql.ok()) {
          handled = sql.error();
          break;
        }
        handled = SimpleQuery(*sql);
        break;
      }
      case 'P':
        handled = ParseMessage(reader);
        break;
      case 'B':
        handled = BindMessage(reader);
        break;
      case 'D':
        handled = DescribeMessage(reader);
        break;
      case 'E':
        handled = ExecuteMessage(reader);
        break;
      case 'C':
        handled = CloseMessage(reader);
        break;
      case 'H':
        handled = Flush();
        break;
      case 'S':
        skip_until_sync_ = false;
        active_portal_.reset();
        // Portals end with the transaction; outside a block that is every Sync.
        if (transaction_ == 'I') {
          portals_.clear();
          EndTransactionCursors();
        }
        SendReady();
        break;
      default:
        SendError(Violation(fmt::format("unexpected message type '{}' ({})",
                                        std::isprint(static_cast<unsigned char>(current.type))
                                            ? std::string(1, current.type)
                                            : fmt::format("0x{:02x}", current.type),
                                        FrontendMessageName(current.type))),
                  /*fatal=*/true);
        return Flush();
    }
    ApplyForgets();
    if (!handled.ok()) {
      if (handled.error().code == ErrorCode::kProtocolViolation) {
        SendError(handled.error(), /*fatal=*/true);
        return Flush();
      }
      if (handled.error().code == ErrorCode::kUnauthenticated) {
        SendError(handled.error(), /*fatal=*/true);
        return Flush();
      }
      SendError(handled.error(), /*fatal=*/false);
      if (transaction_ == 'T') transaction_ = 'E';
      skip_until_sync_ = true;
    }
  }
}

void Connection::Run() {
  try {
    Result<bool> started = Startup();
    if (!started.ok()) {
      if (started.error().code == ErrorCode::kProtocolViolation) {
        SendError(started.error(), /*fatal=*/true);
      }
      (void)Flush();
      return;
    }
    if (!*started) {
      (void)Flush();
      return;
    }
    Result<bool> authenticated = Authenticate();
    if (!authenticated.ok() || !*authenticated) {
      (void)Flush();
      return;
    }
    SendStartupStatus();
    stream_->SetReadTimeout(options_.idle_timeout_ms);
    (void)Loop();
    (void)Flush();
  } catch (const std::exception& broken) {
    // A broken invariant ends this connection, never the server.
    SendFatal("XX000", "internal error; the connection is closed", "");
    (void)Flush();
    WriteJsonLine({{"event", "sql_internal_error"}, {"what", broken.what()}});
  }
}

}  // namespace internal

void RunSession(ByteStream& stream, SqlBackend& backend, const SessionOptions& options) {
  internal::Connection connection(stream, backend, options);
  connection.Run();
}

}  // namespace strata::serve::pg
