// The live tail of a `live_tail` rollup (spec/semantic.md "Live tail"; docs/rollup-store.md):
// the rollup's files hold its closed periods, everything before its watermark (the manifest's
// range_end, also persisted as built_through), and the rows at or after the watermark are read
// from the warehouse when a query needs them. The router (router.h) plans a hit over
// `read_parquet([...]) UNION ALL BY NAME <tail table>` and names the tail it needs; the query
// engine stages that tail with StageLiveTails before it runs the SQL. The split is on the
// rollup's raw time dimension, so a row is in exactly one of the two: rows exactly at the
// watermark are the tail's, and a late row in a closed period appears once a refresh rebuilds
// that period.
//
// Thread safety: StageLiveTails uses only the connections given; each thread its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "semantic/model.h"
#include "sql/dialect.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// One tail a routed query reads.
struct LiveTail {
  std::string rollup;             // the rollup's name
  std::string table;              // the engine table the routed SQL reads (unique per routing)
  UnixSeconds from = 0;           // the watermark, or the query's range start when that is later
  std::optional<UnixSeconds> to;  // the query's range end; nullopt: every later row
  bool with_null_time = false;    // the query reads all time: the rows without a time too
  // A Parquet file of the rollup whose column types the tail's table takes, so the union keeps
  // the files' types (DuckDB unites DECIMAL(38, 2) and DECIMAL(38, 0) as DECIMAL(38, 0)).
  std::string schema_from;
};

// The tables of staged tails; dropped (best effort) when this is destroyed. Move-only.
// REQUIRES: the engine connection outlives it.
class StagedTails {
 public:
  StagedTails() = default;
  StagedTails(warehouse::Connection* engine, std::vector<std::string> tables)
      : engine_(engine), tables_(std::move(tables)) {}
  StagedTails(StagedTails&& other) noexcept;
  StagedTails& operator=(StagedTails&& other) noexcept;
  StagedTails(const StagedTails&) = delete;
  StagedTails& operator=(const StagedTails&) = delete;
  ~StagedTails();

 private:
  void Drop();
  warehouse::Connection* engine_ = nullptr;
  std::vector<std::string> tables_;
};

// Reads each tail's rows from the warehouse (`warehouse_connection`, in `dialect`) with the
// rollup's build query limited to the tail's rows, and stages them in the engine as the tail's
// table with the stored columns (sketches computed locally, as a build computes them). Errors:
// the warehouse's or the engine's, with a note naming the rollup; nothing stays staged then.
Result<StagedTails> StageLiveTails(const semantic::SemanticModel& model,
                                   const std::vector<LiveTail>& tails, sql::Dialect dialect,
                                   warehouse::Connection& warehouse_connection,
                                   warehouse::Connection& engine_connection);

}  // namespace strata::rollup
