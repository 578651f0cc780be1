// Runs tests/golden/compile/*.txt: each case's input is the SQL of one model `fct` checked by
// CheckModel against an in-memory catalog; the expected text lists its diagnostics, one per line:
// "<code> <severity> <line>:<column>: <message>". Headers (all optional):
//   dialect: duckdb                          the model's dialect
//   strategy: time_interval                  or full_refresh / view
//   time_column: event_date                  (time_interval; default event_date)
//   granularity: day                         hour / day / month / year
//   first_partition: 2026-04 month           a key and the grain it is parsed with
//   tables: raw.events(id INTEGER NOT NULL, event_at TIMESTAMP NULL); raw.users(...)
//                                            the catalog and the model's [[sources]]
// Case names start with the error codes found, comma-separated, or "ok" (warnings are not
// listed), checked against the result so a rewrite cannot silently change a verdict.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "check/model_check.h"
#include "sql/testing/golden_file.h"

namespace strata::check {
namespace {

namespace fs = std::filesystem;
namespace golden_testing = sql::testing;

std::string Trim(std::string text) {
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) {
    if (!Trim(part).empty()) parts.push_back(Trim(part));
  }
  return parts;
}

// "raw.events(id INTEGER NOT NULL, event_at TIMESTAMP)": a table and its columns.
class GoldenCatalog : public Catalog {
 public:
  explicit GoldenCatalog(const std::string& header) {
    for (const std::string& table : Split(header, ';')) {
      const std::size_t open = table.find('(');
      const std::string name = Trim(table.substr(0, open));
      const std::size_t dot = name.find('.');
      sources_.push_back({"", name.substr(0, dot), name.substr(dot + 1)});
      std::vector<CatalogColumn>& columns = tables_[name];
      const std::string body = table.substr(open + 1, table.rfind(')') - open - 1);
      for (const std::string& column : Split(body, ',')) {
        std::string type = column.substr(column.find(' ') + 1);
        const bool not_null = type.size() > 9 && type.substr(type.size() - 9) == " NOT NULL";
        if (not_null) type.resize(type.size() - 9);
        if (type.size() > 5 && type.substr(type.size() - 5) == " NULL")
          type.resize(type.size() - 5);
        columns.push_back(
            {column.substr(0, column.find(' ')), analysis::ValueTypeFromName(type), !not_null});
      }
    }
  }
  std::optional<std::vector<CatalogColumn>> Describe(const project::ObjectName& table) override {
    const auto found = tables_.find(table.schema + "." + table.table);
    if (found == tables_.end()) return std::nullopt;
    return found->second;
  }
  const std::vector<project::ObjectName>& sources() const { return sources_; }

 private:
  std::map<std::string, std::vector<CatalogColumn>> tables_;
  std::vector<project::ObjectName> sources_;
};

std::string Header(const golden_testing::GoldenCase& golden, const std::string& key,
                   const std::string& fallback) {
  const auto found = golden.headers.find(key);
  return found == golden.headers.end() ? fallback : found->second;
}

project::Project ProjectFor(const golden_testing::GoldenCase& golden,
                            const GoldenCatalog& catalog) {
  project::Project project;
  project.config.root = "/p";
  project::Model model;
  model.name = "fct";
  model.sql_path = "/p/models/fct.sql";
  model.toml_path = "/p/models/fct.toml";
  model.sql = golden.input;
  model.sources = catalog.sources();
  const std::string strategy = Header(golden, "strategy", "time_interval");
  model.strategy = strategy == "view"           ? project::StrategyKind::kView
                   : strategy == "full_refresh" ? project::StrategyKind::kFullRefresh
                                                : project::StrategyKind::kTimeInterval;
  if (model.strategy == project::StrategyKind::kTimeInterval) {
    project::TimeIntervalConfig config;
    config.time_column = Header(golden, "time_column", "event_date");
    config.granularity = ParseGrain(Header(golden, "granularity", "day")).value();
    const std::vector<std::string> first = Split(Header(golden, "first_partition", ""), ' ');
    if (first.size() == 2) {
      config.first_partition = PartitionKey::Parse(first[0], ParseGrain(first[1]).value()).value();
    }
    model.time_interval = config;
  }
  project.models.push_back(std::move(model));
  return project;
}

std::string Format(const std::vector<Diagnostic>& diagnostics, std::string* tag) {
  std::string out;
  std::vector<std::string> errors;
  for (const Diagnostic& d : diagnostics) {
    out += d.code + " " + std::string(SeverityName(d.severity)) + " " +
           std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + ": " + d.message +
           "\n";
    if (d.severity == Severity::kError) errors.push_back(d.code);
  }
  *tag = errors.empty() ? "ok" : "";
  for (std::size_t i = 0; i < errors.size(); ++i) *tag += (i ? "," : "") + errors[i];
  return out.empty() ? "no diagnostics\n" : out;
}

TEST(GoldenCompileTest, AllFiles) {
  const int cases = golden_testing::RunGoldenDirectory(
      fs::path(STRATA_GOLDEN_DIR) / "compile",
      [](const std::string&, golden_testing::GoldenCase& golden) {
        const std::optional<sql::Dialect> dialect =
            sql::ParseDialect(Header(golden, "dialect", "duckdb"));
        EXPECT_TRUE(dialect.has_value());
        GoldenCatalog catalog(Header(golden, "tables", ""));
        const project::Project project = ProjectFor(golden, catalog);
        std::string tag;
        std::string actual = Format(CheckModel(project, project.models[0],
                                               dialect.value_or(sql::Dialect::kDuckDb), &catalog),
                                    &tag);
        EXPECT_EQ(golden.name.substr(0, golden.name.find(':')), tag) << "intended verdict differs";
        return actual;
      });
  EXPECT_GE(cases, 30);
  std::printf("golden compile cases: %d\n", cases);
}

}  // namespace
}  // namespace strata::check
