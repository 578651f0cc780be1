#include "sql/node_pool.h"

#include <array>
#include <mutex>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define STRATA_NODE_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_NODE_POOL 0
#endif
#endif
#ifndef STRATA_NODE_POOL
#define STRATA_NODE_POOL 1
#endif

namespace strata::sql::internal {
namespace {

constexpr std::size_t kStep = alignof(std::max_align_t);  // 16
constexpr std::size_t kClasses = kMaxPooledNodeSize / kStep;
constexpr std::size_t kChunkBytes = std::size_t{64} * 1024;

struct FreeBlock {
  FreeBlock* next;
};

// A zero-byte request (never made by std::vector, possible from other containers) takes the
// smallest class.
std::size_t ClassOf(std::size_t size) { return size == 0 ? 0 : (size + kStep - 1) / kStep - 1; }

// Free lists handed over by exiting threads, and every chunk ever allocated (kept reachable so
// leak checkers see the pool's memory as owned, not lost).
struct SharedPool {
  std::mutex mutex;
  std::array<FreeBlock*, kClasses> free{};
  std::vector<void*> chunks;
};

SharedPool& Shared() {
  static SharedPool* pool = new SharedPool;  // never destroyed: threads may exit after main
  return *pool;
}

class ThreadPool {
 public:
  ~ThreadPool() {
    SharedPool& shared = Shared();
    std::lock_guard<std::mutex> lock(shared.mutex);
    for (std::size_t c = 0; c < kClasses; ++c) {
      while (FreeBlock* block = free_[c]) {
        free_[c] = block->next;
        block->next = shared.free[c];
        shared.free[c] = block;
      }
    }
  }

  void* Allocate(std::size_t size) {
    const std::size_t c = ClassOf(size);
    if (FreeBlock* block = free_[c]) {
      free_[c] = block->next;
      return block;
    }
    if (Adopt(c)) return Allocate(size);
    const std::size_t block_size = (c + 1) * kStep;
    if (bump_left_ < block_size) NewChunk();
    void* block = bump_;
    bump_ += block_size;
    bump_left_ -= block_size;
    return block;
  }

  void Free(void* pointer, std::size_t size) noexcept {
    const std::size_t c = ClassOf(size);
    auto* block = static_cast<FreeBlock*>(pointer);
    block->next = free_[c];
    free_[c] = block;
  }

 private:
  // Takes the shared free list of class c (left by exited threads); false when it is empty.
  bool Adopt(std::size_t c) {
    SharedPool& shared = Shared();
    std::lock_guard<std::mutex> lock(shared.mutex);
    if (shared.free[c] == nullptr) return false;
    free_[c] = shared.free[c];
    shared.free[c] = nullptr;
    return true;
  }

  void NewChunk() {
    // The unused tail of the old chunk is dropped (at most one block's worth per class switch).
    void* chunk = ::operator new(kChunkBytes);
    {
      SharedPool& shared = Shared();
      std::lock_guard<std::mutex> lock(shared.mutex);
      shared.chunks.push_back(chunk);
    }
    bump_ = static_cast<char*>(chunk);
    bump_left_ = kChunkBytes;
  }

  std::array<FreeBlock*, kClasses> free_{};
  char* bump_ = nullptr;
  std::size_t bump_left_ = 0;
};

thread_local ThreadPool t_pool;

}  // namespace

void* AllocateNode(std::size_t size) {
  if (!STRATA_NODE_POOL || size > kMaxPooledNodeSize) return ::operator new(size);
  return t_pool.Allocate(size);
}

void FreeNode(void* block, std::size_t size) noexcept {
  if (block == nullptr) return;
  if (!STRATA_NODE_POOL || size > kMaxPooledNodeSize) {
    ::operator delete(block);
    return;
  }
  t_pool.Free(block, size);
}

}  // namespace strata::sql::internal
