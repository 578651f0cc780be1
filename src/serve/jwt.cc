#include "serve/jwt.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/ascii.h"

namespace strata::serve {
namespace {

using nlohmann::json;

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int DigitValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

Error Refuse(std::string message) {
  return MakeError(ErrorCode::kUnauthenticated, std::move(message),
                   "send `Authorization: Bearer <token>` with an HS256 JWT signed with the "
                   "secret of [serve] jwt_secret_env and a \"role\" claim");
}

std::array<unsigned char, 32> HmacSha256(std::string_view data, std::string_view secret) {
  std::array<unsigned char, 32> digest{};
  unsigned int length = 0;
  const unsigned char* result = HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
                                     reinterpret_cast<const unsigned char*>(data.data()),
                                     data.size(), digest.data(), &length);
  STRATA_CHECK(result != nullptr && length == digest.size());
  return digest;
}

// A JSON object from one base64url part; nullopt when it is not one.
std::optional<json> DecodeObject(std::string_view part) {
  std::optional<std::string> bytes = DecodeBase64Url(part);
  if (!bytes) return std::nullopt;
  json parsed = json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  return parsed;
}

// A NumericDate claim (RFC 7519: seconds, possibly fractional); kUnauthenticated when present and
// not a finite number in range.
Result<std::optional<UnixSeconds>> NumericDate(const json& payload, const char* claim) {
  const auto found = payload.find(claim);
  if (found == payload.end()) return std::optional<UnixSeconds>();
  if (!found->is_number())
    return Refuse(std::string("the token's \"") + claim + "\" is not a number");
  const double value = found->get<double>();
  // ±1e15 s is beyond year 9999 both ways; it keeps the arithmetic with the skew exact.
  if (!std::isfinite(value) || std::fabs(value) > 1e15) {
    return Refuse(std::string("the token's \"") + claim + "\" is out of range");
  }
  return std::optional<UnixSeconds>(static_cast<UnixSeconds>(std::floor(value)));
}

}  // namespace

std::optional<std::string> DecodeBase64Url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string bytes;
  bytes.reserve(text.size() * 3 / 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int digit = DigitValue(c);
    if (digit < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  // The leftover bits of the last digit must be zero: otherwise two texts decode the same.
  if ((buffer & ((1U << bits) - 1)) != 0) return std::nullopt;
  return bytes;
}

std::string EncodeBase64Url(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() * 4 + 2) / 3);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : bytes) {
    buffer = (buffer << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      text.push_back(kAlphabet[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0) text.push_back(kAlphabet[(buffer << (6 - bits)) & 0x3f]);
  return text;
}

Result<std::string_view> BearerToken(std::string_view authorization) {
  if (authorization.empty()) return Refuse("no Authorization header");
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() ||
      !EqualsIgnoreAsciiCase(authorization.substr(0, kScheme.size()), kScheme) ||
      authorization[kScheme.size()] != ' ') {
    return Refuse("the Authorization header is not a Bearer token");
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return Refuse("the Authorization header has no token after Bearer");
  return token;
}

Result<JwtClaims> VerifyHs256(std::string_view token, std::string_view secret, UnixSeconds now,
                              std::int64_t skew_seconds) {
  STRATA_CHECK(!secret.empty());
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return Refuse("the token is not a JWT (header.payload.signature)");
  }
  const std::optional<json> header = DecodeObject(token.substr(0, first));
  if (!header) return Refuse("the token's header is not base64url JSON");
  const auto alg = header->find("alg");
  if (alg == header->end() || !alg->is_string() || alg->get<std::string>() != "HS256") {
    return Refuse("the token's algorithm is not HS256 (the only one accepted)");
  }
  if (const auto typ = header->find("typ");
      typ != header->end() &&
      (!typ->is_string() || !EqualsIgnoreAsciiCase(typ->get<std::string>(), "jwt"))) {
    return Refuse("the token's type is not JWT");
  }
  if (header->contains("crit")) return Refuse("the token names critical extensions");

  // The signature before anything in the payload is believed.
  const std::optional<std::string> signature = DecodeBase64Url(token.substr(second + 1));
  const std::array<unsigned char, 32> expected = HmacSha256(token.substr(0, second), secret);
  if (!signature || signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    return Refuse("the token's signature does not verify");
  }
  const std::optional<json> payload = DecodeObject(token.substr(first + 1, second - first - 1));
  if (!payload) return Refuse("the token's payload is not base64url JSON");

  JwtClaims claims;
  STRATA_ASSIGN_OR_RETURN(claims.expires_at, NumericDate(*payload, "exp"));
  STRATA_ASSIGN_OR_RETURN(claims.not_before, NumericDate(*payload, "nbf"));
  if (claims.expires_at && now >= *claims.expires_at + skew_seconds) {
    return Refuse("the token has expired");
  }
  if (claims.not_before && now < *claims.not_before - skew_seconds) {
    return Refuse("the token is not valid yet (nbf)");
  }
  const auto role = payload->find("role");
  if (role == payload->end() || !role->is_string() || role->get<std::string>().empty()) {
    return Refuse("the token has no \"role\" claim");
  }
  claims.role = role->get<std::string>();
  return claims;
}

std::string SignHs256(std::string_view header_json, std::string_view payload_json,
                      std::string_view secret) {
  std::string signing_input = EncodeBase64Url(header_json) + "." + EncodeBase64Url(payload_json);
  const std::array<unsigned char, 32> digest = HmacSha256(signing_input, secret);
  return signing_input + "." +
         EncodeBase64Url(
             std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace strata::serve
