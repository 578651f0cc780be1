# strata_add_library(NAME SOURCES ... DEPS ...): one static library per component.
# DEPS lists only what the component table in DESIGN.md allows.
find_package(GTest REQUIRED)
include(GoogleTest)

function(strata_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(strata_${name} STATIC ${ARG_SOURCES})
  target_include_directories(strata_${name} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(strata_${name} PUBLIC ${ARG_DEPS})
endfunction()

# strata_add_test(NAME SOURCES ... DEPS ... [TIER fast|slow]): a GoogleTest binary, each test
# labelled with its tier (default fast). The tiers (README.md, Tests):
#   fast  unit and golden suites: `ctest -L fast`, `scripts/test.sh --fast`, before each commit;
#   slow  the fault loops, the oracles and property tests: only in the full run (`scripts/test.sh`,
#         .ci/run).
function(strata_add_test name)
  cmake_parse_arguments(ARG "" "TIER" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_TIER)
    set(ARG_TIER fast)
  endif()
  if(NOT ARG_TIER MATCHES "^(fast|slow)$")
    message(FATAL_ERROR "strata_add_test(${name}): TIER is fast or slow, not ${ARG_TIER}")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS ${ARG_TIER} DISCOVERY_TIMEOUT 60)
endfunction()
