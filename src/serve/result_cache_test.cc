// ResultCache (result_cache.h): canonical keys per role, entries valid only under the stamps they
// were stored with, the byte bound with least-recently-used eviction, and the duration split.
#include "serve/result_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace strata::serve {
namespace {

StoreStamps Stamps(std::uint64_t inode) {
  rollup::ManifestStamp stamp;
  stamp.inode = inode;
  stamp.size = 100;
  return {stamp, std::nullopt};
}

ResultCache::Entry EntryOf(std::string body, std::string rollup = "daily") {
  return {std::move(body), std::move(rollup), nullptr};
}

std::size_t Charge(const std::string& key, const ResultCache::Entry& entry) {
  return key.size() + entry.body_prefix.size() + entry.rollup.size() +
         2 * sizeof(rollup::ManifestStamp) + ResultCache::kEntryOverhead;
}

TEST(ResultCacheKeyTest, KeyOrderAndWhitespaceDoNotMatterButRoleAndValuesDo) {
  const auto a = ResultCacheKey("admin", R"({"measures": ["Order.revenue"], "limit": 5})");
  const auto b = ResultCacheKey("admin", "{\"limit\":5,\n \"measures\":[\"Order.revenue\"]}");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *ResultCacheKey("north", R"({"measures": ["Order.revenue"], "limit": 5})"));
  EXPECT_NE(*a, *ResultCacheKey("admin", R"({"measures": ["Order.revenue"], "limit": 6})"));
  EXPECT_NE(*a, *ResultCacheKey("admin", R"({"measures": ["Order.revenue"], "limit": "5"})"));
  EXPECT_FALSE(ResultCacheKey("admin", "{"));
  EXPECT_FALSE(ResultCacheKey("admin", ""));
}

// The key is the whole canonical body: an offset or a filter group is part of it, at any depth,
// and a group's key order or whitespace does not split it.
TEST(ResultCacheKeyTest, OffsetsAndFilterGroupsArePartOfTheKey) {
  const auto page = [](int offset) {
    return ResultCacheKey("admin",
                          R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"],
        "limit": 5, "offset": )" +
                              std::to_string(offset) + "}");
  };
  EXPECT_NE(*page(0), *page(5));
  EXPECT_NE(*page(5), *page(10));
  const auto grouped =
      ResultCacheKey("admin", R"({"measures": ["Order.revenue"], "filters": [{"not": {"or": [
          {"member": "Order.status", "op": "equals", "values": ["paid"]},
          {"member": "Order.channel", "op": "set"}]}}]})");
  const auto reordered =
      ResultCacheKey("admin", R"({"filters":[{"not":{"or":[{"values":["paid"],"op":"equals",
          "member":"Order.status"},{"op":"set","member":"Order.channel"}]}}],
          "measures":["Order.revenue"]})");
  const auto other =
      ResultCacheKey("admin", R"({"measures": ["Order.revenue"], "filters": [{"not": {"and": [
          {"member": "Order.status", "op": "equals", "values": ["paid"]},
          {"member": "Order.channel", "op": "set"}]}}]})");
  ASSERT_TRUE(grouped && reordered && other);
  EXPECT_EQ(*grouped, *reordered);
  EXPECT_NE(*grouped, *other);
}

TEST(ResultCacheKeyTest, TheDurationIsSplitOffAndPutBack) {
  const std::string body = R"({"rows":[[1]],"meta":{"sql":"x","duration_ms":12.5}})";
  const auto prefix = WithoutDuration(body);
  ASSERT_TRUE(prefix);
  EXPECT_EQ(*prefix, R"({"rows":[[1]],"meta":{"sql":"x","duration_ms":)");
  EXPECT_EQ(WithDuration(*prefix, 12.5), body);
  EXPECT_EQ(WithDuration(*prefix, 0.25), R"({"rows":[[1]],"meta":{"sql":"x","duration_ms":0.25}})");
  EXPECT_FALSE(WithoutDuration(R"({"rows":[],"meta":{"sql":"x"}})"));
  EXPECT_FALSE(WithoutDuration(R"({"meta":{"duration_ms":1.0,"sql":"x"}})"));
  EXPECT_FALSE(WithoutDuration(R"({"meta":{"duration_ms":"1"}})"));
}

TEST(ResultCacheTest, AnEntryAnswersOnlyUnderItsStamps) {
  ResultCache cache(1 << 20);
  cache.Insert("k", Stamps(1), EntryOf("body"));
  const auto hit = cache.Find("k", Stamps(1));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body_prefix, "body");
  EXPECT_EQ(hit->rollup, "daily");
  // A rollup published since (another inode): the entry is stale and dropped.
  EXPECT_FALSE(cache.Find("k", Stamps(2)));
  EXPECT_FALSE(cache.Find("k", Stamps(1)));
  // A rollup built since (it had no manifest): stale too.
  cache.Insert("k", Stamps(1), EntryOf("body"));
  StoreStamps built = Stamps(1);
  built[1] = rollup::ManifestStamp{};
  EXPECT_FALSE(cache.Find("k", built));
  const ResultCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1U);
  EXPECT_EQ(stats.stale, 2U);
  EXPECT_EQ(stats.misses, 3U);
  EXPECT_EQ(stats.entries, 0U);
  EXPECT_EQ(stats.bytes, 0U);
}

TEST(ResultCacheTest, TheByteBoundEvictsTheLeastRecentlyUsed) {
  const ResultCache::Entry entry = EntryOf(std::string(1000, 'x'));
  const std::size_t one = Charge("k0", entry);
  ResultCache cache(3 * one);
  for (const char* key : {"k0", "k1", "k2"}) cache.Insert(key, Stamps(1), entry);
  EXPECT_EQ(cache.stats().bytes, 3 * one);
  ASSERT_TRUE(cache.Find("k0", Stamps(1)));  // k1 is now the least recently used
  cache.Insert("k3", Stamps(1), entry);
  EXPECT_FALSE(cache.Find("k1", Stamps(1)));
  EXPECT_TRUE(cache.Find("k0", Stamps(1)));
  EXPECT_TRUE(cache.Find("k2", Stamps(1)));
  EXPECT_TRUE(cache.Find("k3", Stamps(1)));
  EXPECT_EQ(cache.stats().evictions, 1U);
  EXPECT_EQ(cache.stats().entries, 3U);
  EXPECT_LE(cache.stats().bytes, cache.capacity());
  // Replacing an entry charges it once.
  cache.Insert("k3", Stamps(1), entry);
  EXPECT_EQ(cache.stats().bytes, 3 * one);
  // Larger than the whole cache: not stored, nothing evicted for it.
  cache.Insert("big", Stamps(1), EntryOf(std::string(3 * one, 'y')));
  EXPECT_FALSE(cache.Find("big", Stamps(1)));
  EXPECT_EQ(cache.stats().entries, 3U);
  cache.Clear();
  EXPECT_EQ(cache.stats().entries, 0U);
  EXPECT_EQ(cache.stats().bytes, 0U);
  EXPECT_FALSE(cache.Find("k0", Stamps(1)));
}

TEST(ResultCacheTest, CapacityZeroStoresNothing) {
  ResultCache cache(0);
  EXPECT_FALSE(cache.enabled());
  cache.Insert("k", Stamps(1), EntryOf("body"));
  EXPECT_FALSE(cache.Find("k", Stamps(1)));
  EXPECT_EQ(cache.stats().inserts, 0U);
}

TEST(ResultCacheTest, ConcurrentUseKeepsTheBoundAndTheAnswers) {
  const std::size_t capacity = 40 * Charge("key-00", EntryOf(std::string(200, 'x')));
  ResultCache cache(capacity);
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // Each key twice in a row, so each thread finds what it has just stored however the
      // threads are scheduled (a cycle over 100 keys alone never hits a 40-entry LRU when the
      // threads happen to run one after another).
      for (int i = 0; i < 5000; ++i) {
        const int n = ((i / 2) * 7 + t) % 100;
        const std::string key = fmt::format("key-{:02}", n);
        const std::string body = std::string(200, static_cast<char>('a' + n % 26));
        if (auto hit = cache.Find(key, Stamps(n % 3))) {
          if (hit->body_prefix != body) ++wrong;
        } else {
          cache.Insert(key, Stamps(n % 3), EntryOf(body));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.stats().bytes, capacity);
  EXPECT_GT(cache.stats().hits, 0U);
}

}  // namespace
}  // namespace strata::serve
