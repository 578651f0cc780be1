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

TEST(FuzzRegressionTest, CorpusKeepsItsProperties) {
  const int replayed = ReplayDirectory(fs::path(STRATA_FUZZ_DIR) / "corpus");
  EXPECT_GT(replayed, 100) << "tests/fuzz/corpus is missing or nearly empty";
  std::printf("fuzz corpus inputs replayed: %d\n", replayed);
}

TEST(FuzzRegressionTest, CrashInputsStayFixed) {
  const int replayed = ReplayDirectory(fs::path(STRATA_FUZZ_DIR) / "regressions");
  std::printf("fuzz regression inputs replayed: %d\n", replayed);
}

}  // namespace
}  // namespace strata::fuzz
