#include "base/hll.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>

namespace strata {
namespace {

constexpr std::uint8_t kMaxRank = 64 - HyperLogLog::kPrecision + 1;
constexpr std::uint8_t kDense = 0;
constexpr std::uint8_t kSparse = 1;

void PutLittleEndian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t GetLittleEndian(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= std::uint64_t{static_cast<std::uint8_t>(in[at + i])} << (8 * i);
  return value;
}

}  // namespace

void HyperLogLog::Add(std::string_view canonical_text) {
  AddHash(XXH3_64bits(canonical_text.data(), canonical_text.size()));
}

void HyperLogLog::AddHash(std::uint64_t hash) {
  if (!sparse_) {
    AddToRegisters(hash);
    return;
  }
  const auto at = std::lower_bound(hashes_.begin(), hashes_.end(), hash);
  if (at != hashes_.end() && *at == hash) return;
  hashes_.insert(at, hash);
  if (hashes_.size() > kSparseLimit) Densify();
}

void HyperLogLog::AddToRegisters(std::uint64_t hash) {
  const std::size_t index = static_cast<std::size_t>(hash >> (64 - kPrecision));
  const std::uint64_t rest = hash << kPrecision;
  const std::uint8_t rank =
      rest == 0 ? kMaxRank : static_cast<std::uint8_t>(std::countl_zero(rest) + 1);
  registers_[index] = std::max(registers_[index], std::min(rank, kMaxRank));
}

void HyperLogLog::Densify() {
  if (!sparse_) return;
  sparse_ = false;
  registers_.assign(kRegisters, 0);
  for (const std::uint64_t hash : hashes_) AddToRegisters(hash);
  hashes_.clear();
  hashes_.shrink_to_fit();
}

void HyperLogLog::Merge(const HyperLogLog& other) {
  if (sparse_ && other.sparse_) {
    std::vector<std::uint64_t> merged;
    merged.reserve(hashes_.size() + other.hashes_.size());
    std::set_union(hashes_.begin(), hashes_.end(), other.hashes_.begin(), other.hashes_.end(),
                   std::back_inserter(merged));
    hashes_ = std::move(merged);
    if (hashes_.size() > kSparseLimit) Densify();
    return;
  }
  Densify();
  if (other.sparse_) {
    for (const std::uint64_t hash : other.hashes_) AddToRegisters(hash);
    return;
  }
  for (std::size_t i = 0; i < kRegisters; ++i) {
    registers_[i] = std::max(registers_[i], other.registers_[i]);
  }
}

double HyperLogLog::Estimate() const {
  if (sparse_) return static_cast<double>(hashes_.size());
  const double m = static_cast<double>(kRegisters);
  double sum = 0;
  std::size_t zeros = 0;
  for (const std::uint8_t value : registers_) {
    sum += std::ldexp(1.0, -static_cast<int>(value));
    if (value == 0) ++zeros;
  }
  const double alpha = 0.7213 / (1.0 + 1.079 / m);
  const double raw = alpha * m * m / sum;
  if (raw <= 2.5 * m && zeros > 0) return m * std::log(m / static_cast<double>(zeros));
  return raw;
}

std::string HyperLogLog::Serialize() const {
  std::string bytes;
  bytes.push_back(static_cast<char>(kFormatVersion));
  if (sparse_) {
    bytes.push_back(static_cast<char>(kSparse));
    PutLittleEndian(bytes, hashes_.size(), 4);
    for (const std::uint64_t hash : hashes_) PutLittleEndian(bytes, hash, 8);
    return bytes;
  }
  bytes.push_back(static_cast<char>(kDense));
  bytes.append(registers_.begin(), registers_.end());
  return bytes;
}

Result<HyperLogLog> HyperLogLog::Deserialize(std::string_view bytes) {
  const auto bad = [](const char* what) {
    return MakeError(ErrorCode::kIo, std::string("bad HyperLogLog sketch: ") + what);
  };
  if (bytes.size() < 2 || static_cast<std::uint8_t>(bytes[0]) != kFormatVersion)
    return bad("not format version 1");
  HyperLogLog sketch;
  const auto encoding = static_cast<std::uint8_t>(bytes[1]);
  if (encoding == kDense) {
    if (bytes.size() != 2 + kRegisters) return bad("wrong size");
    sketch.sparse_ = false;
    sketch.registers_.assign(kRegisters, 0);
    for (std::size_t i = 0; i < kRegisters; ++i) {
      const auto value = static_cast<std::uint8_t>(bytes[2 + i]);
      if (value > kMaxRank) return bad("register out of range");
      sketch.registers_[i] = value;
    }
    return sketch;
  }
  if (encoding != kSparse || bytes.size() < 6) return bad("unknown encoding");
  const std::uint64_t count = GetLittleEndian(bytes, 2, 4);
  if (count > kSparseLimit || bytes.size() != 6 + 8 * count) return bad("wrong size");
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t hash = GetLittleEndian(bytes, 6 + 8 * i, 8);
    if (!sketch.hashes_.empty() && hash <= sketch.hashes_.back())
      return bad("hashes not ascending");
    sketch.hashes_.push_back(hash);
  }
  return sketch;
}

}  // namespace strata
