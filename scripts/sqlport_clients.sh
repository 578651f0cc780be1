#!/usr/bin/env bash
# The real clients the SQL port (`strata serve`, [serve] sql_port) is tested with, installed into
# an ignored folder, by default build/sqlport-clients/ (SQLPORT_CLIENTS_DIR overrides it):
#
#   venv/                          a Python venv with tests/sqlport/requirements.txt (psycopg 3,
#                                  SQLAlchemy 2, pandas), pinned; run venv/bin/python
#   postgresql-42.7.14.jar         pgjdbc from Maven Central, its SHA-256 checked
#
#   scripts/sqlport_clients.sh           install (idempotent), then print the folder
#   scripts/sqlport_clients.sh --print   print the folder only
#
# psql comes from Debian (postgresql-client) and Java 17 from the machine: neither is installed
# here. Exit status 3 when python3 or java is missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${SQLPORT_CLIENTS_DIR:-$root/build/sqlport-clients}
pgjdbc_version=42.7.14
pgjdbc_sha256=73914527305a40cce504b0d3d90b23caf565136912d607ae8ae7c5895512332c
pgjdbc_jar=$dir/postgresql-$pgjdbc_version.jar
pgjdbc_url=https://repo1.maven.org/maven2/org/postgresql/postgresql/$pgjdbc_version/postgresql-$pgjdbc_version.jar

if [[ ${1:-} == --print ]]; then
  echo "$dir"
  exit 0
fi
command -v python3 >/dev/null || { echo "sqlport_clients: python3 is missing" >&2; exit 3; }
command -v java >/dev/null || { echo "sqlport_clients: java (17) is missing" >&2; exit 3; }
mkdir -p "$dir"

requirements=$root/tests/sqlport/requirements.txt
stamp=$dir/venv/.requirements.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [[ ! -x $dir/venv/bin/python || ! -f $stamp || $(cat "$stamp") != "$wanted" ]]; then
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  echo "$wanted" >"$stamp"
fi

if [[ ! -f $pgjdbc_jar ]] || ! echo "$pgjdbc_sha256  $pgjdbc_jar" | sha256sum -c --quiet - 2>/dev/null; then
  curl -fsSL --retry 3 -o "$pgjdbc_jar.part" "$pgjdbc_url"
  if ! echo "$pgjdbc_sha256  $pgjdbc_jar.part" | sha256sum -c --quiet -; then
    echo "sqlport_clients: $pgjdbc_url does not have the expected SHA-256 $pgjdbc_sha256" >&2
    rm -f "$pgjdbc_jar.part"
    exit 1
  fi
  mv "$pgjdbc_jar.part" "$pgjdbc_jar"
fi
echo "$dir"
