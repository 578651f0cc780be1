// Writes a run's partition rows to the state store on a thread of its own, so that a batch's
// warehouse statements run while its rows are written. Private to the runner.
//
// A batch submits its InProgress rows (with the rows of the batches its worker finished before,
// see DeferredState in run_context.h) before it begins its warehouse transaction, and waits for
// them only before it commits (WriteTransaction's `before_commit`): a transaction never commits
// before the state store says its partitions are InProgress, which is what makes a crash leave
// them Interrupted rather than silently rewritten.
//
// Writes are made in the order they were submitted. Writes queued together are made in one
// state transaction (a group commit); if it fails, each of them fails with its error.
//
// Thread safety: Submit and Write::Wait may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/result.h"
#include "state/state_store.h"

namespace strata::materialize {

class StateWriter {
 public:
  // One submitted write.
  class Write {
   public:
    // Blocks until the write was made or failed; its status (the same on every call).
    Status Wait();

   private:
    friend class StateWriter;
    void Finish(const Status& status);
    std::vector<state::PartitionRecord> records_;
    std::vector<state::RunPartitionRecord> history_;
    std::mutex mutex_;
    std::condition_variable done_signal_;
    std::optional<Status> status_;  // set once made or failed
  };

  // Makes a write: StateStore::RecordPartitionResults of a store that outlives the writer.
  using WriteFunction = std::function<Status(const std::vector<state::PartitionRecord>&,
                                             const std::vector<state::RunPartitionRecord>&)>;
  explicit StateWriter(WriteFunction write);
  // Makes every queued write, then stops its thread.
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  // Queues the rows as one write; an empty write is made at once, without the store.
  std::shared_ptr<Write> Submit(std::vector<state::PartitionRecord> records,
                                std::vector<state::RunPartitionRecord> history);

 private:
  void Run();

  WriteFunction write_;
  std::mutex mutex_;
  std::condition_variable queued_signal_;
  std::deque<std::shared_ptr<Write>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace strata::materialize
