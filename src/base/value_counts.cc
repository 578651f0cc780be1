#include "base/value_counts.h"

#include <algorithm>
#include <cmath>

#include "base/result.h"

namespace strata {
namespace {

// Ascending, NaN last: a strict weak order over every double (unlike `<`).
bool ValueLess(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

bool SameValue(double a, double b) { return !ValueLess(a, b) && !ValueLess(b, a); }

// The value at 0-based `rank` of the multiset. REQUIRES: rank < the sum of the counts.
double ValueAtRank(std::span<const ValueCount> merged, std::int64_t rank) {
  for (const ValueCount& entry : merged) {
    if (rank < entry.count) return entry.value;
    rank -= entry.count;
  }
  STRATA_CHECK(false);
  return 0;
}

}  // namespace

std::vector<ValueCount> MergeValueCounts(std::vector<ValueCount> counts) {
  std::stable_sort(counts.begin(), counts.end(), [](const ValueCount& a, const ValueCount& b) {
    return ValueLess(a.value, b.value);
  });
  std::vector<ValueCount> merged;
  merged.reserve(counts.size());
  for (const ValueCount& entry : counts) {
    STRATA_CHECK(entry.count >= 0);
    if (entry.count == 0) continue;
    if (!merged.empty() && SameValue(merged.back().value, entry.value)) {
      merged.back().count += entry.count;
    } else {
      merged.push_back(entry);
    }
  }
  return merged;
}

std::vector<ValueCount> MergeMergedValueCounts(std::span<const ValueCount> a,
                                               std::span<const ValueCount> b) {
  std::vector<ValueCount> merged;
  merged.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (ValueLess(a[i].value, b[j].value)) {
      merged.push_back(a[i++]);
    } else if (ValueLess(b[j].value, a[i].value)) {
      merged.push_back(b[j++]);
    } else {
      merged.push_back({a[i].value, a[i].count + b[j].count});
      ++i;
      ++j;
    }
  }
  // What is left of the one not used up (subspan: no signed iterator arithmetic).
  const std::span<const ValueCount> rest = i < a.size() ? a.subspan(i) : b.subspan(j);
  merged.insert(merged.end(), rest.begin(), rest.end());
  return merged;
}

std::optional<double> QuantileOfMerged(std::span<const ValueCount> merged, double q,
                                       QuantileInterpolation interpolation) {
  STRATA_CHECK(q >= 0 && q <= 1);
  std::int64_t total = 0;
  for (const ValueCount& entry : merged) total += entry.count;
  if (total == 0) return std::nullopt;
  // The exact arithmetic of DuckDB's Interpolator<false> (and of PostgreSQL's row numbers).
  const double rn = static_cast<double>(total - 1) * q;
  const auto frn = static_cast<std::int64_t>(std::floor(rn));
  const auto crn = static_cast<std::int64_t>(std::ceil(rn));
  const double lo = ValueAtRank(merged, frn);
  if (frn == crn) return lo;
  const double hi = ValueAtRank(merged, crn);
  const double d = rn - static_cast<double>(frn);
  switch (interpolation) {
    case QuantileInterpolation::kDuckDb:
      return lo * (1.0 - d) + hi * d;
    case QuantileInterpolation::kPostgres:
      return lo + d * (hi - lo);
  }
  STRATA_CHECK(false);
  return std::nullopt;
}

std::optional<double> ContinuousQuantile(std::vector<ValueCount> counts, double q,
                                         QuantileInterpolation interpolation) {
  const std::vector<ValueCount> merged = MergeValueCounts(std::move(counts));
  return QuantileOfMerged(merged, q, interpolation);
}

}  // namespace strata
