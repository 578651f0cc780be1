#!/usr/bin/env bash
# Builds the libFuzzer target fuzz_sql (clang, -fsanitize=fuzzer,address,undefined) from the
# strata_base, strata_sql and strata_analysis sources, outside the CMake build.
#
#   tests/fuzz/build.sh [OUT_DIR]           # default: build-fuzz next to the repository root
#   OUT_DIR/fuzz_sql -max_len=4096 -max_total_time=900 OUT_DIR/corpus tests/fuzz/corpus ...
#
# See tests/fuzz/README.md for seeding, running and keeping the corpus.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$repo/build-fuzz}"
# STRATA_FUZZ_SRC: build from another copy of src/ (e.g. one with a candidate fix applied).
src="${STRATA_FUZZ_SRC:-$repo/src}"
cxx="${CXX_FUZZ:-$(command -v clang++ || command -v clang++-15 || command -v clang++-14)}"
mkdir -p "$out/obj"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined -I"$src" -Wall -Wextra -Werror)
# Every non-test source of the three components the property touches.
sources=()
for component in base sql analysis; do
  for source in "$src/$component"/*.cc; do
    [[ "$source" == *_test.cc ]] || sources+=("$source")
  done
done
sources+=("$repo/tests/fuzz/sql_round_trip.cc")
objects=()
pids=()
for source in "${sources[@]}"; do
  object="$out/obj/$(basename "$(dirname "$source")")_$(basename "$source" .cc).o"
  objects+=("$object")
  "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$source" -o "$object" &
  pids+=($!)
  if (( ${#pids[@]} >= ${FUZZ_BUILD_JOBS:-2} )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
"$cxx" "${flags[@]}" -fsanitize=fuzzer "$repo/tests/fuzz/fuzz_sql.cc" "${objects[@]}" -lxxhash \
  -o "$out/fuzz_sql"
echo "built $out/fuzz_sql"
