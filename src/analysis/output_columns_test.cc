#include "analysis/output_columns.h"

#include <gtest/gtest.h>

#include <map>

#include "sql/parser.h"

namespace strata::analysis {
namespace {

constexpr auto kUnknown = ValueType::kUnknown;
constexpr auto kNullable = Nullability::kNullable;
constexpr auto kNotNull = Nullability::kNotNull;

// raw.orders(order_id INTEGER NOT NULL, order_at TIMESTAMP NULL, d DATE NOT NULL,
//            amount DECIMAL NULL, tz TIMESTAMPTZ NULL); customers(id INTEGER NOT NULL,
//            name VARCHAR NULL); anything else unknown.
std::optional<std::vector<TypedColumn>> FakeCatalog(const std::vector<std::string>& parts) {
  static const std::map<std::string, std::vector<TypedColumn>> kTables = {
      {"orders",
       {{"order_id", ValueType::kInteger, kNotNull},
        {"order_at", ValueType::kTimestamp, kNullable},
        {"d", ValueType::kDate, kNotNull},
        {"amount", ValueType::kDecimal, kNullable},
        {"tz", ValueType::kTimestampTz, kNullable}}},
      {"customers",
       {{"id", ValueType::kInteger, kNotNull}, {"name", ValueType::kString, kNullable}}},
  };
  auto found = kTables.find(parts.back());
  if (found == kTables.end()) return std::nullopt;
  return found->second;
}

OutputColumns Analyze(std::string_view sql, sql::Dialect dialect = sql::Dialect::kDuckDb) {
  auto statement = sql::ParseStatement(sql, dialect);
  EXPECT_TRUE(statement.ok()) << (statement.ok() ? "" : statement.error().message);
  if (!statement.ok()) return {};
  return AnalyzeOutputColumns(**statement, FakeCatalog);
}

const OutputColumn& Named(const OutputColumns& output, std::string_view name) {
  for (const OutputColumn& column : output.columns) {
    if (SameName(column.name, name)) return column;
  }
  static const OutputColumn kMissing{"<missing>", {}, {}, {}};
  ADD_FAILURE() << "no output column " << name;
  return kMissing;
}

std::vector<std::string> Names(const OutputColumns& output) {
  std::vector<std::string> names;
  for (const OutputColumn& column : output.columns) names.push_back(column.name);
  return names;
}

TEST(OutputColumnsTest, NamesFromAliasesColumnsAndQualifiedColumns) {
  const OutputColumns out =
      Analyze("SELECT o.order_id, amount AS total, raw.orders.d, 1 + 1 FROM raw.orders o");
  EXPECT_EQ(Names(out), (std::vector<std::string>{"order_id", "total", "d", ""}));
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(out.columns[1].type, ValueType::kDecimal);
}

TEST(OutputColumnsTest, StarExpandsKnownTablesWithExcludeAndReplace) {
  const OutputColumns out =
      Analyze("SELECT * EXCLUDE (amount) REPLACE (CAST(order_at AS DATE) AS order_at) FROM orders");
  EXPECT_EQ(Names(out), (std::vector<std::string>{"order_id", "order_at", "d", "tz"}));
  EXPECT_EQ(Named(out, "order_at").type, ValueType::kDate);
  EXPECT_TRUE(out.complete);
}

TEST(OutputColumnsTest, StarOverAnUnknownTableIsIncomplete) {
  const OutputColumns out = Analyze("SELECT *, 1 AS one FROM mystery");
  EXPECT_FALSE(out.complete);
  EXPECT_EQ(Names(out), (std::vector<std::string>{"one"}));
}

TEST(OutputColumnsTest, QualifiedStarAndUsingColumnsOnce) {
  const OutputColumns qualified =
      Analyze("SELECT c.* FROM orders o JOIN customers c ON o.order_id = c.id");
  EXPECT_EQ(Names(qualified), (std::vector<std::string>{"id", "name"}));
  const OutputColumns using_join =
      Analyze("SELECT * FROM (SELECT order_id AS id FROM orders) a JOIN customers USING (id)");
  EXPECT_EQ(Names(using_join), (std::vector<std::string>{"id", "name"}));
}

TEST(OutputColumnsTest, ColumnTypesAndNullabilityComeFromTheCatalog) {
  const OutputColumns out = Analyze("SELECT order_at, d, order_id FROM orders");
  EXPECT_EQ(out.columns[0].type, ValueType::kTimestamp);
  EXPECT_EQ(out.columns[0].nullability, kNullable);
  EXPECT_EQ(out.columns[1].type, ValueType::kDate);
  EXPECT_EQ(out.columns[1].nullability, kNotNull);
}

TEST(OutputColumnsTest, UnknownTablesGiveUnknownTypes) {
  const OutputColumns out = Analyze("SELECT ts, DATE_TRUNC('day', ts) AS d FROM mystery");
  EXPECT_EQ(out.columns[0].type, kUnknown);
  EXPECT_EQ(out.columns[0].nullability, Nullability::kUnknown);
  EXPECT_EQ(out.columns[1].type, kUnknown);
}

TEST(OutputColumnsTest, DuckDbDateTruncFollowsThePart) {
  const OutputColumns out = Analyze(
      "SELECT DATE_TRUNC('day', order_at) AS a, date_trunc('hour', order_at) AS b, "
      "date_trunc('month', d) AS c, date_trunc('hour', d) AS e, date_trunc('day', tz) AS f "
      "FROM orders");
  EXPECT_EQ(Named(out, "a").type, ValueType::kDate);
  EXPECT_EQ(Named(out, "b").type, ValueType::kTimestamp);
  EXPECT_EQ(Named(out, "c").type, ValueType::kDate);
  EXPECT_EQ(Named(out, "e").type, ValueType::kTimestamp);
  EXPECT_EQ(Named(out, "f").type, ValueType::kTimestampTz);
  EXPECT_EQ(Named(out, "a").nullability, kNullable);
  EXPECT_EQ(Named(out, "c").nullability, kNotNull);
}

TEST(OutputColumnsTest, PostgresDateTruncIsATimestamp) {
  const OutputColumns out =
      Analyze("SELECT date_trunc('day', order_at) AS a, date_trunc('day', d) AS b FROM orders",
              sql::Dialect::kPostgres);
  EXPECT_EQ(Named(out, "a").type, ValueType::kTimestamp);
  EXPECT_EQ(Named(out, "b").type, ValueType::kTimestamp);
}

TEST(OutputColumnsTest, CastsDateAndTryCast) {
  const OutputColumns out = Analyze(
      "SELECT CAST(order_id AS TIMESTAMP) AS a, order_at::DATE AS b, DATE(order_at) AS c, "
      "TRY_CAST(d AS TIMESTAMP) AS e, CAST(d AS VARCHAR) AS f FROM orders");
  EXPECT_EQ(Named(out, "a").type, ValueType::kTimestamp);
  EXPECT_EQ(Named(out, "a").nullability, kNotNull);
  EXPECT_EQ(Named(out, "b").type, ValueType::kDate);
  EXPECT_EQ(Named(out, "c").type, ValueType::kDate);
  EXPECT_EQ(Named(out, "e").nullability, kNullable);
  EXPECT_EQ(Named(out, "f").type, ValueType::kString);
}

TEST(OutputColumnsTest, Aggregates) {
  const OutputColumns grouped = Analyze(
      "SELECT d, COUNT(*) AS n, SUM(amount) AS s, MIN(d) AS first_day FROM orders GROUP BY d");
  EXPECT_EQ(Named(grouped, "n").type, ValueType::kInteger);
  EXPECT_EQ(Named(grouped, "n").nullability, kNotNull);
  EXPECT_EQ(Named(grouped, "s").type, ValueType::kDecimal);
  EXPECT_EQ(Named(grouped, "first_day").type, ValueType::kDate);
  EXPECT_EQ(Named(grouped, "first_day").nullability, kNotNull);
  // Without GROUP BY an empty input still gives one row, with NULL.
  EXPECT_EQ(Named(Analyze("SELECT MAX(d) AS m FROM orders"), "m").nullability, kNullable);
}

TEST(OutputColumnsTest, WhereRejectingNullMakesTheColumnNotNull) {
  EXPECT_EQ(Named(Analyze("SELECT DATE_TRUNC('day', order_at) AS x FROM orders "
                          "WHERE order_at >= @start_date AND order_at < @end_date"),
                  "x")
                .nullability,
            kNotNull);
  EXPECT_EQ(Named(Analyze("SELECT order_at FROM orders WHERE order_at IS NOT NULL"), "order_at")
                .nullability,
            kNotNull);
  EXPECT_EQ(Named(Analyze("SELECT * FROM orders WHERE o.order_at >= @start_date"), "order_at")
                .nullability,
            kNullable);  // `o` is not a table here: nothing is rejected
  EXPECT_EQ(Named(Analyze("SELECT * FROM orders o WHERE o.order_at >= @start_date"), "order_at")
                .nullability,
            kNotNull);
  // OR and IS NULL reject nothing.
  EXPECT_EQ(
      Named(
          Analyze(
              "SELECT order_at FROM orders WHERE order_at >= @start_date OR d > DATE '2024-01-01'"),
          "order_at")
          .nullability,
      kNullable);
  EXPECT_EQ(
      Named(Analyze("SELECT order_at FROM orders WHERE order_at IS NULL"), "order_at").nullability,
      kNullable);
}

TEST(OutputColumnsTest, HavingQualifyAndInnerJoinOnRejectNullToo) {
  EXPECT_EQ(Named(Analyze("SELECT d, COUNT(*) AS n FROM (SELECT CAST(order_at AS DATE) AS d "
                          "FROM orders) t GROUP BY 1 HAVING d >= @start_date AND d < @end_date"),
                  "d")
                .nullability,
            kNotNull);
  EXPECT_EQ(
      Named(Analyze("SELECT order_at FROM orders QUALIFY order_at >= @start_date"), "order_at")
          .nullability,
      kNotNull);
  EXPECT_EQ(Named(Analyze("SELECT o.order_at FROM orders o JOIN orders p ON p.order_id = "
                          "o.order_id AND o.order_at >= @start_date AND o.order_at < @end_date"),
                  "order_at")
                .nullability,
            kNotNull);
  // The preserved side of an outer join keeps the rows whose ON fails: nothing is rejected.
  EXPECT_EQ(Named(Analyze("SELECT o.order_at FROM orders o LEFT JOIN customers c ON c.id = "
                          "o.order_id AND o.order_at >= @start_date"),
                  "order_at")
                .nullability,
            kNullable);
  // An inner join on the null-supplying side of an outer join: its rows may become NULL.
  EXPECT_EQ(Named(Analyze("SELECT o.d FROM customers c LEFT JOIN (orders o JOIN customers k ON "
                          "k.id = o.order_id AND o.order_at >= @start_date) ON c.id = k.id"),
                  "d")
                .nullability,
            kNullable);
  EXPECT_EQ(Named(Analyze("SELECT o.order_at FROM customers c LEFT JOIN (orders o JOIN customers "
                          "k ON k.id = o.order_id AND o.order_at >= @start_date) ON c.id = k.id"),
                  "order_at")
                .nullability,
            kNullable);
  // ...and on the preserved side it still filters.
  EXPECT_EQ(Named(Analyze("SELECT o.order_at FROM (orders o JOIN customers k ON k.id = o.order_id "
                          "AND o.order_at >= @start_date) LEFT JOIN customers c ON c.id = k.id"),
                  "order_at")
                .nullability,
            kNotNull);
  // An ON names only its own join's relations: `order_at` there is not the later LEFT JOIN's.
  EXPECT_EQ(Named(Analyze("SELECT l.order_at FROM unknown_t e JOIN customers c ON c.id = e.cid AND "
                          "order_at >= @start_date LEFT JOIN orders l ON l.order_id = c.id"),
                  "order_at")
                .nullability,
            kNullable);
  // ROLLUP's subtotal rows hold NULL in the grouping columns whatever WHERE kept.
  EXPECT_EQ(Named(Analyze("SELECT order_at, COUNT(*) AS n FROM orders WHERE order_at >= "
                          "@start_date GROUP BY ROLLUP (order_at)"),
                  "order_at")
                .nullability,
            kNullable);
  // An anti join keeps the rows whose ON fails.
  EXPECT_EQ(Named(Analyze("SELECT o.order_at FROM orders o ANTI JOIN customers c ON c.id = "
                          "o.order_id AND o.order_at >= @start_date"),
                  "order_at")
                .nullability,
            kNullable);
}

TEST(OutputColumnsTest, OuterJoinsMakeTheOuterSideNullable) {
  const OutputColumns left =
      Analyze("SELECT c.id, o.d FROM customers c LEFT JOIN orders o ON o.order_id = c.id");
  EXPECT_EQ(Named(left, "id").nullability, kNotNull);
  EXPECT_EQ(Named(left, "d").nullability, kNullable);
  const OutputColumns right =
      Analyze("SELECT c.id, o.d FROM customers c RIGHT JOIN orders o ON o.order_id = c.id");
  EXPECT_EQ(Named(right, "id").nullability, kNullable);
  EXPECT_EQ(Named(right, "d").nullability, kNotNull);
}

TEST(OutputColumnsTest, CtesAndDerivedTablesCarryTypes) {
  const OutputColumns out = Analyze(
      "WITH daily AS (SELECT DATE_TRUNC('day', order_at) AS day FROM orders WHERE order_at >= "
      "@start_date) "
      "SELECT s.day, s.n FROM (SELECT day, COUNT(*) AS n FROM daily GROUP BY day) AS s");
  EXPECT_EQ(Named(out, "day").type, ValueType::kDate);
  EXPECT_EQ(Named(out, "day").nullability, kNotNull);
  EXPECT_EQ(Named(out, "n").type, ValueType::kInteger);
  // A CTE shadows a table of the same name; AS t(a) renames.
  const OutputColumns shadow =
      Analyze("WITH orders AS (SELECT 1 AS x) SELECT * FROM orders AS t(y)");
  EXPECT_EQ(Names(shadow), (std::vector<std::string>{"y"}));
}

TEST(OutputColumnsTest, UnionTakesLeftNamesAndMergesTypes) {
  const OutputColumns out = Analyze(
      "SELECT d AS day, order_id FROM orders UNION ALL SELECT CAST(order_at AS DATE), 1 FROM "
      "orders");
  EXPECT_EQ(Names(out), (std::vector<std::string>{"day", "order_id"}));
  EXPECT_EQ(out.columns[0].type, ValueType::kDate);
  EXPECT_EQ(out.columns[0].nullability, kNullable);  // the right branch may be NULL
  const OutputColumns mixed = Analyze("SELECT d FROM orders UNION SELECT order_at FROM orders");
  EXPECT_EQ(mixed.columns[0].type, kUnknown);
}

TEST(OutputColumnsTest, PostgresNamesFunctionsAfterTheFunction) {
  EXPECT_EQ(Names(Analyze("SELECT date_trunc('day', order_at), order_at::date FROM orders",
                          sql::Dialect::kPostgres)),
            (std::vector<std::string>{"date_trunc", "order_at"}));
  EXPECT_EQ(Names(Analyze("SELECT date_trunc('day', order_at), order_at::date FROM orders")),
            (std::vector<std::string>{"", ""}));
}

TEST(OutputColumnsTest, SpansPointAtTheItem) {
  const OutputColumns out = Analyze("SELECT\n  order_id,\n  d AS day\nFROM orders");
  EXPECT_EQ(out.columns[1].span.line, 3);
  EXPECT_EQ(out.columns[1].span.column, 3);
  EXPECT_EQ(out.select_span.line, 1);
}

TEST(OutputColumnsTest, TypeNames) {
  EXPECT_EQ(ValueTypeFromName("TIMESTAMP WITH TIME ZONE"), ValueType::kTimestampTz);
  EXPECT_EQ(ValueTypeFromName("timestamp_ns"), ValueType::kTimestamp);
  EXPECT_EQ(ValueTypeFromName("DECIMAL(12,2)"), ValueType::kDecimal);
  EXPECT_EQ(ValueTypeFromName("INTEGER[]"), ValueType::kOther);
  EXPECT_EQ(ValueTypeFromName("STRUCT(a INT)"), ValueType::kOther);
  EXPECT_EQ(ValueTypeFromName(""), kUnknown);
  EXPECT_TRUE(IsTemporal(ValueType::kDate));
  EXPECT_FALSE(IsTemporal(ValueType::kString));
}

}  // namespace
}  // namespace strata::analysis
