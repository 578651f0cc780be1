// What this binary is: the version and the git commit it was built from. Both are written into a
// generated source on every build (cmake/write_build_info.cmake), so they are right after an
// incremental build too.
#pragma once

#include <string_view>

namespace strata::cli {

// The project's version, e.g. "0.1.0" (project(VERSION) in CMakeLists.txt).
std::string_view BuildVersion();
// The full commit hash of the checkout built, with "-dirty" when tracked files differed from it;
// "unknown" outside a git checkout or without git.
std::string_view BuildCommit();

}  // namespace strata::cli
