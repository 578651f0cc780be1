// 64-bit hashing (XXH3-64) for content ids and fingerprints.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

std::uint64_t Hash64(std::string_view bytes, std::uint64_t seed = 0);
// 16 lowercase hex digits.
std::string HexHash64(std::uint64_t hash);

}  // namespace strata
