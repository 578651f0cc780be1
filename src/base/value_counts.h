// The value-count percentile sketch of spec/semantic.md ("Sketches"): exact counts of each
// distinct value (stored as LIST<STRUCT(value DOUBLE, count BIGINT)>), merged by summing the
// counts of equal values, and the continuous quantile of the multiset they describe.
//
// The quantile is DuckDB's `quantile_cont(x, q)` over the same doubles, bit for bit (DuckDB 1.4,
// Interpolator<false> and CastInterpolation::Interpolate<double>): with N values in ascending
// order v[0..N-1], RN = double(N - 1) * q, FRN = floor(RN), CRN = ceil(RN); the result is v[FRN]
// when FRN == CRN, else v[FRN] * (1 - d) + v[CRN] * d with d = RN - FRN.
// PostgreSQL's `percentile_cont(q) WITHIN GROUP (ORDER BY x)` picks the same two values and the
// same d but interpolates as v[FRN] + d * (v[CRN] - v[FRN]) (float8_lerp), which can differ from
// DuckDB's in the last bits; kPostgres reproduces that one.
//
// Order: ascending by value; NaN sorts after every other value and all NaNs are one value (the
// order of DuckDB's ORDER BY and PostgreSQL's float8). DuckDB's quantile_cont itself compares
// with `<`, so its answer over data that contains NaN is not defined; don't rely on it there.
// -0.0 and 0.0 are one value (whichever came first is kept).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace strata {

struct ValueCount {
  double value = 0;
  std::int64_t count = 0;
  friend bool operator==(const ValueCount&, const ValueCount&) = default;
};

enum class QuantileInterpolation {
  kDuckDb,    // quantile_cont: lo * (1 - d) + hi * d
  kPostgres,  // percentile_cont: lo + d * (hi - lo)
};

// Sorts by value (the order above) and sums the counts of equal values; entries whose count is 0
// are dropped. The result is what QuantileOfMerged reads.
// REQUIRES: every count >= 0, and the sum of all counts fits in int64.
std::vector<ValueCount> MergeValueCounts(std::vector<ValueCount> counts);

// The union of two merged sketches (each as MergeValueCounts returns), in one linear pass: the
// same as MergeValueCounts of both together.
std::vector<ValueCount> MergeMergedValueCounts(std::span<const ValueCount> a,
                                               std::span<const ValueCount> b);

// The continuous quantile q of the multiset `merged` describes; nullopt when it is empty.
// REQUIRES: 0 <= q <= 1; `merged` is ascending by value with distinct values and positive counts
// (as MergeValueCounts returns) whose sum fits in int64.
std::optional<double> QuantileOfMerged(
    std::span<const ValueCount> merged, double q,
    QuantileInterpolation interpolation = QuantileInterpolation::kDuckDb);

// MergeValueCounts, then QuantileOfMerged. Same REQUIRES as both.
std::optional<double> ContinuousQuantile(
    std::vector<ValueCount> counts, double q,
    QuantileInterpolation interpolation = QuantileInterpolation::kDuckDb);

}  // namespace strata
