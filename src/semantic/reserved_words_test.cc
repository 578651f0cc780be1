// Reserved words against the engines' own lists (issue 39): DuckDB's duckdb_keywords() and
// PostgreSQL's pg_get_keywords(), read from the real engines (embedded DuckDB; a throw-away
// PostgreSQL server from scripts/pg_test_server.sh). Every word the engine reserves is reserved
// in our dialect set; and for every reserved or type/function word the engine refuses bare as a
// column reference, a semantic member written with it bare (dimension and measure `sql`, measure
// `filter`, entity `sql`) is refused at load with file:line, the member and a hint to quote it,
// while the quoted word loads. A word the engine reads bare (TRUE, PostgreSQL's CURRENT_DATE)
// loads bare too: the parser is never stricter than the engine.
#include "sql/reserved_words.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "semantic/loader.h"
#include "sql/dialect.h"
#include "warehouse/duckdb/duckdb_warehouse.h"
#include "warehouse/postgres/postgres_warehouse.h"
#include "warehouse/postgres/testing/pg_test_server.h"

namespace strata::semantic {
namespace {

using TestServer = warehouse::testing::PgTestServerState;

const auto* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new warehouse::testing::PgTestEnvironment);

struct EngineWord {
  std::string word;       // lower case, as the engine lists it
  bool reserved = false;  // DuckDB 'reserved', PostgreSQL catcode 'R'
};

// The engine's reserved and type/function words (the others can be column names).
std::vector<EngineWord> ReadWords(warehouse::Connection& connection, const std::string& query) {
  std::vector<EngineWord> words;
  Result<warehouse::QueryResult> result = connection.Execute(query);
  EXPECT_TRUE(result.ok()) << result.error().ToString();
  if (!result.ok()) return words;
  for (std::size_t row = 0; row < result->row_count(); ++row) {
    words.push_back({warehouse::ValueToString(result->columns[0].values[row]),
                     warehouse::ValueToString(result->columns[1].values[row]) == "1"});
  }
  return words;
}

// Whether the engine reads `word`, bare, where a column reference may stand.
bool EngineAcceptsBare(warehouse::Connection& connection, const std::string& word,
                       sql::Dialect dialect) {
  return connection
      .Execute("SELECT (" + word + ") AS probe FROM (SELECT 1 AS " +
               sql::QuoteIdentifier(word, dialect) + ") AS t")
      .ok();
}

// One entity whose `key` (at line 4 or later) is `text`; members on one line each.
std::string Model(const std::string& dimension_sql, const std::string& measure_sql,
                  const std::string& filter) {
  return "entities:\n"
         "  - name: Order\n"
         "    table: raw.orders\n"
         "    dimensions:\n"
         "      - { name: when_placed, type: string, sql: '" +
         dimension_sql +
         "' }\n"
         "    measures:\n"
         "      - { name: total, agg: sum, sql: '" +
         measure_sql + "' }\n      - { name: filtered, agg: count, filter: '" + filter + "' }\n";
}

std::string EntityModel(const std::string& column) {
  return "entities:\n"
         "  - name: Order\n"
         "    sql: 'SELECT id, " +
         column + " FROM raw.orders'\n";
}

std::vector<Error> Load(const std::string& yaml, sql::Dialect dialect) {
  return LoadSemanticModel({{"semantic/t.yml", yaml}}, dialect, 1).errors;
}

std::string Describe(const std::vector<Error>& errors) {
  std::string out;
  for (const Error& error : errors) out += error.ToString() + "\n";
  return out;
}

// The one error at `line` names `member` and hints the quoted word.
void ExpectRefused(const std::vector<Error>& errors, int line, const std::string& member,
                   const std::string& quoted, const std::string& word) {
  ASSERT_EQ(errors.size(), 1u) << word << ":\n" << Describe(errors);
  const Error& error = errors[0];
  EXPECT_EQ(error.code, ErrorCode::kSemanticInvalid);
  ASSERT_TRUE(error.span.has_value());
  EXPECT_EQ(error.span->file, "semantic/t.yml");
  EXPECT_EQ(error.span->line, line) << error.ToString();
  EXPECT_NE(error.message.find(member), std::string::npos) << error.ToString();
  EXPECT_NE(error.hint.find(quoted), std::string::npos) << error.ToString();
}

// Checks one word; true when the engine refuses it bare (and so must we).
bool CheckWord(warehouse::Connection& connection, const EngineWord& word, sql::Dialect dialect) {
  const std::string quoted = sql::QuoteIdentifier(word.word, dialect);
  if (word.reserved) {
    EXPECT_TRUE(sql::IsReservedWord(word.word, dialect))
        << word.word << " is reserved in " << sql::DialectName(dialect);
  }
  const std::string plain = "amount";
  EXPECT_TRUE(Load(Model(quoted, quoted, quoted + " = 1"), dialect).empty())
      << Describe(Load(Model(quoted, quoted, quoted + " = 1"), dialect));
  EXPECT_TRUE(Load(EntityModel(quoted), dialect).empty())
      << Describe(Load(EntityModel(quoted), dialect));
  if (EngineAcceptsBare(connection, word.word, dialect)) {
    EXPECT_TRUE(Load(Model(word.word, plain, plain + " = 1"), dialect).empty())
        << word.word << " is read bare by " << sql::DialectName(dialect) << ":\n"
        << Describe(Load(Model(word.word, plain, plain + " = 1"), dialect));
    return false;
  }
  ExpectRefused(Load(Model(word.word, plain, plain + " = 1"), dialect), 5,
                "dimension \"when_placed\"", quoted, word.word);
  ExpectRefused(Load(Model(plain, word.word, plain + " = 1"), dialect), 7, "measure \"total\"",
                quoted, word.word);
  ExpectRefused(Load(Model(plain, plain, word.word + " = 1"), dialect), 8, "measure \"filtered\"",
                quoted, word.word);
  ExpectRefused(Load(EntityModel(word.word), dialect), 3, "entity \"Order\"", quoted, word.word);
  return true;
}

void CheckWords(warehouse::Connection& connection, const std::vector<EngineWord>& words,
                sql::Dialect dialect) {
  int refused = 0;
  for (const EngineWord& word : words) refused += CheckWord(connection, word, dialect) ? 1 : 0;
  std::printf("%s: %d of %zu reserved and type/function words refused bare\n",
              std::string(sql::DialectName(dialect)).c_str(), refused, words.size());
}

TEST(ReservedWords, DuckDbReservedWordsAreRefusedBareAndLoadQuoted) {
  auto opened = warehouse::OpenDuckDb(":memory:");
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  auto connection = (*opened)->Connect();
  ASSERT_TRUE(connection.ok()) << connection.error().ToString();
  const std::vector<EngineWord> words =
      ReadWords(**connection,
                "SELECT keyword_name, CASE WHEN keyword_category = 'reserved' THEN 1 ELSE 0 END "
                "FROM duckdb_keywords() "
                "WHERE keyword_category IN ('reserved', 'type_function') ORDER BY 1");
  ASSERT_GE(words.size(), 100u);
  CheckWords(**connection, words, sql::Dialect::kDuckDb);
}

TEST(ReservedWords, PostgresReservedWordsAreRefusedBareAndLoadQuoted) {
  const TestServer& server = warehouse::testing::PgTestServer();
  if (server.state == TestServer::State::kNoBinaries) {
    GTEST_SKIP() << "PostgreSQL server binaries are not installed";
  }
  ASSERT_EQ(server.state, TestServer::State::kRunning) << server.failure;
  auto opened = warehouse::OpenPostgres({server.dsn, std::nullopt});
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  auto connection = (*opened)->Connect();
  ASSERT_TRUE(connection.ok()) << connection.error().ToString();
  const std::vector<EngineWord> words =
      ReadWords(**connection,
                "SELECT word, CASE WHEN catcode = 'R' THEN 1 ELSE 0 END FROM pg_get_keywords() "
                "WHERE catcode IN ('R', 'T') ORDER BY 1");
  ASSERT_GE(words.size(), 90u);
  CheckWords(**connection, words, sql::Dialect::kPostgres);
}

}  // namespace
}  // namespace strata::semantic
