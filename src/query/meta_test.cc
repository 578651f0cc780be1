// query::MetaJson over the example model: everything for a trusted caller, only what a role may
// read for a role, and no answer at all for a role the model does not define.
#include "query/meta.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "semantic/loader.h"
#include "semantic/testing/example_model.h"

namespace strata::query {
namespace {

semantic::SemanticModel Example() {
  auto outcome =
      semantic::LoadSemanticModel({{"semantic/model.yml", semantic::testing::kExampleModelYaml}},
                                  sql::Dialect::kDuckDb, /*fiscal_year_start_month=*/4);
  EXPECT_TRUE(outcome.errors.empty());
  return std::move(*outcome.model);
}

std::vector<rollup::RollupStatus> NotBuilt(const semantic::SemanticModel& model) {
  std::vector<rollup::RollupStatus> statuses;
  for (const semantic::Rollup& rollup : model.rollups) {
    rollup::RollupStatus status;
    status.rollup = rollup.name;
    status.entity = rollup.entity;
    status.state = "not_built";
    statuses.push_back(status);
  }
  return statuses;
}

std::set<std::string> Names(const nlohmann::json& list) {
  std::set<std::string> names;
  for (const auto& item : list) names.insert(item["name"].get<std::string>());
  return names;
}

TEST(MetaJson, ListsWhatTheRoleMayRead) {
  const semantic::SemanticModel model = Example();
  const auto statuses = NotBuilt(model);
  auto all = MetaJson(model, statuses, std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Names((*all)["entities"]), (std::set<std::string>{"Order", "Customer", "Ticket"}));
  EXPECT_EQ((*all)["rollups"].size(), model.rollups.size());
  EXPECT_EQ((*all)["fiscal_year_start_month"], 4);
  EXPECT_EQ((*all)["default_timezone"], "UTC");
  for (const auto& rollup : (*all)["rollups"]) EXPECT_EQ(rollup["timezone"], "UTC");
  auto admin = MetaJson(model, statuses, std::string("admin"));
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(Names((*admin)["entities"]), Names((*all)["entities"]));
  EXPECT_EQ((*admin)["data_roles"], nlohmann::json::array({"admin"}));
  auto paid = MetaJson(model, statuses, std::string("paid_orders_only"));
  ASSERT_TRUE(paid.ok());
  EXPECT_EQ(Names((*paid)["entities"]), (std::set<std::string>{"Order"}));
  for (const auto& rollup : (*paid)["rollups"]) EXPECT_EQ(rollup["entity"], "Order");
  // What reads Ticket or leads to Customer is refused to this role, so it is not listed.
  const auto order_of = [](const nlohmann::json& meta) {
    for (const auto& entity : meta["entities"]) {
      if (entity["name"] == "Order") return entity;
    }
    return nlohmann::json();
  };
  EXPECT_TRUE(Names(order_of(*admin)["metrics"]).count("tickets_per_order"));
  EXPECT_FALSE(Names(order_of(*paid)["metrics"]).count("tickets_per_order"));
  EXPECT_TRUE(Names(order_of(*paid)["metrics"]).count("average_order_value"));
  EXPECT_FALSE(order_of(*admin)["relationships"].empty());
  EXPECT_TRUE(order_of(*paid)["relationships"].empty());
  // A rollup's dimension through Customer is not listed to a role that may not read Customer.
  const auto dimensions_of = [](const nlohmann::json& meta) {
    std::set<std::string> paths;
    for (const auto& rollup : meta["rollups"]) {
      for (const auto& d : rollup["dimensions"]) {
        paths.insert(d.is_string() ? d.get<std::string>() : d["name"].get<std::string>());
      }
    }
    return paths;
  };
  EXPECT_TRUE(dimensions_of(*admin).count("customer.region"));
  EXPECT_FALSE(dimensions_of(*paid).count("customer.region"));
  EXPECT_TRUE(dimensions_of(*paid).count("status"));
}

// spec/semantic.md "Serving": without [serve] expose_sql the query port's meta names no table,
// column, SQL or measure filter; the CLI's (storage shown) names them.
TEST(MetaJson, StorageIsListedOnlyWhenAsked) {
  const semantic::SemanticModel model = Example();
  const auto statuses = NotBuilt(model);
  const std::set<std::string> physical = {"table",       "sql",        "primary_key",
                                          "foreign_key", "references", "filter"};
  std::function<void(const nlohmann::json&)> expect_none;
  expect_none = [&](const nlohmann::json& node) {
    if (node.is_object()) {
      for (const auto& [key, value] : node.items()) {
        EXPECT_FALSE(physical.count(key)) << key << " in " << node;
        expect_none(value);
      }
    } else if (node.is_array()) {
      for (const auto& item : node) expect_none(item);
    }
  };
  for (const char* role : {"admin", "north_analyst"}) {
    auto hidden = MetaJson(model, statuses, std::string(role), /*storage=*/false);
    ASSERT_TRUE(hidden.ok());
    expect_none(*hidden);
    EXPECT_FALSE((*hidden)["entities"][0]["measures"].empty());
  }
  auto hidden = MetaJson(model, statuses, std::string("admin"), false);
  ASSERT_TRUE(hidden.ok());
  EXPECT_FALSE(hidden->dump().find("raw.orders") != std::string::npos);
  EXPECT_FALSE(hidden->dump().find("status = 'paid'") != std::string::npos);
  EXPECT_FALSE((*hidden)["entities"][0]["relationships"].empty());
  auto shown = MetaJson(model, statuses, std::string("admin"));
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ((*shown)["entities"][0]["table"], "raw.orders");
  EXPECT_EQ((*shown)["entities"][0]["primary_key"], "order_id");
  EXPECT_NE(shown->dump().find("status = 'paid'"), std::string::npos);
}

TEST(MetaJson, AnUnknownRoleIsRefused) {
  const semantic::SemanticModel model = Example();
  auto refused = MetaJson(model, NotBuilt(model), std::string("guest"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kAccessDenied);
  EXPECT_NE(refused.error().message.find("guest"), std::string::npos);
}

// Each rollup names its zone; the model its default one.
TEST(MetaJson, NamesTheZones) {
  semantic::SemanticModel model = Example();
  ASSERT_FALSE(model.rollups.empty());
  model.rollups[0].timezone = *TimeZone::Find("Europe/Berlin");
  model.default_timezone = *TimeZone::Find("America/New_York");
  auto meta = MetaJson(model, NotBuilt(model), std::nullopt);
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ((*meta)["rollups"][0]["timezone"], "Europe/Berlin");
  EXPECT_EQ((*meta)["default_timezone"], "America/New_York");
}

}  // namespace
}  // namespace strata::query
