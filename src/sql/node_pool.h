// Storage for syntax-tree nodes (ast.h) and for the vectors inside them (NodeAllocator, ast.h).
// A compile allocates and frees hundreds of small nodes and name/argument lists per model;
// malloc's per-thread cache holds only a few blocks of each size, so most of them went through
// its slower shared bins. Freed blocks are kept on per-thread free lists by size class (16-byte
// steps up to kMaxPooledNodeSize) and reused; the memory is never returned to the system (the
// pool's size is the peak number of live blocks). Larger blocks, and every block in
// AddressSanitizer builds (so it still sees use-after-free), use plain operator new/delete.
// Thread-safe: a block may be freed on another thread than the one that allocated it; a thread's
// free blocks go to a shared list when it exits, for the next threads.
#pragma once

#include <cstddef>

namespace strata::sql::internal {

inline constexpr std::size_t kMaxPooledNodeSize = 512;

// Memory for one node of `size` bytes, aligned for any node (alignof(std::max_align_t)).
void* AllocateNode(std::size_t size);
// Returns a block from AllocateNode(size), with the same size.
void FreeNode(void* block, std::size_t size) noexcept;

}  // namespace strata::sql::internal
