// DuckDB as an oracle for the parser (issue 3, "Tests"): for every query of the corpus in
// queries/*.sql, DuckDB's json_serialize_sql() says whether DuckDB's parser accepts it and, if so,
// what set operations, CTEs and joins it contains. sql::ParseScript (DuckDB dialect) must accept
// exactly the same queries and find the same shape (query_shape.h).
//
// Corpus format: each "-- query: <name>" line starts a query that runs to the next such line;
// lines before the first are a comment. Every query in invalid.sql must be rejected by DuckDB,
// every other query accepted (so the corpus says what it means to test).
//
// known_parser_gaps.txt lists "<file stem>: <query name>" for disagreements that are parser bugs
// not yet fixed. A listed query that disagrees is reported as an expected failure; one that agrees
// fails the test until it is removed from the list, and an unlisted disagreement fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "query_shape.h"
#include "sql/dialect.h"
#include "sql/parser.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::oracle {
namespace {

namespace fs = std::filesystem;

struct CorpusQuery {
  std::string id;  // "<file stem>: <name>"
  std::string sql;
  bool must_be_invalid = false;
};

std::string Trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const std::size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::vector<CorpusQuery> ReadCorpus(const fs::path& directory) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    if (entry.path().extension() == ".sql") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<CorpusQuery> corpus;
  constexpr std::string_view kMarker = "-- query: ";
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::string line;
    const std::size_t first = corpus.size();
    while (std::getline(in, line)) {
      if (line.rfind(kMarker, 0) == 0) {
        corpus.push_back({file.stem().string() + ": " + Trim(line.substr(kMarker.size())), "",
                          file.stem() == "invalid"});
      } else if (corpus.size() > first) {
        corpus.back().sql += line + "\n";
      }
    }
    for (std::size_t i = first; i < corpus.size(); ++i) corpus[i].sql = Trim(corpus[i].sql);
  }
  return corpus;
}

std::set<std::string> ReadKnownGaps(const fs::path& path) {
  std::set<std::string> gaps;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (!line.empty() && line[0] != '#') gaps.insert(line);
  }
  return gaps;
}

// DuckDB's verdict: the parsed "statements" array, or nullopt when DuckDB rejects the query.
// bugprone-exception-escape flags its implicit destructor: clang-tidy 14 finds a throw deep in the
// call graph of nlohmann::json's destructor (so in every struct with a json member it sees
// destroyed), but ~basic_json is noexcept.
// NOLINTNEXTLINE(bugprone-exception-escape): ~basic_json is noexcept (above).
struct DuckDbVerdict {
  bool accepted = false;
  std::string error_message;
  nlohmann::json statements;
};

DuckDbVerdict AskDuckDb(warehouse::Connection& connection, const std::string& sql) {
  const std::string query = "SELECT CAST(json_serialize_sql(" +
                            sql::QuoteString(sql, sql::Dialect::kDuckDb) + ") AS VARCHAR)";
  Result<warehouse::QueryResult> result = connection.Execute(query);
  DuckDbVerdict verdict;
  if (!result.ok()) {  // json_serialize_sql raised instead of returning {"error": true}
    verdict.error_message = result.error().message;
    return verdict;
  }
  const auto& cell = result->columns.at(0).values.at(0);
  const nlohmann::json json = nlohmann::json::parse(std::get<std::string>(cell));
  verdict.accepted = !json.value("error", true);
  verdict.error_message = json.value("error_message", std::string());
  if (verdict.accepted) verdict.statements = json["statements"];
  return verdict;
}

// "" when our parser agrees with DuckDB on `query`, else what differs.
std::string Disagreement(const CorpusQuery& query, const DuckDbVerdict& duckdb) {
  Result<std::vector<sql::StatementPtr>> ours = sql::ParseScript(query.sql, sql::Dialect::kDuckDb);
  if (ours.ok() != duckdb.accepted) {
    return duckdb.accepted ? "DuckDB accepts, we reject: " + ours.error().message
                           : "DuckDB rejects (" + duckdb.error_message + "), we accept";
  }
  if (!duckdb.accepted) return "";
  if (ours->size() != duckdb.statements.size()) {
    return "statement count: DuckDB " + std::to_string(duckdb.statements.size()) + ", ours " +
           std::to_string(ours->size());
  }
  QueryShape our_shape;
  for (const sql::StatementPtr& statement : *ours) {
    const QueryShape shape = ShapeOfStatement(*statement);
    for (const auto& [op, count] : shape.set_operations) our_shape.set_operations[op] += count;
    our_shape.cte_names.insert(shape.cte_names.begin(), shape.cte_names.end());
    our_shape.joins.insert(shape.joins.begin(), shape.joins.end());
  }
  const QueryShape duckdb_shape = ShapeOfDuckDbJson(duckdb.statements);
  if (our_shape == duckdb_shape) return "";
  return "shape differs:\n  DuckDB: " + duckdb_shape.ToString() +
         "\n  ours:   " + our_shape.ToString();
}

class DuckDbOracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<warehouse::Warehouse>> opened = warehouse::OpenDuckDb(":memory:");
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    warehouse_ = std::move(*opened);
    Result<std::unique_ptr<warehouse::Connection>> connected = warehouse_->Connect();
    ASSERT_TRUE(connected.ok()) << connected.error().message;
    connection_ = std::move(*connected);
  }

  const fs::path directory_ = STRATA_ORACLE_DIR;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
  std::unique_ptr<warehouse::Connection> connection_;
};

TEST_F(DuckDbOracleTest, CorpusIsLargeAndSaysWhatItMeans) {
  const std::vector<CorpusQuery> corpus = ReadCorpus(directory_ / "queries");
  std::set<std::string> ids;
  int valid = 0;
  int invalid = 0;
  for (const CorpusQuery& query : corpus) {
    EXPECT_TRUE(ids.insert(query.id).second) << "duplicate query name: " << query.id;
    EXPECT_FALSE(query.sql.empty()) << query.id;
    const DuckDbVerdict duckdb = AskDuckDb(*connection_, query.sql);
    EXPECT_EQ(duckdb.accepted, !query.must_be_invalid)
        << query.id << ": DuckDB " << (duckdb.accepted ? "accepts" : "rejects") << " it ("
        << duckdb.error_message << ")\n"
        << query.sql;
    (query.must_be_invalid ? invalid : valid) += 1;
  }
  EXPECT_GE(valid, 200);
  EXPECT_GE(invalid, 30);
  for (const std::string& gap : ReadKnownGaps(directory_ / "known_parser_gaps.txt")) {
    EXPECT_TRUE(ids.contains(gap)) << "known_parser_gaps.txt names no corpus query: " << gap;
  }
}

TEST_F(DuckDbOracleTest, ParserAgreesWithDuckDb) {
  const std::vector<CorpusQuery> corpus = ReadCorpus(directory_ / "queries");
  const std::set<std::string> gaps = ReadKnownGaps(directory_ / "known_parser_gaps.txt");
  int agreed = 0;
  int expected_failures = 0;
  for (const CorpusQuery& query : corpus) {
    const std::string disagreement = Disagreement(query, AskDuckDb(*connection_, query.sql));
    const bool known = gaps.contains(query.id);
    if (disagreement.empty() && known) {
      ADD_FAILURE() << query.id << ": now agrees with DuckDB; remove it from "
                    << "tests/oracle/known_parser_gaps.txt\n"
                    << query.sql;
    } else if (!disagreement.empty() && !known) {
      ADD_FAILURE() << query.id << ": " << disagreement << "\n" << query.sql;
    } else if (!disagreement.empty()) {
      std::printf("expected failure (known parser gap) %s: %s\n", query.id.c_str(),
                  disagreement.c_str());
      ++expected_failures;
    } else {
      ++agreed;
    }
  }
  std::printf("oracle: %d of %zu queries agree with DuckDB, %d known parser gaps\n", agreed,
              corpus.size(), expected_failures);
}

}  // namespace
}  // namespace strata::oracle
