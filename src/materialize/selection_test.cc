#include "materialize/selection.h"

#include <gtest/gtest.h>

namespace strata::materialize {
namespace {

project::Model DailyModel(std::optional<std::string> first = "2026-04-01",
                          std::uint32_t lookback = 0) {
  project::Model model;
  model.name = "fct";
  model.strategy = project::StrategyKind::kTimeInterval;
  project::TimeIntervalConfig config;
  config.time_column = "d";
  config.granularity = Grain::kDay;
  config.lookback = lookback;
  if (first) config.first_partition = *PartitionKey::Parse(*first, Grain::kDay);
  model.time_interval = config;
  return model;
}

const UnixSeconds kNow = ToUnixSeconds({2026, 4, 7, 13, 45, 0});

std::vector<std::string> Keys(const Result<std::vector<PartitionKey>>& keys) {
  EXPECT_TRUE(keys.ok()) << (keys.ok() ? "" : keys.error().message);
  std::vector<std::string> out;
  if (keys.ok()) {
    for (const PartitionKey& key : *keys) out.push_back(key.ToString());
  }
  return out;
}

TEST(SelectionTest, LatestIsTheDefault) {
  EXPECT_EQ(Keys(SelectPartitions(DailyModel(), {}, kNow, {})),
            std::vector<std::string>{"2026-04-07"});
  SelectionOptions latest;
  latest.latest = true;
  EXPECT_EQ(Keys(SelectPartitions(DailyModel(), latest, kNow, {})),
            std::vector<std::string>{"2026-04-07"});
}

TEST(SelectionTest, PartitionAndRange) {
  SelectionOptions one;
  one.partition = "2026-04-03";
  EXPECT_EQ(Keys(SelectPartitions(DailyModel(), one, kNow, {})),
            std::vector<std::string>{"2026-04-03"});
  SelectionOptions range;
  range.from = "2026-04-01";
  range.to = "2026-04-03";
  EXPECT_EQ(Keys(SelectPartitions(DailyModel(), range, kNow, {})),
            (std::vector<std::string>{"2026-04-01", "2026-04-02", "2026-04-03"}));
}

TEST(SelectionTest, ARangeTooLargeForOneRunIsASelectionError) {
  SelectionOptions huge;
  huge.from = "2026-01-01";
  huge.to = "9999-12-30";
  auto keys = SelectPartitions(DailyModel(), huge, kNow, {});
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.error().code, ErrorCode::kSelection);
  EXPECT_NE(keys.error().message.find("250000"), std::string::npos) << keys.error().message;
  EXPECT_FALSE(keys.error().hint.empty());
  // 250,000 days is the limit; one more is refused; lookback counts.
  SelectionOptions edge;
  edge.from = "2026-01-01";
  PartitionKey last = *PartitionKey::Parse("2026-01-01", Grain::kDay);
  for (int i = 1; i < 250'000; ++i) last = last.Next();
  edge.to = last.ToString();
  EXPECT_EQ(Keys(SelectPartitions(DailyModel(), edge, kNow, {})).size(), 250'000u);
  edge.lookback = 1;
  EXPECT_EQ(SelectPartitions(DailyModel(), edge, kNow, {}).error().code, ErrorCode::kSelection);
  // Lookback over a long range adds only the keys before its start: two years of hours (17,544)
  // with a day of lookback are 17,568 partitions, not 17,544 x 25.
  project::Model hourly = DailyModel(std::nullopt);
  hourly.time_interval->granularity = Grain::kHour;
  SelectionOptions years;
  years.from = "2024-01-01T00";
  years.to = "2025-12-31T23";
  years.lookback = 24;
  EXPECT_EQ(Keys(SelectPartitions(hourly, years, kNow, {})).size(), 17'544u + 24u);
}

TEST(SelectionTest, BadKeysNameTheModelAndFormat) {
  SelectionOptions bad;
  bad.partition = "2026-04-7";
  auto keys = SelectPartitions(DailyModel(), bad, kNow, {});
  ASSERT_FALSE(keys.ok());
  EXPECT_EQ(keys.error().code, ErrorCode::kInvalidPartitionKey);
  EXPECT_NE(keys.error().message.find("fct"), std::string::npos);
  EXPECT_NE(keys.error().message.find("%Y-%m-%d"), std::string::npos);
  SelectionOptions backwards;
  backwards.from = "2026-04-03";
  backwards.to = "2026-04-01";
  EXPECT_EQ(SelectPartitions(DailyModel(), backwards, kNow, {}).error().code,
            ErrorCode::kSelection);
}

TEST(SelectionTest, FlagsAreMutuallyExclusive) {
  SelectionOptions both;
  both.partition = "2026-04-03";
  both.missing = true;
  EXPECT_EQ(ValidateSelection(both).error().code, ErrorCode::kUsage);
  SelectionOptions half;
  half.from = "2026-04-03";
  EXPECT_EQ(ValidateSelection(half).error().code, ErrorCode::kUsage);
}

TEST(SelectionTest, MissingFindsGapsUpToNow) {
  SelectionOptions missing;
  missing.missing = true;
  const std::vector<std::string> computed = {"2026-03-30", "2026-04-01", "2026-04-02",
                                             "2026-04-05"};
  EXPECT_EQ(Keys(SelectPartitions(DailyModel(), missing, kNow, computed)),
            (std::vector<std::string>{"2026-04-03", "2026-04-04", "2026-04-06", "2026-04-07"}));
  auto no_first = SelectPartitions(DailyModel(std::nullopt), missing, kNow, {});
  ASSERT_FALSE(no_first.ok());
  EXPECT_EQ(no_first.error().code, ErrorCode::kSelection);
}

TEST(SelectionTest, LookbackAddsPreviousPartitionsAndCliWins) {
  EXPECT_EQ(Keys(SelectPartitions(DailyModel("2026-01-01", 2), {}, kNow, {})),
            (std::vector<std::string>{"2026-04-05", "2026-04-06", "2026-04-07"}));
  SelectionOptions override;
  override.lookback = 1;
  EXPECT_EQ(Keys(SelectPartitions(DailyModel("2026-01-01", 2), override, kNow, {})),
            (std::vector<std::string>{"2026-04-06", "2026-04-07"}));
  SelectionOptions zero;
  zero.lookback = 0;
  EXPECT_EQ(Keys(SelectPartitions(DailyModel("2026-01-01", 2), zero, kNow, {})),
            (std::vector<std::string>{"2026-04-07"}));
}

// first_partition bounds --missing discovery only (its lookback included): an explicitly selected
// key runs before it, and so does the lookback of an explicit selection.
TEST(SelectionTest, FirstPartitionBoundsOnlyMissingDiscovery) {
  SelectionOptions early;
  early.partition = "2026-04-02";
  early.lookback = 3;
  EXPECT_EQ(Keys(SelectPartitions(DailyModel("2026-04-01"), early, kNow, {})),
            (std::vector<std::string>{"2026-03-30", "2026-03-31", "2026-04-01", "2026-04-02"}));
  SelectionOptions before;
  before.partition = "2026-03-15";
  EXPECT_EQ(Keys(SelectPartitions(DailyModel("2026-04-01"), before, kNow, {})),
            (std::vector<std::string>{"2026-03-15"}));
  SelectionOptions missing;
  missing.missing = true;
  missing.lookback = 3;
  EXPECT_EQ(Keys(SelectPartitions(DailyModel("2026-04-05"), missing, kNow, {})),
            (std::vector<std::string>{"2026-04-05", "2026-04-06", "2026-04-07"}));
}

}  // namespace
}  // namespace strata::materialize

namespace strata::materialize {
namespace {

project::Model ZonedModel(const char* zone, Grain grain, std::optional<std::string> first,
                          std::uint32_t lookback = 0) {
  project::Model model = DailyModel(std::nullopt, lookback);
  model.time_interval->granularity = grain;
  model.time_interval->zone = *TimeZone::Find(zone);
  if (first) {
    model.time_interval->first_partition =
        *PartitionKey::Parse(*first, grain, *TimeZone::Find(zone));
  }
  return model;
}

TEST(SelectionTest, LatestAndMissingUseNowInTheModelsZone) {
  // 2026-04-08T02:30Z is still the 7th in New York.
  const UnixSeconds night = ToUnixSeconds({2026, 4, 8, 2, 30, 0});
  const project::Model ny = ZonedModel("America/New_York", Grain::kDay, "2026-04-05");
  EXPECT_EQ(Keys(SelectPartitions(ny, {}, night, {})), std::vector<std::string>{"2026-04-07"});
  SelectionOptions missing;
  missing.missing = true;
  EXPECT_EQ(Keys(SelectPartitions(ny, missing, night, {"2026-04-06"})),
            (std::vector<std::string>{"2026-04-05", "2026-04-07"}));
}

TEST(SelectionTest, LookbackCountsLocalPeriodsAcrossAChange) {
  SelectionOptions one;
  one.partition = "2026-11-01T03-05:00";
  one.lookback = 3;
  EXPECT_EQ(Keys(SelectPartitions(ZonedModel("America/New_York", Grain::kHour, std::nullopt), one,
                                  kNow, {})),
            (std::vector<std::string>{"2026-11-01T01-04:00", "2026-11-01T01-05:00",
                                      "2026-11-01T02-05:00", "2026-11-01T03-05:00"}));
}

TEST(SelectionTest, MissingFindsComputedZonedHoursThatDoNotSortAsText) {
  // Berlin's repeated hour: "02+02:00" comes first, but sorts after "02+01:00" as text.
  const project::Model berlin = ZonedModel("Europe/Berlin", Grain::kHour, "2026-10-25T01+02:00");
  SelectionOptions missing;
  missing.missing = true;
  const UnixSeconds after = ToUnixSeconds({2026, 10, 25, 2, 30, 0});  // 03:30 CET
  EXPECT_EQ(
      Keys(SelectPartitions(berlin, missing, after,
                            {"2026-10-25T01+02:00", "2026-10-25T02+01:00", "2026-10-25T02+02:00"})),
      std::vector<std::string>{"2026-10-25T03+01:00"});
}

}  // namespace
}  // namespace strata::materialize
