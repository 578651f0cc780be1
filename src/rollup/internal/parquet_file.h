// The one writer of the rollup store's data files: a build's periods (period_writer.h), an
// append's merged files (rollup/append.h) and a compaction's merged files (rollup/compaction.h)
// are each one SELECT on the engine, written here as a new Parquet file of the store with
// COPY ... (FORMAT parquet), then read back for its size and checksum, as its manifest entry.
//
// Thread safety: uses only the connection given (one thread at a time) and the store (any).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"
#include "rollup/manifest.h"
#include "rollup/store.h"
#include "semantic/model.h"
#include "warehouse/warehouse.h"

namespace strata::rollup {

// " ORDER BY <sort_by columns>" in the engine's quoting; "" without sort_by. Every data file is
// written in this order.
std::string SortClause(const semantic::Rollup& rollup);

// Writes the rows of `select` (a DuckDB SELECT on `engine`, already in SortClause's order) to a
// new file of `rollup` in `store` (RollupStore::NewFilePath with `label`) and returns its
// manifest entry: `entry`'s period (start, end, null_time) with path, rows (as COPY reports them),
// bytes, checksum (ChecksumFile), build_ms (the COPY and the checksum) and built_at (`now`).
// Errors: kConfig/kInternal/kIo from NewFilePath, the engine's, kIo from the checksum; a file
// written before a failure is garbage for the store's collection.
Result<ManifestFile> WriteParquetFile(warehouse::Connection& engine, const RollupStore& store,
                                      std::string_view rollup, std::string_view label,
                                      const std::string& select, ManifestFile entry,
                                      UnixSeconds now);

}  // namespace strata::rollup
