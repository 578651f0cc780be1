// The sketch functions of the DuckDB engine against the C++ formats and against DuckDB itself.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/hll.h"
#include "base/value_counts.h"
#include "warehouse/duckdb/duckdb_engine.h"

namespace strata::warehouse {
namespace {

class SketchFunctionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.threads = 4;  // more than the machine's cores: several partial states per query
    auto engine = OpenDuckDbEngine(options);
    ASSERT_TRUE(engine.ok()) << engine.error().message;
    engine_ = std::move(engine).value();
    auto connection = engine_->Connect();
    ASSERT_TRUE(connection.ok());
    connection_ = std::move(connection).value();
  }

  QueryResult Exec(std::string_view sql) {
    Result<QueryResult> result = connection_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << ": " << (result.ok() ? "" : result.error().message);
    return result.ok() ? std::move(result).value() : QueryResult{};
  }
  Value One(std::string_view sql) {
    QueryResult result = Exec(sql);
    EXPECT_EQ(result.row_count(), 1u) << sql;
    return result.row_count() == 1 ? result.columns[0].values[0] : Value{};
  }
  std::string Text(std::string_view sql) {
    const Value value = One(sql);
    return std::holds_alternative<std::string>(value) ? std::get<std::string>(value) : "<not text>";
  }
  Error Fails(std::string_view sql) {
    Result<QueryResult> result = connection_->Execute(sql);
    EXPECT_FALSE(result.ok()) << sql;
    return result.ok() ? Error{} : result.error();
  }

  std::unique_ptr<Warehouse> engine_;
  std::unique_ptr<Connection> connection_;
};

std::string Hex(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) out += fmt::format("{:02X}", static_cast<unsigned char>(c));
  return out;
}

// The C++ sketch of "v0" ... "v{n-1}".
HyperLogLog SketchOfRange(std::int64_t from, std::int64_t to) {
  HyperLogLog sketch;
  for (std::int64_t i = from; i < to; ++i) sketch.Add("v" + std::to_string(i));
  return sketch;
}

TEST_F(SketchFunctionsTest, HllAddIsByteIdenticalToTheCppSketch) {
  for (const std::int64_t n : {1, 2, 100, 512, 513, 4096, 100'000, 1'000'000}) {
    const std::string sql = fmt::format(
        "SELECT hex(strata_hll_add('v' || i)) FROM range({}) r(i) ORDER BY random()", n);
    EXPECT_EQ(Text(sql), Hex(SketchOfRange(0, n).Serialize())) << n;
  }
  // Duplicates and NULLs do not count (every residue mod 50 occurs with i % 3 != 0); no text at
  // all is NULL.
  EXPECT_EQ(Text("SELECT hex(strata_hll_add(CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || (i % 50) "
                 "END)) FROM range(10000) r(i)"),
            Hex(SketchOfRange(0, 50).Serialize()));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      One("SELECT strata_hll_add(NULL::VARCHAR) FROM range(10)")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      One("SELECT strata_hll_add(i::VARCHAR) FROM range(0) r(i)")));
  // Bytes, not characters: the empty text and non-ASCII text hash as their UTF-8 bytes.
  HyperLogLog texts;
  texts.Add("");
  texts.Add("Zürich");
  EXPECT_EQ(Text("SELECT hex(strata_hll_add(s)) FROM (VALUES (''), ('Zürich')) v(s)"),
            Hex(texts.Serialize()));
}

// Many groups over a table large enough for DuckDB to scan and aggregate on several threads.
TEST_F(SketchFunctionsTest, GroupedParallelAggregationMatchesTheCppSketches) {
  Exec(
      "CREATE TABLE t AS SELECT (i % 300000) % 7 AS g, 'v' || (i % 300000) AS s FROM "
      "range(2000000) r(i)");
  QueryResult rows = Exec("SELECT g, hex(strata_hll_add(s)) FROM t GROUP BY g ORDER BY g");
  ASSERT_EQ(rows.row_count(), 7u);
  for (std::int64_t g = 0; g < 7; ++g) {
    HyperLogLog sketch;
    for (std::int64_t i = g; i < 300000; i += 7) sketch.Add("v" + std::to_string(i));
    EXPECT_EQ(std::get<std::string>(rows.columns[1].values[g]), Hex(sketch.Serialize())) << g;
  }
  EXPECT_EQ(Text("SELECT hex(strata_hll_add(s)) FROM t"),
            Hex(SketchOfRange(0, 300000).Serialize()));
  // The same through partial sketches merged in parallel.
  Exec(
      "CREATE TABLE parts AS SELECT i, strata_hll_add('v' || (i * 1000 + j)) AS s "
      "FROM range(300) a(i), range(1000) b(j) GROUP BY i");
  EXPECT_EQ(Text("SELECT hex(strata_hll_merge(s)) FROM parts"),
            Hex(SketchOfRange(0, 300000).Serialize()));
}

// Merged in every order and grouping, the bytes are those of the union's sketch. (The order is
// set by VALUES, not by ORDER BY inside the aggregate: see sketch_functions.h.)
TEST_F(SketchFunctionsTest, MergeIsAssociativeAndCommutative) {
  // a: sparse, b: sparse and overlapping a, c: dense.
  const auto part = [&](int from, int to) {
    return Text(
        fmt::format("SELECT hex(strata_hll_add('v' || i)) FROM range({}, {}) r(i)", from, to));
  };
  const std::string a = part(0, 300), b = part(200, 450), c = part(400, 9000);
  const auto merge = [&](const std::vector<std::string>& parts) {
    std::string values;
    for (const std::string& hex : parts) {
      values += (values.empty() ? "" : ", ") + fmt::format("(from_hex('{}'))", hex);
    }
    return Text(fmt::format("SELECT hex(strata_hll_merge(s)) FROM (VALUES {}) v(s)", values));
  };
  const std::string all = Hex(SketchOfRange(0, 9000).Serialize());
  EXPECT_EQ(merge({a, b, c}), all);
  EXPECT_EQ(merge({c, b, a}), all);
  EXPECT_EQ(merge({b, c, a}), all);
  EXPECT_EQ(merge({a, b}), merge({b, a}));
  EXPECT_EQ(merge({b, c}), merge({c, b}));
  EXPECT_EQ(merge({a, c}), merge({c, a}));
  EXPECT_EQ(merge({merge({a, b}), c}), all);  // (a + b) + c
  EXPECT_EQ(merge({a, merge({b, c})}), all);  // a + (b + c)
  EXPECT_EQ(merge({a, a, merge({a})}), a);    // idempotent
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      One("SELECT strata_hll_merge(s) FROM (VALUES (NULL::BLOB), (NULL)) v(s)")));
}

// Window frames combine one partial state into many (DuckDB's segment tree): sources must stay
// intact. Small frames keep the sketches sparse, so the estimates are exact.
TEST_F(SketchFunctionsTest, WindowFramesFilterAndDistinct) {
  EXPECT_EQ(One("SELECT count(*) FILTER (WHERE e <> d) FROM (SELECT strata_hll_estimate("
                "strata_hll_add((i % 37)::VARCHAR) OVER w) AS e, count(DISTINCT i % 37) OVER w "
                "AS d FROM range(5000) r(i) WINDOW w AS (ORDER BY i ROWS BETWEEN 50 PRECEDING "
                "AND CURRENT ROW))"),
            Value{std::int64_t{0}});
  EXPECT_EQ(One("SELECT count(*) FILTER (WHERE e IS DISTINCT FROM d) FROM (SELECT "
                "strata_quantile_merge([{'value': (i % 101)::DOUBLE, 'count': 1}], 0.9) OVER w "
                "AS e, quantile_cont((i % 101)::DOUBLE, 0.9) OVER w AS d FROM range(5000) r(i) "
                "WINDOW w AS (ORDER BY i ROWS BETWEEN 70 PRECEDING AND 5 FOLLOWING))"),
            Value{std::int64_t{0}});
  EXPECT_EQ(One("SELECT strata_hll_estimate(strata_hll_add((i % 1000)::VARCHAR) FILTER (WHERE "
                "i % 2 = 0)) FROM range(100000) r(i)"),
            Value{std::int64_t{500}});
  EXPECT_EQ(Text("SELECT hex(strata_hll_add(DISTINCT 'v' || (i % 1000))) FROM range(100000) r(i)"),
            Hex(SketchOfRange(0, 1000).Serialize()));
}

// Within 3 standard errors (1.04 / sqrt(4096) = 1.625 %) from 1 to 10^7 distinct values; exact
// while the sketch is sparse (up to 512 values).
TEST_F(SketchFunctionsTest, EstimateIsWithinTheHllBound) {
  for (std::int64_t decade = 1; decade <= 1'000'000; decade *= 10) {
    for (const std::int64_t n : {decade, 2 * decade, 5 * decade}) {
      const std::int64_t estimate = std::get<std::int64_t>(
          One(fmt::format("SELECT strata_hll_estimate(strata_hll_add(i::VARCHAR)) FROM range({}) "
                          "r(i)",
                          n)));
      if (n <= 512) {
        EXPECT_EQ(estimate, n);
      } else {
        EXPECT_LE(std::abs(static_cast<double>(estimate - n)), 3 * 0.01625 * n) << n;
      }
    }
  }
  const std::int64_t n = 10'000'000;
  const std::int64_t estimate = std::get<std::int64_t>(
      One("SELECT strata_hll_estimate(strata_hll_add(i::VARCHAR)) FROM range(10000000) r(i)"));
  EXPECT_LE(std::abs(static_cast<double>(estimate - n)), 3 * 0.01625 * n) << estimate;
  EXPECT_EQ(estimate, std::llround([] {
              HyperLogLog sketch;
              for (std::int64_t i = 0; i < 10'000'000; ++i) sketch.Add(std::to_string(i));
              return sketch.Estimate();
            }()));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(One("SELECT strata_hll_estimate(NULL)")));
}

TEST_F(SketchFunctionsTest, MalformedSketchesAreErrorsNotCrashes) {
  const std::string sparse = Hex(SketchOfRange(0, 3).Serialize());
  const std::string dense = Hex(SketchOfRange(0, 3000).Serialize());
  for (const std::string& bad :
       {std::string(""), std::string("01"), std::string("02") + sparse.substr(2),
        sparse.substr(0, sparse.size() - 2), sparse + "00", dense.substr(0, dense.size() - 2),
        std::string("0100") + std::string(8192, 'F'), std::string("0107")}) {
    const std::string blob = fmt::format("from_hex('{}')", bad);
    for (const std::string& sql :
         {fmt::format("SELECT strata_hll_estimate({})", blob),
          fmt::format("SELECT strata_hll_merge(s) FROM (VALUES ({}), ({})) v(s)", blob, blob)}) {
      const Error error = Fails(sql);
      EXPECT_EQ(error.code, ErrorCode::kWarehouse) << sql;
      EXPECT_NE(error.message.find("bad HyperLogLog sketch"), std::string::npos) << error.message;
    }
  }
  // Still usable afterwards.
  EXPECT_EQ(std::get<std::int64_t>(
                One(fmt::format("SELECT strata_hll_estimate(from_hex('{}'))", sparse))),
            3);
}

TEST_F(SketchFunctionsTest, FunctionsAreOnEveryConnection) {
  auto other = engine_->Connect();
  ASSERT_TRUE(other.ok());
  Result<QueryResult> result = (*other)->Execute(
      "SELECT strata_hll_estimate(strata_hll_add(i::VARCHAR)), "
      "current_setting('TimeZone'), current_setting('threads') FROM range(5) r(i)");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(std::get<std::int64_t>(result->columns[0].values[0]), 5);
  EXPECT_EQ(std::get<std::string>(result->columns[1].values[0]), "UTC");
  EXPECT_EQ(std::get<std::int64_t>(result->columns[2].values[0]), 4);
}

// Random doubles with duplicates and negatives, in `groups` groups of `rows` rows.
void FillRandom(Connection& connection, std::uint32_t seed, std::size_t rows, int groups) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> wide(-1e6, 1e6);
  std::uniform_int_distribution<int> small(-20, 20);
  QueryResult data;
  data.columns.resize(2);
  data.columns[0].column.name = "g";
  data.columns[1].column.name = "x";
  for (std::size_t i = 0; i < rows; ++i) {
    data.columns[0].values.emplace_back(static_cast<std::int64_t>(random() % groups));
    const int kind = static_cast<int>(random() % 4);
    const double x = kind == 0 ? small(random) : kind == 1 ? small(random) * 0.1 : wide(random);
    data.columns[1].values.emplace_back(x);
  }
  Status status = AppendRows(connection, "raw", data);
  ASSERT_TRUE(status.ok()) << status.error().message;
}

std::vector<double> Quantiles() {
  std::vector<double> q = {0, 1, 0.5, 0.9, 0.95, 0.99, 0.25, 0.75, 0.1, 0.01, 0.001, 0.999};
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 20; ++i) q.push_back(unit(random));
  return q;
}

bool SameBits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// strata_quantile_merge over value-count sketches of parts equals quantile_cont over the raw
// values: the same double, bit for bit.
TEST_F(SketchFunctionsTest, QuantileMergeEqualsQuantileContExactly) {
  Exec("CREATE TABLE raw (g BIGINT, x DOUBLE)");
  FillRandom(*connection_, 1, 200000, 13);
  // Parts: per (g, part) sketches, as a rollup would store them; merged back per g and overall.
  Exec(
      "CREATE TABLE parts AS SELECT g, hash(x) % 5 AS part, strata_value_counts(x) AS vc "
      "FROM raw GROUP BY ALL");
  for (const double q : Quantiles()) {
    const std::string literal = fmt::format("'{:.17g}'::DOUBLE", q);
    QueryResult want =
        Exec(fmt::format("SELECT g, quantile_cont(x, {}) FROM raw GROUP BY g ORDER BY g", literal));
    QueryResult got = Exec(fmt::format(
        "SELECT g, strata_quantile_merge(vc, {}) FROM parts GROUP BY g ORDER BY g", literal));
    ASSERT_EQ(want.row_count(), 13u);
    ASSERT_EQ(got.row_count(), 13u);
    for (std::size_t g = 0; g < 13; ++g) {
      const double w = std::get<double>(want.columns[1].values[g]);
      const double h = std::get<double>(got.columns[1].values[g]);
      EXPECT_TRUE(SameBits(w, h)) << fmt::format("q {} group {}: {:.17g} vs {:.17g}", q, g, w, h);
    }
    const double all =
        std::get<double>(One(fmt::format("SELECT quantile_cont(x, {}) FROM raw", literal)));
    const double merged = std::get<double>(
        One(fmt::format("SELECT strata_quantile_merge(vc, {}) FROM parts", literal)));
    EXPECT_TRUE(SameBits(all, merged)) << fmt::format("q {}: {:.17g} vs {:.17g}", q, all, merged);
  }
}

// Small multisets, where every q lands on a different pair of neighbours; the C++ function and
// the SQL function against DuckDB's quantile_cont.
TEST_F(SketchFunctionsTest, SmallMultisetsOneValueAndDuplicates) {
  Exec("CREATE TABLE raw (g BIGINT, x DOUBLE)");
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> wide(-1000, 1000);
  QueryResult data;
  data.columns.resize(2);
  std::vector<std::vector<ValueCount>> counts(40);
  for (std::int64_t g = 0; g < 40; ++g) {
    const int n = g < 10 ? 1 + static_cast<int>(g) / 3 : 2 + static_cast<int>(random() % 60);
    for (int i = 0; i < n; ++i) {
      const double x = g % 4 == 0 ? -3.5 : (i % 3 == 0 ? 0.1 * (i % 5) : wide(random));
      data.columns[0].values.emplace_back(g);
      data.columns[1].values.emplace_back(x);
      counts[g].push_back({x, 1});
    }
  }
  ASSERT_TRUE(AppendRows(*connection_, "raw", data).ok());
  Exec(
      "CREATE TABLE parts AS SELECT g, strata_value_counts(x) AS vc FROM raw GROUP BY g, "
      "hash(x) % 3");
  for (const double q : Quantiles()) {
    const std::string literal = fmt::format("'{:.17g}'::DOUBLE", q);
    QueryResult want =
        Exec(fmt::format("SELECT g, quantile_cont(x, {}) FROM raw GROUP BY g ORDER BY g", literal));
    QueryResult got = Exec(fmt::format(
        "SELECT g, strata_quantile_merge(vc, {}) FROM parts GROUP BY g ORDER BY g", literal));
    QueryResult postgres = Exec(fmt::format(
        "SELECT g, strata_quantile_merge_postgres(vc, {}) FROM parts GROUP BY g ORDER BY g",
        literal));
    ASSERT_EQ(got.row_count(), 40u);
    ASSERT_EQ(postgres.row_count(), 40u);
    for (std::size_t g = 0; g < 40; ++g) {
      const double w = std::get<double>(want.columns[1].values[g]);
      EXPECT_TRUE(SameBits(w, std::get<double>(got.columns[1].values[g]))) << q << " " << g;
      EXPECT_TRUE(SameBits(w, *ContinuousQuantile(counts[g], q))) << q << " " << g;
      EXPECT_TRUE(SameBits(std::get<double>(postgres.columns[1].values[g]),
                           *ContinuousQuantile(counts[g], q, QuantileInterpolation::kPostgres)))
          << q << " " << g;
    }
  }
}

TEST_F(SketchFunctionsTest, ValueCountListsWrittenByHand) {
  EXPECT_EQ(std::get<double>(One("SELECT strata_quantile_merge(l, 0.5) FROM (VALUES "
                                 "([{'value': 1.0, 'count': 2}, {'value': 10.0, 'count': 1}]), "
                                 "([{'value': 4, 'count': 1}]), (NULL), ([])) v(l)")),
            2.5);
  EXPECT_EQ(Text("SELECT strata_value_counts(x)::VARCHAR FROM (VALUES (2.5), (-1), (2.5), "
                 "(NULL)) v(x)"),
            "[{'value': -1.0, 'count': 1}, {'value': 2.5, 'count': 2}]");
  // Entries with NULL or zero counts add nothing; an empty multiset is NULL.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      One("SELECT strata_quantile_merge([{'value': 1.0, 'count': 0}, {'value': NULL, 'count': "
          "3}, {'value': 2.0, 'count': NULL}], 0.5)")));
  // (IS NULL: ReadDuckDbResult does not see NULL in LIST cells.)
  EXPECT_EQ(One("SELECT strata_value_counts(NULL::DOUBLE) IS NULL FROM range(3)"), Value{true});
}

TEST_F(SketchFunctionsTest, BadQuantileArgumentsAreErrors) {
  const std::string list = "[{'value': 1.0, 'count': 2}]";
  for (const std::string q : {"-0.1", "1.5", "'nan'::DOUBLE", "NULL"}) {
    const Error error = Fails(fmt::format("SELECT strata_quantile_merge({}, {})", list, q));
    EXPECT_EQ(error.code, ErrorCode::kWarehouse);
    EXPECT_NE(error.message.find("strata_quantile_merge: q"), std::string::npos) << error.message;
  }
  EXPECT_NE(Fails("SELECT strata_quantile_merge(l, q) FROM (VALUES ([{'value': 1.0, 'count': "
                  "1}], 0.5), ([{'value': 2.0, 'count': 1}], 0.9)) v(l, q)")
                .message.find("must be a constant"),
            std::string::npos);
  EXPECT_NE(Fails("SELECT strata_quantile_merge([{'value': 1.0, 'count': -1}], 0.5)")
                .message.find("negative count"),
            std::string::npos);
  EXPECT_NE(Fails("SELECT strata_quantile_merge(l, 0.5) FROM (VALUES ([{'value': 1.0, 'count': "
                  "9223372036854775807}]), ([{'value': 2.0, 'count': 1}])) v(l)")
                .message.find("overflows"),
            std::string::npos);
}

}  // namespace
}  // namespace strata::warehouse
