// Test support: one real PostgreSQL server per test process, started by scripts/pg_test_server.sh
// (127.0.0.1, a free port, a temp folder) and stopped at exit. Header-only; the test target
// defines STRATA_PG_TEST_SERVER_SCRIPT (the script's absolute path). Register it once per test
// binary:
//   const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new PgTestEnvironment);
// then read PgTestServer() in fixtures: skip when kNoBinaries, fail unless kRunning.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <utility>

namespace strata::warehouse::testing {

struct PgTestServerState {
  enum class State { kNotStarted, kRunning, kNoBinaries, kFailed } state = State::kNotStarted;
  std::string directory;
  std::string dsn;      // the maintenance database, when kRunning
  std::string failure;  // why, when kFailed
};

inline PgTestServerState& PgTestServer() {
  static PgTestServerState server;
  return server;
}

// Runs `command` through the shell, returning its exit status and standard output (trailing
// newlines removed).
inline std::pair<int, std::string> RunCommand(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = ::pclose(pipe);
  while (!output.empty() && output.back() == '\n') output.pop_back();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

class PgTestEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    PgTestServerState& server = PgTestServer();
    char pattern[] = "/tmp/strata-pg-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
      server.state = PgTestServerState::State::kFailed;
      server.failure = "mkdtemp failed";
      return;
    }
    server.directory = pattern;
    auto [status, output] =
        RunCommand(std::string(STRATA_PG_TEST_SERVER_SCRIPT) + " start " + server.directory);
    if (status == 0) {
      server.state = PgTestServerState::State::kRunning;
      server.dsn = output;
    } else if (status == 3) {  // pg_test_server.sh: the server binaries are not installed
      server.state = PgTestServerState::State::kNoBinaries;
    } else {
      server.state = PgTestServerState::State::kFailed;
      server.failure = "pg_test_server.sh start exited with " + std::to_string(status);
    }
  }
  void TearDown() override {
    PgTestServerState& server = PgTestServer();
    if (server.directory.empty()) return;
    RunCommand(std::string(STRATA_PG_TEST_SERVER_SCRIPT) + " stop " + server.directory);
    RunCommand("rm -rf " + server.directory);
  }
};

}  // namespace strata::warehouse::testing
