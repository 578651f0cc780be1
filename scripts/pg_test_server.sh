#!/usr/bin/env bash
# A throw-away PostgreSQL server for tests.
#
#   scripts/pg_test_server.sh start DIR   initdb into DIR (once), start the server, print its DSN
#   scripts/pg_test_server.sh stop DIR    stop the server (nothing to do when it is not running)
#   scripts/pg_test_server.sh dsn DIR     print the DSN of the running server
#
# The server listens on 127.0.0.1 only (no Unix socket), on a free port chosen here, with trust
# authentication for the superuser `strata` and durability switched off (fsync) for speed: test
# data only. PG_DURABLE=1 at the first `start` of DIR keeps PostgreSQL's durable defaults (fsync,
# synchronous_commit, full_page_writes on), as a production server has them: for benchmarks. Both commands are idempotent. PostgreSQL refuses to run as root: when run as root the
# cluster belongs to the `postgres` OS user (DIR is created and chowned to it, so DIR's parents must
# be searchable by that user: /tmp/strata-pg-XXXX is fine, a 0700 pytest folder is not).
#
# The server binaries come from $PG_BIN, else `pg_config --bindir`, else the newest
# /usr/lib/postgresql/*/bin (Debian's postgresql package), else PATH.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|dsn DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
command=$1
dir=$2
user=strata

find_bin() {
  local candidate
  for candidate in "${PG_BIN:-}" "$(pg_config --bindir 2>/dev/null || true)" \
                   $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -n "$candidate" ] && [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then
      echo "$candidate"
      return
    fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"
    return
  fi
  echo "pg_test_server: no PostgreSQL server binaries (initdb, pg_ctl) found; install the" \
       "postgresql package (scripts/setup.sh) or set PG_BIN" >&2
  exit 3
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

dsn() {
  echo "postgresql://$user@127.0.0.1:$(cat "$dir/port")/postgres"
}

running() {
  [ -f "$dir/data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

init_cluster() {
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    chmod 0700 "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      echo "pg_test_server: the postgres user cannot write $dir (are its parent folders" \
           "searchable by other users?); use a folder such as /tmp/strata-pg-XXXX" >&2
      exit 1
    fi
  fi
  if [ -f "$dir/data/PG_VERSION" ]; then
    return
  fi
  as_owner "$bin/initdb" -D "$dir/data" -U "$user" --auth=trust --encoding=UTF8 --locale=C \
    --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  local durability=off
  if [[ ${PG_DURABLE:-} == 1 ]]; then durability=on; fi
  cat >>"$dir/data/postgresql.conf" <<EOF
# pg_test_server.sh: a test server, local only, durability $durability.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = $durability
synchronous_commit = $durability
full_page_writes = $durability
max_connections = 100
timezone = 'UTC'
log_timezone = 'UTC'
deadlock_timeout = '200ms'
EOF
}

start() {
  init_cluster
  if running; then
    dsn
    return
  fi
  local attempt port
  # Another process may take the port between choosing and binding it: try a few.
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    echo "$port" >"$dir/port"
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
        -o "-p $port" start >/dev/null 2>&1; then
      dsn
      return
    fi
  done
  echo "pg_test_server: the server did not start; its log:" >&2
  tail -n 30 "$dir/data/server.log" >&2 || true
  exit 1
}

stop() {
  if [ ! -d "$dir" ]; then
    return
  fi
  if running; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
  fi
}

bin=$(find_bin)
case "$command" in
  start) start ;;
  stop) stop ;;
  dsn)
    running || { echo "pg_test_server: no server running in $dir" >&2; exit 1; }
    dsn
    ;;
  *) usage ;;
esac
