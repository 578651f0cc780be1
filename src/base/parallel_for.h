// Runs independent pieces of work on several threads: model loading and compile checks, where
// each model is checked on its own and the results are merged in a fixed order afterwards.
#pragma once

#include <cstddef>
#include <functional>

namespace strata {

// Calls fn(i) exactly once for every i in [0, count), on up to `threads` threads (the calling
// thread is one of them; 0 or 1 runs everything on the calling thread, in order). Indexes are
// handed out one at a time, so uneven pieces balance. Returns when every call has returned. If
// calls throw, the remaining indexes are skipped and the first exception is rethrown here.
// REQUIRES: fn is safe to call concurrently for different indexes.
void ParallelFor(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn);

// The threads worth using for CPU-bound work: the hardware's concurrency, at least 1, at most 8.
unsigned WorkerThreads();

}  // namespace strata
