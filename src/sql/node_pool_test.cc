#include "sql/node_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "sql/parser.h"
#include "sql/printer.h"

namespace strata::sql {
namespace {

using internal::AllocateNode;
using internal::FreeNode;

bool Aligned(void* block) {
  return reinterpret_cast<std::uintptr_t>(block) % alignof(std::max_align_t) == 0;
}

TEST(NodePoolTest, BlocksAreAlignedDistinctAndWritable) {
  std::vector<std::pair<void*, std::size_t>> blocks;
  std::set<void*> seen;
  for (std::size_t size : {0u, 1u, 8u, 16u, 17u, 40u, 96u, 200u, 511u, 512u, 513u, 4096u}) {
    for (int i = 0; i < 100; ++i) {
      void* block = AllocateNode(size);
      ASSERT_TRUE(Aligned(block)) << size;
      ASSERT_TRUE(seen.insert(block).second) << "a live block was handed out twice";
      std::memset(block, 0xab, size);  // ASan/valgrind would see an overflow into a neighbour
      blocks.emplace_back(block, size);
    }
  }
  for (auto [block, size] : blocks) FreeNode(block, size);
}

TEST(NodePoolTest, FreedBlocksAreReusedForTheSameSizeClass) {
  void* first = AllocateNode(48);
  FreeNode(first, 48);
  void* again = AllocateNode(40);  // same 16-byte class (33..48)
#if defined(__SANITIZE_ADDRESS__)
  (void)again;  // plain new/delete under ASan: no reuse guarantee
#else
  EXPECT_EQ(again, first);
#endif
  FreeNode(again, 40);
}

TEST(NodePoolTest, NodesMayBeFreedOnAnotherThreadAndThreadsMayExit) {
  // Trees parsed on worker threads, destroyed on this one; then more threads reuse the memory
  // the exited workers handed back. Every statement must still print what was parsed.
  constexpr int kThreads = 4;
  std::vector<StatementPtr> parsed(std::size_t{kThreads} * 50);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> workers;
    workers.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          const std::string sql =
              "SELECT a + " + std::to_string(t * 1000 + i) + " AS x, f(b, c) FROM t WHERE d > 1";
          Result<StatementPtr> statement = ParseStatement(sql, Dialect::kDuckDb);
          ASSERT_TRUE(statement.ok());
          parsed[t * 50 + i] = std::move(statement).value();
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    for (int t = 0; t < kThreads; ++t) {
      for (int i = 0; i < 50; ++i) {
        const std::string printed = Print(*parsed[t * 50 + i], Dialect::kDuckDb);
        EXPECT_NE(printed.find(std::to_string(t * 1000 + i)), std::string::npos) << printed;
      }
    }
    for (StatementPtr& statement : parsed) statement.reset();  // freed here, not where allocated
  }
}

TEST(NodePoolTest, NodeVectorsGrowFromPooledBlocksToPlainOnesAndKeepTheirElements) {
  // 32-byte names: pooled up to 16 of them (512 bytes), then operator new; every reallocation
  // moves the elements from one kind of block to the other.
  NodeVector<Identifier> names;
  for (int i = 0; i < 300; ++i) names.push_back(Identifier{"n", i % 2 == 0, Span{i, i + 1}});
  ASSERT_EQ(names.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(names[i].span.line, i);
    EXPECT_EQ(names[i].quoted, i % 2 == 0);
  }
  names.resize(3);
  names.shrink_to_fit();
  EXPECT_EQ(names.back().span.column, 3);
  // A call with more arguments than a pooled block holds parses and prints back whole.
  std::string sql = "SELECT f(";
  for (int i = 0; i < 100; ++i) sql += (i > 0 ? ", a" : "a") + std::to_string(i);
  sql += ") AS x";
  Result<StatementPtr> statement = ParseStatement(sql, Dialect::kDuckDb);
  ASSERT_TRUE(statement.ok());
  EXPECT_EQ(Print(**statement, Dialect::kDuckDb), sql);
}

}  // namespace
}  // namespace strata::sql
