#!/usr/bin/env bash
# The test suite, after building.
#   scripts/test.sh          the full tier (CI, .ci/run): every ctest test and every end-to-end test
#                            — the fault loops, the DuckDB parser oracle, the kill -9 trials, the
#                            semantic and rollup oracles, the property tests and the long
#                            backfills included — then the tests against a real Trino
#                            (tests/trino/), the SQL port's real clients (tests/sqlport/) and the
#                            playground page in Chromium (tests/playground/);
#   scripts/test.sh --fast   the fast tier, before each commit (under 2 minutes on 2 cores): the
#                            unit and golden suites (`ctest -L fast`) and the end-to-end tests not
#                            marked slow (`pytest -m "not slow"`).
# Both tiers end with the dagster-strata tests (scripts/test_dagster.sh, about 25 s; the full
# tier adds the README's `dagster dev`, about 20 s more): they check the CLI's JSON contracts,
# which a change anywhere in the CLI can break.
# The tiers are the ctest labels fast/slow (strata_add_test's TIER, cmake/strata.cmake) and the
# pytest marker slow (tests/e2e/conftest.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tier=full
case "${1:-}" in
  "") ;;
  --fast) tier=fast ;;
  *) echo "usage: scripts/test.sh [--fast]" >&2; exit 2 ;;
esac
strata=$(bash "$root/scripts/build.sh")
ctest_args=()
pytest_args=()
if [ "$tier" = fast ]; then
  ctest_args=(-L fast)
  pytest_args=(-m "not slow")
fi
echo "== unit tests (ctest, $tier tier)"
(cd "$root/build" && ctest --output-on-failure -j2 --timeout 300 "${ctest_args[@]}")
echo "== end-to-end tests (pytest, $tier tier)"
STRATA_BIN="$strata" python3 -m pytest -q -p no:cacheprovider "${pytest_args[@]}" "$root/tests/e2e"
if [ "$tier" = full ]; then
  # The SQL port with real clients (psql, psycopg 3, SQLAlchemy 2 + pandas, pgjdbc on Java 17):
  # scripts/sqlport_clients.sh installs the pinned ones into build/sqlport-clients/.
  echo "== SQL port (pytest tests/sqlport, real clients against strata serve's sql_port)"
  clients=$(bash "$root/scripts/sqlport_clients.sh")
  STRATA_BIN="$strata" STRATA_PGJDBC_JAR="$clients/postgresql-42.7.14.jar" \
    "$clients/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/sqlport"
  # The playground page in Debian's Chromium (playwright-core, node --test), about a minute.
  echo "== playground (node --test tests/playground, Chromium against strata serve)"
  bash "$root/scripts/test_playground.sh" "$strata"
  # After ctest and the end-to-end tests, never beside them: one real Trino 476 for the session
  # (tests/trino/conftest.py; the first run fetches it, about 820 MB, into ~/.cache/strata-trino).
  echo "== Trino (pytest tests/trino, a real Trino 476 on 127.0.0.1)"
  STRATA_BIN="$strata" python3 -m pytest -q -p no:cacheprovider "$root/tests/trino"
fi
echo "== dagster-strata (pytest in build/dagster-venv)"
bash "$root/scripts/test_dagster.sh" "$strata" "${pytest_args[@]}"
