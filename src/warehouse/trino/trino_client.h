// A Trino client session: runs statements through the REST protocol (POST /v1/statement, then
// GET nextUri until the last page) and keeps what Trino asks a client to keep between them: the
// open transaction, session properties, the current catalog and schema.
//
// Every request carries X-Trino-User, -Source, -Catalog, -Schema, -Session (the configured
// properties), -Time-Zone: UTC, -Client-Capabilities: PARAMETRIC_DATETIME (timestamps keep their
// precision) and -Transaction-Id (NONE outside a transaction, so that START TRANSACTION works).
// A request answered with HTTP 429, 502, 503 or 504 is sent again after a pause (100 ms doubling,
// at most `retry_seconds` in all): Trino's protocol makes a repeated GET of a nextUri idempotent,
// and a POST refused that way started nothing. A statement that failed before it ran anything
// (NeverStarted: no worker node yet, a coordinator starting up), outside a transaction and before
// any row reached the caller, is submitted again the same way, within the same `retry_seconds`.
//
// Thread safety: one thread runs statements; Interrupt() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "warehouse/trino/http_session.h"
#include "warehouse/trino/trino_protocol.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse::trino {

struct ClientSettings {
  std::string url;  // the coordinator: "http://127.0.0.1:8080" or https://...
  std::string user;
  std::string catalog;                         // may be empty: names must then give their catalog
  std::string schema;                          // may be empty
  std::optional<std::string> password;         // HTTP basic auth; refused over plain http
  std::map<std::string, std::string> session;  // Trino session properties
  std::string source = "strata";
  double retry_seconds = 60;  // how long 429/502/503/504 answers and NeverStarted are retried
  // The longest one HTTP exchange may take. Trino answers every protocol request within about a
  // second (it returns a page with a nextUri rather than wait), so a silent coordinator is a lost
  // one: kWarehouseConnection.
  long request_timeout_seconds = 120;
};

// Why `settings` cannot be used, or nullopt: a URL that is not http(s)://host[:port] without a
// path, an empty user, a password over plain http, a session property name outside
// [a-z0-9_.]. kConfig with a hint naming the [warehouse] key.
std::optional<Error> SettingsProblem(const ClientSettings& settings);

// Receives a statement's rows page by page: `columns` (the same on every call) and the page's
// rows. An error stops the statement (it is cancelled on the server) and is what Run returns.
using PageSink = std::function<Status(const std::vector<Column>& columns,
                                      std::vector<std::vector<Value>>& rows)>;

struct RunSummary {
  std::string query_id;
  std::vector<Column> columns;
  std::optional<std::int64_t> update_count;
};

class Client {
 public:
  // REQUIRES: !SettingsProblem(settings)
  explicit Client(ClientSettings settings);

  // Runs one statement. Errors: Trino's own (ToError), the transport's (HttpSession::Send),
  // kWarehouseInterrupted after Interrupt(), kWarehouse for a response of an unexpected shape,
  // kWarehouseConnection when a retried answer or a resubmitted statement outlasts retry_seconds
  // (the last attempt's error, with a hint). A statement that failed or was interrupted is
  // cancelled on the server (DELETE of its nextUri) before Run returns.
  Result<RunSummary> Run(std::string_view sql, const PageSink& sink);

  // Runs one statement and returns all its rows (a DML statement's: its update count).
  Result<QueryResult> Execute(std::string_view sql);

  // Cancels the statement running now, if any; no effect between statements.
  void Interrupt();

  bool in_transaction() const { return !transaction_id_.empty(); }
  const ClientSettings& settings() const { return settings_; }

 private:
  std::vector<std::string> Headers() const;
  Result<HttpResponse> SendWithRetries(const HttpRequest& request);
  // One submission of `sql`. `never_started` is set when it failed with a NeverStarted error;
  // `delivered` when a page of rows reached `sink`.
  Result<RunSummary> RunOnce(std::string_view sql, const PageSink& sink, bool& never_started,
                             bool& delivered);
  // Sleeps `pause`; false (at once) when Interrupt() is called meanwhile.
  bool Pause(std::chrono::milliseconds pause);
  Result<Page> Follow(const HttpRequest& request);
  void KeepSessionState(const HttpResponse& response);
  void Cancel(const std::string& next_uri);

  ClientSettings settings_;
  HttpSession http_;
  std::string transaction_id_;
  std::map<std::string, std::string> session_;
  std::atomic<bool> running_{false};
  std::atomic<bool> interrupted_{false};
};

}  // namespace strata::warehouse::trino
