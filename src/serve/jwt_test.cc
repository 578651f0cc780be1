#include "serve/jwt.h"

#include <gtest/gtest.h>

#include <string>

#include "base/time.h"

namespace strata::serve {
namespace {

constexpr std::string_view kSecret = "a-test-secret-of-at-least-32-bytes!!";
constexpr std::string_view kHeader = R"({"alg":"HS256","typ":"JWT"})";
const FixedClock kClock(1'800'000'000);

std::string Payload(const std::string& claims) { return "{" + claims + "}"; }

std::string Token(const std::string& claims, std::string_view header = kHeader) {
  return SignHs256(header, Payload(claims), kSecret);
}

void ExpectRefused(const std::string& token, std::string_view secret = kSecret) {
  Result<JwtClaims> claims = VerifyHs256(token, secret, kClock.Now());
  ASSERT_FALSE(claims.ok()) << token;
  EXPECT_EQ(claims.error().code, ErrorCode::kUnauthenticated);
  // No refusal repeats the token or the secret.
  if (token.size() > 16) {
    EXPECT_EQ(claims.error().message.find(token), std::string::npos);
  }
  EXPECT_EQ(claims.error().message.find(std::string(kSecret)), std::string::npos);
}

TEST(JwtTest, AcceptsAValidToken) {
  const std::string token = Token(R"("role":"admin","exp":1800000600,"nbf":1799999000)");
  Result<JwtClaims> claims = VerifyHs256(token, kSecret, kClock.Now());
  ASSERT_TRUE(claims.ok()) << claims.error().ToString();
  EXPECT_EQ(claims->role, "admin");
  EXPECT_EQ(claims->expires_at, 1'800'000'600);
  EXPECT_EQ(claims->not_before, 1'799'999'000);
}

TEST(JwtTest, ExpAndNbfAreOptional) {
  Result<JwtClaims> claims = VerifyHs256(Token(R"("role":"admin")"), kSecret, kClock.Now());
  ASSERT_TRUE(claims.ok()) << claims.error().ToString();
  EXPECT_FALSE(claims->expires_at.has_value());
  EXPECT_FALSE(claims->not_before.has_value());
}

TEST(JwtTest, RefusesATamperedSignature) {
  std::string token = Token(R"("role":"admin")");
  token.back() = token.back() == 'A' ? 'B' : 'A';
  ExpectRefused(token);
}

TEST(JwtTest, RefusesATamperedPayload) {
  const std::string token = Token(R"("role":"north_analyst")");
  const std::size_t first = token.find('.');
  const std::size_t second = token.find('.', first + 1);
  const std::string forged =
      token.substr(0, first + 1) + EncodeBase64Url(R"({"role":"admin"})") + token.substr(second);
  ExpectRefused(forged);
}

TEST(JwtTest, RefusesAnotherSecret) {
  ExpectRefused(
      SignHs256(kHeader, Payload(R"("role":"admin")"), "another-secret-of-32-bytes-long!!"));
}

TEST(JwtTest, RefusesAlgNone) {
  // An unsigned token, as RFC 7519 writes it: an empty signature.
  const std::string unsigned_token = EncodeBase64Url(R"({"alg":"none","typ":"JWT"})") + "." +
                                     EncodeBase64Url(Payload(R"("role":"admin")")) + ".";
  ExpectRefused(unsigned_token);
  // And signed anyway with the right secret: the header still says none.
  ExpectRefused(Token(R"("role":"admin")", R"({"alg":"none"})"));
}

TEST(JwtTest, RefusesEveryOtherAlgorithm) {
  for (const char* header :
       {R"({"alg":"RS256"})", R"({"alg":"HS512"})", R"({"alg":"hs256"})", R"({"alg":"HS256 "})",
        R"({"alg":null})", R"({"alg":256})", R"({"typ":"JWT"})", R"({"alg":["HS256"]})"}) {
    SCOPED_TRACE(header);
    ExpectRefused(Token(R"("role":"admin")", header));
  }
}

TEST(JwtTest, RefusesAnotherTypeAndCriticalExtensions) {
  ExpectRefused(Token(R"("role":"admin")", R"({"alg":"HS256","typ":"JWE"})"));
  ExpectRefused(Token(R"("role":"admin")", R"({"alg":"HS256","crit":["b64"]})"));
}

TEST(JwtTest, ChecksExpWithTheSkew) {
  const UnixSeconds now = kClock.Now();
  ExpectRefused(Token(R"("role":"admin","exp":)" + std::to_string(now - 3600)));
  // Expired by less than the skew: still accepted; by the skew exactly: refused.
  EXPECT_TRUE(
      VerifyHs256(Token(R"("role":"admin","exp":)" + std::to_string(now - 29)), kSecret, now).ok());
  ExpectRefused(Token(R"("role":"admin","exp":)" + std::to_string(now - kJwtClockSkewSeconds)));
}

TEST(JwtTest, ChecksNbfWithTheSkew) {
  const UnixSeconds now = kClock.Now();
  ExpectRefused(Token(R"("role":"admin","nbf":)" + std::to_string(now + 3600)));
  ExpectRefused(Token(R"("role":"admin","nbf":)" + std::to_string(now + kJwtClockSkewSeconds + 1)));
  EXPECT_TRUE(
      VerifyHs256(Token(R"("role":"admin","nbf":)" + std::to_string(now + 30)), kSecret, now).ok());
}

TEST(JwtTest, RefusesMistypedTimeClaims) {
  ExpectRefused(Token(R"("role":"admin","exp":"1900000000")"));
  ExpectRefused(Token(R"("role":"admin","nbf":true)"));
  ExpectRefused(Token(R"("role":"admin","exp":1e300)"));
}

TEST(JwtTest, RequiresARoleString) {
  ExpectRefused(Token(R"("sub":"someone")"));
  ExpectRefused(Token(R"("role":"")"));
  ExpectRefused(Token(R"("role":["admin"])"));
  ExpectRefused(Token(R"("role":null)"));
}

TEST(JwtTest, RefusesMalformedTokens) {
  const std::string good = Token(R"("role":"admin")");
  ExpectRefused("");
  ExpectRefused("not-a-token");
  ExpectRefused("a.b");
  ExpectRefused(good + ".extra");
  ExpectRefused("!!!." + good.substr(good.find('.') + 1));
  ExpectRefused(SignHs256("[1,2]", Payload(R"("role":"admin")"), kSecret));
  ExpectRefused(SignHs256(kHeader, "not json", kSecret));
  ExpectRefused(SignHs256(kHeader, R"(["role","admin"])", kSecret));
  ExpectRefused(good + "=");  // padding is not base64url
}

TEST(JwtTest, BearerTokenReadsOnlyTheBearerScheme) {
  EXPECT_EQ(*BearerToken("Bearer abc.def.ghi"), "abc.def.ghi");
  EXPECT_EQ(*BearerToken("bearer   abc.def.ghi "), "abc.def.ghi");
  for (const char* header :
       {"", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearerabc", "Token x"}) {
    SCOPED_TRACE(header);
    Result<std::string_view> token = BearerToken(header);
    ASSERT_FALSE(token.ok());
    EXPECT_EQ(token.error().code, ErrorCode::kUnauthenticated);
  }
}

TEST(JwtTest, Base64UrlRoundTripsAndIsStrict) {
  for (std::string bytes : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00?"}) {
    EXPECT_EQ(DecodeBase64Url(EncodeBase64Url(bytes)), bytes);
  }
  EXPECT_EQ(EncodeBase64Url("\xfb\xff"), "-_8");
  EXPECT_FALSE(DecodeBase64Url("Zg==").has_value());
  EXPECT_FALSE(DecodeBase64Url("Z").has_value());
  EXPECT_FALSE(DecodeBase64Url("Zh").has_value());  // non-zero leftover bits
  EXPECT_FALSE(DecodeBase64Url("a+b/").has_value());
}

}  // namespace
}  // namespace strata::serve
