#!/usr/bin/env bash
# Configures and builds Strata into build/ (Ninja, ccache). Runs setup first. Prints the binary path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
# Relative paths in the ccache key, so fresh clones (CI) reuse earlier builds on the same machine.
export CCACHE_BASEDIR="$root"
# With -g, ccache hashes the working directory (the build folder, a different path in every
# clone) unless told not to: without this no clone hit the cache. The price: a cached object's
# debug info names the folder of the build that first compiled it.
export CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE="${STRATA_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
ninja -C "$root/build" ${STRATA_BUILD_TARGETS:-} >&2
echo "$root/build/src/cli/strata"
