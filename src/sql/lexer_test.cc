#include "sql/lexer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "sql/keyword_set.h"

namespace strata::sql {
namespace {

constexpr Dialect kAllDialects[] = {Dialect::kDuckDb,     Dialect::kPostgres, Dialect::kSnowflake,
                                    Dialect::kDatabricks, Dialect::kBigQuery, Dialect::kRedshift,
                                    Dialect::kTrino};

using KindText = std::pair<TokenKind, std::string>;

std::vector<Token> MustLex(std::string_view sql, Dialect dialect) {
  Result<std::vector<Token>> tokens = Lex(sql, dialect);
  EXPECT_TRUE(tokens.ok()) << DialectName(dialect) << ": " << tokens.error().ToString();
  return tokens.ok() ? *tokens : std::vector<Token>{};
}

// The significant tokens (no whitespace, no kEnd) as (kind, text).
std::vector<KindText> Significant(std::string_view sql, Dialect dialect) {
  std::vector<KindText> out;
  for (const Token& token : MustLex(sql, dialect)) {
    if (token.kind != TokenKind::kWhitespace && token.kind != TokenKind::kEnd) {
      out.emplace_back(token.kind, std::string(token.text));
    }
  }
  return out;
}

std::string Concatenate(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& token : tokens) out += token.text;
  return out;
}

void ExpectRoundTrip(std::string_view sql, Dialect dialect) {
  const std::vector<Token> tokens = MustLex(sql, dialect);
  ASSERT_FALSE(tokens.empty());
  EXPECT_EQ(Concatenate(tokens), sql) << DialectName(dialect);
  EXPECT_EQ(tokens.back().kind, TokenKind::kEnd);
  std::size_t offset = 0;
  for (const Token& token : tokens) {
    EXPECT_EQ(token.offset, offset) << DialectName(dialect) << " at " << token.text;
    offset += token.text.size();
  }
}

TEST(LexerTest, RoundTripsInEveryDialect) {
  const std::vector<std::string> inputs = {
      "",
      "   \n\t ",
      "select 1",
      "SELECT a.b, \"Q\"\"x\", 'it''s' -- trailing comment",
      "select * from t where x >= @start_date and y < @end_date; -- c\n",
      "/* block\n comment */ select 1.5e-3, .5, 1., 0x1F, x::int, a->>'k', a||b",
      "select $1, ?, :name, @@version, a <> b != c <=> d => e := f ** g",
      "select\r\n  caf\xc3\xa9 from \xe2\x82\xac -- utf8\r\n",
      "x[1:2] {} (a,b); ; \\ ~ ^ % & | # !",
      "-- only a comment",
      "'unicode \xc3\xa9' /* a */ /**/ /*/ x */",
  };
  for (Dialect dialect : kAllDialects) {
    for (const std::string& input : inputs) ExpectRoundTrip(input, dialect);
  }
}

// A token's line and column as counted from the start of `sql` byte by byte.
void ExpectPositionOfOffset(std::string_view sql, const Token& token) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < token.offset; ++i) {
    column = sql[i] == '\n' ? 1 : column + 1;
    if (sql[i] == '\n') ++line;
  }
  EXPECT_EQ(token.line, line) << "offset " << token.offset << " in " << sql;
  EXPECT_EQ(token.column, column) << "offset " << token.offset << " in " << sql;
}

// Random byte soup over the characters that start or end constructs: every input either lexes
// back to itself or fails with kSqlLex and a position inside the input.
TEST(LexerTest, RoundTripsOrFailsCleanlyOnRandomInput) {  // and positions are exact
  const std::string alphabet = "'\"`$@:?-/*\\ \nabErRx019.()[];,#_\xc3";
  std::mt19937 random(20260407);
  for (int round = 0; round < 3000; ++round) {
    std::string sql(random() % 40, ' ');
    for (char& c : sql) c = alphabet[random() % alphabet.size()];
    for (Dialect dialect : kAllDialects) {
      Result<std::vector<Token>> tokens = Lex(sql, dialect);
      if (tokens.ok()) {
        EXPECT_EQ(Concatenate(*tokens), sql) << DialectName(dialect);
        for (const Token& token : *tokens) ExpectPositionOfOffset(sql, token);
        continue;
      }
      EXPECT_EQ(tokens.error().code, ErrorCode::kSqlLex);
      ASSERT_TRUE(tokens.error().span.has_value());
      EXPECT_GE(tokens.error().span->line, 1);
      EXPECT_GE(tokens.error().span->column, 1);
    }
  }
}

TEST(LexerTest, RoundTripsDialectSpecificConstructs) {
  ExpectRoundTrip("select $$a ' \" $x$$, $fn$ body $$ $fn$, E'a\\'b' /* /* n */ */",
                  Dialect::kPostgres);
  ExpectRoundTrip("select $tag$x$tag$, e'\\\\', $name /* /* n */ */", Dialect::kDuckDb);
  ExpectRoundTrip("select $$ a $$, 'a\\'b', a:b::int // c\nfrom t", Dialect::kSnowflake);
  ExpectRoundTrip("select '''a'b''', \"\"\"x\"\"\", r'\\d', b'x', rb\"y\", `p.d.t`",
                  Dialect::kBigQuery);
  ExpectRoundTrip("select \"str\", 'a\\'b', r'\\', `c``d`, a:b from t", Dialect::kDatabricks);
  ExpectRoundTrip("select 'a\\'b', x$y from t", Dialect::kRedshift);
  ExpectRoundTrip("select x'1F', array[1,2][1] from \"T\"", Dialect::kTrino);
}

TEST(LexerTest, TokenKindsAndTexts) {
  const std::vector<KindText> expected = {
      {TokenKind::kIdentifier, "SELECT"}, {TokenKind::kQuotedIdentifier, "\"a b\""},
      {TokenKind::kPunctuation, ","},     {TokenKind::kString, "'x'"},
      {TokenKind::kPunctuation, ","},     {TokenKind::kNumber, "1.5"},
      {TokenKind::kOperator, "::"},       {TokenKind::kIdentifier, "numeric"},
      {TokenKind::kLineComment, "-- c"},  {TokenKind::kIdentifier, "FROM"},
      {TokenKind::kIdentifier, "t"},      {TokenKind::kBlockComment, "/* b */"},
      {TokenKind::kIdentifier, "WHERE"},  {TokenKind::kIdentifier, "d"},
      {TokenKind::kOperator, ">="},       {TokenKind::kPlaceholder, "@start_date"},
      {TokenKind::kPunctuation, ";"},
  };
  EXPECT_EQ(Significant("SELECT \"a b\", 'x', 1.5::numeric -- c\n"
                        "FROM t/* b */WHERE d>=@start_date;",
                        Dialect::kPostgres),
            expected);
}

TEST(LexerTest, PlaceholdersVariablesAndParameters) {
  const std::vector<KindText> expected = {
      {TokenKind::kPlaceholder, "@start_date_x"},
      {TokenKind::kVariable, "@@session_id"},
      {TokenKind::kParameter, "$1"},
      {TokenKind::kParameter, "?"},
      {TokenKind::kParameter, ":name"},
      {TokenKind::kOperator, "::"},
      {TokenKind::kIdentifier, "date"},
      {TokenKind::kOperator, "@>"},
      {TokenKind::kOperator, "@"},
      {TokenKind::kNumber, "1"},
      {TokenKind::kOperator, ":="},
  };
  EXPECT_EQ(Significant("@start_date_x @@session_id $1 ? :name ::date @> @1 :=", Dialect::kDuckDb),
            expected);
}

TEST(LexerTest, ColonGluedToAnOperandIsAnOperator) {
  const std::vector<KindText> expected = {
      {TokenKind::kIdentifier, "v"},   {TokenKind::kOperator, ":"},
      {TokenKind::kIdentifier, "a"},   {TokenKind::kOperator, "::"},
      {TokenKind::kIdentifier, "int"}, {TokenKind::kIdentifier, "x"},
      {TokenKind::kPunctuation, "["},  {TokenKind::kIdentifier, "i"},
      {TokenKind::kOperator, ":"},     {TokenKind::kIdentifier, "j"},
      {TokenKind::kPunctuation, "]"},
  };
  EXPECT_EQ(Significant("v:a::int x[i:j]", Dialect::kSnowflake), expected);
}

TEST(LexerTest, DoubleQuotesAreStringsInBigQueryAndDatabricks) {
  for (Dialect dialect : {Dialect::kBigQuery, Dialect::kDatabricks}) {
    const std::vector<KindText> expected = {{TokenKind::kString, "\"a\""},
                                            {TokenKind::kQuotedIdentifier, "`b``c`"}};
    EXPECT_EQ(Significant("\"a\" `b``c`", dialect), expected) << DialectName(dialect);
  }
  const std::vector<KindText> postgres = {{TokenKind::kQuotedIdentifier, "\"a\""},
                                          {TokenKind::kOperator, "`"},
                                          {TokenKind::kIdentifier, "b"},
                                          {TokenKind::kOperator, "`"}};
  EXPECT_EQ(Significant("\"a\" `b`", Dialect::kPostgres), postgres);
}

TEST(LexerTest, BackslashEscapesOnlyWhereTheDialectReadsThem) {
  // In snowflake, bigquery, databricks and redshift \' does not end the string.
  for (Dialect dialect :
       {Dialect::kSnowflake, Dialect::kBigQuery, Dialect::kDatabricks, Dialect::kRedshift}) {
    const std::vector<KindText> expected = {{TokenKind::kString, "'a\\'b'"}};
    EXPECT_EQ(Significant("'a\\'b'", dialect), expected) << DialectName(dialect);
  }
  // In postgres the same bytes are the string 'a\' then b then an unterminated string.
  EXPECT_FALSE(Lex("'a\\'b'", Dialect::kPostgres).ok());
  const std::vector<KindText> postgres = {{TokenKind::kString, "'a\\'"},
                                          {TokenKind::kIdentifier, "b"}};
  EXPECT_EQ(Significant("'a\\' b", Dialect::kPostgres), postgres);
  const std::vector<KindText> e_string = {{TokenKind::kString, "E'a\\'b'"}};
  EXPECT_EQ(Significant("E'a\\'b'", Dialect::kPostgres), e_string);
  EXPECT_EQ(Significant("E'a\\'b'", Dialect::kDuckDb), e_string);
}

TEST(LexerTest, BigQueryTripleQuotedAndRawStrings) {
  const std::vector<KindText> expected = {{TokenKind::kString, "'''it's\n'''"},
                                          {TokenKind::kString, "\"\"\"a\"b\"\"\""},
                                          {TokenKind::kString, "r'\\d+'"},
                                          {TokenKind::kString, "RB\"\\x\""},
                                          {TokenKind::kIdentifier, "r"}};
  EXPECT_EQ(Significant("'''it's\n''' \"\"\"a\"b\"\"\" r'\\d+' RB\"\\x\" r", Dialect::kBigQuery),
            expected);
}

TEST(LexerTest, DollarQuotedStrings) {
  const std::vector<KindText> tagged = {{TokenKind::kString, "$fn$ it's $$ @x $fn$"},
                                        {TokenKind::kParameter, "$2"}};
  EXPECT_EQ(Significant("$fn$ it's $$ @x $fn$ $2", Dialect::kPostgres), tagged);
  const std::vector<KindText> snowflake = {{TokenKind::kString, "$$ it's $$"},
                                           {TokenKind::kParameter, "$tag"},
                                           {TokenKind::kOperator, "$"}};
  EXPECT_EQ(Significant("$$ it's $$ $tag$", Dialect::kSnowflake), snowflake);
  const std::vector<KindText> identifier = {{TokenKind::kIdentifier, "a$b$"}};
  EXPECT_EQ(Significant("a$b$", Dialect::kPostgres), identifier);
}

TEST(LexerTest, BlockCommentsNestInPostgresAndDuckDbOnly) {
  const std::string sql = "/* a /* b */ c */ x";
  for (Dialect dialect : {Dialect::kPostgres, Dialect::kDuckDb}) {
    const std::vector<KindText> nested = {{TokenKind::kBlockComment, "/* a /* b */ c */"},
                                          {TokenKind::kIdentifier, "x"}};
    EXPECT_EQ(Significant(sql, dialect), nested) << DialectName(dialect);
  }
  const std::vector<KindText> flat = {{TokenKind::kBlockComment, "/* a /* b */"},
                                      {TokenKind::kIdentifier, "c"},
                                      {TokenKind::kOperator, "*"},
                                      {TokenKind::kOperator, "/"},
                                      {TokenKind::kIdentifier, "x"}};
  EXPECT_EQ(Significant(sql, Dialect::kSnowflake), flat);
  EXPECT_EQ(Significant(sql, Dialect::kTrino), flat);
}

TEST(LexerTest, LineCommentStyles) {
  const std::vector<KindText> snowflake = {{TokenKind::kLineComment, "// c"},
                                           {TokenKind::kIdentifier, "x"}};
  EXPECT_EQ(Significant("// c\nx", Dialect::kSnowflake), snowflake);
  const std::vector<KindText> duckdb = {{TokenKind::kOperator, "/"},
                                        {TokenKind::kOperator, "/"},
                                        {TokenKind::kIdentifier, "c"},
                                        {TokenKind::kIdentifier, "x"}};
  EXPECT_EQ(Significant("// c\nx", Dialect::kDuckDb), duckdb);
  const std::vector<KindText> dash = {{TokenKind::kNumber, "1"}, {TokenKind::kLineComment, "--2"}};
  EXPECT_EQ(Significant("1--2", Dialect::kTrino), dash);
}

TEST(LexerTest, Numbers) {
  const std::vector<KindText> expected = {
      {TokenKind::kNumber, "42"},    {TokenKind::kNumber, "3.14"},   {TokenKind::kNumber, ".5"},
      {TokenKind::kNumber, "1e10"},  {TokenKind::kNumber, "2.5E-3"}, {TokenKind::kNumber, "0xFF"},
      {TokenKind::kIdentifier, "t"}, {TokenKind::kPunctuation, "."}, {TokenKind::kNumber, "5"}};
  EXPECT_EQ(Significant("42 3.14 .5 1e10 2.5E-3 0xFF t.5", Dialect::kDuckDb), expected);
}

TEST(LexerTest, LineAndColumnAfterMultiLineConstructs) {
  const std::string sql = "/* one\ntwo */ a\n  'x\ny' b -- c\n\tc";
  const std::vector<Token> tokens = MustLex(sql, Dialect::kPostgres);
  auto find = [&](std::string_view text) {
    for (const Token& token : tokens) {
      if (token.text == text) return token;
    }
    ADD_FAILURE() << "no token " << text;
    return Token{};
  };
  EXPECT_EQ(find("/* one\ntwo */").line, 1);
  EXPECT_EQ(find("a").line, 2);
  EXPECT_EQ(find("a").column, 8);
  EXPECT_EQ(find("'x\ny'").line, 3);
  EXPECT_EQ(find("'x\ny'").column, 3);
  EXPECT_EQ(find("b").line, 4);
  EXPECT_EQ(find("b").column, 4);
  EXPECT_EQ(find("-- c").column, 6);
  EXPECT_EQ(find("c").line, 5);
  EXPECT_EQ(find("c").column, 2);
  EXPECT_EQ(tokens.back().line, 5);
  EXPECT_EQ(tokens.back().column, 3);
  EXPECT_EQ(find("c").offset, sql.size() - 1);
}

TEST(LexerTest, ColumnsCountBytes) {
  const std::vector<Token> tokens = MustLex("'\xc3\xa9' x", Dialect::kDuckDb);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[2].text, "x");
  EXPECT_EQ(tokens[2].column, 6);
}

struct Unterminated {
  Dialect dialect;
  std::string sql;
  int line;
  int column;
};

TEST(LexerTest, UnterminatedConstructsPointAtTheirStart) {
  const std::vector<Unterminated> cases = {
      {Dialect::kPostgres, "select 1,\n  'abc", 2, 3},
      {Dialect::kPostgres, "select\n  x, 'it''s", 2, 6},
      {Dialect::kPostgres, "select \"col", 1, 8},
      {Dialect::kBigQuery, "select\n`tbl", 2, 1},
      {Dialect::kBigQuery, "select \"str", 1, 8},
      {Dialect::kBigQuery, "select '''a''", 1, 8},
      {Dialect::kBigQuery, "select r'a", 1, 8},
      {Dialect::kSnowflake, "select 'a\\'", 1, 8},
      {Dialect::kPostgres, "select E'a\\'", 1, 8},
      {Dialect::kTrino, "a /* x\n y", 1, 3},
      {Dialect::kPostgres, "a\n /* x /* y */ z", 2, 2},
      {Dialect::kPostgres, "select $fn$ body $$", 1, 8},
      {Dialect::kDuckDb, "x\n\n$$ a $", 3, 1},
      {Dialect::kSnowflake, "select $$ a", 1, 8},
  };
  for (const Unterminated& c : cases) {
    Result<std::vector<Token>> tokens = Lex(c.sql, c.dialect);
    ASSERT_FALSE(tokens.ok()) << c.sql;
    EXPECT_EQ(tokens.error().code, ErrorCode::kSqlLex) << c.sql;
    ASSERT_TRUE(tokens.error().span.has_value()) << c.sql;
    EXPECT_EQ(tokens.error().span->line, c.line) << c.sql;
    EXPECT_EQ(tokens.error().span->column, c.column) << c.sql;
    EXPECT_FALSE(tokens.error().hint.empty()) << c.sql;
  }
  // Terminated in snowflake (comments do not nest there), unterminated in postgres.
  EXPECT_TRUE(Lex("/* a /* b */", Dialect::kSnowflake).ok());
  EXPECT_FALSE(Lex("/* a /* b */", Dialect::kPostgres).ok());
}

TEST(LexerTest, QuotedOutputOfDialectHelpersLexesAsOneToken) {
  const std::string value = "it's a \\ \"tricky\" `value`\n$$ -- /*";
  for (Dialect dialect : kAllDialects) {
    // The tokens view the quoted text: keep it alive.
    const std::string quoted_literal = QuoteString(value, dialect);
    const std::vector<Token> literal = MustLex(quoted_literal, dialect);
    ASSERT_EQ(literal.size(), 2u) << DialectName(dialect);
    EXPECT_EQ(literal[0].kind, TokenKind::kString) << DialectName(dialect);
    const std::string quoted_name = QuoteIdentifier(value, dialect);
    const std::vector<Token> name = MustLex(quoted_name, dialect);
    ASSERT_EQ(name.size(), 2u) << DialectName(dialect);
    EXPECT_EQ(name[0].kind, TokenKind::kQuotedIdentifier) << DialectName(dialect);
    EXPECT_EQ(IdentifierName(name[0], dialect), value) << DialectName(dialect);
  }
}

TEST(LexerTest, KeywordAndSymbolHelpers) {
  const std::vector<Token> tokens = MustLex("from \"FROM\" ,", Dialect::kPostgres);
  EXPECT_TRUE(IsKeyword(tokens[0], "FROM"));
  EXPECT_FALSE(IsKeyword(tokens[0], "FRO"));
  EXPECT_FALSE(IsKeyword(tokens[2], "FROM"));
  EXPECT_TRUE(IsTrivia(tokens[1]));
  EXPECT_TRUE(IsSymbol(tokens[4], ","));
  EXPECT_EQ(IdentifierName(tokens[2], Dialect::kPostgres), "FROM");
  EXPECT_EQ(IdentifierName(tokens[0], Dialect::kPostgres), "from");
  const std::vector<Token> quoted = MustLex("`a\\`b``c`", Dialect::kBigQuery);
  EXPECT_EQ(IdentifierName(quoted[0], Dialect::kBigQuery), "a`b`c");
}

TEST(KeywordSetTest, MatchesWordsIgnoringCaseAndNothingElse) {
  constexpr KeywordSet<4> kWords(std::array<std::string_view, 4>{"FROM", "JOIN", "FETCH", "_X"});
  const auto tokens =
      Lex("from Join fEtCh _x fro froms fetched f from_ \"FROM\" 'from' join1", Dialect::kDuckDb);
  ASSERT_TRUE(tokens.ok());
  std::vector<std::string> matched;
  for (const Token& token : *tokens) {
    if (kWords.Contains(token)) matched.emplace_back(token.text);
  }
  EXPECT_EQ(matched, (std::vector<std::string>{"from", "Join", "fEtCh", "_x"}));
}

// Words of every length from 1 to the longest allowed (16), given out of order, several of one
// length: each is found in any case, and nothing next to them is.
TEST(KeywordSetTest, FindsEveryWordWhateverItsLengthAndOrder) {
  constexpr std::array<std::string_view, 9> kList = {
      "TIMESTAMP_LTZ", "OR", "A", "SIMILAR", "IN", "ABCDEFGHIJKLMNOP", "IS", "AND", "X"};
  constexpr KeywordSet<9> kWords(kList);
  for (std::string_view word : kList) {
    EXPECT_TRUE(kWords.Contains(word)) << word;
    EXPECT_TRUE(kWords.Contains(AsciiLowered(word))) << word;
  }
  for (std::string_view other : {"", "B", "INN", "ORR", "AN", "ABCDEFGHIJKLMNOQ",
                                 "ABCDEFGHIJKLMNOPQ", "TIMESTAMP_LTY", "SIMILAX", "IT"}) {
    EXPECT_FALSE(kWords.Contains(other)) << other;
  }
}

}  // namespace
}  // namespace strata::sql
