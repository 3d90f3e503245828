#!/bin/sh
# The official image's first start, as far as the compose file relies on it:
# an empty PGDATA is initialised with the superuser postgres and
# POSTGRES_PASSWORD (scram-sha-256 over TCP, trust on the socket), the database
# POSTGRES_DB is created by a server that listens on the socket only (so a TCP
# health check passes only once the real server is up), then the server runs.
set -eu
if [ "${1:-postgres}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "Error: the database is uninitialized and POSTGRES_PASSWORD is not set." >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username=postgres --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  db=${POSTGRES_DB:-postgres}
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username postgres --dbname postgres -q -c "CREATE DATABASE \"$db\""
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "docker-entrypoint: initialised $PGDATA with database $db"
fi
if [ "${1:-postgres}" = postgres ]; then
  shift || true
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
