// The wire forms of values against PostgreSQL's own: the binary vectors below are what
// PostgreSQL 15's send functions write (numeric_send, timestamptz_send, date_send), checked with
// `SELECT numeric_send(...)` etc. on the Debian server.
#include "serve/pg/values.h"

#include <gtest/gtest.h>

#include <string>

#include "serve/pg/statement_text.h"
#include "serve/pg/wire.h"

namespace strata::serve::pg {
namespace {

std::string Hex(const std::string& bytes) {
  std::string out;
  for (const char byte : bytes) {
    out += "0123456789abcdef"[static_cast<unsigned char>(byte) >> 4];
    out += "0123456789abcdef"[static_cast<unsigned char>(byte) & 0xf];
  }
  return out;
}

TEST(PlainDecimalTest, ExponentsBecomePlainDigits) {
  EXPECT_EQ(PlainDecimal("1e-05"), "0.00001");
  EXPECT_EQ(PlainDecimal("-1.25E3"), "-1250");
  EXPECT_EQ(PlainDecimal("12.50"), "12.50");
  EXPECT_EQ(PlainDecimal("1e999"), std::nullopt);
  EXPECT_EQ(PlainDecimal("abc"), std::nullopt);
}

TEST(BinaryTest, MatchesPostgresSendFunctions) {
  // SELECT numeric_send(1234.5670): ndigits 2, weight 0, sign 0, dscale 4, digits 1234 5670.
  EXPECT_EQ(Hex(*BinaryFromText("1234.5670", PgType::kNumeric)), "000200000000000404d21626");
  // numeric_send(-0.0001): ndigits 1, weight -1, sign 0x4000, dscale 4, digit 1.
  EXPECT_EQ(Hex(*BinaryFromText("-0.0001", PgType::kNumeric)), "0001ffff400000040001");
  // numeric_send(0): ndigits 0, weight 0, sign 0, dscale 0.
  EXPECT_EQ(Hex(*BinaryFromText("0", PgType::kNumeric)), "0000000000000000");
  // timestamptz_send('2000-01-01 00:00:01+00') = 1,000,000 µs.
  EXPECT_EQ(Hex(*BinaryFromText("2000-01-01 00:00:01+00", PgType::kTimestamptz)),
            "00000000000f4240");
  // An offset is the same instant: 2000-01-01 01:00:01+01.
  EXPECT_EQ(Hex(*BinaryFromText("2000-01-01 01:00:01+01", PgType::kTimestamptz)),
            "00000000000f4240");
  EXPECT_EQ(Hex(*BinaryFromText("1999-12-31", PgType::kDate)), "ffffffff");
  EXPECT_EQ(Hex(*BinaryFromText("-2", PgType::kInt4)), "fffffffe");
  EXPECT_EQ(Hex(*BinaryFromText("t", PgType::kBool)), "01");
  EXPECT_EQ(Hex(*BinaryFromText("1.5", PgType::kFloat8)), "3ff8000000000000");
}

TEST(BinaryTest, RoundTripsThroughText) {
  for (const std::string numeric : {"1234.5670", "-0.0001", "0", "100000000", "0.5", "-12345.6789",
                                    "99999999999999999999.000001"}) {
    const std::string bytes = *BinaryFromText(numeric, PgType::kNumeric);
    EXPECT_EQ(*TextFromBinary(bytes, PgType::kNumeric), numeric) << numeric;
  }
  for (const std::string time : {"2026-03-08 07:00:00+00", "1999-12-31 23:59:59.5+00"}) {
    const std::string bytes = *BinaryFromText(time, PgType::kTimestamptz);
    EXPECT_EQ(*TextFromBinary(bytes, PgType::kTimestamptz), time);
  }
  EXPECT_EQ(*TextFromBinary(*BinaryFromText("2026-02-28", PgType::kDate), PgType::kDate),
            "2026-02-28");
  EXPECT_EQ(*TextFromBinary(*BinaryFromText("-9223372036854775808", PgType::kInt8), PgType::kInt8),
            "-9223372036854775808");
  // A length that does not fit the type is a protocol violation, not a crash.
  Result<std::string> short_int = TextFromBinary("ab", PgType::kInt8);
  ASSERT_FALSE(short_int.ok());
  EXPECT_EQ(short_int.error().code, ErrorCode::kProtocolViolation);
  EXPECT_FALSE(TextFromBinary("\x00\x05", PgType::kNumeric).ok());
}

TEST(WireTest, BuilderWritesLengthWords) {
  MessageBuilder message;
  message.Begin('Z').Int8('I').End();
  EXPECT_EQ(Hex(message.data()), "5a0000000549");
  FieldReader reader(std::string_view("ab\0\0\0\0\x07", 7), "Test");
  EXPECT_EQ(*reader.CString(), "ab");
  EXPECT_EQ(*reader.Int32(), 7);
  EXPECT_TRUE(reader.done());
  FieldReader truncated(std::string_view("ab", 2), "Test");
  EXPECT_EQ(truncated.CString().error().code, ErrorCode::kProtocolViolation);
}

TEST(StatementTextTest, SplitsAtTopLevelSemicolons) {
  Result<std::vector<std::string>> parts =
      SplitStatements("SET a = 'x;y'; -- c;\nSELECT \";\" ;; /* ; */ ");
  ASSERT_TRUE(parts.ok());
  ASSERT_EQ(parts->size(), 2U);
  EXPECT_EQ((*parts)[0], "SET a = 'x;y'");
  EXPECT_EQ((*parts)[1], "-- c;\nSELECT \";\"");
  EXPECT_EQ(FirstKeyword("  /* x */ select 1"), "SELECT");
  EXPECT_EQ(*ParameterCount("SELECT $1, $3 WHERE x = '$9'"), 3);
}

TEST(StatementTextTest, Cursors) {
  Result<DeclareCursor> declare =
      ParseDeclareCursor("DECLARE \"C1\" NO SCROLL CURSOR WITH HOLD FOR SELECT 1");
  ASSERT_TRUE(declare.ok());
  EXPECT_EQ(declare->name, "C1");
  EXPECT_EQ(declare->query, "SELECT 1");
  EXPECT_EQ(ParseDeclareCursor("DECLARE c SCROLL CURSOR FOR SELECT 1").error().code,
            ErrorCode::kSqlUnsupported);
  Result<FetchCursor> fetch = ParseFetchCursor("FETCH FORWARD 50 FROM c");
  ASSERT_TRUE(fetch.ok());
  EXPECT_EQ(fetch->name, "c");
  EXPECT_EQ(fetch->count, 50);
  EXPECT_EQ(ParseFetchCursor("FETCH ALL IN c")->count, std::nullopt);
  EXPECT_EQ(ParseFetchCursor("FETCH c")->count, 1);
  EXPECT_EQ(ParseFetchCursor("FETCH PRIOR FROM c").error().code, ErrorCode::kSqlUnsupported);
  EXPECT_EQ(*ParseCloseCursor("CLOSE ALL"), std::nullopt);
}

}  // namespace
}  // namespace strata::serve::pg
