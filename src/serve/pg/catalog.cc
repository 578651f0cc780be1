#include "serve/pg/catalog.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <utility>

#include "base/ascii.h"
#include "serve/pg/catalog_functions.h"
#include "serve/pg/catalog_result.h"
#include "serve/pg/catalog_rewrite.h"
#include "serve/pg/catalog_schema.h"
#include "serve/pg/catalog_tables.h"
#include "serve/pg/catalog_utility.h"
#include "sql/lexer.h"
#include "warehouse/duckdb/duckdb_engine.h"

namespace strata::serve::pg {
namespace {

// Connections answering at once; more statements wait for one (a catalog statement takes about a
// millisecond, see catalog.h).
constexpr int kPoolSize = 4;

// Each connection searches our pg_catalog first, as PostgreSQL searches its own.
constexpr char kConnectionSetup[] = "SET search_path = 'pgcat,strata,main'";

// Keywords that would make DuckDB write or reach outside the catalog, refused wherever they
// appear outside strings and quoted names (a catalog query never needs them; a WITH can front an
// INSERT in DuckDB).
bool IsWriteKeyword(const sql::Token& token) {
  for (std::string_view keyword :
       {"INSERT", "UPDATE",   "DELETE", "MERGE",   "CREATE", "DROP",       "ALTER",  "COPY",
        "ATTACH", "DETACH",   "PRAGMA", "INSTALL", "LOAD",   "CHECKPOINT", "EXPORT", "IMPORT",
        "CALL",   "TRUNCATE", "VACUUM", "GRANT",   "REVOKE", "SET",        "RESET",  "USE"}) {
    if (sql::IsKeyword(token, keyword)) return true;
  }
  return false;
}

Status CheckReadOnly(std::string_view sql) {
  STRATA_ASSIGN_OR_RETURN(std::vector<sql::Token> tokens, sql::Lex(sql, sql::Dialect::kPostgres));
  for (const sql::Token& token : tokens) {
    // "SET" also follows UPDATE ... and ON CONFLICT; as a word of its own in a SELECT it is not
    // PostgreSQL either.
    if (IsWriteKeyword(token)) {
      return MakeError(ErrorCode::kSqlUnsupported,
                       fmt::format("{} is not supported: the SQL port is read-only", token.text),
                       "the catalog answers SELECT over pg_catalog and information_schema");
    }
  }
  return Ok{};
}

// The SQL that sets the session's DuckDB variables (catalog_functions.h).
std::string SessionPrelude(const SessionSettings& settings) {
  std::string map;
  for (const auto& [name, value] : settings.values) {
    if (!map.empty()) map += ", ";
    map += QuoteLiteral(name) + ": " + QuoteLiteral(value);
  }
  const std::string database = settings.database.empty() ? settings.user : settings.database;
  return fmt::format(
      "SET VARIABLE strata_settings = CAST(MAP {{{}}} AS MAP(VARCHAR, VARCHAR)); "
      "SET VARIABLE strata_user = {}; SET VARIABLE strata_database = {};\n",
      map, QuoteLiteral(settings.user), QuoteLiteral(database));
}

// The warehouse reads a list cell as empty text: when `result` has rows and list columns
// (`types` from DESCRIBE), reads them again cast to text ("[a, b]"), by position, in the same
// order. Left as they are when that fails.
void ReadListsAsText(warehouse::Connection& connection, const std::string& sql,
                     const std::vector<std::string>& types, warehouse::QueryResult& result) {
  if (types.size() != result.columns.size() || result.row_count() == 0) return;
  std::string columns;
  bool lists = false;
  for (std::size_t index = 0; index < types.size(); ++index) {
    const bool list = types[index].ends_with("[]");
    lists = lists || list;
    if (!columns.empty()) columns += ", ";
    columns +=
        list ? fmt::format("CAST(#{} AS VARCHAR)", index + 1) : fmt::format("#{}", index + 1);
  }
  if (!lists) return;
  Result<warehouse::QueryResult> text =
      connection.Execute(fmt::format("SELECT {} FROM ({}\n) AS strata_result", columns, sql));
  if (!text.ok() || text->row_count() != result.row_count() ||
      text->columns.size() != result.columns.size()) {
    return;
  }
  for (std::size_t index = 0; index < types.size(); ++index) {
    if (types[index].ends_with("[]")) result.columns[index].values = text->columns[index].values;
  }
}

Error MapError(Error error) {
  const std::string& message = error.message;
  const bool missing = message.find("does not exist") != std::string::npos;
  const bool relation = message.find("Table with name") != std::string::npos ||
                        message.find("relation \"") != std::string::npos;
  if (missing && relation) {
    error.code = ErrorCode::kUndefinedTable;
    // PostgreSQL's wording, without DuckDB's "did you mean" (it may name our pgcat tables).
    constexpr std::string_view kTableWith = "Table with name ";
    const std::size_t name = message.find(kTableWith);
    const std::size_t end = message.find(" does not exist");
    if (name != std::string::npos && end != std::string::npos && end > name) {
      const std::size_t from = name + kTableWith.size();
      error.message =
          fmt::format("relation \"{}\" does not exist", message.substr(from, end - from));
    }
  } else if (message.find("Referenced column") != std::string::npos) {
    error.code = ErrorCode::kQueryInvalid;
  } else if (error.code == ErrorCode::kWarehouseCatalog ||
             error.code == ErrorCode::kWarehouseSyntax || error.code == ErrorCode::kWarehouse) {
    error.code = ErrorCode::kSqlUnsupported;
    if (error.hint.empty()) error.hint = "the SQL port's catalog does not answer this statement";
  }
  return error;
}

class DuckDbCatalog final : public SqlCatalog {
 public:
  DuckDbCatalog(std::unique_ptr<warehouse::Warehouse> database,
                std::vector<std::unique_ptr<warehouse::Connection>> pool,
                std::set<std::string> functions)
      : database_(std::move(database)), functions_(std::move(functions)), idle_(std::move(pool)) {}

  Result<ResultSet> Execute(std::string_view sql,
                            const std::vector<std::optional<std::string>>& parameters,
                            SessionSettings& settings) override {
    STRATA_ASSIGN_OR_RETURN(std::optional<ResultSet> utility, ExecuteUtility(sql, settings));
    if (utility) return std::move(*utility);
    STRATA_ASSIGN_OR_RETURN(std::string rewritten, RewriteCatalogSql(sql, parameters, functions_));
    STRATA_TRY(CheckReadOnly(rewritten));
    std::unique_ptr<warehouse::Connection> connection = Acquire();
    Result<warehouse::QueryResult> result = connection->Execute(SessionPrelude(settings));
    // The result's exact types (int2, int4, arrays, an empty timestamptz column): DESCRIBE
    // binds without running. When DuckDB cannot describe it, the values' types will do.
    Result<warehouse::QueryResult> described = connection->Execute("DESCRIBE " + rewritten);
    if (result.ok()) result = connection->Execute(rewritten);
    std::vector<std::string> types;
    if (described.ok() && described->columns.size() >= 2) {
      for (const warehouse::Value& type : described->columns[1].values) {
        types.push_back(warehouse::ValueToString(type));
      }
    }
    if (result.ok()) ReadListsAsText(*connection, rewritten, types, *result);
    Release(std::move(connection));
    if (!result.ok()) return MapError(result.error());
    return ToResultSet(result.value(), types);
  }

 private:
  // One of the pool's connections, waiting for one to come back when all are busy: the pool is
  // fixed because a new connection sets TimeZone, which the locked configuration refuses.
  std::unique_ptr<warehouse::Connection> Acquire() {
    std::unique_lock<std::mutex> lock(mutex_);
    returned_.wait(lock, [this] { return !idle_.empty(); });
    std::unique_ptr<warehouse::Connection> connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }

  void Release(std::unique_ptr<warehouse::Connection> connection) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      idle_.push_back(std::move(connection));
    }
    returned_.notify_one();
  }

  std::unique_ptr<warehouse::Warehouse> database_;
  const std::set<std::string> functions_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<warehouse::Connection>> idle_;
};

Status Run(warehouse::Connection& connection, std::string_view statement) {
  Result<warehouse::QueryResult> result = connection.Execute(statement);
  if (!result.ok()) {
    Error error = result.error();
    error.code = ErrorCode::kInternal;  // our own bootstrap SQL: a bug, not the caller's
    error.notes.push_back("while building the SQL port's catalog");
    return error;
  }
  return Ok{};
}

}  // namespace

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(const std::vector<SqlTable>& tables) {
  warehouse::EngineOptions options;
  options.threads = 1;  // catalog answers are tiny; sessions bring the parallelism
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Warehouse> database,
                          warehouse::OpenDuckDbEngine(options));
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, database->Connect());
  STRATA_TRY(Run(*connection, "CREATE SCHEMA pgcat; CREATE SCHEMA pginfo; CREATE SCHEMA strata"));
  for (std::string_view statement : CatalogSchemaStatements()) {
    STRATA_TRY(Run(*connection, statement));
  }
  for (std::string_view statement : CatalogFunctionStatements()) {
    STRATA_TRY(Run(*connection, statement));
  }
  for (const std::string& statement : CatalogTableStatements(tables)) {
    STRATA_TRY(Run(*connection, statement));
  }
  Result<warehouse::QueryResult> names = connection->Execute(
      "SELECT DISTINCT function_name FROM duckdb_functions() "
      "WHERE schema_name IN ('pgcat', 'pginfo')");
  if (!names.ok()) return names.error();
  STRATA_ASSIGN_OR_RETURN(std::vector<std::string> lower, warehouse::LowerCaseNames(*names));
  std::vector<std::unique_ptr<warehouse::Connection>> pool;
  for (int index = 0; index < kPoolSize; ++index) {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> pooled, database->Connect());
    STRATA_TRY(Run(*pooled, kConnectionSetup));
    pool.push_back(std::move(pooled));
  }
  // No file access and no configuration changes from any statement, whatever it calls.
  STRATA_TRY(Run(*connection, "SET enable_external_access = false"));
  STRATA_TRY(Run(*connection, "SET lock_configuration = true"));
  return std::unique_ptr<SqlCatalog>(new DuckDbCatalog(
      std::move(database), std::move(pool), std::set<std::string>(lower.begin(), lower.end())));
}

}  // namespace strata::serve::pg
