#include "analysis/bounds.h"

#include <gtest/gtest.h>

namespace strata::analysis {
namespace {

TEST(BoundsTest, SeedExampleIsBounded) {
  const BoundsReport report = AnalyzeModelSql(
      "SELECT DATE_TRUNC('day', order_at) AS order_date, COUNT(*) FROM stg_orders\n"
      "WHERE order_at >= @start_date AND order_at < @end_date GROUP BY 1",
      sql::Dialect::kDuckDb);
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(report.warnings.empty());
}

}  // namespace
}  // namespace strata::analysis
