#include "rollup/internal/parquet_file.h"

#include <chrono>
#include <filesystem>

namespace strata::rollup {
namespace {

constexpr sql::Dialect kEngine = sql::Dialect::kDuckDb;

// The rows a COPY wrote: DuckDB returns them as its one cell.
Result<std::int64_t> CopiedRows(const warehouse::QueryResult& result) {
  if (result.row_count() == 1) {
    const warehouse::Value& cell = result.columns[0].values[0];
    if (const auto* count = std::get_if<std::int64_t>(&cell)) return *count;
    if (const auto* count = std::get_if<std::uint64_t>(&cell)) {
      return static_cast<std::int64_t>(*count);
    }
  }
  return MakeError(ErrorCode::kInternal, "COPY did not report the rows it wrote");
}

}  // namespace

std::string SortClause(const semantic::Rollup& rollup) {
  std::string order;
  for (const std::string& path : rollup.sort_by) {
    order += (order.empty() ? "" : ", ") + sql::QuoteIdentifier(path, kEngine);
  }
  return order.empty() ? "" : " ORDER BY " + order;
}

Result<ManifestFile> WriteParquetFile(warehouse::Connection& engine, const RollupStore& store,
                                      std::string_view rollup, std::string_view label,
                                      const std::string& select, ManifestFile entry,
                                      UnixSeconds now) {
  const auto started = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(const std::filesystem::path path, store.NewFilePath(rollup, label));
  STRATA_ASSIGN_OR_RETURN(
      const warehouse::QueryResult copied,
      engine.Execute("COPY (" + select + ") TO " + sql::QuoteString(path.string(), kEngine) +
                     " (FORMAT parquet)"));
  STRATA_ASSIGN_OR_RETURN(entry.rows, CopiedRows(copied));
  STRATA_ASSIGN_OR_RETURN(const FileDigest digest, ChecksumFile(path));
  entry.path = path.filename().string();
  entry.bytes = digest.bytes;
  entry.checksum = digest.checksum;
  entry.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  entry.built_at = FormatIso8601(now);
  return entry;
}

}  // namespace strata::rollup
