// Replays every kept fuzz input (tests/fuzz/corpus/ and tests/fuzz/regressions/) through the
// same property as the libFuzzer target (sql_round_trip.h), in the normal GCC build, so CI
// re-checks them without clang. A crash here is a crash; a broken property is a test failure
// naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sql_round_trip.h"

namespace strata::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> InputFiles(const fs::path& directory) {
  std::vector<fs::path> files;
  if (!fs::is_directory(directory)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

int ReplayDirectory(const fs::path& directory) {
  int replayed = 0;
  for (const fs::path& file : InputFiles(directory)) {
    std::ifstream in(file, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string violations =
        CheckSqlInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    EXPECT_EQ(violations, "") << file;
    ++replayed;
  }
  return replayed;
}

// Replaying nothing proves nothing: both folders must be there and hold their inputs. Lower a
// minimum only in the change that deliberately drops kept inputs.
constexpr int kMinimumCorpusInputs = 1000;  // 2,385 today
constexpr int kMinimumRegressionInputs = 3;

TEST(FuzzRegressionTest, CorpusKeepsItsProperties) {
  const fs::path directory = fs::path(STRATA_FUZZ_DIR) / "corpus";
  ASSERT_TRUE(fs::is_directory(directory)) << directory << " is missing";
  const int replayed = ReplayDirectory(directory);
  EXPECT_GE(replayed, kMinimumCorpusInputs) << directory << " is nearly empty";
  std::printf("fuzz corpus inputs replayed: %d\n", replayed);
}

TEST(FuzzRegressionTest, CrashInputsStayFixed) {
  const fs::path directory = fs::path(STRATA_FUZZ_DIR) / "regressions";
  ASSERT_TRUE(fs::is_directory(directory)) << directory << " is missing";
  const int replayed = ReplayDirectory(directory);
  EXPECT_GE(replayed, kMinimumRegressionInputs)
      << directory << " holds fewer kept crash inputs than before";
  std::printf("fuzz regression inputs replayed: %d\n", replayed);
}

}  // namespace
}  // namespace strata::fuzz
