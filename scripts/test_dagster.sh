#!/usr/bin/env bash
# The dagster-strata tests (integrations/dagster): a virtualenv under build/dagster-venv with the
# pinned packages of integrations/dagster/requirements-test.txt plus the package itself, then
# pytest against the strata binary. Usage: scripts/test_dagster.sh [STRATA_BIN] [pytest args...]
# (default binary: build/src/cli/strata). The venv is rebuilt only when the pin list changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
strata=${1:-$root/build/src/cli/strata}
shift $(( $# > 0 ? 1 : 0 ))
package="$root/integrations/dagster"
venv="$root/build/dagster-venv"
requirements="$package/requirements-test.txt"
stamp="$venv/.requirements.sha256"
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "== dagster-strata: creating $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  echo "$wanted" >"$stamp"
fi
# The package itself, every time (its code changes more often than its pins); dependencies are
# already pinned in the venv.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation \
  --force-reinstall "$package"
echo "== dagster-strata tests (pytest, $("$venv/bin/python" -c 'import dagster; print("dagster", dagster.__version__)'))"
cd "$package"
STRATA_BIN="$strata" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
