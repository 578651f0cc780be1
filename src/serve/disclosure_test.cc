// What the query port keeps from a token holder and what serve's log keeps (disclosure.h).
#include "serve/disclosure.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "semantic/loader.h"
#include "semantic/testing/example_model.h"

namespace strata::serve {
namespace {

TEST(DisclosureTest, WarehouseErrorsAreThoseOfTheWarehouseCodes) {
  EXPECT_TRUE(IsWarehouseError(MakeError(ErrorCode::kWarehouseCatalog, "x")));
  EXPECT_TRUE(IsWarehouseError(MakeError(ErrorCode::kWarehouse, "x")));
  EXPECT_TRUE(IsWarehouseError(MakeError(ErrorCode::kWarehouseConnection, "x")));
  EXPECT_FALSE(IsWarehouseError(MakeError(ErrorCode::kQueryInvalid, "x")));
  EXPECT_FALSE(IsWarehouseError(MakeError(ErrorCode::kAccessDenied, "x")));
}

TEST(DisclosureTest, TheLogKeepsNeitherTheSqlNorARowFiltersValues) {
  const std::string message =
      "Conversion Error: Could not convert string 'EMEA' to INT32\n\nLINE 1: SELECT ... WHERE "
      "\"region\" = 'EMEA'";
  const std::string kept = ForTheLog(message, {"EMEA", ""});
  EXPECT_EQ(kept, "Conversion Error: Could not convert string '<redacted>' to INT32\n");
  EXPECT_EQ(ForTheLog("a a a", {"a"}), "<redacted> <redacted> <redacted>");
}

TEST(DisclosureTest, AConcealedErrorHasTheCodeTheMembersAndTheReference) {
  Error failure = MakeError(ErrorCode::kWarehouseCatalog,
                            "Catalog Error: Table with name tbl_secret does not exist!",
                            "check raw.tbl_secret");
  failure.Note("while running the live SQL of a semantic query");
  const Error concealed = Concealed(failure,
                                    R"({"measures": ["Order.revenue"],
                                        "dimensions": ["Order.status"],
                                        "filters": [{"member": "Order.status", "op": "set"}]})",
                                    "abc-1");
  EXPECT_EQ(concealed.code, ErrorCode::kWarehouseCatalog);
  EXPECT_NE(concealed.message.find("Order.revenue, Order.status"), std::string::npos);
  EXPECT_EQ(concealed.message.find("Order.status, Order.status"), std::string::npos);
  EXPECT_NE(concealed.hint.find("abc-1"), std::string::npos);
  EXPECT_TRUE(concealed.notes.empty());
  const std::string text = concealed.message + concealed.hint;
  EXPECT_EQ(text.find("tbl_secret"), std::string::npos);
  EXPECT_EQ(Concealed(failure, "not json", "r").message.find("tbl_secret"), std::string::npos);
}

TEST(DisclosureTest, RowFilterValuesAreEveryRolesValues) {
  auto outcome = semantic::LoadSemanticModel(
      {{"semantic/model.yml", semantic::testing::kExampleModelYaml}}, sql::Dialect::kDuckDb, 1);
  ASSERT_TRUE(outcome.errors.empty());
  const std::vector<std::string> values = RowFilterValues(*outcome.model);
  EXPECT_NE(std::find(values.begin(), values.end(), "north"), values.end());
  EXPECT_NE(std::find(values.begin(), values.end(), "paid"), values.end());
}

}  // namespace
}  // namespace strata::serve
