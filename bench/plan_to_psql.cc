// Turns a saved plan (`strata plan --output json`) into the psql script of the PostgreSQL backfill
// baseline: per batch exactly the statements strata sends (BEGIN; DELETE; INSERT; COMMIT), and
// with --stats also the per-key count + checksum query strata runs before COMMIT, hashing each
// row by its columns as strata does for this bench's table on PostgreSQL 14+ (RowHash::kColumns;
// the bench's server is newer, and every column type of its table has a hash function).
//
//   plan_to_psql PLAN.json MODEL TIME_COLUMN [--stats] > script.sql
//
// The plan's PostgreSQL insert is the unbound `INSERT INTO t SELECT * FROM (...)`, which
// PostgreSQL runs as is when the table's columns are in the SELECT's order (they are: the table
// was created from the same SELECT); strata names the columns at run time, at no measurable cost.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/partition.h"
#include "warehouse/emitter.h"

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark may die on an unexpected exception.
int main(int argc, char** argv) {
  using nlohmann::json;
  if (argc < 4) {
    std::cerr << "usage: plan_to_psql PLAN.json MODEL TIME_COLUMN [--stats]\n";
    return 1;
  }
  const bool stats = argc > 4 && std::string(argv[4]) == "--stats";
  std::ifstream in(argv[1]);
  const json plan = json::parse(in);
  const strata::warehouse::Emitter emitter =
      strata::warehouse::Emitter(strata::sql::Dialect::kPostgres)
          .WithRowHash(strata::warehouse::RowHash::kColumns);
  for (const json& model : plan.at("models")) {
    if (model.at("model") != argv[2]) continue;
    for (const json& batch : model.at("batches")) {
      const json& s = batch.at("statements");
      std::cout << s.at("begin").get<std::string>() << ";\n"
                << s.at("delete").get<std::string>() << ";\n"
                << s.at("insert").get<std::string>() << ";\n";
      if (stats) {
        for (const json& key : batch.at("keys")) {
          auto parsed = strata::PartitionKey::Parse(key.get<std::string>(), strata::Grain::kDay);
          if (!parsed.ok()) {
            std::cerr << parsed.error().ToString() << "\n";
            return 1;
          }
          auto sql = emitter.WindowStats({"", "marts", argv[2]}, argv[3], parsed->window());
          if (!sql.ok()) {
            std::cerr << sql.error().ToString() << "\n";
            return 1;
          }
          std::cout << *sql << ";\n";
        }
      }
      std::cout << s.at("commit").get<std::string>() << ";\n";
    }
  }
  return 0;
}
