#include "warehouse/trino/http_session.h"

#include <curl/curl.h>

#include <cctype>
#include <mutex>
#include <string_view>

namespace strata::warehouse::trino {

struct HttpSession::Handle {
  CURL* curl = nullptr;
};

namespace {

struct Transfer {
  HttpResponse* response;
  const std::atomic<bool>* abort;
};

std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  transfer->response->body.append(data, size * count);
  return size * count;
}

std::string Trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

std::size_t OnHeader(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;  // the status line, the blank line
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value = Trimmed(line.substr(colon + 1));
  auto& slot = transfer->response->headers[name];
  slot = slot.empty() ? value : slot + "\n" + value;
  return size * count;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  return transfer->abort != nullptr && transfer->abort->load() ? 1 : 0;
}

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  bool Append(const std::string& header) {
    curl_slist* next = curl_slist_append(list, header.c_str());
    if (next == nullptr) return false;
    list = next;
    return true;
  }
};

void Configure(CURL* curl, const HttpRequest& request, Transfer& transfer, curl_slist* headers,
               char* error_buffer) {
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, request.timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, nullptr);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  } else {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST,
                     request.method == "GET" ? nullptr : request.method.c_str());
  }
}

}  // namespace

void EnsureCurlInitialized() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpSession::HttpSession() : handle_(std::make_unique<Handle>()) {
  EnsureCurlInitialized();
  handle_->curl = curl_easy_init();
}

HttpSession::~HttpSession() {
  if (handle_->curl != nullptr) curl_easy_cleanup(handle_->curl);
}

Result<HttpResponse> HttpSession::Send(const HttpRequest& request, const std::atomic<bool>* abort) {
  if (handle_->curl == nullptr) {
    return MakeError(ErrorCode::kWarehouseConnection, "trino: cannot create an HTTP client");
  }
  HeaderList headers;
  for (const auto& header : request.headers) {
    if (!headers.Append(header)) {
      return MakeError(ErrorCode::kWarehouseConnection, "trino: out of memory for headers");
    }
  }
  HttpResponse response;
  Transfer transfer{&response, abort};
  char error_buffer[CURL_ERROR_SIZE] = {};
  Configure(handle_->curl, request, transfer, headers.list, error_buffer);
  CURLcode code = curl_easy_perform(handle_->curl);
  curl_easy_setopt(handle_->curl, CURLOPT_HTTPHEADER, nullptr);
  if (code == CURLE_ABORTED_BY_CALLBACK) {
    return MakeError(ErrorCode::kWarehouseInterrupted, "the statement was interrupted");
  }
  if (code != CURLE_OK) {
    std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    return MakeError(ErrorCode::kWarehouseConnection,
                     "trino: " + request.method + " " + request.url + " failed: " + detail,
                     "check that the Trino coordinator at [warehouse] url is running and "
                     "reachable");
  }
  curl_easy_getinfo(handle_->curl, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace strata::warehouse::trino
