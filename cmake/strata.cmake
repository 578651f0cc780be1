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

# strata_add_test(NAME SOURCES ... DEPS ...): a GoogleTest binary labelled "fast".
function(strata_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS fast DISCOVERY_TIMEOUT 60)
endfunction()
