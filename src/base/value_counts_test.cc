// Hand-computed cases. Bit-for-bit agreement with DuckDB's quantile_cont over random data is
// tested against DuckDB itself in warehouse/duckdb/sketch_functions_test.cc.
#include "base/value_counts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace strata {
namespace {

TEST(ValueCounts, MergeSortsAndSumsEqualValues) {
  const std::vector<ValueCount> merged =
      MergeValueCounts({{3, 1}, {1, 2}, {3, 4}, {2, 0}, {-1, 1}, {1, 1}});
  const std::vector<ValueCount> expected = {{-1, 1}, {1, 3}, {3, 5}};
  EXPECT_EQ(merged, expected);
}

TEST(ValueCounts, MergingMergedSketchesIsMergingEverything) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<ValueCount> a = {{-2, 1}, {0.5, 2}, {3, 1}, {7, 4}};
  const std::vector<ValueCount> b = {{-3, 1}, {0.5, 1}, {7, 1}, {9, 2}, {nan, 1}};
  std::vector<ValueCount> all = a;
  all.insert(all.end(), b.begin(), b.end());
  const std::vector<ValueCount> merged = MergeMergedValueCounts(a, b);
  const std::vector<ValueCount> expected = MergeValueCounts(all);
  ASSERT_EQ(merged.size(), expected.size());
  for (std::size_t i = 0; i + 1 < merged.size(); ++i) EXPECT_EQ(merged[i], expected[i]);
  EXPECT_TRUE(std::isnan(merged.back().value));
  EXPECT_EQ(MergeMergedValueCounts(b, a).size(), merged.size());
  EXPECT_EQ(MergeMergedValueCounts(a, {}), a);
}

TEST(ValueCounts, NanSortsLastAsOneValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<ValueCount> merged = MergeValueCounts({{nan, 1}, {2, 1}, {nan, 2}, {1, 1}});
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].value, 1);
  EXPECT_EQ(merged[1].value, 2);
  EXPECT_TRUE(std::isnan(merged[2].value));
  EXPECT_EQ(merged[2].count, 3);
}

TEST(ValueCounts, EmptyIsNull) {
  EXPECT_EQ(ContinuousQuantile({}, 0.5), std::nullopt);
  EXPECT_EQ(ContinuousQuantile({{1, 0}}, 0.5), std::nullopt);
}

TEST(ValueCounts, OneValue) {
  for (double q : {0.0, 0.5, 0.99, 1.0}) {
    EXPECT_EQ(ContinuousQuantile({{-7.25, 1}}, q), -7.25);
    EXPECT_EQ(ContinuousQuantile({{-7.25, 1000}}, q), -7.25);
  }
}

// 1, 2, 2, 10: RN = 3q.
TEST(ValueCounts, InterpolatesBetweenNeighbours) {
  const std::vector<ValueCount> counts = {{10, 1}, {2, 2}, {1, 1}};
  EXPECT_EQ(ContinuousQuantile(counts, 0), 1);
  EXPECT_EQ(ContinuousQuantile(counts, 1), 10);
  EXPECT_EQ(ContinuousQuantile(counts, 0.5), 2);  // RN 1.5: between the two 2s
  // RN 2.7: 2 * 0.3 + 10 * 0.7 in DuckDB's form.
  const double rn = 3 * 0.9;
  const double d = rn - 2;
  EXPECT_EQ(ContinuousQuantile(counts, 0.9), 2 * (1 - d) + 10 * d);
  EXPECT_EQ(ContinuousQuantile(counts, 0.9, QuantileInterpolation::kPostgres), 2 + d * (10 - 2));
}

// The two interpolation forms are not the same function of the same doubles.
TEST(ValueCounts, DuckDbAndPostgresFormsCanDiffer) {
  int differ = 0;
  for (int i = 1; i < 1000; ++i) {
    const std::vector<ValueCount> counts = {{0.1 * i, 1}, {0.3 * i + 0.7, 1}};
    const double q = i / 1000.0;
    if (ContinuousQuantile(counts, q) !=
        ContinuousQuantile(counts, q, QuantileInterpolation::kPostgres)) {
      ++differ;
    }
  }
  EXPECT_GT(differ, 0);
}

}  // namespace
}  // namespace strata
