// The files and generated data of `strata init DIR --example`. Both come from
// data/example_project/ (project/ and generate/), embedded into the binary at build time.
#pragma once

#include <filesystem>

#include "base/result.h"
#include "base/time.h"

namespace strata::cli {

// The example's data spans [start, end): from the first day of the month 19 months before `now`'s
// month up to the start of `now`'s day, so the latest partitions have data whenever it is made.
struct ExampleRange {
  UnixSeconds start;
  UnixSeconds end;
};
ExampleRange ExampleRangeFor(UnixSeconds now);

// Writes strata.toml, the example models and the semantic model (semantic/model.yml: entities
// Order, Customer and Ticket over the raw tables, one rollup, three data roles) into `dir` (which
// must not hold a strata.toml yet); every first_partition is range.start at the model's grain.
Status WriteExampleFiles(const std::filesystem::path& dir, const ExampleRange& range);
// Writes only a minimal strata.toml and an empty models folder.
Status WriteEmptyProject(const std::filesystem::path& dir);
// Generates the example's DuckDB warehouse, deterministic for a given range:
// - raw.orders: 1.2 M orders spread over `range` across customers 1..38000 and statuses; an
//   order's region is its customer's; 3% of rows are loaded up to three days after they
//   happened (late-arriving data);
// - raw.customers: one row per customer id 1..40000 (name, region, segment, signup_at; NULL
//   signup_at for every 97th customer);
// - raw.tickets: 150 k support tickets over `range` for customers 2001..40000 (NULL
//   resolution_hours while open).
// So some customers have orders and no tickets, some tickets and no orders, most several of each.
Status GenerateExampleData(const std::filesystem::path& duckdb_path, const ExampleRange& range);

}  // namespace strata::cli
