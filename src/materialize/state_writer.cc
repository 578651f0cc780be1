#include "materialize/internal/state_writer.h"

#include <exception>
#include <iterator>
#include <string>
#include <utility>

namespace strata::materialize {

Status StateWriter::Write::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_signal_.wait(lock, [&] { return status_.has_value(); });
  return *status_;
}

void StateWriter::Write::Finish(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = status;
  }
  done_signal_.notify_all();
}

StateWriter::StateWriter(WriteFunction write)
    : write_(std::move(write)), thread_([this] { Run(); }) {}

StateWriter::~StateWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queued_signal_.notify_all();
  thread_.join();
}

std::shared_ptr<StateWriter::Write> StateWriter::Submit(
    std::vector<state::PartitionRecord> records, std::vector<state::RunPartitionRecord> history) {
  auto write = std::make_shared<Write>();
  if (records.empty() && history.empty()) {
    write->Finish(OkStatus());
    return write;
  }
  write->records_ = std::move(records);
  write->history_ = std::move(history);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(write);
  }
  queued_signal_.notify_one();
  return write;
}

void StateWriter::Run() {
  while (true) {
    std::deque<std::shared_ptr<Write>> writes;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_signal_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      writes.swap(queue_);
    }
    std::vector<state::PartitionRecord> records;
    std::vector<state::RunPartitionRecord> history;
    if (writes.size() == 1) {
      records = std::move(writes.front()->records_);
      history = std::move(writes.front()->history_);
    } else {
      for (const std::shared_ptr<Write>& write : writes) {
        std::move(write->records_.begin(), write->records_.end(), std::back_inserter(records));
        std::move(write->history_.begin(), write->history_.end(), std::back_inserter(history));
      }
    }
    Status status = OkStatus();
    try {
      status = write_(records, history);
    } catch (
        const std::exception& exception) {  // e.g. std::bad_alloc: a failed write, not an abort
      status = MakeError(ErrorCode::kStateStore,
                         std::string("writing to the state store failed: ") + exception.what());
    }
    for (const std::shared_ptr<Write>& write : writes) write->Finish(status);
  }
}

}  // namespace strata::materialize
