// The protocol's pages as Trino 476 sent them (tests/data/trino/, recorded from a real server with
// curl; failureInfo stack traces cut).
#include "warehouse/trino/trino_protocol.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace strata::warehouse::trino {
namespace {

std::string Recorded(const std::string& name) {
  std::ifstream in(std::string(STRATA_TRINO_DATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(TrinoProtocolTest, AQueuedPageHasANextUriAndNoColumns) {
  auto page = ParsePage(Recorded("queued_page.json"));
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  EXPECT_EQ(page->state, "QUEUED");
  ASSERT_TRUE(page->next_uri.has_value());
  EXPECT_NE(page->next_uri->find("/v1/statement/queued/"), std::string::npos);
  EXPECT_TRUE(page->columns.empty());
  EXPECT_TRUE(page->rows.empty());
  EXPECT_FALSE(page->error.has_value());
}

TEST(TrinoProtocolTest, EveryTypeDecodesToTheFormOfTheOtherAdapters) {
  auto page = ParsePage(Recorded("types_page.json"));
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  ASSERT_EQ(page->rows.size(), 1U);
  const auto& row = page->rows[0];
  std::map<std::string, std::pair<ColumnType, Value>> by_name;
  for (std::size_t i = 0; i < page->columns.size(); ++i) {
    by_name[page->columns[i].name] = {page->columns[i].type, row[i]};
  }
  EXPECT_EQ(by_name["b"].second, Value(true));
  EXPECT_EQ(by_name["i"].second, Value(std::int64_t{1}));
  // Above 2^53: exact only when read as an integer.
  EXPECT_EQ(by_name["big"].second, Value(std::int64_t{9007199254740993}));
  EXPECT_EQ(by_name["r"].second, Value(1.5));
  EXPECT_EQ(by_name["dbl"].second, Value(2.5));
  EXPECT_EQ(by_name["dec"].first, ColumnType::kDecimal);
  EXPECT_EQ(by_name["dec"].second, Value(std::string("123.4500")));
  EXPECT_EQ(by_name["s"].second, Value(std::string("x'y")));
  EXPECT_EQ(by_name["d"].first, ColumnType::kDate);
  EXPECT_EQ(by_name["d"].second, Value(std::string("2024-03-01")));
  EXPECT_EQ(by_name["ts"].first, ColumnType::kTimestamp);
  EXPECT_EQ(by_name["ts"].second, Value(std::string("2024-03-01 10:11:12.123456")));
  EXPECT_EQ(by_name["tstz"].second, Value(std::string("2024-03-01 10:11:12.123456+00")));
  EXPECT_EQ(by_name["n"].second, Value(std::monostate{}));
  EXPECT_EQ(by_name["arr"].first, ColumnType::kOther);
  EXPECT_EQ(by_name["arr"].second, Value(std::string("[1,2]")));
  EXPECT_EQ(by_name["ti"].second, Value(std::int64_t{3}));
  EXPECT_TRUE(std::isnan(std::get<double>(by_name["nn"].second)));
  EXPECT_EQ(by_name["inf"].second, Value(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(by_name["d38"].second, Value(std::string("1")));
  EXPECT_EQ(by_name["dec"].second.index(), by_name["d38"].second.index());
}

TEST(TrinoProtocolTest, TheLastPageHasNoNextUri) {
  auto page = ParsePage(Recorded("finished_page.json"));
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  EXPECT_EQ(page->state, "FINISHED");
  EXPECT_FALSE(page->next_uri.has_value());
}

TEST(TrinoProtocolTest, ASyntaxErrorIsWarehouseSyntaxWithItsPlace) {
  auto page = ParsePage(Recorded("syntax_error_page.json"));
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  ASSERT_TRUE(page->error.has_value());
  Error error = ToError(*page->error);
  EXPECT_EQ(error.code, ErrorCode::kWarehouseSyntax);
  EXPECT_NE(error.message.find("SYNTAX_ERROR (USER_ERROR)"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("mismatched input 'SELEC'"), std::string::npos);
  ASSERT_TRUE(error.span.has_value());
  EXPECT_EQ(error.span->line, 1);
  EXPECT_EQ(error.span->column, 1);
}

TEST(TrinoProtocolTest, AMissingTableIsACatalogError) {
  auto page = ParsePage(Recorded("table_not_found_page.json"));
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  ASSERT_TRUE(page->error.has_value());
  Error error = ToError(*page->error);
  EXPECT_EQ(error.code, ErrorCode::kWarehouseCatalog);
  EXPECT_NE(error.message.find("iceberg.a.nosuch"), std::string::npos);
}

TEST(TrinoProtocolTest, AnInsertCarriesItsUpdateCount) {
  auto page = ParsePage(Recorded("insert_page.json"));
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  EXPECT_EQ(page->update_type, "INSERT");
  EXPECT_EQ(page->update_count, 1);
}

TEST(TrinoProtocolTest, RetryableAndOtherErrorsMapToTheirCodes) {
  auto code_of = [](const char* name, const char* type = "INTERNAL_ERROR") {
    return ToError(TrinoError{"m", name, type, 0, 0, 0}).code;
  };
  EXPECT_EQ(code_of("NO_NODES_AVAILABLE"), ErrorCode::kWarehouseConnection);
  EXPECT_EQ(code_of("SERVER_STARTING_UP"), ErrorCode::kWarehouseConnection);
  EXPECT_TRUE(
      ToError(TrinoError{"m", "NO_NODES_AVAILABLE", "INTERNAL_ERROR", 0, 0, 0}).retryable());
  EXPECT_EQ(code_of("USER_CANCELED", "USER_ERROR"), ErrorCode::kWarehouseInterrupted);
  EXPECT_EQ(code_of("NOT_SUPPORTED", "USER_ERROR"), ErrorCode::kWarehouseUnsupported);
  EXPECT_EQ(code_of("TRANSACTION_CONFLICT", "USER_ERROR"), ErrorCode::kWarehouseConflict);
  EXPECT_EQ(code_of("DIVISION_BY_ZERO", "USER_ERROR"), ErrorCode::kWarehouse);
  Error memory = ToError(TrinoError{"m", "EXCEEDED_LOCAL_MEMORY_LIMIT", "INSUFFICIENT_RESOURCES"});
  EXPECT_EQ(memory.code, ErrorCode::kWarehouse);
  EXPECT_NE(memory.hint.find("query.max-memory"), std::string::npos);
}

TEST(TrinoProtocolTest, MalformedBodiesAreCodedErrorsNotCrashes) {
  for (const char* body : {"", "not json", "[]", "{}", R"({"id":"q","data":[[1]]})",
                           R"({"id":"q","columns":[{"name":"a","type":"bigint"}],"data":[[1,2]]})",
                           R"({"id":"q","columns":[{"name":"a","type":"bigint"}],"data":[["x"]]})",
                           R"({"id":"q","columns":[{"name":"a"}]})"}) {
    auto page = ParsePage(body);
    ASSERT_FALSE(page.ok()) << body;
    EXPECT_EQ(page.error().code, ErrorCode::kWarehouse) << body;
  }
}

TEST(TrinoProtocolTest, TimestampsLoseTrailingZerosAndNameUtcAsPlusZero) {
  EXPECT_EQ(NormalizeTimestamp("2024-03-01 10:11:12.120000"), "2024-03-01 10:11:12.12");
  EXPECT_EQ(NormalizeTimestamp("2024-03-01 10:11:12.000"), "2024-03-01 10:11:12");
  EXPECT_EQ(NormalizeTimestamp("2024-03-01 10:11:12"), "2024-03-01 10:11:12");
  EXPECT_EQ(NormalizeTimestamp("2024-03-01 00:00:00.000000 UTC"), "2024-03-01 00:00:00+00");
  EXPECT_EQ(NormalizeTimestamp("2024-03-01 00:00:00.5 Europe/Paris"),
            "2024-03-01 00:00:00.5 Europe/Paris");
  EXPECT_EQ(NormalizeTimestamp("garbage"), "garbage");
}

}  // namespace
}  // namespace strata::warehouse::trino
