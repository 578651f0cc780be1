#include "serve/pg/catalog_utility.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "base/ascii.h"
#include "base/time.h"
#include "sql/lexer.h"

namespace strata::serve::pg {
namespace {

using sql::Token;
using sql::TokenKind;

// PostgreSQL's spelling of the settings whose names are not lower case (SHOW's column name).
std::string DisplayName(const std::string& lower) {
  if (lower == "timezone") return "TimeZone";
  if (lower == "datestyle") return "DateStyle";
  if (lower == "intervalstyle") return "IntervalStyle";
  return lower;
}

// A setting's value as written: a string's content, else the token's text.
std::string ValueText(const Token& token) {
  if (token.kind == TokenKind::kString && token.text.size() >= 2 && token.text.front() == '\'') {
    std::string out;
    const std::string_view inner = token.text.substr(1, token.text.size() - 2);
    for (std::size_t i = 0; i < inner.size(); ++i) {
      out += inner[i];
      if (inner[i] == '\'' && i + 1 < inner.size() && inner[i + 1] == '\'') ++i;
    }
    return out;
  }
  if (token.kind == TokenKind::kQuotedIdentifier) {
    return sql::IdentifierName(token, sql::Dialect::kPostgres);
  }
  return std::string(token.text);
}

ResultSet Tagged(std::string tag) {
  ResultSet result;
  result.tag = std::move(tag);
  return result;
}

Status Assign(SessionSettings& settings, const std::string& name, std::string value) {
  if (name == "timezone") {
    STRATA_ASSIGN_OR_RETURN(TimeZone zone, TimeZone::Find(value, "TimeZone"));
    value = std::string(zone.name());
  }
  settings.values[name] = std::move(value);
  return Ok{};
}

void Reset(SessionSettings& settings, const std::string& name) {
  const SessionSettings defaults = SessionSettings::Defaults();
  const auto found = defaults.values.find(name);
  if (found != defaults.values.end()) {
    settings.values[name] = found->second;
  } else {
    settings.values.erase(name);
  }
}

void ResetAll(SessionSettings& settings) {
  SessionSettings defaults = SessionSettings::Defaults();
  settings.values = std::move(defaults.values);
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

struct Statement {
  std::vector<Token> words;  // the significant tokens, without a trailing ';'
  bool Keyword(std::size_t i, std::string_view upper) const {
    return i < words.size() && sql::IsKeyword(words[i], upper);
  }
  bool Symbol(std::size_t i, std::string_view symbol) const {
    return i < words.size() && sql::IsSymbol(words[i], symbol);
  }
  // The dotted name starting at `i`, lower case; `i` moves past it.
  std::string Name(std::size_t& i) const {
    std::string name;
    while (i < words.size()) {
      name += AsciiLowered(sql::IdentifierName(words[i], sql::Dialect::kPostgres));
      ++i;
      if (!Symbol(i, ".")) break;
      name += '.';
      ++i;
    }
    return name;
  }
};

Result<ResultSet> Set(const Statement& statement, SessionSettings& settings) {
  std::size_t i = 1;
  if (statement.Keyword(i, "SESSION") || statement.Keyword(i, "LOCAL")) ++i;
  if (statement.Keyword(i, "TRANSACTION") || statement.Keyword(i, "CHARACTERISTICS") ||
      statement.Keyword(i, "AUTHORIZATION") || statement.Keyword(i, "ROLE")) {
    return Tagged("SET");  // transactions are no-ops; the role comes from the token
  }
  std::string name;
  if (statement.Keyword(i, "TIME") && statement.Keyword(i + 1, "ZONE")) {
    name = "timezone";
    i += 2;
  } else {
    name = statement.Name(i);
    if (!statement.Symbol(i, "=") && !statement.Keyword(i, "TO")) {
      return MakeError(ErrorCode::kSqlUnsupported, "SET needs a name, = or TO, and a value",
                       "SET TimeZone = 'UTC'");
    }
    ++i;
  }
  if (i >= statement.words.size() || statement.Keyword(i, "DEFAULT") ||
      statement.Keyword(i, "LOCAL")) {
    Reset(settings, name);
    return Tagged("SET");
  }
  std::string value;
  for (; i < statement.words.size(); ++i) {
    if (statement.Symbol(i, ",")) {
      value += ", ";
      continue;
    }
    value += ValueText(statement.words[i]);
  }
  STRATA_TRY(Assign(settings, name, std::move(value)));
  return Tagged("SET");
}

Result<ResultSet> Show(const Statement& statement, const SessionSettings& settings) {
  std::size_t i = 1;
  ResultSet result;
  result.tag = "SHOW";
  if (statement.Keyword(i, "ALL")) {
    result.columns = {
        {"name", PgType::kText}, {"setting", PgType::kText}, {"description", PgType::kText}};
    for (const auto& [name, value] : settings.values) {
      result.rows.push_back({DisplayName(name), value, std::string()});
    }
    return result;
  }
  std::string name;
  if (statement.Keyword(i, "TIME") && statement.Keyword(i + 1, "ZONE")) {
    name = "timezone";
  } else if (statement.Keyword(i, "TRANSACTION") && statement.Keyword(i + 1, "ISOLATION")) {
    name = "transaction_isolation";
  } else {
    name = statement.Name(i);
  }
  const std::optional<std::string> value = settings.Get(name);
  if (!value) {
    return MakeError(ErrorCode::kQueryInvalid,
                     fmt::format("unrecognized configuration parameter \"{}\"", name),
                     "SHOW ALL lists the parameters");
  }
  result.columns = {{DisplayName(name), PgType::kText}};
  result.rows.push_back({*value});
  return result;
}

Result<ResultSet> ResetStatement(const Statement& statement, SessionSettings& settings) {
  std::size_t i = 1;
  if (statement.Keyword(i, "ALL")) {
    ResetAll(settings);
    return Tagged("RESET");
  }
  std::string name = statement.Keyword(i, "TIME") ? "timezone" : statement.Name(i);
  Reset(settings, name);
  return Tagged("RESET");
}

// SELECT [pg_catalog.]set_config('name', 'value', is_local): the one form that changes a setting
// from a query. nullopt when the statement is another SELECT.
Result<std::optional<ResultSet>> SetConfig(const Statement& statement, SessionSettings& settings) {
  std::size_t i = 1;
  if (statement.words.size() > i + 2 && AsciiLowered(statement.words[i].text) == "pg_catalog" &&
      statement.Symbol(i + 1, ".")) {
    i += 2;
  }
  const auto& w = statement.words;
  const bool shape = statement.Keyword(i, "SET_CONFIG") && statement.Symbol(i + 1, "(") &&
                     w.size() == i + 8 && w[i + 2].kind == TokenKind::kString &&
                     statement.Symbol(i + 3, ",") && w[i + 4].kind == TokenKind::kString &&
                     statement.Symbol(i + 5, ",") && statement.Symbol(i + 7, ")");
  if (!shape) return std::optional<ResultSet>();
  const std::string name = AsciiLowered(ValueText(w[i + 2]));
  STRATA_TRY(Assign(settings, name, ValueText(w[i + 4])));
  ResultSet result;
  result.columns = {{"set_config", PgType::kText}};
  result.rows.push_back({settings.Get(name)});
  return std::optional<ResultSet>(std::move(result));
}

// The tag of a statement the session acknowledges without an effect on the catalog:
// transactions (there are none to keep), savepoints, DISCARD ALL, DEALLOCATE.
std::optional<std::string> AcknowledgedTag(const Statement& statement) {
  if (statement.Keyword(0, "BEGIN")) return "BEGIN";
  if (statement.Keyword(0, "START") && statement.Keyword(1, "TRANSACTION")) {
    return "START TRANSACTION";
  }
  if (statement.Keyword(0, "COMMIT") || statement.Keyword(0, "END")) return "COMMIT";
  if (statement.Keyword(0, "SAVEPOINT")) return "SAVEPOINT";
  if (statement.Keyword(0, "RELEASE")) return "RELEASE";
  if (statement.Keyword(0, "ROLLBACK") || statement.Keyword(0, "ABORT")) return "ROLLBACK";
  if (statement.Keyword(0, "DISCARD") && statement.Keyword(1, "ALL")) return "DISCARD ALL";
  if (statement.Keyword(0, "DEALLOCATE")) {
    return statement.Keyword(statement.words.size() - 1, "ALL") ? "DEALLOCATE ALL" : "DEALLOCATE";
  }
  return std::nullopt;
}

Error Refusal(const Statement& statement) {
  for (std::string_view cursor : {"DECLARE", "FETCH", "CLOSE", "MOVE"}) {
    if (statement.Keyword(0, cursor)) {
      return MakeError(ErrorCode::kSqlUnsupported,
                       fmt::format("{} is a cursor statement, which the catalog does not answer",
                                   Upper(statement.words[0].text)),
                       "the protocol session runs cursors");
    }
  }
  return MakeError(
      ErrorCode::kSqlUnsupported,
      fmt::format("{} is not supported: the SQL port is read-only and answers queries",
                  Upper(statement.words[0].text)),
      "SELECT from the strata schema's tables, or from pg_catalog and information_schema");
}

}  // namespace

SessionSettings SessionSettings::Defaults() {
  SessionSettings settings;
  settings.values = {
      {"application_name", ""},
      {"block_size", "8192"},
      {"bytea_output", "hex"},
      {"client_encoding", "UTF8"},
      {"client_min_messages", "notice"},
      {"datestyle", "ISO, MDY"},
      {"default_transaction_isolation", "read committed"},
      {"default_transaction_read_only", "on"},
      {"extra_float_digits", "1"},
      {"idle_in_transaction_session_timeout", "0"},
      {"integer_datetimes", "on"},
      {"intervalstyle", "postgres"},
      {"is_superuser", "off"},
      {"lc_collate", "C"},
      {"lc_ctype", "C"},
      {"lock_timeout", "0"},
      {"max_identifier_length", "63"},
      {"max_index_keys", "32"},
      {"search_path", "strata, pg_catalog"},
      {"server_encoding", "UTF8"},
      {"server_version", "16.0 (strata)"},
      {"server_version_num", "160000"},
      {"standard_conforming_strings", "on"},
      {"statement_timeout", "0"},
      {"timezone", "UTC"},
      {"transaction_isolation", "read committed"},
      {"transaction_read_only", "on"},
  };
  return settings;
}

std::optional<std::string> SessionSettings::Get(std::string_view name) const {
  const std::string lower = AsciiLowered(name);
  if (lower == "session_authorization" || lower == "role") return user;
  const auto found = values.find(lower);
  if (found == values.end()) return std::nullopt;
  return found->second;
}

Result<std::optional<ResultSet>> ExecuteUtility(std::string_view sql, SessionSettings& settings) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, sql::Lex(sql, sql::Dialect::kPostgres));
  Statement statement;
  for (const Token& token : tokens) {
    if (!sql::IsTrivia(token) && token.kind != TokenKind::kEnd) statement.words.push_back(token);
  }
  while (!statement.words.empty() && sql::IsSymbol(statement.words.back(), ";")) {
    statement.words.pop_back();
  }
  if (statement.words.empty()) return std::optional<ResultSet>(Tagged("EMPTY"));
  const auto answer = [](Result<ResultSet> result) -> Result<std::optional<ResultSet>> {
    if (!result.ok()) return result.error();
    return std::optional<ResultSet>(std::move(result).value());
  };
  if (statement.Keyword(0, "SELECT")) return SetConfig(statement, settings);
  if (statement.Keyword(0, "WITH") || statement.Keyword(0, "VALUES") ||
      statement.Keyword(0, "TABLE") || statement.Symbol(0, "(")) {
    return std::optional<ResultSet>();
  }
  if (statement.Keyword(0, "SET")) return answer(Set(statement, settings));
  if (statement.Keyword(0, "SHOW")) return answer(Show(statement, settings));
  if (statement.Keyword(0, "RESET")) return answer(ResetStatement(statement, settings));
  if (statement.Keyword(0, "DISCARD") && statement.Keyword(1, "ALL")) ResetAll(settings);
  if (std::optional<std::string> tag = AcknowledgedTag(statement)) return answer(Tagged(*tag));
  return Refusal(statement);
}

}  // namespace strata::serve::pg
