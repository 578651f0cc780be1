#include "warehouse/from_config.h"

#include <gtest/gtest.h>

#include "warehouse/registry.h"

namespace strata::warehouse {
namespace {

// OpenWarehouse opens exactly the dialects the capability table gives a connector.
TEST(WarehouseFromConfigTest, OpensExactlyTheDialectsWithAConnector) {
  project::ProjectConfig project;
  project.root = ".";
  for (const AdapterRegistration& registration : AdapterRegistrations()) {
    const Capabilities& row = registration.capabilities;
    project::WarehouseConfig config;
    config.name = "default";
    config.type = std::string(sql::DialectName(row.dialect));
    config.path = ":memory:";
    config.dsn_env = "STRATA_FACTORY_TEST_UNSET_DSN";  // postgres stops at the missing DSN
    auto opened = OpenWarehouse(project, config);
    if (row.connector) {
      if (!opened.ok()) {
        EXPECT_NE(opened.error().code, ErrorCode::kWarehouseUnsupported) << config.type;
      }
    } else {
      ASSERT_FALSE(opened.ok()) << config.type;
      EXPECT_EQ(opened.error().code, ErrorCode::kWarehouseUnsupported);
      EXPECT_NE(opened.error().hint.find("use a duckdb, postgres or trino warehouse"),
                std::string::npos);
    }
  }
}

}  // namespace
}  // namespace strata::warehouse
