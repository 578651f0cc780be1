// A test-only SQLite VFS, installed as the process's default, that counts every write to a
// write-ahead log (`-wal` file) and, once armed, fails write number `fail_at` and every later one
// with SQLITE_FULL: the state store's disk filling up in the middle of a run (the fault loop over
// the state store, fault_loop_test.cc). The only test code that names SQLite.
#pragma once

#include <atomic>
#include <cstdint>

namespace strata::testing {

struct SqliteFaults {
  std::atomic<std::int64_t> fail_at{0};  // 1-based WAL write from which writes fail; 0: never
  std::atomic<std::int64_t> writes{0};   // WAL writes seen since the last Arm
  std::atomic<bool> fired{false};
  void Arm(std::int64_t n) {
    writes = 0;
    fired = false;
    fail_at = n;
  }
};

// Installs the VFS (once per process) and returns its fault switch.
SqliteFaults& InstallSqliteFaultVfs();

}  // namespace strata::testing
