#!/usr/bin/env bash
# Installs everything Strata needs to build and test on a fresh Debian machine.
# Idempotent: packages already present are skipped, DuckDB is reused when present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential cmake ninja-build ccache pkg-config python3
  libtomlplusplus-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libsqlite3-dev libpq-dev postgresql libcpp-httplib-dev libasio-dev libxxhash-dev
  libssl-dev libcurl4-openssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libhowardhinnant-date-dev  # date/tz over the system tz database (base/time.h)
  tzdata
  openssl postgresql-client  # the SQL port's tests: a self-signed certificate, psql, pgbench
  # clang-format and clang-tidy: one pinned major version (scripts/check_format.sh, check_lint.sh)
  "clang-format-$(cat "$root/scripts/clang_format_major")"
  "clang-tidy-$(cat "$root/scripts/clang_format_major")"
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm (to fetch DuckDB) and pytest (end-to-end tests) come from the machine's toolchains when present.
if ! command -v npm >/dev/null 2>&1; then
  apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
# The end-to-end tests read warehouses with an independent DuckDB (the same 1.4.4 release) and
# validate JSON output against its schema.
python3 -c 'import pytest' >/dev/null 2>&1 || python3 -m pip install -q pytest==9.2.0
python3 -c 'import jsonschema' >/dev/null 2>&1 || python3 -m pip install -q jsonschema==4.26.0
python3 -c 'import duckdb, sys; sys.exit(duckdb.__version__ != "1.4.4")' >/dev/null 2>&1 ||
  python3 -m pip install -q duckdb==1.4.4
# pyarrow: the independent Parquet reader of the rollup store tests (tests/e2e/test_rollup_*.py).
python3 -c 'import pyarrow, sys; sys.exit(pyarrow.__version__ != "17.0.0")' >/dev/null 2>&1 ||
  python3 -m pip install -q pyarrow==17.0.0

# scripts/test_dagster.sh makes a virtualenv; Debian's own python3 needs python3-venv for it.
python3 -c 'import ensurepip' >/dev/null 2>&1 ||
  apt-get install -y -qq --no-install-recommends python3-venv >/dev/null

# DuckDB 1.4.4: the shared library from the node bindings package, the header from the duckdb
# package. Both fetched with `npm pack`, integrity compared with what the registry reports.
duck="$root/third_party/duckdb"
if [ ! -f "$duck/lib/libduckdb.so" ] || [ ! -f "$duck/include/duckdb.h" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fetch() {  # fetch SPEC: npm pack SPEC into $tmp, verify integrity, print the tarball path
    local spec=$1 expected actual file
    expected=$(npm view "$spec" dist.integrity)
    file=$(cd "$tmp" && npm pack --silent "$spec" | tail -n 1)
    actual="sha512-$(openssl dgst -sha512 -binary "$tmp/$file" | openssl base64 -A)"
    if [ "$expected" != "$actual" ]; then
      echo "setup: integrity mismatch for $spec: registry $expected, file $actual" >&2
      exit 1
    fi
    echo "$tmp/$file"
  }
  lib_tgz=$(fetch "@duckdb/node-bindings-linux-x64@1.4.4-r.4")
  hdr_tgz=$(fetch "duckdb@1.4.4")
  mkdir -p "$duck/lib" "$duck/include" "$tmp/lib" "$tmp/hdr"
  tar -xzf "$lib_tgz" -C "$tmp/lib"
  tar -xzf "$hdr_tgz" -C "$tmp/hdr" package/src/duckdb/src/include/duckdb.h
  cp "$(find "$tmp/lib" -name libduckdb.so | head -n 1)" "$duck/lib/libduckdb.so"
  cp "$tmp/hdr/package/src/duckdb/src/include/duckdb.h" "$duck/include/duckdb.h"
  echo "setup: DuckDB 1.4.4 unpacked into $duck" >&2
fi
