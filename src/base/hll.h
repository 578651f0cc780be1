// HyperLogLog distinct-count sketches in the one documented format of spec/semantic.md
// ("Sketches"), shared by live count_distinct_approx answers, stored rollups and the DuckDB
// functions that merge and estimate them in SQL (warehouse/duckdb), so a live answer and a rollup
// answer agree. It is in `base` because `warehouse` may depend only on `base` and `sql`
// (docs/architecture.md, "Sketches: where they live").
//
// Format (version 1): precision p = 12, m = 4096 registers of one byte. A value is hashed with
// XXH3-64 (seed 0) of its canonical text; the top 12 bits pick the register, the register keeps
// the maximum rank (1 + the number of leading zero bits of the remaining 52 bits, at most 53).
// Small sets are kept sparse: the sorted distinct 64-bit hashes themselves, up to kSparseLimit
// (512, the size of the dense registers); adding or merging past that converts to registers (a
// conversion that loses nothing the dense form keeps). A sparse sketch's estimate is its exact
// number of distinct hashes, so small groups are counted exactly (up to 64-bit collisions).
// Serialized: byte 0 = format version (1); byte 1 = encoding (0 dense, 1 sparse); then dense:
// the 4096 registers (4098 bytes in all); sparse: a 4-byte little-endian count n and n
// little-endian 8-byte hashes in ascending order.
//
// Canonical text of a value: what warehouse::ValueToString gives for the cell fetched from the
// warehouse: integers in decimal, strings as they are, decimals/dates/timestamps as the
// adapter's text ("2026-01-01 10:00:00").
//
// Dense estimator: the standard HLL raw estimate E = alpha_m * m^2 / sum(2^-M[j]) with
// alpha_m = 0.7213 / (1 + 1.079 / m); when E <= 2.5 m and some register is zero (V of them), the
// small-range correction (linear counting) m * ln(m / V) is used instead. No large-range
// correction is needed with a 64-bit hash. Standard error 1.04 / sqrt(4096) = 1.625 %.
//
// Memory: a sparse sketch holds its hashes (8 bytes each, at most 4 KiB), a dense one its 4 KiB of
// registers; the registers are only allocated when the sketch turns dense, so many small groups
// (DuckDB aggregate states) stay small.
//
// Not thread-safe for concurrent mutation; const methods may be called from many threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace strata {

class HyperLogLog {
 public:
  static constexpr int kPrecision = 12;
  static constexpr std::size_t kRegisters = std::size_t{1} << kPrecision;
  static constexpr std::uint8_t kFormatVersion = 1;
  static constexpr std::size_t kSparseLimit = 512;

  void Add(std::string_view canonical_text);
  void AddHash(std::uint64_t hash);
  // Register-wise maximum: the sketch of the union of both inputs.
  void Merge(const HyperLogLog& other);
  double Estimate() const;

  std::string Serialize() const;
  // kIo when `bytes` is not a well-formed version-1 sketch.
  static Result<HyperLogLog> Deserialize(std::string_view bytes);

  bool sparse() const { return sparse_; }
  friend bool operator==(const HyperLogLog&, const HyperLogLog&) = default;

 private:
  void Densify();
  void AddToRegisters(std::uint64_t hash);

  bool sparse_ = true;
  std::vector<std::uint64_t> hashes_;    // sparse: sorted, distinct
  std::vector<std::uint8_t> registers_;  // dense: kRegisters of them; empty while sparse
};

}  // namespace strata
