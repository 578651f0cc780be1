#!/usr/bin/env bash
# A throw-away single-node Trino 476 for tests and benchmarks (issue 41).
#
#   scripts/trino_test_server.sh fetch        fetch and unpack Trino once (the cache below)
#   scripts/trino_test_server.sh start DIR    configure DIR (once), start Trino, wait until a table
#                                             is written and scanned (see ready), print its URL
#   scripts/trino_test_server.sh stop DIR     stop it (nothing to do when it is not running)
#   scripts/trino_test_server.sh url DIR      print the URL of the running server
#
# Trino listens on 127.0.0.1 only, on a free port chosen at the first start, with three catalogs
# whose data lives under DIR: `iceberg` and `hive` (both with a file metastore on the local disk)
# and `memory`. No authentication (plain http, user header only): test data only.
#
# The server comes from Maven Central (io.trino:trino-server:476, tar.gz) through the machine's
# Maven, is checked against the SHA-256 below and unpacked into $STRATA_TRINO_CACHE (default
# ~/.cache/strata-trino), outside any build folder, so fresh clones reuse it. It runs on Java 24 or
# newer: $TRINO_JAVA_HOME, else the newest /usr/lib/jvm/temurin-2[4-9]* JDK. Never called by
# scripts/setup.sh: the README's example does not need Trino.
set -euo pipefail

version=476
sha256=cfd5accde17e8ebd251eeeb78aed1f490e77bb3a164d95a0f454bf8a7c1cbd3f
cache=${STRATA_TRINO_CACHE:-$HOME/.cache/strata-trino}
home=$cache/trino-server-$version
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: $0 fetch | start DIR | stop DIR | url DIR" >&2
  exit 2
}

fail() {
  echo "trino_test_server: $*" >&2
  exit 1
}

fetch() {
  [ -x "$home/bin/launcher" ] && return
  mkdir -p "$cache"
  local archive=$cache/trino-server-$version.tar.gz
  if [ ! -f "$archive" ] || ! echo "$sha256  $archive" | sha256sum -c --quiet - 2>/dev/null; then
    command -v mvn >/dev/null 2>&1 || fail "Maven (mvn) is needed to fetch Trino; install maven"
    echo "trino_test_server: fetching io.trino:trino-server:$version (about 820 MB)" >&2
    mvn -q dependency:copy -Dartifact="io.trino:trino-server:$version:tar.gz" \
      -DoutputDirectory="$cache" -Dtransitive=false >&2 ||
      fail "mvn could not fetch io.trino:trino-server:$version:tar.gz"
  fi
  echo "$sha256  $archive" | sha256sum -c --quiet - ||
    fail "$archive does not have the pinned SHA-256; delete it and fetch again"
  rm -rf "$home.partial"
  mkdir -p "$home.partial"
  tar xzf "$archive" -C "$home.partial" --strip-components=1
  mv "$home.partial" "$home"
}

find_java() {
  local candidate
  for candidate in "${TRINO_JAVA_HOME:-}" $(ls -d /usr/lib/jvm/temurin-2[4-9]* 2>/dev/null | sort -V -r); do
    if [ -n "$candidate" ] && [ -x "$candidate/bin/java" ]; then
      echo "$candidate"
      return
    fi
  done
  fail "no Java 24+ found (Trino $version needs it): install temurin-25-jdk or set TRINO_JAVA_HOME"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

url() {
  echo "http://127.0.0.1:$(cat "$dir/port")"
}

pid_alive() {
  [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null
}

# Writes DIR/etc: the server, the JVM, and the catalogs. Only the plugins the catalogs use are
# loaded (DIR/plugin links to them): loading all 60 of the distribution's takes most of a start.
configure() {
  mkdir -p "$dir/etc/catalog" "$dir/plugin" "$dir/data" "$dir/warehouse"
  [ -f "$dir/port" ] || free_port >"$dir/port"
  local port
  port=$(cat "$dir/port")
  for plugin in iceberg hive memory; do
    ln -sfn "$home/plugin/$plugin" "$dir/plugin/$plugin"
  done
  cat >"$dir/etc/node.properties" <<EOF
node.environment=strata_test
node.id=strata-test-$port
node.data-dir=$dir/data
node.internal-address=127.0.0.1
EOF
  # One node, which is also the coordinator: its heartbeat failure detector has nothing to find
  # (and a late heartbeat to itself on a loaded machine would take the only worker away), so it
  # is off.
  cat >"$dir/etc/config.properties" <<EOF
coordinator=true
node-scheduler.include-coordinator=true
failure-detector.enabled=false
http-server.http.port=$port
discovery.uri=http://127.0.0.1:$port
plugin.dir=$dir/plugin
query.max-memory=2GB
query.max-memory-per-node=1GB
EOF
  cat >"$dir/etc/jvm.config" <<EOF
-server
-Xmx${TRINO_HEAP:-3G}
-XX:+UseG1GC
-XX:+ExitOnOutOfMemoryError
-XX:-OmitStackTraceInFastThrow
-Djdk.attach.allowAttachSelf=true
EOF
  cat >"$dir/etc/log.properties" <<EOF
io.trino=WARN
EOF
  cat >"$dir/etc/catalog/iceberg.properties" <<EOF
connector.name=iceberg
iceberg.catalog.type=TESTING_FILE_METASTORE
hive.metastore.catalog.dir=local://$dir/warehouse/iceberg
fs.native-local.enabled=true
local.location=/
EOF
  cat >"$dir/etc/catalog/hive.properties" <<EOF
connector.name=hive
hive.metastore=file
hive.metastore.catalog.dir=local://$dir/warehouse/hive
fs.native-local.enabled=true
local.location=/
hive.non-managed-table-writes-enabled=true
EOF
  cat >"$dir/etc/catalog/memory.properties" <<EOF
connector.name=memory
EOF
}

# One statement through the REST protocol, following nextUri to the end; prints the last page.
statement() {
  python3 "$root/scripts/trino_statement.py" "$(url)" "$1"
}

# Ready when a table is written and scanned on a worker: the HTTP port answers well before the
# catalogs load, and information_schema answers on the coordinator before its scheduler has seen
# the node as a worker (a first scan then failed with NO_NODES_AVAILABLE in CI, 2026-12-07).
ready() {
  statement "CREATE SCHEMA IF NOT EXISTS memory.strata_ready" &&
    statement "CREATE TABLE IF NOT EXISTS memory.strata_ready.probe AS SELECT 1 AS x" &&
    [ "$(statement "SELECT count(*) FROM memory.strata_ready.probe")" = 1 ]
}

start() {
  fetch
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if pid_alive; then
    url
    return
  fi
  configure
  local java
  java=$(find_java)
  JAVA_HOME=$java PATH="$java/bin:$PATH" "$home/bin/launcher" \
    --etc-dir="$dir/etc" --data-dir="$dir/data" --pid-file="$dir/pid" \
    --launcher-log-file="$dir/launcher.log" --server-log-file="$dir/server.log" start \
    >>"$dir/launcher.log" 2>&1
  local deadline=$((SECONDS + ${TRINO_START_TIMEOUT:-180}))
  until ready >/dev/null 2>&1; do
    if ! pid_alive; then
      tail -n 40 "$dir/server.log" "$dir/launcher.log" >&2 2>/dev/null || true
      fail "Trino exited during its start (logs in $dir)"
    fi
    [ $SECONDS -lt $deadline ] || fail "Trino did not answer a query within the start timeout (logs in $dir)"
    sleep 1
  done
  url
}

stop() {
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  pid_alive || return 0
  "$home/bin/launcher" --etc-dir="$dir/etc" --data-dir="$dir/data" --pid-file="$dir/pid" \
    stop >/dev/null 2>&1 || kill "$(cat "$dir/pid")" 2>/dev/null || true
  for _ in $(seq 1 60); do
    pid_alive || return 0
    sleep 0.5
  done
  kill -9 "$(cat "$dir/pid")" 2>/dev/null || true
}

[ $# -ge 1 ] || usage
command=$1
case "$command" in
  fetch)
    [ $# -eq 1 ] || usage
    fetch
    echo "$home"
    ;;
  start | stop | url)
    [ $# -eq 2 ] || usage
    dir=$2
    "$command"
    ;;
  *) usage ;;
esac
