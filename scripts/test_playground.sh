#!/usr/bin/env bash
# The playground page's browser tests (tests/playground/, docs/playground.md): Debian's Chromium
# (installed with apt when missing), playwright-core pinned in tests/playground/package-lock.json
# (npm ci; node_modules is git-ignored, no browser download), then `node --test` against a real
# `strata serve`. Usage: scripts/test_playground.sh [STRATA_BIN] (default build/src/cli/strata).
# Screenshots go to $PLAYGROUND_OUT (default build/playground-shots/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
strata=$(realpath "${1:-$root/build/src/cli/strata}")
tests="$root/tests/playground"
if [ ! -x /usr/bin/chromium ]; then
  echo "== playground: installing Debian's chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends chromium >&2
fi
stamp="$tests/node_modules/.package-lock.sha256"
wanted=$(sha256sum "$tests/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  (cd "$tests" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$wanted" >"$stamp"
fi
export PLAYGROUND_OUT="${PLAYGROUND_OUT:-$root/build/playground-shots}"
cd "$tests"
STRATA_BIN="$strata" node --test --test-concurrency=1 --test-timeout=600000 playground.test.js
