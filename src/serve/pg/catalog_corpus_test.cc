// Replays tests/sqlport/corpus/*.sql (the SQL real clients send; README.md there) through
// SqlCatalog::Execute: each statement is answered, or refused with the SQLSTATE its block names.
// Blocks tagged `-- golden: NAME COLUMNS` are also compared, column by column and row by row,
// with tests/sqlport/golden/NAME.json: the answer the real PostgreSQL gave during the capture.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "serve/pg/catalog.h"
#include "serve/pg/catalog_test_tables.h"

namespace strata::serve::pg {
namespace {

struct CorpusStatement {
  std::string file;
  std::string source;
  std::string expect = "answer";
  std::vector<std::optional<std::string>> parameters;
  std::string golden;                 // the golden file's name, if any
  std::vector<std::string> compared;  // the columns the golden comparison reads
  std::string sql;
};

std::vector<CorpusStatement> ReadCorpus() {
  std::vector<CorpusStatement> statements;
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(STRATA_SQLPORT_DIR) + "/corpus")) {
    if (entry.path().extension() == ".sql") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line;
    CorpusStatement* current = nullptr;
    bool header = false;
    while (std::getline(in, line)) {
      if (line == "-- @statement") {
        statements.push_back({});
        current = &statements.back();
        current->file = path.filename().string();
        header = true;
        continue;
      }
      if (current == nullptr) continue;
      if (header && line.starts_with("-- source: ")) {
        current->source = line.substr(11);
      } else if (header && line.starts_with("-- expect: ")) {
        current->expect = line.substr(11);
      } else if (header && line.starts_with("-- param: ")) {
        current->parameters.push_back(line.substr(10));
      } else if (header && line == "-- param-null") {
        current->parameters.push_back(std::nullopt);
      } else if (header && line.starts_with("-- golden: ")) {
        std::istringstream words(line.substr(11));
        words >> current->golden;
        for (std::string column; words >> column;) current->compared.push_back(column);
      } else {
        header = false;
        current->sql += line + "\n";
      }
    }
  }
  return statements;
}

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqlCatalog::Open(testing::ExampleTables());
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    catalog_ = std::move(opened).value();
  }
  std::unique_ptr<SqlCatalog> catalog_;
};

// The golden answer's rows, restricted to `columns`, as text cells (null: nullopt).
using Rows = std::vector<std::vector<std::optional<std::string>>>;

Rows Project(const std::vector<std::string>& names, const Rows& rows,
             const std::vector<std::string>& columns) {
  std::vector<std::size_t> indexes;
  for (const std::string& column : columns) {
    const auto found = std::find(names.begin(), names.end(), column);
    EXPECT_NE(found, names.end()) << "no column " << column;
    if (found == names.end()) return {};
    indexes.push_back(static_cast<std::size_t>(found - names.begin()));
  }
  Rows out;
  for (const auto& row : rows) {
    std::vector<std::optional<std::string>> projected;
    projected.reserve(indexes.size());
    for (std::size_t index : indexes) projected.push_back(row[index]);
    out.push_back(projected);
  }
  return out;
}

void CompareWithGolden(const CorpusStatement& statement, const ResultSet& result) {
  std::ifstream in(std::string(STRATA_SQLPORT_DIR) + "/golden/" + statement.golden + ".json");
  ASSERT_TRUE(in) << "missing golden " << statement.golden;
  const nlohmann::json golden = nlohmann::json::parse(in);
  const auto golden_names = golden["columns"].get<std::vector<std::string>>();
  Rows golden_rows;
  for (const auto& row : golden["rows"]) {
    std::vector<std::optional<std::string>> cells;
    for (const auto& cell : row) {
      cells.push_back(cell.is_null() ? std::nullopt
                                     : std::optional<std::string>(cell.get<std::string>()));
    }
    golden_rows.push_back(cells);
  }
  std::vector<std::string> names;
  for (const PgColumn& column : result.columns) names.push_back(column.name);
  EXPECT_EQ(Project(names, result.rows, statement.compared),
            Project(golden_names, golden_rows, statement.compared))
      << statement.golden << ": " << statement.sql;
}

TEST_F(CorpusTest, EveryStatementIsAnsweredOrRefusedByDesign) {
  const std::vector<CorpusStatement> corpus = ReadCorpus();
  ASSERT_GT(corpus.size(), 50u);
  std::size_t goldens = 0;
  for (const CorpusStatement& statement : corpus) {
    // Statements that read an entity table (the semantic layer's, answered or refused) or use a
    // cursor (the session's) are replayed end to end (tests/sqlport/test_corpus_replay.py).
    if (statement.expect == "semantic" || statement.expect == "session" ||
        statement.expect.starts_with("semantic-refuse ")) {
      continue;
    }
    SCOPED_TRACE(statement.file + " (" + statement.source + "):\n" + statement.sql);
    SessionSettings settings = SessionSettings::Defaults();
    settings.user = "strata";
    settings.database = "strata";
    auto result = catalog_->Execute(statement.sql, statement.parameters, settings);
    if (statement.expect == "answer") {
      EXPECT_TRUE(result.ok()) << result.error().ToString();
      if (result.ok() && !statement.golden.empty()) {
        CompareWithGolden(statement, *result);
        ++goldens;
      }
      continue;
    }
    ASSERT_TRUE(statement.expect.starts_with("refuse ")) << statement.expect;
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(Describe(result.error().code).sqlstate, statement.expect.substr(7))
        << result.error().ToString();
  }
  EXPECT_EQ(goldens, 8u);  // every golden of tests/sqlport/golden
}

}  // namespace
}  // namespace strata::serve::pg
