#include <gtest/gtest.h>

#include "materialize/internal/run_context.h"

namespace strata::materialize {
namespace {

TEST(BackoffTest, GrowsExponentiallyWithJitterAndIsCapped) {
  project::RunConfig config;
  config.retry_base_ms = 100;
  for (int attempt = 1; attempt <= 5; ++attempt) {
    const std::int64_t ceiling = std::int64_t{100} << (attempt - 1);
    for (int i = 0; i < 50; ++i) {
      const std::int64_t wait = BackoffMillis(config, attempt);
      EXPECT_GE(wait, ceiling / 2);
      EXPECT_LE(wait, ceiling);
    }
  }
  // The largest settings strata accepts would otherwise wait 60 s * 2^16 (45 days).
  config.retry_base_ms = 60'000;
  for (int attempt = 1; attempt <= 21; ++attempt) {
    const std::int64_t wait = BackoffMillis(config, attempt);
    EXPECT_LE(wait, kMaxBackoffMillis) << "attempt " << attempt;
    EXPECT_GE(wait, kMaxBackoffMillis / 2) << "attempt " << attempt;
  }
  config.retry_base_ms = 0;
  EXPECT_EQ(BackoffMillis(config, 3), 0);
}

}  // namespace
}  // namespace strata::materialize
