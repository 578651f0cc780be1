// The manifest of one built rollup: `<store>/<rollup>/manifest.json`, the only record of which
// Parquet files make up the rollup's current version (see docs/rollup-store.md for the layout, the
// JSON and the column naming scheme).
//
// A manifest is a plain value. ManifestToJson and ParseManifestJson are inverse functions for
// every manifest that ValidateManifest accepts; parsing validates, so a parsed manifest is always
// valid. All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"

namespace strata::rollup {

// The only format_version this strata reads and writes. A manifest of another version is a
// kRollupManifest error (rebuild the rollup), never guessed at.
inline constexpr int kManifestFormatVersion = 1;

// One column of the rollup's Parquet files (every file has the same columns, in this order).
struct ManifestColumn {
  std::string name;  // the column's name in the Parquet files: "status", "revenue__sum"
  // DuckDB type text: VARCHAR, TIMESTAMP, BIGINT, DOUBLE, DECIMAL(18,2), BLOB,
  // STRUCT(value DOUBLE, count BIGINT)[]
  std::string type;
  std::string role;    // "dimension" | "measure"
  std::string source;  // the dimension path as written ("customer.region") or the measure name
  std::string part;    // "" (the value itself), "sum", "count", "hll", "values", ...
};

// One Parquet file: the rows of one period, of the rows whose partition time is NULL, or of the
// whole (unpartitioned) rollup.
struct ManifestFile {
  // The period [start, end). Both null: the whole rollup (unpartitioned), or with null_time the
  // rows whose partition time is NULL. Both set or both null.
  std::optional<UnixSeconds> start;
  std::optional<UnixSeconds> end;
  bool null_time = false;  // rows whose partition time is NULL (start and end null)
  std::string path;        // relative to the rollup folder: a plain file name, no '/'
  std::int64_t rows = 0;
  std::uint64_t bytes = 0;
  std::string checksum;  // XXH3-64 of the file's bytes, 16 lowercase hex digits (ChecksumFile)
  double build_ms = 0;
  std::string built_at;  // ISO 8601 UTC ("2026-04-07T13:00:00Z")
};

struct Manifest {
  int format_version = kManifestFormatVersion;
  std::string rollup;           // the rollup's name; equals its folder's name
  std::string definition_hash;  // the hash of the rollup definition the files were built from
  std::int64_t version = 0;     // 1 for the first publish, +1 per publish (set by Publish)
  std::string built_at;         // ISO 8601 UTC
  std::optional<std::string> freshness_marker;  // when_changed / when_changed_sql value, as text
  // partition.append: the largest append-column value (when_changed, else the time dimension)
  // of the rows the files hold, as text; the next append reads the rows past it. nullopt for
  // other rollups, and when no row had one (the next refresh rebuilds).
  std::optional<std::string> append_marker;
  // partition.append (rollup/append.h): where the marker's slice starts, as text (the marker
  // itself for a when_changed column, the start of the stored time bucket holding it for the
  // time dimension), and how many source rows with a value in [append_slice_from,
  // append_marker] the files hold. nullopt in manifests written before slices were kept: the
  // next refresh rebuilds whole.
  std::optional<std::string> append_slice_from;
  std::optional<std::int64_t> append_slice_rows;
  std::optional<UnixSeconds> built_through;  // watermark: source rows up to here are included
  std::optional<UnixSeconds> range_start;    // what the files cover, [range_start, range_end)
  std::optional<UnixSeconds> range_end;
  std::string partition_by;    // "day", "month", ...; "" when unpartitioned
  std::string time_dimension;  // the rollup's time dimension path; "" when it has none
  std::vector<ManifestColumn> columns;
  std::vector<ManifestFile> files;
  // partition.append: for each file that holds rows of the marker's slice, a file of the same
  // period (start, end, null_time) with the same rows but those of the slice; the next append
  // starts from it, so the slice's rows are read again and none is counted twice. Never read by
  // queries; kept (and checked, synced, collected) like `files`.
  std::vector<ManifestFile> append_bases;

  // The sum of the files' rows.
  std::int64_t TotalRows() const;
  // The column named `name`, or null.
  const ManifestColumn* FindColumn(std::string_view name) const;
  // The append base of `file` (the one of append_bases with its start, end and null_time), or
  // null.
  const ManifestFile* AppendBaseOf(const ManifestFile& file) const;
};

// Checks the invariants every stored manifest holds. Errors (kRollupManifest, naming the field):
// another format_version; empty rollup or definition_hash; version < 1; built_at not ISO 8601
// UTC; a column without name, type or source, a duplicate column name, a role other than
// "dimension"/"measure"; a file path that is empty, contains '/' or "\0", starts with '.' or is
// used twice; a file with only one of start/end, start >= end, null_time with a period, negative
// rows, a checksum that is not 16 lowercase hex digits, a negative build_ms; overlapping periods;
// more than one whole-rollup or null_time file; a whole-rollup file in a partitioned rollup or a
// period file in an unpartitioned one; range_start >= range_end; an append base whose period is
// not a file's, or whose path is used elsewhere; a negative append_slice_rows.
Status ValidateManifest(const Manifest& manifest);

// The manifest as JSON text (2-space indented, keys in declaration order, timestamps ISO 8601 UTC,
// absent optionals as null, a trailing newline).
// REQUIRES: ValidateManifest(manifest) is ok (unchecked here; Publish checks).
std::string ManifestToJson(const Manifest& manifest);

// Parses and validates manifest JSON. `display_path` names the file in messages. Unknown keys are
// ignored (a writer of the same format_version may add informational fields). Errors:
// kRollupManifest for text that is not JSON (truncated, empty), a missing or mistyped field, a
// format_version other than kManifestFormatVersion, or anything ValidateManifest refuses.
Result<Manifest> ParseManifestJson(std::string_view text, std::string_view display_path);

}  // namespace strata::rollup
