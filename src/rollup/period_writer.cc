#include "rollup/internal/period_writer.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>

#include "rollup/internal/parquet_file.h"
#include "rollup/internal/stored_rows.h"

namespace strata::rollup {
namespace {

constexpr sql::Dialect kEngine = sql::Dialect::kDuckDb;

std::string Q(std::string_view name) { return sql::QuoteIdentifier(name, kEngine); }

Result<std::vector<ManifestColumn>> DescribeColumns(warehouse::Connection& engine,
                                                    const std::string& select,
                                                    const semantic::RollupBuildPlan& plan) {
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult described, engine.Execute("DESCRIBE " + select));
  if (described.columns.size() < 2 || described.row_count() != plan.columns.size()) {
    return MakeError(ErrorCode::kInternal, "DESCRIBE of a rollup period disagrees with its plan");
  }
  std::vector<ManifestColumn> columns;
  for (std::size_t i = 0; i < plan.columns.size(); ++i) {
    const semantic::RollupColumn& column = plan.columns[i];
    columns.push_back({column.name, warehouse::ValueToString(described.columns[1].values[i]),
                       column.dimension ? "dimension" : "measure", column.source, column.part});
  }
  return columns;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string TimestampLiteral(UnixSeconds t) { return "TIMESTAMP '" + FormatSqlTimestamp(t) + "'"; }

// The stored column of the rollup's time dimension.
Result<std::string> TimeColumn(const semantic::Rollup& rollup,
                               const semantic::RollupBuildPlan& plan) {
  const std::optional<std::string> time = semantic::RollupTimeDimension(rollup);
  for (const semantic::StoredDimension& dimension : plan.dimensions) {
    if (time && dimension.path == *time) return dimension.column;
  }
  return MakeError(ErrorCode::kInternal,
                   fmt::format("rollup {} has periods but no stored time dimension", rollup.name));
}

// Writes the staged batch: one file of the joined rows when the batch is one file of every
// staged row; else the joined rows once into `<prefix>_final` and one file per period.
Status WriteFiles(warehouse::Connection& engine, const RollupStore& store,
                  const semantic::Rollup& rollup, const semantic::RollupBuildPlan& plan,
                  const PeriodRequest& request, UnixSeconds now, const std::string& prefix,
                  std::vector<std::string>& tables, WrittenPeriods& written) {
  const std::string select = StagedRowsSelect(plan, prefix);
  STRATA_ASSIGN_OR_RETURN(written.columns, DescribeColumns(engine, select, plan));
  const std::string order = SortClause(rollup);
  if (request.files.size() == 1 && !request.files[0].period) {
    const PeriodFile& only = request.files[0];
    STRATA_ASSIGN_OR_RETURN(
        ManifestFile file,
        WriteParquetFile(engine, store, rollup.name, only.label, select + order, only.entry, now));
    written.files.push_back(std::move(file));
    return OkStatus();
  }
  STRATA_ASSIGN_OR_RETURN(const std::string time, TimeColumn(rollup, plan));
  tables.push_back(prefix + "_final");
  STRATA_TRY(engine.Execute("CREATE TABLE " + Q(tables.back()) + " AS " + select));
  for (const PeriodFile& period : request.files) {
    std::string where;
    if (period.period) {
      const std::string column = "CAST(" + Q(time) + " AS TIMESTAMP)";
      where = " WHERE " + column + " >= " + TimestampLiteral(period.period->first) + " AND " +
              column + " < " + TimestampLiteral(period.period->second);
    }
    STRATA_ASSIGN_OR_RETURN(
        ManifestFile file,
        WriteParquetFile(engine, store, rollup.name, period.label,
                         "SELECT * FROM " + Q(tables.back()) + where + order, period.entry, now));
    written.files.push_back(std::move(file));
  }
  return OkStatus();
}

Result<WrittenPeriods> Write(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                             sql::Dialect dialect, warehouse::Connection& source,
                             warehouse::Connection& engine, const RollupStore& store,
                             const PeriodRequest& request, UnixSeconds now) {
  if (request.files.empty()) return MakeError(ErrorCode::kInternal, "a batch without files");
  const auto started = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(const semantic::RollupBuildPlan plan,
                          semantic::PlanRollupBuild(model, rollup, dialect, request.window,
                                                    request.null_time, request.append));
  // The engine's tables are shared by its connections: each batch stages under its own names.
  static std::atomic<std::uint64_t> counter{0};
  const std::string prefix = fmt::format("strata_stage_{}", counter++);
  std::vector<std::string> tables;
  WrittenPeriods written;
  Status status = StageRows(source, engine, plan, prefix, tables);
  const double staged_ms = MillisSince(started);
  if (status.ok()) {
    status = WriteFiles(engine, store, rollup, plan, request, now, prefix, tables, written);
  }
  for (const std::string& table : tables) {
    (void)engine.Execute("DROP TABLE IF EXISTS " + Q(table));
  }
  STRATA_TRY(status);
  for (ManifestFile& file : written.files) {
    file.build_ms += staged_ms / static_cast<double>(written.files.size());
  }
  return written;
}

}  // namespace

Result<WrittenPeriods> WritePeriods(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& warehouse_connection,
                                    warehouse::Connection& engine_connection,
                                    const RollupStore& store, const PeriodRequest& request,
                                    UnixSeconds now) {
  Result<WrittenPeriods> written =
      Write(model, rollup, dialect, warehouse_connection, engine_connection, store, request, now);
  if (!written.ok()) {
    const std::string period = request.null_time ? "the rows without a time"
                               : request.window
                                   ? fmt::format("[{}, {})", FormatIso8601(request.window->first),
                                                 FormatIso8601(request.window->second))
                                   : "all rows";
    written.error().Note(fmt::format("while building {} of rollup {}", period, rollup.name));
  }
  return written;
}

}  // namespace strata::rollup
