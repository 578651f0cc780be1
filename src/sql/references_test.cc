#include "sql/references.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::sql {
namespace {

using Targets = std::map<std::string, std::string, std::less<>>;

const Targets kTargets = {{"stg_orders", "\"raw\".\"stg_orders\""},
                          {"customers", "\"raw\".\"customers\""},
                          {"events", "\"raw\".\"events\""}};

std::string Rewrite(std::string_view sql, Dialect dialect = Dialect::kDuckDb) {
  Result<std::string> out = RewriteReferences(sql, dialect, kTargets);
  EXPECT_TRUE(out.ok()) << out.error().ToString();
  return out.ok() ? *out : "<error>";
}

std::vector<std::string> Find(std::string_view sql, Dialect dialect = Dialect::kDuckDb) {
  Result<std::vector<std::string>> out = FindReferences(sql, dialect, kTargets);
  EXPECT_TRUE(out.ok()) << out.error().ToString();
  return out.ok() ? *out : std::vector<std::string>{};
}

struct Case {
  std::string sql;
  std::string expected;
};

void ExpectRewrites(const std::vector<Case>& cases, Dialect dialect = Dialect::kDuckDb) {
  for (const Case& c : cases) EXPECT_EQ(Rewrite(c.sql, dialect), c.expected) << c.sql;
}

TEST(ReferencesTest, FromAndAliases) {
  ExpectRewrites({
      {"select * from stg_orders", "select * from \"raw\".\"stg_orders\""},
      {"SELECT s.id FROM Stg_Orders s WHERE s.id > 1",
       "SELECT s.id FROM \"raw\".\"stg_orders\" s WHERE s.id > 1"},
      {"select 1 from stg_orders as o;", "select 1 from \"raw\".\"stg_orders\" as o;"},
      {"select * from\n  -- the orders\n  stg_orders\n",
       "select * from\n  -- the orders\n  \"raw\".\"stg_orders\"\n"},
      {"select * from /* c */stg_orders/* d */",
       "select * from /* c */\"raw\".\"stg_orders\"/* d */"},
  });
}

TEST(ReferencesTest, JoinVariants) {
  ExpectRewrites({
      {"select * from stg_orders o join customers c on o.cid = c.id",
       "select * from \"raw\".\"stg_orders\" o join \"raw\".\"customers\" c on o.cid = c.id"},
      {"from a left outer join customers using (id) cross join events",
       "from a left outer join \"raw\".\"customers\" using (id) cross join \"raw\".\"events\""},
      {"from a ASOF JOIN events e ON a.t >= e.t",
       "from a ASOF JOIN \"raw\".\"events\" e ON a.t >= e.t"},
      {"from a full join lateral (select * from events) x on true",
       "from a full join lateral (select * from \"raw\".\"events\") x on true"},
  });
}

TEST(ReferencesTest, CommaListsEndAtClauseKeywords) {
  ExpectRewrites({
      {"select a, customers from stg_orders, customers c, events where x in (customers, events)",
       "select a, customers from \"raw\".\"stg_orders\", \"raw\".\"customers\" c, "
       "\"raw\".\"events\" where x in (customers, events)"},
      {"select * from stg_orders group by a, customers order by events, customers",
       "select * from \"raw\".\"stg_orders\" group by a, customers order by events, customers"},
      {"from a join b on a.id = b.id, events", "from a join b on a.id = b.id, \"raw\".\"events\""},
      {"select f(x, customers) from stg_orders limit 1, events",
       "select f(x, customers) from \"raw\".\"stg_orders\" limit 1, events"},
  });
}

TEST(ReferencesTest, Subqueries) {
  ExpectRewrites({
      {"select * from (select id, customers from stg_orders) t, events",
       "select * from (select id, customers from \"raw\".\"stg_orders\") t, \"raw\".\"events\""},
      {"select * from x where id in (select id from customers where a = 1), events",
       "select * from x where id in (select id from \"raw\".\"customers\" where a = 1), events"},
      {"select (select max(t) from events) as m, stg_orders from x",
       "select (select max(t) from \"raw\".\"events\") as m, stg_orders from x"},
      {"select * from (stg_orders join customers using (id))",
       "select * from (\"raw\".\"stg_orders\" join \"raw\".\"customers\" using (id))"},
      {"select * from a union all select * from events",
       "select * from a union all select * from \"raw\".\"events\""},
  });
}

TEST(ReferencesTest, CtesShadowModels) {
  ExpectRewrites({
      {"with stg_orders as (select * from stg_orders) select * from stg_orders, customers",
       "with stg_orders as (select * from stg_orders) select * from stg_orders, "
       "\"raw\".\"customers\""},
      {"WITH RECURSIVE events(n) AS (SELECT 1) , c AS NOT MATERIALIZED (select 2) "
       "SELECT * FROM events JOIN customers ON true",
       "WITH RECURSIVE events(n) AS (SELECT 1) , c AS NOT MATERIALIZED (select 2) "
       "SELECT * FROM events JOIN \"raw\".\"customers\" ON true"},
      {"select * from (with customers as (select 1) select * from customers) x join customers",
       "select * from (with customers as (select 1) select * from customers) x join customers"},
      // The CTE only shadows within its own statement.
      {"with events as (select 1) select * from events; select * from events",
       "with events as (select 1) select * from events; select * from \"raw\".\"events\""},
  });
}

TEST(ReferencesTest, QualifiedCallsAndColumnsUntouched) {
  ExpectRewrites({
      {"select * from raw.stg_orders", "select * from raw.stg_orders"},
      {"select * from db . stg_orders", "select * from db . stg_orders"},
      {"select stg_orders.id from x", "select stg_orders.id from x"},
      {"select * from stg_orders . x", "select * from stg_orders . x"},
      {"select * from events(1, 2)", "select * from events(1, 2)"},
      {"select * from events (1)", "select * from events (1)"},
      {"select customers, events from x where stg_orders = 1",
       "select customers, events from x where stg_orders = 1"},
      {"select extract(year from events), substring(s from customers) from x",
       "select extract(year from events), substring(s from customers) from x"},
      {"select * from x where a is not distinct from events",
       "select * from x where a is not distinct from events"},
      {"insert into stg_orders select 1", "insert into stg_orders select 1"},
  });
}

TEST(ReferencesTest, StringsAndCommentsUntouched) {
  ExpectRewrites({
      {"select 'from stg_orders' from x -- from stg_orders\n/* from events */",
       "select 'from stg_orders' from x -- from stg_orders\n/* from events */"},
      {"select $$ from events $$ from x", "select $$ from events $$ from x"},
      {"select * from 'stg_orders.csv'", "select * from 'stg_orders.csv'"},
  });
}

TEST(ReferencesTest, QuotedIdentifiersMatchExactly) {
  ExpectRewrites({
      {"from \"stg_orders\" join \"Customers\"", "from \"raw\".\"stg_orders\" join \"Customers\""},
  });
  ExpectRewrites(
      {{"from `stg_orders` join `Customers`", "from \"raw\".\"stg_orders\" join `Customers`"}},
      Dialect::kBigQuery);
  // In bigquery "stg_orders" is a string, not a name.
  ExpectRewrites({{"from \"stg_orders\"", "from \"stg_orders\""}}, Dialect::kBigQuery);
}

TEST(ReferencesTest, DeleteMergeAndOnly) {
  ExpectRewrites(
      {
          {"delete from stg_orders using customers, events where true",
           "delete from \"raw\".\"stg_orders\" using \"raw\".\"customers\", \"raw\".\"events\" "
           "where true"},
          {"merge into t using events e on t.id = e.id when matched then update set a = 1, events "
           "= 2",
           "merge into t using \"raw\".\"events\" e on t.id = e.id when matched then update set a "
           "= 1, "
           "events = 2"},
          {"select * from only customers", "select * from only \"raw\".\"customers\""},
      },
      Dialect::kPostgres);
}

TEST(ReferencesTest, DuckDbFromFirst) {
  ExpectRewrites({
      {"from events select 1", "from \"raw\".\"events\" select 1"},
      {"select * from (from customers)", "select * from (from \"raw\".\"customers\")"},
  });
}

TEST(ReferencesTest, FindReferencesListsDistinctKeysInOrder) {
  EXPECT_EQ(Find("select * from Events e join stg_orders o on true, events, \"customers\" "
                 "where x in (select 1 from stg_orders)"),
            (std::vector<std::string>{"events", "stg_orders", "customers"}));
  EXPECT_TRUE(Find("select stg_orders.id from raw.events -- from customers").empty());
}

TEST(ReferencesTest, LexErrorsPropagate) {
  Result<std::string> out =
      RewriteReferences("select * from \"stg_orders", Dialect::kDuckDb, kTargets);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::kSqlLex);
  EXPECT_FALSE(FindReferences("select '", Dialect::kTrino, kTargets).ok());
}

}  // namespace
}  // namespace strata::sql
