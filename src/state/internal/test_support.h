// Test helpers for the state component's tests: a fresh temporary directory (and base/time.h's
// FixedClock under internal::, where the tests look for it).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "base/time.h"

namespace strata::state::internal {

using strata::FixedClock;  // base/time.h

// A test fixture owning an empty directory, removed after the test.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "strata_state_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  // A path inside the directory.
  std::string PathTo(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace strata::state::internal
