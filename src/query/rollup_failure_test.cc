// A hit that fails to read: the failure is charged to the rollups whose files fail, so the
// others keep answering (query_engine.cc, RunRouted). The single-rollup cases are in
// rollup_query_test.cc; here a join reads one rollup per entity.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "query/testing/rollup_query_fixture.h"

namespace strata::rollup {
namespace {

namespace fs = std::filesystem;

const char* const kJoined = R"(rollups:
  - name: orders_by_region
    entity: Order
    dimensions: [customer.region]
    measures: [revenue]
  - name: orders_by_region_status
    entity: Order
    dimensions: [customer.region, status]
    measures: [revenue]
  - name: customers_by_region
    entity: Customer
    dimensions: [region]
    measures: [customer_count]
)";

class JoinedRollupFailureTest : public testing::RollupQueryTest {
 protected:
  // The fixture's entities with a measure on Customer too, so a query joins two rollups.
  void LoadJoined() {
    std::string entities = testing::kEntities;
    const std::string region = "      - { name: region, type: string }\n";
    entities.insert(entities.find(region) + region.size(),
                    "    measures:\n      - { name: customer_count, agg: count }\n");
    auto outcome =
        semantic::LoadSemanticModel({{"m.yml", entities + kJoined}}, sql::Dialect::kDuckDb, 4);
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors[0].ToString();
    model_ = std::move(*outcome.model);
    store_.emplace(root_ / "store");
  }

  void RemoveFiles(const std::string& rollup) {
    auto manifest = store_->Load(rollup);
    ASSERT_TRUE(manifest.ok() && manifest->has_value());
    for (const auto& file : (*manifest)->files) fs::remove(store_->FolderOf(rollup) / file.path);
  }
};

TEST_F(JoinedRollupFailureTest, OnlyTheRollupWhoseFilesFailIsRoutedAround) {
  LoadJoined();
  Build();
  const std::string text = R"({"measures": ["Order.revenue", "Customer.customer_count"],
                               "dimensions": ["Customer.region"]})";
  EXPECT_EQ(ExpectSameAnswer(text), "orders_by_region");
  EXPECT_EQ(Reason(text, "customers_by_region"), "used");
  EXPECT_EQ(Reason(text, "orders_by_region_status"), "costlier");
  RemoveFiles("orders_by_region");
  EXPECT_EQ(ExpectSameAnswer(text), "orders_by_region_status");
  EXPECT_EQ(Reason(text, "orders_by_region"), "store_error");
  EXPECT_EQ(Reason(text, "customers_by_region"), "used");
  // The Customer rollup unreadable too: the answer is live, and both unreadable ones say so.
  RemoveFiles("customers_by_region");
  EXPECT_EQ(ExpectSameAnswer(text), "");
  EXPECT_EQ(Reason(text, "customers_by_region"), "store_error");
  EXPECT_EQ(Reason(text, "orders_by_region"), "store_error");
}

}  // namespace
}  // namespace strata::rollup
