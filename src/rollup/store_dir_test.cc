// ResolveStoreDir and the [rollups] table of strata.toml.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "rollup/store.h"

namespace strata::rollup {
namespace {

namespace fs = std::filesystem;

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

class StoreDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("strata_rollup_store_dir_test_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  Result<project::ProjectConfig> Load(const std::string& extra) {
    WriteBytes(root_ / "strata.toml",
               "[project]\nname = \"shop\"\n[warehouse]\ntype = \"duckdb\"\n" + extra);
    project::LoadOutcome outcome = project::LoadProject(root_);
    if (!outcome.project) return outcome.errors.at(0);
    return outcome.project->config;
  }

  fs::path root_;
};

TEST_F(StoreDirTest, EnvironmentBeatsTomlBeatsDefault) {
  Result<project::ProjectConfig> plain = Load("");
  ASSERT_TRUE(plain.ok()) << plain.error().ToString();
  EXPECT_EQ(ResolveStoreDir(*plain, std::nullopt), root_ / ".strata" / "rollups");
  EXPECT_EQ(ResolveStoreDir(*plain, ""), root_ / ".strata" / "rollups") << "empty means unset";

  Result<project::ProjectConfig> configured = Load("[rollups]\nstore_dir = \"data/rollups\"\n");
  ASSERT_TRUE(configured.ok()) << configured.error().ToString();
  EXPECT_EQ(ResolveStoreDir(*configured, std::nullopt), root_ / "data" / "rollups");
  EXPECT_EQ(ResolveStoreDir(*configured, "/srv/rollups"), fs::path("/srv/rollups"));
  EXPECT_EQ(ResolveStoreDir(*configured, "relative"), fs::current_path() / "relative");

  Result<project::ProjectConfig> absolute = Load("[rollups]\nstore_dir = \"/var/r\"\n");
  ASSERT_TRUE(absolute.ok());
  EXPECT_EQ(ResolveStoreDir(*absolute, std::nullopt), fs::path("/var/r"));

  project::ProjectConfig by_hand;
  by_hand.root = "/p";
  EXPECT_EQ(ResolveStoreDir(by_hand, std::nullopt), fs::path("/p/.strata/rollups"));
}

TEST_F(StoreDirTest, TomlErrorsNameTheLine) {
  Result<project::ProjectConfig> wrong_type = Load("[rollups]\nstore_dir = 3\n");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.error().code, ErrorCode::kConfigType);
  ASSERT_TRUE(wrong_type.error().span.has_value());
  EXPECT_EQ(wrong_type.error().span->file, "strata.toml");
  EXPECT_EQ(wrong_type.error().span->line, 6);

  Result<project::ProjectConfig> unknown = Load("[rollups]\nstore_dri = \"x\"\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kConfigUnknownKey);
  EXPECT_NE(unknown.error().hint.find("store_dir"), std::string::npos) << unknown.error().hint;
  EXPECT_EQ(unknown.error().span->line, 6);

  EXPECT_EQ(Load("[rollups]\nstore_dir = \"\"\n").error().code, ErrorCode::kConfig);
}

}  // namespace
}  // namespace strata::rollup
