// How a SQL connection (session.h) answers one statement: the token check, then the semantic
// layer, the cursors or the catalog; the transaction status; the access log line.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "serve/log_line.h"
#include "serve/pg/internal_session.h"
#include "serve/pg/statement_text.h"
#include "serve/pg/translate.h"
#include "sql/parser.h"

namespace strata::serve::pg::internal {
namespace {

using nlohmann::ordered_json;

bool OneOf(std::string_view keyword, std::initializer_list<std::string_view> keywords) {
  for (const std::string_view candidate : keywords) {
    if (keyword == candidate) return true;
  }
  return false;
}

// Whether the text names schema `strata` followed by a dot: a statement the project's parser
// could not read, but that reads an entity table, is a syntax error, not a catalog question.
bool NamesStrataSchema(std::string_view sql) {
  std::string lower(sql);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("strata.") != std::string::npos ||
         lower.find("\"strata\".") != std::string::npos;
}

// The statement's first keyword for the log: a keyword of the list, else "OTHER" (the first word
// of what a user typed may be anything: a pasted token, a value).
std::string_view LoggedKeyword(std::string_view keyword) {
  static constexpr std::string_view kKnown[] = {
      "SELECT",  "WITH",     "VALUES",     "TABLE",    "(",     "EXPLAIN",  "SET",     "SHOW",
      "RESET",   "BEGIN",    "START",      "COMMIT",   "END",   "ROLLBACK", "ABORT",   "SAVEPOINT",
      "RELEASE", "DISCARD",  "DEALLOCATE", "DECLARE",  "FETCH", "MOVE",     "CLOSE",   "INSERT",
      "UPDATE",  "DELETE",   "CREATE",     "DROP",     "ALTER", "COPY",     "PREPARE", "EXECUTE",
      "LISTEN",  "UNLISTEN", "GRANT",      "TRUNCATE", ""};
  for (const std::string_view known : kKnown) {
    if (keyword == known) return keyword;
  }
  return "OTHER";
}

// The EXPLAIN answer: the semantic query, then meta.rollup, one text line per row.
ResultSet ExplainResult(const ordered_json& query, const ordered_json& rollup) {
  ResultSet result;
  result.columns.push_back({"QUERY PLAN", PgType::kText});
  const auto add_lines = [&](std::string_view title, const ordered_json& document) {
    result.rows.push_back({std::string(title)});
    std::string text = document.dump(2);
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = text.find('\n', start);
      result.rows.push_back({text.substr(start, end - start)});
      if (end == std::string::npos) break;
      start = end + 1;
    }
  };
  add_lines("semantic query:", query);
  add_lines("meta.rollup:", rollup);
  result.tag = "EXPLAIN";
  return result;
}

}  // namespace

Status Connection::CheckToken() {
  Result<std::string> role = backend_.RoleOfToken(token_);
  if (!role.ok()) {
    Error expired = role.error();
    expired.code = ErrorCode::kUnauthenticated;
    expired.message = "the session's token is no longer valid: " + role.error().message;
    expired.hint = "reconnect with a fresh token";
    return expired;
  }
  if (*role != role_) {
    return MakeError(ErrorCode::kUnauthenticated, "the session's token changed role",
                     "reconnect with a fresh token");
  }
  return OkStatus();
}

Result<TimeZone> Connection::SessionZone() const {
  return TimeZone::Find(settings_.Get("timezone").value_or("UTC"), "TimeZone");
}

void Connection::LogStatement(std::string_view kind, std::string_view keyword, const Status& status,
                              std::chrono::steady_clock::time_point started,
                              std::string_view rollup) const {
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - started;
  ordered_json line = {{"event", "statement"},
                       {"api", "sql"},
                       {"connection", options_.process_id},
                       {"role", role_},
                       {"kind", kind},
                       {"statement", LoggedKeyword(keyword)},
                       {"status", status.ok() ? "ok" : "error"},
                       {"duration_ms", elapsed.count()},
                       {"rollup", rollup.empty() ? ordered_json(nullptr) : ordered_json(rollup)}};
  if (!last_cache_.empty()) line["cache"] = last_cache_;
  if (!status.ok()) line["error"] = std::string(status.error().reported_code());
  WriteJsonLine(line);
}

Result<Outcome> Connection::RunStatement(std::string_view sql, const Parameters& parameters,
                                         std::vector<PgType>* parameter_types, bool describe_only) {
  const auto started = std::chrono::steady_clock::now();
  const std::string keyword = FirstKeyword(sql);
  last_rollup_.clear();
  last_cache_.clear();
  last_kind_ = "catalog";
  if (options_.query_cancel != nullptr && !describe_only) options_.query_cancel->Reset();
  Result<Outcome> outcome = [&]() -> Result<Outcome> {
    STRATA_TRY(CheckToken());
    const bool ends_block = OneOf(keyword, {"COMMIT", "END", "ROLLBACK", "ABORT"});
    if (transaction_ == 'E' && !ends_block && !describe_only) {
      return MakeError(ErrorCode::kInFailedTransaction,
                       "current transaction is aborted, commands ignored until end of "
                       "transaction block",
                       "ROLLBACK, then run the statement again");
    }
    if (OneOf(keyword, {"DECLARE", "FETCH", "MOVE", "CLOSE"})) {
      last_kind_ = "cursor";
      return RunCursorStatement(keyword, sql, parameters, describe_only);
    }
    if (OneOf(keyword, {"SELECT", "WITH", "VALUES", "TABLE", "(", "EXPLAIN"})) {
      std::optional<std::string_view> explained = ExplainedQuery(sql);
      return RunQuery(explained ? *explained : sql, parameters, parameter_types, describe_only,
                      explained.has_value());
    }
    if (describe_only && keyword != "SHOW") return Outcome{};
    STRATA_ASSIGN_OR_RETURN(std::shared_ptr<const RoleView> view, backend_.View(role_));
    Outcome answered;
    const auto before = ReportedSettings();
    STRATA_ASSIGN_OR_RETURN(answered.result, view->catalog->Execute(sql, parameters, settings_));
    ReportChangedSettings(before);
    answered.has_rows = !answered.result.columns.empty();
    return answered;
  }();
  if (outcome.ok() && !describe_only) {
    ForgetDeallocated(keyword, sql);
    if (OneOf(keyword, {"BEGIN", "START"})) transaction_ = 'T';
    if (OneOf(keyword, {"COMMIT", "END", "ROLLBACK", "ABORT"})) {
      const TransactionEnd end = TransactionEndOf(sql);
      if (end == TransactionEnd::kToSavepoint) {
        if (transaction_ == 'E') transaction_ = 'T';
      } else {
        if (transaction_ == 'E' && (keyword == "COMMIT" || keyword == "END")) {
          outcome->result.tag = "ROLLBACK";
        }
        EndTransactionCursors();
        transaction_ = end == TransactionEnd::kAndChain ? 'T' : 'I';
      }
    }
  }
  if (!describe_only) {
    LogStatement(last_kind_, keyword, outcome.ok() ? OkStatus() : Status(outcome.error()), started,
                 last_rollup_);
  }
  return outcome;
}

void Connection::ForgetDeallocated(std::string_view keyword, std::string_view sql) {
  if (keyword == "DISCARD") {
    forget_all_ = true;
    return;
  }
  if (keyword != "DEALLOCATE") return;
  std::optional<std::string> name = DeallocatedName(sql);
  if (!name) {
    forget_statements_ = true;
  } else {
    forget_names_.push_back(*name);
  }
}

void Connection::ApplyForgets() {
  if (forget_all_) {
    statements_.clear();
    std::optional<Portal> active;
    if (active_portal_) {
      if (auto found = portals_.find(*active_portal_); found != portals_.end()) {
        active = std::move(found->second);
      }
    }
    portals_.clear();
    if (active) portals_[*active_portal_] = std::move(*active);
    cursors_.clear();
    cursor_holds_.clear();
  }
  if (forget_statements_) statements_.clear();
  for (const std::string& name : forget_names_) statements_.erase(name);
  forget_all_ = false;
  forget_statements_ = false;
  forget_names_.clear();
}

void Connection::EndTransactionCursors() {
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    if (!cursor_holds_[it->first]) {
      cursor_holds_.erase(it->first);
      it = cursors_.erase(it);
    } else {
      ++it;
    }
  }
}

Portal* Connection::FindPortal(const std::string& name) {
  if (auto found = portals_.find(name); found != portals_.end()) return &found->second;
  if (auto found = cursors_.find(name); found != cursors_.end()) return &found->second;
  return nullptr;
}

Result<Outcome> Connection::RunQuery(std::string_view sql, const Parameters& parameters,
                                     std::vector<PgType>* parameter_types, bool describe_only,
                                     bool explain) {
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<const RoleView> view, backend_.View(role_));
  Result<sql::StatementPtr> parsed = sql::ParseStatement(sql, sql::Dialect::kPostgres);
  const bool semantic =
      parsed.ok() ? ReadsEntityTable(**parsed, view->tables) : NamesStrataSchema(sql);
  if (!semantic) {
    Outcome answered;
    if (describe_only) {
      // The catalog's columns do not depend on the values: run it with NULLs.
      const std::size_t count = parameter_types ? parameter_types->size() : 0;
      STRATA_ASSIGN_OR_RETURN(answered.result,
                              view->catalog->Execute(sql, Parameters(count), settings_));
    } else {
      STRATA_ASSIGN_OR_RETURN(answered.result, view->catalog->Execute(sql, parameters, settings_));
    }
    answered.has_rows = true;
    return answered;
  }
  if (!parsed.ok()) return parsed.error();
  last_kind_ = "semantic";
  TranslateOptions translate;
  STRATA_ASSIGN_OR_RETURN(translate.zone, SessionZone());
  if (!describe_only) translate.parameters = parameters;
  translate.explain = explain;
  STRATA_ASSIGN_OR_RETURN(Translation translation, Translate(**parsed, view->tables, translate));
  if (parameter_types != nullptr) {
    for (std::size_t index = 0;
         index < parameter_types->size() && index < translation.parameter_types.size(); ++index) {
      if ((*parameter_types)[index] == PgType::kUnknown) {
        (*parameter_types)[index] = translation.parameter_types[index];
      }
    }
  }
  Outcome answered;
  answered.has_rows = true;
  if (explain || translation.explain) {
    if (describe_only) {
      answered.result.columns.push_back({"QUERY PLAN", PgType::kText});
      return answered;
    }
    STRATA_ASSIGN_OR_RETURN(SemanticAnswer answer,
                            backend_.Answer(role_, translation.query.dump(), MonotonicMillis(),
                                            options_.query_cancel, /*cached=*/false));
    last_rollup_ = answer.rollup;
    const ordered_json meta = answer.response.ToJson(/*with_sql=*/false)["meta"];
    answered.result = ExplainResult(translation.query, meta.value("rollup", ordered_json()));
    return answered;
  }
  for (const SqlOutput& output : translation.outputs) {
    answered.result.columns.push_back({output.name, output.type});
  }
  if (describe_only) return answered;
  STRATA_ASSIGN_OR_RETURN(SemanticAnswer answer,
                          backend_.Answer(role_, translation.query.dump(), MonotonicMillis(),
                                          options_.query_cancel, /*cached=*/true));
  last_rollup_ = answer.rollup;
  last_cache_ = answer.cache;
  const query::QueryResponse& response = answer.response;
  std::vector<std::size_t> sources;
  for (const SqlOutput& output : translation.outputs) {
    std::size_t found = response.columns.size();
    for (std::size_t index = 0; index < response.columns.size(); ++index) {
      if (response.columns[index].name == output.source) found = index;
    }
    if (found == response.columns.size()) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("the semantic answer has no column {}", output.source));
    }
    sources.push_back(found);
  }
  answered.result.rows.reserve(response.rows.size());
  for (const auto& row : response.rows) {
    std::vector<std::optional<std::string>> cells;
    cells.reserve(sources.size());
    for (std::size_t index = 0; index < sources.size(); ++index) {
      cells.push_back(OutputText(translation.outputs[index], row[sources[index]]));
    }
    answered.result.rows.push_back(std::move(cells));
  }
  return answered;
}

Result<Outcome> Connection::RunCursorStatement(std::string_view keyword, std::string_view sql,
                                               const Parameters& parameters, bool describe_only) {
  Outcome outcome;
  if (keyword == "DECLARE") {
    STRATA_ASSIGN_OR_RETURN(DeclareCursor declare, ParseDeclareCursor(sql));
    if (describe_only) return outcome;
    if (cursors_.count(declare.name) != 0) {
      return MakeError(ErrorCode::kSqlUnsupported,
                       fmt::format("cursor \"{}\" already exists", declare.name), "CLOSE it first");
    }
    if (declare.binary) {
      return MakeError(ErrorCode::kSqlUnsupported,
                       "a BINARY cursor is not supported by the SQL port",
                       "declare it without BINARY; the extended protocol's Bind asks for binary "
                       "results");
    }
    STRATA_ASSIGN_OR_RETURN(Outcome answered, RunQuery(declare.query, parameters, nullptr, false,
                                                       /*explain=*/false));
    Portal cursor;
    cursor.result = std::move(answered.result);
    cursors_[declare.name] = std::move(cursor);
    cursor_holds_[declare.name] = declare.hold;
    outcome.result.tag = "DECLARE CURSOR";
    return outcome;
  }
  if (keyword == "CLOSE") {
    STRATA_ASSIGN_OR_RETURN(std::optional<std::string> name, ParseCloseCursor(sql));
    if (describe_only) return outcome;
    if (!name) {
      cursors_.clear();
      cursor_holds_.clear();
    } else if (cursors_.erase(*name) == 0) {
      return MakeError(ErrorCode::kSqlUnsupported,
                       fmt::format("cursor \"{}\" does not exist", *name), "");
    }
    outcome.result.tag = "CLOSE CURSOR";
    return outcome;
  }
  STRATA_ASSIGN_OR_RETURN(FetchCursor fetch, ParseFetchCursor(sql));
  auto found = cursors_.find(fetch.name);
  if (found == cursors_.end()) {
    return MakeError(ErrorCode::kSqlUnsupported,
                     fmt::format("cursor \"{}\" does not exist", fetch.name),
                     "DECLARE it first (in this session)");
  }
  Portal& cursor = found->second;
  const ResultSet& all = *cursor.result;
  outcome.result.columns = all.columns;
  outcome.has_rows = !fetch.move;
  if (describe_only) return outcome;
  const std::size_t remaining = all.rows.size() - cursor.position;
  const std::size_t take =
      fetch.count ? std::min<std::size_t>(remaining, static_cast<std::size_t>(*fetch.count))
                  : remaining;
  if (!fetch.move) {
    outcome.result.rows.assign(
        all.rows.begin() + static_cast<std::ptrdiff_t>(cursor.position),
        all.rows.begin() + static_cast<std::ptrdiff_t>(cursor.position + take));
  }
  cursor.position += take;
  outcome.result.tag = fmt::format("{} {}", fetch.move ? "MOVE" : "FETCH", take);
  return outcome;
}

}  // namespace strata::serve::pg::internal
