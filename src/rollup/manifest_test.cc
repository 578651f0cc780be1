#include "rollup/manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::rollup {
namespace {

constexpr UnixSeconds kApril = 1775001600;  // 2026-04-01T00:00:00Z
constexpr UnixSeconds kMay = 1777593600;    // 2026-05-01T00:00:00Z
constexpr UnixSeconds kJune = 1780272000;   // 2026-06-01T00:00:00Z

ManifestFile PeriodFile(std::string path, UnixSeconds start, UnixSeconds end, std::int64_t rows) {
  ManifestFile file;
  file.start = start;
  file.end = end;
  file.path = std::move(path);
  file.rows = rows;
  file.bytes = 1234;
  file.checksum = "0123456789abcdef";
  file.build_ms = 12.5;
  file.built_at = "2026-06-02T03:04:05Z";
  return file;
}

Manifest Sample() {
  Manifest manifest;
  manifest.rollup = "monthly_order_summary";
  manifest.definition_hash = "9f86d081884c7d65";
  manifest.version = 3;
  manifest.built_at = "2026-06-02T03:04:05Z";
  manifest.freshness_marker = "2026-06-01 23:59:59";
  manifest.built_through = kJune;
  manifest.range_start = kApril;
  manifest.range_end = kJune;
  manifest.partition_by = "month";
  manifest.time_dimension = "order_date";
  manifest.columns = {{"order_date", "TIMESTAMP", "dimension", "order_date", ""},
                      {"customer.region", "VARCHAR", "dimension", "customer.region", ""},
                      {"revenue", "DECIMAL(18,2)", "measure", "revenue", "sum"},
                      {"avg_amount__sum", "DOUBLE", "measure", "avg_amount", "sum"},
                      {"avg_amount__count", "BIGINT", "measure", "avg_amount", "count"},
                      {"customer_id_approx__hll", "BLOB", "measure", "customer_id_approx", "hll"},
                      {"median_amount__values", "STRUCT(value DOUBLE, count BIGINT)[]", "measure",
                       "median_amount", "values"}};
  manifest.files = {PeriodFile("2026-04-a.parquet", kApril, kMay, 40),
                    PeriodFile("2026-05-b.parquet", kMay, kJune, 2)};
  ManifestFile null_time = PeriodFile("null-c.parquet", 0, 1, 1);
  null_time.start.reset();
  null_time.end.reset();
  null_time.null_time = true;
  manifest.files.push_back(null_time);
  return manifest;
}

void ExpectEqual(const Manifest& a, const Manifest& b) {
  EXPECT_EQ(ManifestToJson(a), ManifestToJson(b));
  EXPECT_EQ(a.rollup, b.rollup);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.freshness_marker, b.freshness_marker);
  EXPECT_EQ(a.built_through, b.built_through);
  ASSERT_EQ(a.files.size(), b.files.size());
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(a.files[i].start, b.files[i].start);
    EXPECT_EQ(a.files[i].null_time, b.files[i].null_time);
    EXPECT_EQ(a.files[i].bytes, b.files[i].bytes);
    EXPECT_EQ(a.files[i].build_ms, b.files[i].build_ms);
  }
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (std::size_t i = 0; i < a.columns.size(); ++i) {
    EXPECT_EQ(a.columns[i].type, b.columns[i].type);
    EXPECT_EQ(a.columns[i].part, b.columns[i].part);
  }
}

TEST(ManifestTest, RoundTripsThroughJson) {
  const Manifest manifest = Sample();
  ASSERT_TRUE(ValidateManifest(manifest).ok()) << ValidateManifest(manifest).error().ToString();
  const std::string json = ManifestToJson(manifest);
  EXPECT_NE(json.find("\"start\": \"2026-04-01T00:00:00Z\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"total_rows\": 43"), std::string::npos) << json;
  Result<Manifest> parsed = ParseManifestJson(json, "manifest.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  ExpectEqual(*parsed, manifest);
  EXPECT_EQ(parsed->TotalRows(), 43);
  ASSERT_NE(parsed->FindColumn("revenue"), nullptr);
  EXPECT_EQ(parsed->FindColumn("revenue")->type, "DECIMAL(18,2)");
}

TEST(ManifestTest, RoundTripsAnUnpartitionedManifestWithoutOptionals) {
  Manifest manifest = Sample();
  manifest.partition_by = "";
  manifest.time_dimension = "";
  manifest.freshness_marker.reset();
  manifest.built_through.reset();
  manifest.range_start.reset();
  manifest.range_end.reset();
  manifest.files = {PeriodFile("all-x.parquet", 0, 1, 7)};
  manifest.files[0].start.reset();
  manifest.files[0].end.reset();
  ASSERT_TRUE(ValidateManifest(manifest).ok()) << ValidateManifest(manifest).error().ToString();
  Result<Manifest> parsed = ParseManifestJson(ManifestToJson(manifest), "m");
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  ExpectEqual(*parsed, manifest);
  EXPECT_FALSE(parsed->freshness_marker.has_value());
}

TEST(ManifestTest, EveryTruncationIsACodedError) {
  const std::string json = ManifestToJson(Sample());
  for (std::size_t length = 0; length < json.size() - 2; ++length) {
    Result<Manifest> parsed = ParseManifestJson(json.substr(0, length), "manifest.json");
    ASSERT_FALSE(parsed.ok()) << "prefix of " << length << " bytes parsed";
    EXPECT_EQ(parsed.error().code, ErrorCode::kRollupManifest);
  }
}

TEST(ManifestTest, MalformedManifestsAreCodedErrors) {
  const std::string good = ManifestToJson(Sample());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  const std::string cases[] = {
      "",
      "[]",
      "null",
      "{}",
      "\x01\xff garbage",
      replaced("\"format_version\": 1", "\"format_version\": 2"),
      replaced("\"format_version\": 1", "\"format_version\": \"1\""),
      replaced("\"version\": 3", "\"version\": 0"),
      replaced("\"version\": 3", "\"version\": 3.5"),
      replaced("\"rows\": 40", "\"rows\": -1"),
      replaced("\"rows\": 40", "\"rows\": \"40\""),
      replaced("\"bytes\": 1234", "\"bytes\": -5"),
      replaced("\"start\": \"2026-04-01T00:00:00Z\"", "\"start\": \"2026-04-01\""),
      replaced("\"start\": \"2026-04-01T00:00:00Z\"", "\"start\": \"2026-05-15T00:00:00Z\""),
      replaced("\"start\": \"2026-04-01T00:00:00Z\"", "\"start\": null"),
      replaced("\"path\": \"2026-04-a.parquet\"", "\"path\": \"../escape.parquet\""),
      replaced("\"path\": \"2026-04-a.parquet\"", "\"path\": \"2026-05-b.parquet\""),
      replaced("\"checksum\": \"0123456789abcdef\"", "\"checksum\": \"XYZ\""),
      replaced("\"role\": \"dimension\"", "\"role\": \"metric\""),
      replaced("\"name\": \"revenue\"", "\"name\": \"order_date\""),
      replaced("\"columns\": [", "\"columns\": 7, \"x\": ["),
      replaced("\"rollup\": \"monthly_order_summary\"", "\"rollup\": 5"),
      replaced("\"partition_by\": \"month\"", "\"partition_by\": \"\""),
      replaced("\"built_at\": \"2026-06-02T03:04:05Z\"", "\"built_at\": \"yesterday\""),
  };
  for (const std::string& text : cases) {
    Result<Manifest> parsed = ParseManifestJson(text, "store/x/manifest.json");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().code, ErrorCode::kRollupManifest) << text;
    EXPECT_NE(parsed.error().message.find("store/x/manifest.json"), std::string::npos)
        << parsed.error().message;
    EXPECT_FALSE(parsed.error().hint.empty());
  }
}

TEST(ManifestTest, NamesTheBadField) {
  std::string text = ManifestToJson(Sample());
  text.replace(text.find("\"rows\": 2"), 9, "\"rows\": true");
  Result<Manifest> parsed = ParseManifestJson(text, "m.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message.find("files[1].rows"), std::string::npos)
      << parsed.error().message;
}

TEST(ManifestTest, IgnoresUnknownKeys) {
  std::string text = ManifestToJson(Sample());
  text.replace(text.find('{'), 1, "{\"written_by\": \"strata 0.9\", ");
  EXPECT_TRUE(ParseManifestJson(text, "m.json").ok());
}

TEST(ManifestTest, ValidateRefusesOverlapsAndWrongLayouts) {
  Manifest overlapping = Sample();
  overlapping.files[1].start = kApril + 86400;
  EXPECT_EQ(ValidateManifest(overlapping).error().code, ErrorCode::kRollupManifest);

  Manifest whole_in_partitioned = Sample();
  whole_in_partitioned.files[2].null_time = false;
  EXPECT_FALSE(ValidateManifest(whole_in_partitioned).ok());

  Manifest period_in_unpartitioned = Sample();
  period_in_unpartitioned.partition_by.clear();
  EXPECT_FALSE(ValidateManifest(period_in_unpartitioned).ok());

  Manifest dot_path = Sample();
  dot_path.files[0].path = ".lock";
  EXPECT_FALSE(ValidateManifest(dot_path).ok());

  Manifest bad_range = Sample();
  bad_range.range_end = kApril;
  EXPECT_FALSE(ValidateManifest(bad_range).ok());

  Manifest empty = Sample();
  empty.files.clear();
  empty.columns.clear();
  EXPECT_TRUE(ValidateManifest(empty).ok());
}

}  // namespace
}  // namespace strata::rollup
