// libFuzzer entry point for the SQL property in sql_round_trip.h. Built by build.sh with clang
// and -fsanitize=fuzzer,address,undefined; never part of the CMake build.
#include <cstdio>
#include <cstdlib>

#include "sql_round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string violations = strata::fuzz::CheckSqlInput(data, size);
  if (!violations.empty()) {
    std::fprintf(stderr, "property violated:\n%s", violations.c_str());
    std::abort();
  }
  return 0;
}
