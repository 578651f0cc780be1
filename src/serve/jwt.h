// JSON Web Tokens for the query API (spec/semantic.md, "Serving"): HS256 only, read from an
// `Authorization: Bearer <token>` header, verified with OpenSSL's HMAC-SHA256 and a
// constant-time comparison (CRYPTO_memcmp).
//
// A token is accepted only when all of these hold:
//   - three base64url parts (no padding), the header and payload JSON objects;
//   - the header's "alg" is exactly "HS256" ("none", "RS256", "hs256", a missing alg: refused;
//     a "typ" other than "JWT" is refused too; "crit" is refused since no extension is known);
//   - the signature is the HMAC-SHA256 of "<header>.<payload>" under the secret;
//   - "exp", when present, is a number and now < exp + skew; "nbf", when present, is a number
//     and now >= nbf - skew;
//   - "role" is present and a non-empty string.
// Whether the model defines that role is the caller's check (AccessDenied, 403): a valid token
// can name a role a changed model no longer has.
//
// Every refusal is kUnauthenticated (HTTP 401) with a message saying what was wrong; no message
// ever contains the token or the secret. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"

namespace strata::serve {

// The clock-skew allowance for exp and nbf.
inline constexpr std::int64_t kJwtClockSkewSeconds = 30;

struct JwtClaims {
  std::string role;
  std::optional<UnixSeconds> expires_at;  // exp
  std::optional<UnixSeconds> not_before;  // nbf
};

// The token of an Authorization header value: "Bearer <token>" (the scheme case-insensitive,
// one or more spaces). kUnauthenticated when the header is missing (empty), uses another scheme
// or has no token.
Result<std::string_view> BearerToken(std::string_view authorization);

// Verifies `token` against `secret` at `now` (see the list above).
// REQUIRES: `secret` is not empty.
Result<JwtClaims> VerifyHs256(std::string_view token, std::string_view secret, UnixSeconds now,
                              std::int64_t skew_seconds = kJwtClockSkewSeconds);

// Base64url (RFC 4648 section 5) without padding; nullopt for any other character, for a
// trailing '=' and for a length that is 1 mod 4. Exposed for tests.
std::optional<std::string> DecodeBase64Url(std::string_view text);
std::string EncodeBase64Url(std::string_view bytes);

// "<header>.<payload>.<signature>" signed with HS256: the inverse of VerifyHs256, for tests and
// benchmarks (the server never issues tokens).
std::string SignHs256(std::string_view header_json, std::string_view payload_json,
                      std::string_view secret);

}  // namespace strata::serve
