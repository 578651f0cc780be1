#!/usr/bin/env bash
# The whole test suite: unit tests (ctest) and end-to-end tests (pytest driving the strata binary).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
strata=$(bash "$root/scripts/build.sh")
echo "== unit tests (ctest)"
(cd "$root/build" && ctest --output-on-failure -j2 --timeout 300)
echo "== end-to-end tests (pytest)"
STRATA_BIN="$strata" python3 -m pytest -q -p no:cacheprovider "$root/tests/e2e"
echo "== dagster-strata (pytest in build/dagster-venv)"
bash "$root/scripts/test_dagster.sh" "$strata"
