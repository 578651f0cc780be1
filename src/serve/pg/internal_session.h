// Private to session*.cc: the state of one SQL connection (session.h) and the statement
// machinery the protocol messages share.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "serve/pg/catalog.h"
#include "serve/pg/pg_types.h"
#include "serve/pg/session.h"
#include "serve/pg/wire.h"

namespace strata::serve::pg::internal {

using Parameters = std::vector<std::optional<std::string>>;

// A Parse'd statement: its text and parameter types (declared by Parse, else inferred; kUnknown
// until described).
struct Prepared {
  std::string sql;
  std::vector<PgType> parameter_types;
};

// A Bind'd portal (or a DECLAREd cursor): its statement, values and result formats; the answer is
// computed at the first Execute (or Describe) and then handed out in pieces.
struct Portal {
  std::shared_ptr<const Prepared> statement;
  Parameters parameters;
  std::vector<std::int16_t> result_formats;  // 0 text, 1 binary: none, one for all, or per column
  std::optional<ResultSet> result;
  std::size_t position = 0;
};

// What a statement answered, and whether its answer has a row description.
struct Outcome {
  ResultSet result;
  bool has_rows = false;  // a SELECT-like answer (RowDescription + DataRows), even with 0 rows
};

class Connection {
 public:
  Connection(ByteStream& stream, SqlBackend& backend, const SessionOptions& options);
  void Run();

 private:
  // I/O (session.cc).
  Result<bool> ReadExact(char* data, std::size_t size);  // false: the stream ended first
  struct Message {
    char type = 0;
    std::string body;
  };
  Result<std::optional<Message>> ReadMessage(std::uint32_t max_bytes = kMaxMessageBytes);
  Status Flush();
  void Queue(MessageBuilder& message);
  void SendError(const Error& error, bool fatal);
  void SendFatal(std::string_view sqlstate, std::string_view message, std::string_view hint);
  void SendReady();
  // The ParameterStatus values PostgreSQL reports (GUC_REPORT), by their reported names.
  std::vector<std::pair<std::string, std::string>> ReportedSettings() const;
  // A ParameterStatus for each reported setting that differs from `before`.
  void ReportChangedSettings(const std::vector<std::pair<std::string, std::string>>& before);

  // Phases (session.cc).
  Result<bool> Startup();  // false: the connection ends (cancel, refusal)
  Result<bool> ReadStartupPacket(std::string* body);
  Status ApplyStartupParameters(FieldReader& reader);
  Result<bool> Authenticate();
  void SendStartupStatus();
  Status Loop();

  // Protocol messages (session_extended.cc).
  // Errors: only kUnauthenticated (the token expired: FATAL); others are answered.
  Status SimpleQuery(std::string_view sql);
  Status ParseMessage(FieldReader& reader);
  Status BindMessage(FieldReader& reader);
  Status DescribeMessage(FieldReader& reader);
  Status ExecuteMessage(FieldReader& reader);
  Status CloseMessage(FieldReader& reader);
  void SendRowDescription(const ResultSet& result, const std::vector<std::int16_t>& formats);
  Status SendRows(Portal& portal, std::int64_t max_rows, bool* suspended);
  void SendComplete(const Outcome& outcome, std::size_t rows_sent);

  // Statements (session_statements.cc).
  // Runs one statement; `describe_only`: its row description only (no semantic query runs, no
  // SET applies).
  Result<Outcome> RunStatement(std::string_view sql, const Parameters& parameters,
                               std::vector<PgType>* parameter_types, bool describe_only);
  Result<Outcome> RunQuery(std::string_view sql, const Parameters& parameters,
                           std::vector<PgType>* parameter_types, bool describe_only, bool explain);
  Result<Outcome> RunCursorStatement(std::string_view keyword, std::string_view sql,
                                     const Parameters& parameters, bool describe_only);
  // The portal named `name`, else the cursor of that name (psycopg's server-side cursors
  // Describe and Execute a DECLAREd cursor as a portal); nullptr when neither exists.
  Portal* FindPortal(const std::string& name);
  // After DEALLOCATE name|ALL or DISCARD ALL answered: notes what they drop, dropped by
  // ApplyForgets once the protocol message is handled (a Describe or Execute of a portal still
  // holds it while its statement runs).
  void ForgetDeallocated(std::string_view keyword, std::string_view sql);
  void ApplyForgets();
  // At COMMIT/ROLLBACK: cursors declared WITHOUT HOLD end with their transaction.
  void EndTransactionCursors();
  Status CheckToken();
  Result<TimeZone> SessionZone() const;
  void LogStatement(std::string_view kind, std::string_view keyword, const Status& status,
                    std::chrono::steady_clock::time_point started, std::string_view rollup) const;

  ByteStream* stream_;
  SqlBackend& backend_;
  SessionOptions options_;
  std::string out_;
  SessionSettings settings_;
  std::string token_;
  std::string role_;
  bool tls_active_ = false;
  std::vector<std::string> unknown_options_;  // the startup's `_pq_.*` protocol options
  char transaction_ = 'I';                    // 'I' idle, 'T' in a block, 'E' in a failed block
  bool skip_until_sync_ = false;
  std::map<std::string, std::shared_ptr<const Prepared>> statements_;
  std::map<std::string, Portal> portals_;
  std::map<std::string, Portal> cursors_;
  std::map<std::string, bool> cursor_holds_;  // cursor name → declared WITH HOLD
  bool forget_all_ = false;                   // DISCARD ALL answered
  // The portal last Described or Executed before Sync: DISCARD ALL keeps the portal running it
  // (as PostgreSQL keeps the active portal), so its Execute still finds it.
  std::optional<std::string> active_portal_;
  bool forget_statements_ = false;         // DEALLOCATE ALL answered
  std::vector<std::string> forget_names_;  // DEALLOCATE name answered
  std::string last_rollup_;                // of the statement being run, for its log line
  std::string last_kind_;
  std::string last_cache_;  // the result cache's word on it (SemanticAnswer::cache)
};

}  // namespace strata::serve::pg::internal
