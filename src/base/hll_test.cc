#include "base/hll.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace strata {
namespace {

HyperLogLog Of(int from, int to) {
  HyperLogLog sketch;
  for (int i = from; i < to; ++i) sketch.Add(std::to_string(i));
  return sketch;
}

// Within 3 standard errors (1.04 / sqrt(4096) = 1.625 %) of the true count.
void ExpectClose(double estimate, double truth) {
  EXPECT_LE(std::abs(estimate - truth), 3 * 0.01625 * truth) << estimate << " vs " << truth;
}

TEST(HyperLogLog, EstimatesWithinThreeStandardErrors) {
  ExpectClose(Of(0, 10'000).Estimate(), 10'000);
  ExpectClose(Of(0, 100'000).Estimate(), 100'000);
  ExpectClose(Of(500'000, 600'000).Estimate(), 100'000);
}

// Up to kSparseLimit distinct values the sketch keeps the hashes: exact counts.
TEST(HyperLogLog, SmallSetsAreExact) {
  EXPECT_EQ(HyperLogLog().Estimate(), 0);
  for (int n : {1, 54, 100, 512}) {
    EXPECT_EQ(Of(0, n).Estimate(), n);
    EXPECT_TRUE(Of(0, n).sparse());
  }
  EXPECT_FALSE(Of(0, 513).sparse());
}

// Just past the sparse limit, the dense estimate (linear counting) is within 3 standard errors.
TEST(HyperLogLog, DenseJustPastTheSparseLimit) { ExpectClose(Of(0, 600).Estimate(), 600); }

TEST(HyperLogLog, DuplicatesDoNotCount) {
  HyperLogLog sketch = Of(0, 1000);
  const double before = sketch.Estimate();
  for (int i = 0; i < 1000; ++i) sketch.Add(std::to_string(i));
  EXPECT_EQ(sketch.Estimate(), before);
}

TEST(HyperLogLog, MergeEqualsUnion) {
  HyperLogLog merged = Of(0, 60'000);
  merged.Merge(Of(40'000, 100'000));
  EXPECT_EQ(merged, Of(0, 100'000));
  ExpectClose(merged.Estimate(), 100'000);
  // sparse + sparse (staying sparse, and crossing the limit), sparse + dense, dense + sparse
  HyperLogLog small = Of(0, 200);
  small.Merge(Of(100, 300));
  EXPECT_EQ(small, Of(0, 300));
  small.Merge(Of(250, 700));
  EXPECT_EQ(small, Of(0, 700));
  HyperLogLog sparse_first = Of(0, 10);
  sparse_first.Merge(Of(5, 5000));
  EXPECT_EQ(sparse_first, Of(0, 5000));
  HyperLogLog dense_first = Of(5, 5000);
  dense_first.Merge(Of(0, 10));
  EXPECT_EQ(dense_first, Of(0, 5000));
}

TEST(HyperLogLog, SerializedFormat) {
  for (const HyperLogLog& sketch : {Of(0, 5000), Of(0, 3), HyperLogLog()}) {
    const std::string bytes = sketch.Serialize();
    EXPECT_EQ(bytes[0], 1);
    EXPECT_EQ(bytes[1], sketch.sparse() ? 1 : 0);
    EXPECT_EQ(bytes.size(),
              sketch.sparse() ? 6 + 8 * static_cast<std::size_t>(sketch.Estimate()) : 4098u);
    auto back = HyperLogLog::Deserialize(bytes);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, sketch);
    std::string wrong_version = bytes;
    wrong_version[0] = 2;
    EXPECT_FALSE(HyperLogLog::Deserialize(wrong_version).ok());
    EXPECT_FALSE(HyperLogLog::Deserialize(bytes.substr(0, bytes.size() - 1)).ok());
  }
}

// The format is fixed: "42" is stored as its XXH3-64 (seed 0), little-endian, after the header.
TEST(HyperLogLog, FormatIsStable) {
  HyperLogLog sketch;
  sketch.Add("42");
  const std::string bytes = sketch.Serialize();
  ASSERT_EQ(bytes.size(), 14u);
  std::uint64_t hash = 0;
  for (int i = 0; i < 8; ++i)
    hash |= std::uint64_t{static_cast<std::uint8_t>(bytes[6 + i])} << (8 * i);
  EXPECT_EQ(hash, 0x1217cb28c0ef2191ULL);
  HyperLogLog by_hash;
  by_hash.AddHash(hash);
  EXPECT_EQ(by_hash, sketch);
  HyperLogLog other;
  other.Add("43");
  EXPECT_NE(other, sketch);
}

}  // namespace
}  // namespace strata
