#include "warehouse/trino/trino_client.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>
#include <utility>

namespace strata::warehouse::trino {
namespace {

using Clock = std::chrono::steady_clock;

// The pauses between tries of one request or statement: 100 ms doubling up to 2 s, while the
// next pause still ends within `seconds` of the first try.
class Backoff {
 public:
  explicit Backoff(double seconds)
      : deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(seconds))) {}
  bool exhausted() const { return Clock::now() + pause_ > deadline_; }
  // The pause to take now; the next one is twice as long.
  std::chrono::milliseconds Next() {
    const auto now = pause_;
    pause_ = std::min(pause_ * 2, std::chrono::milliseconds(2000));
    return now;
  }

 private:
  Clock::time_point deadline_;
  std::chrono::milliseconds pause_{100};
};

// RFC 4648 base64 with padding, for the Authorization header.
std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(bytes[i]) << 16U) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8U) |
                 static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(n >> shift) & 63U];
  }
  if (i < bytes.size()) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16U;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8U;
    out += kAlphabet[(n >> 18U) & 63U];
    out += kAlphabet[(n >> 12U) & 63U];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6U) & 63U] : '=';
    out += '=';
  }
  return out;
}

// Percent-encodes everything but RFC 3986's unreserved characters (X-Trino-Session values).
std::string PercentEncoded(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) != 0 &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2])) != 0) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    auto end = text.find('\n');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

bool IsRetriedStatus(long status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

bool IsPlainUrl(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!url.starts_with(scheme)) continue;
    std::string_view rest = url.substr(scheme.size());
    if (rest.ends_with('/')) rest.remove_suffix(1);
    return !rest.empty() && rest.find_first_of("/?#@ ") == std::string_view::npos;
  }
  return false;
}

bool IsPropertyName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) != 0 ||
          std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

Error HttpStatusError(const HttpResponse& response, const HttpRequest& request) {
  std::string excerpt = response.body.substr(0, 200);
  if (response.status == 401 || response.status == 403) {
    return MakeError(
        ErrorCode::kWarehouse,
        fmt::format("trino: HTTP {} from {}: {}", response.status, request.url, excerpt),
        "check [warehouse] user and password_env: the coordinator refused them");
  }
  return MakeError(
      response.status >= 500 ? ErrorCode::kWarehouseConnection : ErrorCode::kWarehouse,
      fmt::format("trino: HTTP {} from {}: {}", response.status, request.url, excerpt));
}

}  // namespace

std::optional<Error> SettingsProblem(const ClientSettings& settings) {
  if (!IsPlainUrl(settings.url)) {
    return MakeError(ErrorCode::kConfig,
                     "[warehouse] url \"" + settings.url + "\" is not a Trino coordinator's URL",
                     "write http://HOST:PORT or https://HOST:PORT, without a path");
  }
  if (settings.user.empty()) {
    return MakeError(ErrorCode::kConfig, "[warehouse] user is empty",
                     "Trino needs a user name for every query: set [warehouse] user");
  }
  if (settings.password.has_value() && settings.url.starts_with("http://")) {
    return MakeError(ErrorCode::kConfig,
                     "[warehouse] password_env is set but url \"" + settings.url +
                         "\" is plain http: the password would cross the network in clear",
                     "use an https:// url (Trino only accepts passwords over TLS), or remove "
                     "password_env");
  }
  for (const auto& [name, value] : settings.session) {
    if (!IsPropertyName(name)) {
      return MakeError(ErrorCode::kConfig,
                       "[warehouse.session] \"" + name + "\" is not a Trino session property name",
                       "names are lower-case letters, digits, _ and . (SHOW SESSION lists them)");
    }
  }
  return std::nullopt;
}

Client::Client(ClientSettings settings) : settings_(std::move(settings)) {
  session_ = settings_.session;
  if (settings_.url.ends_with('/')) settings_.url.pop_back();
}

std::vector<std::string> Client::Headers() const {
  std::vector<std::string> headers = {
      "X-Trino-User: " + settings_.user,
      "X-Trino-Source: " + settings_.source,
      "X-Trino-Time-Zone: UTC",
      "X-Trino-Client-Capabilities: PARAMETRIC_DATETIME",
      "X-Trino-Transaction-Id: " +
          (transaction_id_.empty() ? std::string("NONE") : transaction_id_),
      "Content-Type: text/plain; charset=utf-8",
      "Expect:",
  };
  if (!settings_.catalog.empty()) headers.push_back("X-Trino-Catalog: " + settings_.catalog);
  if (!settings_.schema.empty()) headers.push_back("X-Trino-Schema: " + settings_.schema);
  for (const auto& [name, value] : session_) {
    headers.push_back("X-Trino-Session: " + name + "=" + PercentEncoded(value));
  }
  if (settings_.password.has_value()) {
    headers.push_back("Authorization: Basic " + Base64(settings_.user + ":" + *settings_.password));
  }
  return headers;
}

Result<HttpResponse> Client::SendWithRetries(const HttpRequest& request) {
  Backoff backoff(settings_.retry_seconds);
  for (;;) {
    STRATA_ASSIGN_OR_RETURN(HttpResponse response, http_.Send(request, &interrupted_));
    if (response.status == 200) return response;
    if (!IsRetriedStatus(response.status)) return HttpStatusError(response, request);
    if (backoff.exhausted()) {
      Error error = HttpStatusError(response, request);
      error.code = ErrorCode::kWarehouseConnection;
      error.hint = fmt::format(
          "the coordinator kept answering {} for {} s; is it overloaded or "
          "restarting?",
          response.status, settings_.retry_seconds);
      return error;
    }
    if (!Pause(backoff.Next())) {
      return MakeError(ErrorCode::kWarehouseInterrupted, "the statement was interrupted");
    }
  }
}

bool Client::Pause(std::chrono::milliseconds pause) {
  for (auto until = Clock::now() + pause; Clock::now() < until;) {
    if (interrupted_.load()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !interrupted_.load();
}

void Client::KeepSessionState(const HttpResponse& response) {
  const auto& headers = response.headers;
  if (auto it = headers.find("x-trino-started-transaction-id"); it != headers.end()) {
    transaction_id_ = it->second;
  }
  if (headers.contains("x-trino-clear-transaction-id")) transaction_id_.clear();
  if (auto it = headers.find("x-trino-set-session"); it != headers.end()) {
    for (auto line : Lines(it->second)) {
      auto equals = line.find('=');
      if (equals == std::string_view::npos) continue;
      session_[std::string(line.substr(0, equals))] = PercentDecoded(line.substr(equals + 1));
    }
  }
  if (auto it = headers.find("x-trino-clear-session"); it != headers.end()) {
    for (auto line : Lines(it->second)) session_.erase(std::string(line));
  }
  if (auto it = headers.find("x-trino-set-catalog"); it != headers.end()) {
    settings_.catalog = it->second;
  }
  if (auto it = headers.find("x-trino-set-schema"); it != headers.end()) {
    settings_.schema = it->second;
  }
}

Result<Page> Client::Follow(const HttpRequest& request) {
  STRATA_ASSIGN_OR_RETURN(HttpResponse response, SendWithRetries(request));
  KeepSessionState(response);
  return ParsePage(response.body);
}

void Client::Cancel(const std::string& next_uri) {
  HttpRequest request{"DELETE", next_uri, Headers(), {}, 5};
  (void)http_.Send(request, nullptr);  // best effort: the query may have ended meanwhile
}

Result<RunSummary> Client::Run(std::string_view sql, const PageSink& sink) {
  interrupted_ = false;
  running_ = true;
  struct Running {
    std::atomic<bool>& flag;
    ~Running() { flag = false; }
  } running{running_};

  Backoff backoff(settings_.retry_seconds);
  for (;;) {
    const bool in_transaction_before = in_transaction();
    bool never_started = false;
    bool delivered = false;
    auto result = RunOnce(sql, sink, never_started, delivered);
    if (result.ok() || !never_started || delivered || in_transaction_before) return result;
    if (backoff.exhausted()) {
      Error error = std::move(result).error();
      error.hint = fmt::format(
          "Trino could not start the statement for {} s (no worker node, or a coordinator still "
          "starting); check the cluster's nodes (SELECT * FROM system.runtime.nodes)",
          settings_.retry_seconds);
      return error;
    }
    if (!Pause(backoff.Next())) {
      return MakeError(ErrorCode::kWarehouseInterrupted, "the statement was interrupted");
    }
  }
}

Result<RunSummary> Client::RunOnce(std::string_view sql, const PageSink& sink, bool& never_started,
                                   bool& delivered) {
  const long timeout = settings_.request_timeout_seconds;
  HttpRequest first{"POST", settings_.url + "/v1/statement", Headers(), std::string(sql), timeout};
  STRATA_ASSIGN_OR_RETURN(Page page, Follow(first));
  RunSummary summary;
  summary.query_id = page.query_id;
  for (;;) {
    if (page.error.has_value()) {
      never_started = NeverStarted(*page.error);
      return ToError(*page.error);
    }
    if (summary.columns.empty() && !page.columns.empty()) summary.columns = page.columns;
    if (page.update_count.has_value()) summary.update_count = page.update_count;
    if (!page.rows.empty()) {
      delivered = true;
      Status accepted = sink(summary.columns, page.rows);
      if (!accepted.ok()) {
        if (page.next_uri.has_value()) Cancel(*page.next_uri);
        return std::move(accepted).error();
      }
    }
    if (!page.next_uri.has_value()) return summary;
    if (interrupted_.load()) {
      Cancel(*page.next_uri);
      return MakeError(ErrorCode::kWarehouseInterrupted, "the statement was interrupted");
    }
    std::string next = *page.next_uri;
    auto followed = Follow(HttpRequest{"GET", next, Headers(), {}, timeout});
    if (!followed.ok()) {
      if (followed.error().code == ErrorCode::kWarehouseInterrupted) Cancel(next);
      return std::move(followed).error();
    }
    page = std::move(followed).value();
  }
}

Result<QueryResult> Client::Execute(std::string_view sql) {
  QueryResult result;
  auto sink = [&result](const std::vector<Column>& columns,
                        std::vector<std::vector<Value>>& rows) -> Status {
    if (result.columns.empty()) {
      for (const auto& column : columns) result.columns.push_back(ResultColumn{column, {}});
    }
    for (auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        result.columns[i].values.push_back(std::move(row[i]));
      }
    }
    return OkStatus();
  };
  STRATA_ASSIGN_OR_RETURN(RunSummary summary, Run(sql, sink));
  if (result.columns.empty()) {
    for (const auto& column : summary.columns) result.columns.push_back(ResultColumn{column, {}});
  }
  result.rows_changed = summary.update_count.value_or(0);
  return result;
}

void Client::Interrupt() {
  if (running_.load()) interrupted_ = true;
}

}  // namespace strata::warehouse::trino
