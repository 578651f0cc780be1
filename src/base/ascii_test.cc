#include "base/ascii.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(AsciiTest, FoldsOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLowered("Stg_Orders_2024 ÄÖ"), "stg_orders_2024 ÄÖ");
  EXPECT_EQ(AsciiUpper('q'), 'Q');
  EXPECT_EQ(AsciiUpper('@'), '@');
  EXPECT_EQ(AsciiLower('['), '[');  // between 'Z' and 'a'
  EXPECT_EQ(AsciiLower('Z'), 'z');
}

TEST(AsciiTest, ComparesIgnoringCase) {
  EXPECT_TRUE(EqualsIgnoreAsciiCase("Computed", "COMPUTED"));
  EXPECT_TRUE(EqualsIgnoreAsciiCase("", ""));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("Computed", "Compute"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("a[", "A{"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("Ä", "ä"));  // UTF-8 bytes compare exactly
}

}  // namespace
}  // namespace strata
