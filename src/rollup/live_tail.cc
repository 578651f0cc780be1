#include "rollup/live_tail.h"

#include <fmt/format.h>

#include <utility>

#include "rollup/internal/stored_rows.h"
#include "semantic/rollup_sql.h"

namespace strata::rollup {

StagedTails::StagedTails(StagedTails&& other) noexcept
    : engine_(std::exchange(other.engine_, nullptr)), tables_(std::move(other.tables_)) {}

StagedTails& StagedTails::operator=(StagedTails&& other) noexcept {
  if (this != &other) {
    Drop();
    engine_ = std::exchange(other.engine_, nullptr);
    tables_ = std::move(other.tables_);
  }
  return *this;
}

StagedTails::~StagedTails() { Drop(); }

void StagedTails::Drop() {
  if (engine_ == nullptr) return;
  for (const std::string& table : tables_) {
    (void)engine_->Execute("DROP TABLE IF EXISTS " +
                           sql::QuoteIdentifier(table, sql::Dialect::kDuckDb));
  }
  tables_.clear();
  engine_ = nullptr;
}

namespace {

Status StageOne(const semantic::SemanticModel& model, const LiveTail& tail, sql::Dialect dialect,
                warehouse::Connection& warehouse_connection,
                warehouse::Connection& engine_connection) {
  const semantic::Rollup* rollup = nullptr;
  for (const semantic::Rollup& declared : model.rollups) {
    if (declared.name == tail.rollup) rollup = &declared;
  }
  if (rollup == nullptr) {
    return MakeError(ErrorCode::kInternal, "a live tail of an unknown rollup " + tail.rollup);
  }
  STRATA_ASSIGN_OR_RETURN(
      const semantic::RollupBuildPlan plan,
      semantic::PlanRollupTail(model, *rollup, dialect, tail.from, tail.to, tail.with_null_time));
  return StageStoredRows(warehouse_connection, engine_connection, plan, tail.table,
                         tail.schema_from);
}

}  // namespace

Result<StagedTails> StageLiveTails(const semantic::SemanticModel& model,
                                   const std::vector<LiveTail>& tails, sql::Dialect dialect,
                                   warehouse::Connection& warehouse_connection,
                                   warehouse::Connection& engine_connection) {
  std::vector<std::string> tables;
  tables.reserve(tails.size());
  for (const LiveTail& tail : tails) tables.push_back(tail.table);
  StagedTails staged(&engine_connection, std::move(tables));
  for (const LiveTail& tail : tails) {
    Status status = StageOne(model, tail, dialect, warehouse_connection, engine_connection);
    if (!status.ok()) {
      return std::move(
          status.error().Note(fmt::format("while reading the live tail of rollup {} from {}",
                                          tail.rollup, FormatIso8601(tail.from))));
    }
  }
  return staged;
}

}  // namespace strata::rollup
