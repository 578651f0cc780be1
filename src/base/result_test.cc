#include "base/result.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

Result<int> Half(int value) {
  if (value % 2 != 0) return MakeError(ErrorCode::kUsage, "odd: " + std::to_string(value));
  return value / 2;
}

Result<int> Quarter(int value) {
  STRATA_ASSIGN_OR_RETURN(int half, Half(value));
  STRATA_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(ResultTest, PropagatesFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kUsage);
  EXPECT_EQ(bad.error().message, "odd: 3");
}

TEST(ResultTest, CatalogueDescribesEveryCode) {
  EXPECT_EQ(ErrorCodeName(ErrorCode::kStateLocked), "StateLocked");
  EXPECT_TRUE(Describe(ErrorCode::kWarehouseConflict).retryable);
  EXPECT_FALSE(Describe(ErrorCode::kWarehouseSyntax).retryable);
  EXPECT_EQ(Describe(ErrorCode::kInvalidPartitionKey).number, 3);
  EXPECT_EQ(ReportedCode(ErrorCode::kPlaceholder), "E024");
  EXPECT_EQ(ReportedCode(ErrorCode::kStateLocked), "StateLocked");
}

TEST(ResultTest, ErrorToStringHasSpanHintAndNotes) {
  Error error = MakeError(ErrorCode::kConfig, "bad", "fix it");
  error.span = SourceSpan{"a.toml", 3, 7};
  error.Note("while loading model x");
  EXPECT_EQ(error.ToString(), "a.toml:3:7: bad (hint: fix it)\n  while loading model x");
}

TEST(ResultTest, CheckThrowsOnBrokenInvariant) {
  EXPECT_THROW(STRATA_CHECK(1 + 1 == 3), InvariantViolation);
}

}  // namespace
}  // namespace strata
