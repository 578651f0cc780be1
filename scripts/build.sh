#!/usr/bin/env bash
# Configures and builds Strata into build/ (Ninja, ccache). Runs setup first. Prints the binary path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
# Relative paths in the ccache key, so fresh clones (CI) reuse earlier builds on the same machine.
export CCACHE_BASEDIR="$root"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE="${STRATA_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
ninja -C "$root/build" ${STRATA_BUILD_TARGETS:-} >&2
echo "$root/build/src/cli/strata"
